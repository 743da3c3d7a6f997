//! Every constant of the Sun `jvmpi.h` headers (JDK 1.2.1 – 5.0; all values identical across
//! them): versions, event types (with the [`REQUESTED_EVENT`] flag), return codes, thread
//! status values and bits, priorities, type codes, dump levels, heap-dump record tags and
//! monitor-dump tags. Each group is a Rust enum with `TryFrom` from the raw value and `Display`
//! printing the header's own name; [`raw`] has all 90 as plain `const`s under their header names.
//!
//! ```
//! use jvmpi_types::constants::{EventType, HeapDumpTag, ThreadStatus, raw};
//!
//! // A CLASS_LOAD delivered because the agent called RequestEvent.
//! let (ty, requested) = EventType::split(42 | raw::JVMPI_REQUESTED_EVENT)?;
//! assert_eq!((ty.to_string(), requested), ("JVMPI_EVENT_CLASS_LOAD".to_owned(), true));
//! assert_eq!(EventType::OBJ_ALLOC, EventType::ObjectAlloc); // legacy alias
//! assert_eq!(HeapDumpTag::try_from(0x20)?.name(), "JVMPI_GC_CLASS_DUMP");
//! assert!(HeapDumpTag::try_from(0x30).is_err());
//! let status = ThreadStatus::try_from(raw::JVMPI_THREAD_MONITOR_WAIT | raw::JVMPI_THREAD_SUSPENDED)?;
//! assert_eq!(status.to_string(), "JVMPI_THREAD_MONITOR_WAIT|JVMPI_THREAD_SUSPENDED");
//! # Ok::<(), jvmpi_types::Error>(())
//! ```

use core::fmt;

use crate::error::{Error, Result};

macro_rules! jvmpi_enum {
    (
        $(#[$doc:meta])*
        pub enum $name:ident : $repr:ty, $kind:literal {
            $( $(#[$vdoc:meta])* $variant:ident = $value:expr => $cname:literal, )+
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[repr($repr)]
        pub enum $name {
            $( $(#[$vdoc])* #[doc = concat!("`", $cname, "`")] $variant = $value, )+
        }

        impl $name {
            /// Every value, in header order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The raw value.
            #[must_use]
            pub const fn raw(self) -> $repr {
                self as $repr
            }

            /// The header's name for this value (`JVMPI_...`).
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $( Self::$variant => $cname, )+
                }
            }
        }

        impl TryFrom<$repr> for $name {
            type Error = Error;
            fn try_from(raw: $repr) -> Result<Self> {
                $( if raw == $value { return Ok(Self::$variant); } )+
                Err(Error::UnknownConstant { kind: $kind, value: i64::from(raw) })
            }
        }

        impl From<$name> for $repr {
            fn from(v: $name) -> $repr {
                v as $repr
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

jvmpi_enum! {
    /// JVMPI interface versions (`JVMPI_Interface.version`, the `GetEnv` version argument).
    pub enum Version: i32, "JVMPI version" {
        /// Classic VM; "implied 0 for minor version" (JDK 1.2.1+).
        Version1 = 0x1000_0001 => "JVMPI_VERSION_1",
        /// HotSpot since 1.2.2 (header since 1.3.1).
        Version1_1 = 0x1000_0002 => "JVMPI_VERSION_1_1",
        /// HotSpot since 1.4.2.
        Version1_2 = 0x1000_0003 => "JVMPI_VERSION_1_2",
    }
}

jvmpi_enum! {
    /// Event types (`JVMPI_Event.event_type` without the [`REQUESTED_EVENT`] bit).
    pub enum EventType: i32, "event type" {
        /// Method entered.
        MethodEntry = 1 => "JVMPI_EVENT_METHOD_ENTRY",
        /// Method entered, with receiver.
        MethodEntry2 = 2 => "JVMPI_EVENT_METHOD_ENTRY2",
        /// Method exited.
        MethodExit = 3 => "JVMPI_EVENT_METHOD_EXIT",
        /// Object allocated (or requested).
        ObjectAlloc = 4 => "JVMPI_EVENT_OBJECT_ALLOC",
        /// Object freed.
        ObjectFree = 5 => "JVMPI_EVENT_OBJECT_FREE",
        /// Object moved.
        ObjectMove = 6 => "JVMPI_EVENT_OBJECT_MOVE",
        /// Compiled method loaded.
        CompiledMethodLoad = 7 => "JVMPI_EVENT_COMPILED_METHOD_LOAD",
        /// Compiled method unloaded.
        CompiledMethodUnload = 8 => "JVMPI_EVENT_COMPILED_METHOD_UNLOAD",
        /// Bytecode instruction started (header since 1.3.0).
        InstructionStart = 9 => "JVMPI_EVENT_INSTRUCTION_START",
        /// Thread started (or requested).
        ThreadStart = 33 => "JVMPI_EVENT_THREAD_START",
        /// Thread ended.
        ThreadEnd = 34 => "JVMPI_EVENT_THREAD_END",
        /// Class file about to be loaded (may be instrumented).
        ClassLoadHook = 35 => "JVMPI_EVENT_CLASS_LOAD_HOOK",
        /// Heap dump (requested).
        HeapDump = 37 => "JVMPI_EVENT_HEAP_DUMP",
        /// JNI global reference created.
        JniGlobalrefAlloc = 38 => "JVMPI_EVENT_JNI_GLOBALREF_ALLOC",
        /// JNI global reference deleted.
        JniGlobalrefFree = 39 => "JVMPI_EVENT_JNI_GLOBALREF_FREE",
        /// JNI weak global reference created.
        JniWeakGlobalrefAlloc = 40 => "JVMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC",
        /// JNI weak global reference deleted.
        JniWeakGlobalrefFree = 41 => "JVMPI_EVENT_JNI_WEAK_GLOBALREF_FREE",
        /// Class loaded (or requested).
        ClassLoad = 42 => "JVMPI_EVENT_CLASS_LOAD",
        /// Class unloaded.
        ClassUnload = 43 => "JVMPI_EVENT_CLASS_UNLOAD",
        /// VM asks the agent to dump its data.
        DataDumpRequest = 44 => "JVMPI_EVENT_DATA_DUMP_REQUEST",
        /// VM asks the agent to reset its data.
        DataResetRequest = 45 => "JVMPI_EVENT_DATA_RESET_REQUEST",
        /// VM initialisation done.
        JvmInitDone = 46 => "JVMPI_EVENT_JVM_INIT_DONE",
        /// VM shutting down.
        JvmShutDown = 47 => "JVMPI_EVENT_JVM_SHUT_DOWN",
        /// New heap arena.
        ArenaNew = 48 => "JVMPI_EVENT_ARENA_NEW",
        /// Heap arena deleted.
        ArenaDelete = 49 => "JVMPI_EVENT_ARENA_DELETE",
        /// Object dump (requested).
        ObjectDump = 50 => "JVMPI_EVENT_OBJECT_DUMP",
        /// Contended raw monitor about to be entered.
        RawMonitorContendedEnter = 51 => "JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER",
        /// Contended raw monitor entered.
        RawMonitorContendedEntered = 52 => "JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED",
        /// Contended raw monitor exited.
        RawMonitorContendedExit = 53 => "JVMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT",
        /// Contended Java monitor about to be entered.
        MonitorContendedEnter = 54 => "JVMPI_EVENT_MONITOR_CONTENDED_ENTER",
        /// Contended Java monitor entered.
        MonitorContendedEntered = 55 => "JVMPI_EVENT_MONITOR_CONTENDED_ENTERED",
        /// Contended Java monitor exited.
        MonitorContendedExit = 56 => "JVMPI_EVENT_MONITOR_CONTENDED_EXIT",
        /// Thread about to wait on an object.
        MonitorWait = 57 => "JVMPI_EVENT_MONITOR_WAIT",
        /// Thread finished waiting on an object.
        MonitorWaited = 58 => "JVMPI_EVENT_MONITOR_WAITED",
        /// Monitor dump (requested).
        MonitorDump = 59 => "JVMPI_EVENT_MONITOR_DUMP",
        /// Garbage collection starting.
        GcStart = 60 => "JVMPI_EVENT_GC_START",
        /// Garbage collection finished.
        GcFinish = 61 => "JVMPI_EVENT_GC_FINISH",
    }
}

/// `JVMPI_MAX_EVENT_TYPE_VAL`: the largest event type value.
pub const MAX_EVENT_TYPE_VAL: i32 = 61;

/// `JVMPI_REQUESTED_EVENT`: OR-ed into `event_type` for events produced by `RequestEvent`.
pub const REQUESTED_EVENT: i32 = 0x1000_0000;

impl EventType {
    /// `JVMPI_EVENT_LOAD_COMPILED_METHOD` (legacy alias of `COMPILED_METHOD_LOAD`).
    pub const LOAD_COMPILED_METHOD: Self = Self::CompiledMethodLoad;
    /// `JVMPI_EVENT_UNLOAD_COMPILED_METHOD` (legacy alias of `COMPILED_METHOD_UNLOAD`).
    pub const UNLOAD_COMPILED_METHOD: Self = Self::CompiledMethodUnload;
    /// `JVMPI_EVENT_NEW_ARENA` (legacy alias of `ARENA_NEW`).
    pub const NEW_ARENA: Self = Self::ArenaNew;
    /// `JVMPI_EVENT_DELETE_ARENA` (legacy alias of `ARENA_DELETE`).
    pub const DELETE_ARENA: Self = Self::ArenaDelete;
    /// `JVMPI_EVENT_DUMP_DATA_REQUEST` (legacy alias of `DATA_DUMP_REQUEST`).
    pub const DUMP_DATA_REQUEST: Self = Self::DataDumpRequest;
    /// `JVMPI_EVENT_RESET_DATA_REQUEST` (legacy alias of `DATA_RESET_REQUEST`).
    pub const RESET_DATA_REQUEST: Self = Self::DataResetRequest;
    /// `JVMPI_EVENT_OBJ_ALLOC` (legacy alias of `OBJECT_ALLOC`).
    pub const OBJ_ALLOC: Self = Self::ObjectAlloc;
    /// `JVMPI_EVENT_OBJ_FREE` (legacy alias of `OBJECT_FREE`).
    pub const OBJ_FREE: Self = Self::ObjectFree;
    /// `JVMPI_EVENT_OBJ_MOVE` (legacy alias of `OBJECT_MOVE`).
    pub const OBJ_MOVE: Self = Self::ObjectMove;

    /// Splits a raw `event_type` into its base type and whether the [`REQUESTED_EVENT`] bit
    /// was set (`base = raw & !REQUESTED_EVENT`).
    pub fn split(raw: i32) -> Result<(Self, bool)> {
        let requested = raw & REQUESTED_EVENT != 0;
        let base = raw & !REQUESTED_EVENT;
        Self::try_from(base)
            .map(|t| (t, requested))
            .map_err(|_| Error::UnknownConstant {
                kind: "event type",
                value: i64::from(raw),
            })
    }

    /// The raw `event_type` for this type, with the [`REQUESTED_EVENT`] bit if `requested`.
    #[must_use]
    pub const fn with_requested(self, requested: bool) -> i32 {
        if requested {
            self as i32 | REQUESTED_EVENT
        } else {
            self as i32
        }
    }
}

jvmpi_enum! {
    /// Return codes of `EnableEvent`, `DisableEvent` and `RequestEvent`.
    pub enum ReturnCode: i32, "return code" {
        /// Success.
        Success = 0 => "JVMPI_SUCCESS",
        /// Not supported for this event type.
        NotAvailable = 1 => "JVMPI_NOT_AVAILABLE",
        /// Failure.
        Fail = -1 => "JVMPI_FAIL",
    }
}

jvmpi_enum! {
    /// Thread states returned by `GetThreadStatus` and in `monitor_dump.threads_status[]`.
    pub enum ThreadState: i32, "thread state" {
        /// Runnable.
        Runnable = 1 => "JVMPI_THREAD_RUNNABLE",
        /// Waiting to enter a monitor.
        MonitorWait = 2 => "JVMPI_THREAD_MONITOR_WAIT",
        /// Waiting on a condition variable (`Object.wait`).
        CondvarWait = 3 => "JVMPI_THREAD_CONDVAR_WAIT",
    }
}

/// `JVMPI_THREAD_SUSPENDED`: OR-ed into a thread status when the thread is suspended.
pub const THREAD_SUSPENDED: i32 = 0x8000;
/// `JVMPI_THREAD_INTERRUPTED`: OR-ed into a thread status when the thread is interrupted.
pub const THREAD_INTERRUPTED: i32 = 0x4000;

/// A whole thread status: a [`ThreadState`] plus the suspended/interrupted bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThreadStatus {
    /// The state.
    pub state: ThreadState,
    /// `JVMPI_THREAD_SUSPENDED` set.
    pub suspended: bool,
    /// `JVMPI_THREAD_INTERRUPTED` set.
    pub interrupted: bool,
}

impl ThreadStatus {
    /// The raw `jint`.
    #[must_use]
    pub const fn raw(self) -> i32 {
        let mut v = self.state as i32;
        if self.suspended {
            v |= THREAD_SUSPENDED;
        }
        if self.interrupted {
            v |= THREAD_INTERRUPTED;
        }
        v
    }
}

impl TryFrom<i32> for ThreadStatus {
    type Error = Error;
    fn try_from(raw: i32) -> Result<Self> {
        let bits = THREAD_SUSPENDED | THREAD_INTERRUPTED;
        let state = ThreadState::try_from(raw & !bits).map_err(|_| Error::UnknownConstant {
            kind: "thread status",
            value: i64::from(raw),
        })?;
        Ok(Self {
            state,
            suspended: raw & THREAD_SUSPENDED != 0,
            interrupted: raw & THREAD_INTERRUPTED != 0,
        })
    }
}

impl fmt::Display for ThreadStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.state.name())?;
        if self.suspended {
            f.write_str("|JVMPI_THREAD_SUSPENDED")?;
        }
        if self.interrupted {
            f.write_str("|JVMPI_THREAD_INTERRUPTED")?;
        }
        Ok(())
    }
}

jvmpi_enum! {
    /// Thread priorities for `CreateSystemThread`.
    pub enum Priority: i32, "thread priority" {
        /// Lowest.
        Minimum = 1 => "JVMPI_MINIMUM_PRIORITY",
        /// Normal.
        Normal = 5 => "JVMPI_NORMAL_PRIORITY",
        /// Highest.
        Maximum = 10 => "JVMPI_MAXIMUM_PRIORITY",
    }
}

jvmpi_enum! {
    /// Object and value type codes: `obj_alloc.is_array`, the dump `ty` byte, the level-0
    /// object type. 4–11 equal the JVM `newarray` codes.
    pub enum TypeCode: u8, "type code" {
        /// A normal object (not an array).
        NormalObject = 0 => "JVMPI_NORMAL_OBJECT",
        /// An object array, or an object reference value.
        Class = 2 => "JVMPI_CLASS",
        /// `boolean` (u1).
        Boolean = 4 => "JVMPI_BOOLEAN",
        /// `char` (u2).
        Char = 5 => "JVMPI_CHAR",
        /// `float` (u4).
        Float = 6 => "JVMPI_FLOAT",
        /// `double` (u8).
        Double = 7 => "JVMPI_DOUBLE",
        /// `byte` (u1).
        Byte = 8 => "JVMPI_BYTE",
        /// `short` (u2).
        Short = 9 => "JVMPI_SHORT",
        /// `int` (u4).
        Int = 10 => "JVMPI_INT",
        /// `long` (u8).
        Long = 11 => "JVMPI_LONG",
    }
}

impl TypeCode {
    /// Whether this is a primitive type (4–11).
    #[must_use]
    pub const fn is_primitive(self) -> bool {
        !matches!(self, Self::NormalObject | Self::Class)
    }

    /// Size of a value of this type in a dump buffer, in bytes (`None` for references,
    /// whose size is the identifier size).
    #[must_use]
    pub const fn primitive_size(self) -> Option<usize> {
        match self {
            Self::NormalObject | Self::Class => None,
            Self::Boolean | Self::Byte => Some(1),
            Self::Char | Self::Short => Some(2),
            Self::Float | Self::Int => Some(4),
            Self::Double | Self::Long => Some(8),
        }
    }

    /// The type of a field from its signature (`JVMPI_Field.field_signature`): `L...;` and
    /// `[...` are references ([`TypeCode::Class`]).
    pub fn from_signature(sig: &str) -> Result<Self> {
        let bad = || Error::BadSignature {
            found: sig.to_owned(),
        };
        Ok(match sig.as_bytes().first().ok_or_else(bad)? {
            b'Z' => Self::Boolean,
            b'B' => Self::Byte,
            b'C' => Self::Char,
            b'S' => Self::Short,
            b'I' => Self::Int,
            b'J' => Self::Long,
            b'F' => Self::Float,
            b'D' => Self::Double,
            b'L' | b'[' => Self::Class,
            _ => return Err(bad()),
        })
    }
}

impl TryFrom<i32> for TypeCode {
    type Error = Error;
    fn try_from(raw: i32) -> Result<Self> {
        u8::try_from(raw)
            .ok()
            .and_then(|b| Self::try_from(b).ok())
            .ok_or(Error::UnknownConstant {
                kind: "type code",
                value: i64::from(raw),
            })
    }
}

jvmpi_enum! {
    /// Monitor dump record tags (u1).
    pub enum MonitorDumpTag: u8, "monitor dump tag" {
        /// A Java monitor.
        Java = 0x01 => "JVMPI_MONITOR_JAVA",
        /// A raw monitor.
        Raw = 0x02 => "JVMPI_MONITOR_RAW",
    }
}

jvmpi_enum! {
    /// Heap dump record tags (u1) of levels 1 and 2 (equal to the HPROF sub-record tags).
    pub enum HeapDumpTag: u8, "heap dump tag" {
        /// Root of unknown kind.
        RootUnknown = 0xff => "JVMPI_GC_ROOT_UNKNOWN",
        /// JNI global reference.
        RootJniGlobal = 0x01 => "JVMPI_GC_ROOT_JNI_GLOBAL",
        /// JNI local reference.
        RootJniLocal = 0x02 => "JVMPI_GC_ROOT_JNI_LOCAL",
        /// Java stack frame.
        RootJavaFrame = 0x03 => "JVMPI_GC_ROOT_JAVA_FRAME",
        /// Native stack.
        RootNativeStack = 0x04 => "JVMPI_GC_ROOT_NATIVE_STACK",
        /// System class.
        RootStickyClass = 0x05 => "JVMPI_GC_ROOT_STICKY_CLASS",
        /// Reference from a thread block.
        RootThreadBlock = 0x06 => "JVMPI_GC_ROOT_THREAD_BLOCK",
        /// Entered monitor.
        RootMonitorUsed = 0x07 => "JVMPI_GC_ROOT_MONITOR_USED",
        /// Thread object: defined, but no layout documented and never written by a VM.
        RootThreadObj = 0x08 => "JVMPI_GC_ROOT_THREAD_OBJ",
        /// Class object dump.
        ClassDump = 0x20 => "JVMPI_GC_CLASS_DUMP",
        /// Normal object dump.
        InstanceDump = 0x21 => "JVMPI_GC_INSTANCE_DUMP",
        /// Object array dump.
        ObjArrayDump = 0x22 => "JVMPI_GC_OBJ_ARRAY_DUMP",
        /// Primitive array dump.
        PrimArrayDump = 0x23 => "JVMPI_GC_PRIM_ARRAY_DUMP",
    }
}

jvmpi_enum! {
    /// Heap dump levels (`JVMPI_HeapDumpArg.heap_dump_level`).
    pub enum DumpLevel: i32, "dump level" {
        /// Object types and ids only.
        Level0 = 0 => "JVMPI_DUMP_LEVEL_0",
        /// Level 2 without primitive values.
        Level1 = 1 => "JVMPI_DUMP_LEVEL_1",
        /// Everything (the default when `RequestEvent` gets no argument).
        Level2 = 2 => "JVMPI_DUMP_LEVEL_2",
    }
}

#[allow(clippy::derivable_impls)] // the enum comes from a macro
impl Default for DumpLevel {
    fn default() -> Self {
        Self::Level2
    }
}

/// All 90 header constants as plain `const`s under their `jvmpi.h` names.
#[allow(missing_docs)]
pub mod raw {
    macro_rules! consts {
        ($( $name:ident : $t:ty = $v:expr; )+) => {
            $( #[doc = concat!("`", stringify!($name), "`")] pub const $name: $t = $v; )+
            /// Every constant as `(header name, value)`, in header order.
            pub const ALL: &[(&str, i64)] = &[$( (stringify!($name), $v as i64) ),+];
        };
    }

    consts! {
        JVMPI_VERSION_1: i32 = 0x1000_0001;
        JVMPI_VERSION_1_1: i32 = 0x1000_0002;
        JVMPI_VERSION_1_2: i32 = 0x1000_0003;
        JVMPI_EVENT_METHOD_ENTRY: i32 = 1;
        JVMPI_EVENT_METHOD_ENTRY2: i32 = 2;
        JVMPI_EVENT_METHOD_EXIT: i32 = 3;
        JVMPI_EVENT_OBJECT_ALLOC: i32 = 4;
        JVMPI_EVENT_OBJECT_FREE: i32 = 5;
        JVMPI_EVENT_OBJECT_MOVE: i32 = 6;
        JVMPI_EVENT_COMPILED_METHOD_LOAD: i32 = 7;
        JVMPI_EVENT_COMPILED_METHOD_UNLOAD: i32 = 8;
        JVMPI_EVENT_INSTRUCTION_START: i32 = 9;
        JVMPI_EVENT_THREAD_START: i32 = 33;
        JVMPI_EVENT_THREAD_END: i32 = 34;
        JVMPI_EVENT_CLASS_LOAD_HOOK: i32 = 35;
        JVMPI_EVENT_HEAP_DUMP: i32 = 37;
        JVMPI_EVENT_JNI_GLOBALREF_ALLOC: i32 = 38;
        JVMPI_EVENT_JNI_GLOBALREF_FREE: i32 = 39;
        JVMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC: i32 = 40;
        JVMPI_EVENT_JNI_WEAK_GLOBALREF_FREE: i32 = 41;
        JVMPI_EVENT_CLASS_LOAD: i32 = 42;
        JVMPI_EVENT_CLASS_UNLOAD: i32 = 43;
        JVMPI_EVENT_DATA_DUMP_REQUEST: i32 = 44;
        JVMPI_EVENT_DATA_RESET_REQUEST: i32 = 45;
        JVMPI_EVENT_JVM_INIT_DONE: i32 = 46;
        JVMPI_EVENT_JVM_SHUT_DOWN: i32 = 47;
        JVMPI_EVENT_ARENA_NEW: i32 = 48;
        JVMPI_EVENT_ARENA_DELETE: i32 = 49;
        JVMPI_EVENT_OBJECT_DUMP: i32 = 50;
        JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER: i32 = 51;
        JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED: i32 = 52;
        JVMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT: i32 = 53;
        JVMPI_EVENT_MONITOR_CONTENDED_ENTER: i32 = 54;
        JVMPI_EVENT_MONITOR_CONTENDED_ENTERED: i32 = 55;
        JVMPI_EVENT_MONITOR_CONTENDED_EXIT: i32 = 56;
        JVMPI_EVENT_MONITOR_WAIT: i32 = 57;
        JVMPI_EVENT_MONITOR_WAITED: i32 = 58;
        JVMPI_EVENT_MONITOR_DUMP: i32 = 59;
        JVMPI_EVENT_GC_START: i32 = 60;
        JVMPI_EVENT_GC_FINISH: i32 = 61;
        JVMPI_MAX_EVENT_TYPE_VAL: i32 = 61;
        JVMPI_EVENT_LOAD_COMPILED_METHOD: i32 = 7;
        JVMPI_EVENT_UNLOAD_COMPILED_METHOD: i32 = 8;
        JVMPI_EVENT_NEW_ARENA: i32 = 48;
        JVMPI_EVENT_DELETE_ARENA: i32 = 49;
        JVMPI_EVENT_DUMP_DATA_REQUEST: i32 = 44;
        JVMPI_EVENT_RESET_DATA_REQUEST: i32 = 45;
        JVMPI_EVENT_OBJ_ALLOC: i32 = 4;
        JVMPI_EVENT_OBJ_FREE: i32 = 5;
        JVMPI_EVENT_OBJ_MOVE: i32 = 6;
        JVMPI_REQUESTED_EVENT: i32 = 0x1000_0000;
        JVMPI_SUCCESS: i32 = 0;
        JVMPI_NOT_AVAILABLE: i32 = 1;
        JVMPI_FAIL: i32 = -1;
        JVMPI_THREAD_RUNNABLE: i32 = 1;
        JVMPI_THREAD_MONITOR_WAIT: i32 = 2;
        JVMPI_THREAD_CONDVAR_WAIT: i32 = 3;
        JVMPI_THREAD_SUSPENDED: i32 = 0x8000;
        JVMPI_THREAD_INTERRUPTED: i32 = 0x4000;
        JVMPI_MINIMUM_PRIORITY: i32 = 1;
        JVMPI_NORMAL_PRIORITY: i32 = 5;
        JVMPI_MAXIMUM_PRIORITY: i32 = 10;
        JVMPI_NORMAL_OBJECT: i32 = 0;
        JVMPI_CLASS: i32 = 2;
        JVMPI_BOOLEAN: i32 = 4;
        JVMPI_CHAR: i32 = 5;
        JVMPI_FLOAT: i32 = 6;
        JVMPI_DOUBLE: i32 = 7;
        JVMPI_BYTE: i32 = 8;
        JVMPI_SHORT: i32 = 9;
        JVMPI_INT: i32 = 10;
        JVMPI_LONG: i32 = 11;
        JVMPI_MONITOR_JAVA: i32 = 0x01;
        JVMPI_MONITOR_RAW: i32 = 0x02;
        JVMPI_GC_ROOT_UNKNOWN: i32 = 0xff;
        JVMPI_GC_ROOT_JNI_GLOBAL: i32 = 0x01;
        JVMPI_GC_ROOT_JNI_LOCAL: i32 = 0x02;
        JVMPI_GC_ROOT_JAVA_FRAME: i32 = 0x03;
        JVMPI_GC_ROOT_NATIVE_STACK: i32 = 0x04;
        JVMPI_GC_ROOT_STICKY_CLASS: i32 = 0x05;
        JVMPI_GC_ROOT_THREAD_BLOCK: i32 = 0x06;
        JVMPI_GC_ROOT_MONITOR_USED: i32 = 0x07;
        JVMPI_GC_ROOT_THREAD_OBJ: i32 = 0x08;
        JVMPI_GC_CLASS_DUMP: i32 = 0x20;
        JVMPI_GC_INSTANCE_DUMP: i32 = 0x21;
        JVMPI_GC_OBJ_ARRAY_DUMP: i32 = 0x22;
        JVMPI_GC_PRIM_ARRAY_DUMP: i32 = 0x23;
        JVMPI_DUMP_LEVEL_0: i32 = 0;
        JVMPI_DUMP_LEVEL_1: i32 = 1;
        JVMPI_DUMP_LEVEL_2: i32 = 2;
    }
}
