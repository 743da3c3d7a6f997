//! The event-specific structs of the `JVMPI_Event` union (JVMPI spec §3 "Events", §5 "Data
//! types") as owned Rust values: pointers to VM data become strings, vectors and typed ids;
//! [`Event`] is one enum over every event type, [`JvmpiEvent`] adds the `event_type` flags and
//! the `env_id` of the `JVMPI_Event` envelope. With the `serde` feature (on by default) everything is serde-serialisable.

use crate::constants::{DumpLevel, EventType, ThreadStatus, TypeCode};
use crate::ids::{EnvId, JniRef, MethodId, ObjectId, Pointer, RawMonitorId};

/// `JVMPI_CallFrame`: one frame of a call trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CallFrame {
    /// Source line number (-3 marks a native frame in HotSpot and CVM).
    pub lineno: i32,
    /// The method.
    pub method_id: MethodId,
}

/// `JVMPI_CallTrace`: a thread's call trace, innermost (callee) frame first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CallTrace {
    /// The thread.
    pub env_id: EnvId,
    /// Frames (`num_frames` of them).
    pub frames: Vec<CallFrame>,
}

/// `JVMPI_Field`: a field declared by a class.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Field {
    /// Field name.
    pub field_name: String,
    /// Field signature (`I`, `Ljava/lang/String;`, ...).
    pub field_signature: String,
}

/// `JVMPI_Method`: a method declared by a class.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Method {
    /// Method name.
    pub method_name: String,
    /// Method signature.
    pub method_signature: String,
    /// First source line (-1 if native or abstract).
    pub start_lineno: i32,
    /// Last source line (-1 if native or abstract).
    pub end_lineno: i32,
    /// The method's id.
    pub method_id: MethodId,
}

/// `JVMPI_Lineno`: maps an offset in compiled code to a source line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Lineno {
    /// Offset from the start of the method's code.
    pub offset: i32,
    /// Source line number.
    pub lineno: i32,
}

/// `JVMPI_HeapDumpArg`: the `RequestEvent` argument of `JVMPI_EVENT_HEAP_DUMP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapDumpArg {
    /// Requested level (level 2 when `RequestEvent` gets NULL).
    pub heap_dump_level: DumpLevel,
}

/// `class_load` (`JVMPI_EVENT_CLASS_LOAD`). `statics` and `instances` are the class's own
/// fields, in the order the VM uses in dumps (HotSpot: reverse declaration order).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassLoad {
    /// Class name (`java/lang/String`).
    pub class_name: String,
    /// Source file name (absent for array classes).
    pub source_name: Option<String>,
    /// Number of directly implemented interfaces.
    pub num_interfaces: i32,
    /// Methods declared.
    pub methods: Vec<Method>,
    /// Static fields declared.
    pub statics: Vec<Field>,
    /// Instance fields declared.
    pub instances: Vec<Field>,
    /// The class object's id.
    pub class_id: ObjectId,
}

/// `class_unload` (`JVMPI_EVENT_CLASS_UNLOAD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassUnload {
    /// The class.
    pub class_id: ObjectId,
}

/// `class_load_hook` (`JVMPI_EVENT_CLASS_LOAD_HOOK`); the `malloc_f` pointer is not data.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassLoadHook {
    /// The class file bytes (`class_data[0 .. class_data_len)`).
    pub class_data: Vec<u8>,
    /// The instrumented class file the agent hands back.
    pub new_class_data: Vec<u8>,
}

/// `obj_alloc` (`JVMPI_EVENT_OBJECT_ALLOC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjAlloc {
    /// Arena.
    pub arena_id: i32,
    /// Class (element class for object arrays; NULL for primitive arrays).
    pub class_id: ObjectId,
    /// `JVMPI_NORMAL_OBJECT`, `JVMPI_CLASS` (object array) or a primitive array type.
    pub is_array: TypeCode,
    /// Size in bytes.
    pub size: i32,
    /// The new object.
    pub obj_id: ObjectId,
}

/// `obj_free` (`JVMPI_EVENT_OBJECT_FREE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjFree {
    /// The object.
    pub obj_id: ObjectId,
}

/// `obj_move` (`JVMPI_EVENT_OBJECT_MOVE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjMove {
    /// Current arena.
    pub arena_id: i32,
    /// Current id.
    pub obj_id: ObjectId,
    /// New arena.
    pub new_arena_id: i32,
    /// New id.
    pub new_obj_id: ObjectId,
}

/// `new_arena` (`JVMPI_EVENT_ARENA_NEW`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NewArena {
    /// Arena id.
    pub arena_id: i32,
    /// Arena name.
    pub arena_name: String,
}

/// `delete_arena` (`JVMPI_EVENT_ARENA_DELETE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DeleteArena {
    /// Arena id.
    pub arena_id: i32,
}

/// `thread_start` (`JVMPI_EVENT_THREAD_START`, and `JVMPI_EVENT_THREAD_END` in HotSpot).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThreadStart {
    /// Thread name.
    pub thread_name: String,
    /// Thread group name.
    pub group_name: String,
    /// Parent thread name (absent for root threads).
    pub parent_name: Option<String>,
    /// The `java.lang.Thread` object.
    pub thread_id: ObjectId,
    /// The thread's `JNIEnv *`.
    pub thread_env_id: EnvId,
}

/// `heap_dump` (`JVMPI_EVENT_HEAP_DUMP`); decode `data` with [`crate::dump::heap`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapDump {
    /// Level requested.
    pub dump_level: DumpLevel,
    /// The buffer `begin .. end`.
    pub data: Vec<u8>,
    /// Traces of the threads holding GC roots (`num_traces`; HotSpot: one per thread).
    pub traces: Vec<CallTrace>,
}

/// `jni_globalref_alloc` (`JVMPI_EVENT_JNI_GLOBALREF_ALLOC`, `_WEAK_GLOBALREF_ALLOC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JniGlobalrefAlloc {
    /// The object referred to.
    pub obj_id: ObjectId,
    /// The reference.
    pub ref_id: JniRef,
}

/// `jni_globalref_free` (`JVMPI_EVENT_JNI_GLOBALREF_FREE`, `_WEAK_GLOBALREF_FREE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JniGlobalrefFree {
    /// The reference.
    pub ref_id: JniRef,
}

/// `method` (`JVMPI_EVENT_METHOD_ENTRY`, `JVMPI_EVENT_METHOD_EXIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MethodEvent {
    /// The method.
    pub method_id: MethodId,
}

/// `method_entry2` (`JVMPI_EVENT_METHOD_ENTRY2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MethodEntry2 {
    /// The method.
    pub method_id: MethodId,
    /// The receiver (NULL for static methods).
    pub obj_id: ObjectId,
}

/// `compiled_method_load` (`JVMPI_EVENT_COMPILED_METHOD_LOAD`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CompiledMethodLoad {
    /// The method.
    pub method_id: MethodId,
    /// Where its code was loaded.
    pub code_addr: Pointer,
    /// Code size in bytes.
    pub code_size: i32,
    /// Offset → line table (`lineno_table_size` entries).
    pub lineno_table: Vec<Lineno>,
}

/// `compiled_method_unload` (`JVMPI_EVENT_COMPILED_METHOD_UNLOAD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CompiledMethodUnload {
    /// The method.
    pub method_id: MethodId,
}

/// The inner union of `instruction`: which member applies depends on the bytecode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum InstructionInfo {
    /// Any bytecode other than a conditional branch or switch.
    None,
    /// `if_info`: whether the branch was taken.
    If {
        /// Branch taken.
        is_true: bool,
    },
    /// `tableswitch_info`.
    Tableswitch {
        /// The index value on the stack.
        key: i32,
        /// Lowest index.
        low: i32,
        /// Highest index.
        hi: i32,
    },
    /// `lookupswitch_info` (Sun headers): `chosen_pair_index == pairs_total` means the
    /// default branch.
    Lookupswitch {
        /// Chosen pair (0-based).
        chosen_pair_index: i32,
        /// Number of pairs.
        pairs_total: i32,
    },
}

/// `instruction` (`JVMPI_EVENT_INSTRUCTION_START`, headers since 1.3.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InstructionStart {
    /// The method.
    pub method_id: MethodId,
    /// Bytecode offset.
    pub offset: i32,
    /// Branch/switch details.
    pub info: InstructionInfo,
}

/// `monitor_dump` (`JVMPI_EVENT_MONITOR_DUMP`); decode `data` with [`crate::dump::monitor`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorDump {
    /// The buffer `begin .. end`.
    pub data: Vec<u8>,
    /// One trace per thread (CVM; HotSpot 5.0 gives none).
    pub traces: Vec<CallTrace>,
    /// `threads_status[i]` belongs to `traces[i]`.
    pub threads_status: Vec<ThreadStatus>,
}

/// `raw_monitor` (`JVMPI_EVENT_RAW_MONITOR_CONTENDED_*`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawMonitorEvent {
    /// Raw monitor name.
    pub name: String,
    /// Raw monitor id.
    pub id: RawMonitorId,
}

/// `monitor` (`JVMPI_EVENT_MONITOR_CONTENDED_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorEvent {
    /// The object whose monitor is contended.
    pub object: ObjectId,
}

/// `monitor_wait` (`JVMPI_EVENT_MONITOR_WAIT`, `JVMPI_EVENT_MONITOR_WAITED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorWait {
    /// The object waited on (NULL for `Thread.sleep`).
    pub object: ObjectId,
    /// Milliseconds (WAIT: timeout, 0 = forever; WAITED: time waited).
    pub timeout: i64,
}

/// `gc_info` (`JVMPI_EVENT_GC_FINISH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GcInfo {
    /// Live objects.
    pub used_objects: i64,
    /// Bytes used by objects.
    pub used_object_space: i64,
    /// Total object space in bytes.
    pub total_object_space: i64,
}

/// `object_dump` (`JVMPI_EVENT_OBJECT_DUMP`); decode `data` with [`crate::dump::object`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjectDump {
    /// The buffer `data[0 .. data_len)`.
    pub data: Vec<u8>,
}

/// The event-specific part of every JVMPI event, one variant per event type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Event {
    /// `JVMPI_EVENT_METHOD_ENTRY`.
    MethodEntry(MethodEvent),
    /// `JVMPI_EVENT_METHOD_ENTRY2`.
    MethodEntry2(MethodEntry2),
    /// `JVMPI_EVENT_METHOD_EXIT`.
    MethodExit(MethodEvent),
    /// `JVMPI_EVENT_OBJECT_ALLOC`.
    ObjectAlloc(ObjAlloc),
    /// `JVMPI_EVENT_OBJECT_FREE`.
    ObjectFree(ObjFree),
    /// `JVMPI_EVENT_OBJECT_MOVE`.
    ObjectMove(ObjMove),
    /// `JVMPI_EVENT_COMPILED_METHOD_LOAD`.
    CompiledMethodLoad(CompiledMethodLoad),
    /// `JVMPI_EVENT_COMPILED_METHOD_UNLOAD`.
    CompiledMethodUnload(CompiledMethodUnload),
    /// `JVMPI_EVENT_INSTRUCTION_START`.
    InstructionStart(InstructionStart),
    /// `JVMPI_EVENT_THREAD_START`.
    ThreadStart(ThreadStart),
    /// `JVMPI_EVENT_THREAD_END` (HotSpot fills the `thread_start` member; others only
    /// `env_id`, in which case the fields are empty/NULL).
    ThreadEnd(ThreadStart),
    /// `JVMPI_EVENT_CLASS_LOAD_HOOK`.
    ClassLoadHook(ClassLoadHook),
    /// `JVMPI_EVENT_HEAP_DUMP`.
    HeapDump(HeapDump),
    /// `JVMPI_EVENT_JNI_GLOBALREF_ALLOC`.
    JniGlobalrefAlloc(JniGlobalrefAlloc),
    /// `JVMPI_EVENT_JNI_GLOBALREF_FREE`.
    JniGlobalrefFree(JniGlobalrefFree),
    /// `JVMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC`.
    JniWeakGlobalrefAlloc(JniGlobalrefAlloc),
    /// `JVMPI_EVENT_JNI_WEAK_GLOBALREF_FREE`.
    JniWeakGlobalrefFree(JniGlobalrefFree),
    /// `JVMPI_EVENT_CLASS_LOAD`.
    ClassLoad(ClassLoad),
    /// `JVMPI_EVENT_CLASS_UNLOAD`.
    ClassUnload(ClassUnload),
    /// `JVMPI_EVENT_DATA_DUMP_REQUEST` (no data).
    DataDumpRequest,
    /// `JVMPI_EVENT_DATA_RESET_REQUEST` (no data).
    DataResetRequest,
    /// `JVMPI_EVENT_JVM_INIT_DONE` (no data).
    JvmInitDone,
    /// `JVMPI_EVENT_JVM_SHUT_DOWN` (no data).
    JvmShutDown,
    /// `JVMPI_EVENT_ARENA_NEW`.
    ArenaNew(NewArena),
    /// `JVMPI_EVENT_ARENA_DELETE`.
    ArenaDelete(DeleteArena),
    /// `JVMPI_EVENT_OBJECT_DUMP`.
    ObjectDump(ObjectDump),
    /// `JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER`.
    RawMonitorContendedEnter(RawMonitorEvent),
    /// `JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED`.
    RawMonitorContendedEntered(RawMonitorEvent),
    /// `JVMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT`.
    RawMonitorContendedExit(RawMonitorEvent),
    /// `JVMPI_EVENT_MONITOR_CONTENDED_ENTER`.
    MonitorContendedEnter(MonitorEvent),
    /// `JVMPI_EVENT_MONITOR_CONTENDED_ENTERED`.
    MonitorContendedEntered(MonitorEvent),
    /// `JVMPI_EVENT_MONITOR_CONTENDED_EXIT`.
    MonitorContendedExit(MonitorEvent),
    /// `JVMPI_EVENT_MONITOR_WAIT`.
    MonitorWait(MonitorWait),
    /// `JVMPI_EVENT_MONITOR_WAITED`.
    MonitorWaited(MonitorWait),
    /// `JVMPI_EVENT_MONITOR_DUMP`.
    MonitorDump(MonitorDump),
    /// `JVMPI_EVENT_GC_START` (no data).
    GcStart,
    /// `JVMPI_EVENT_GC_FINISH`.
    GcFinish(GcInfo),
}

impl Event {
    /// The event type of this event.
    #[must_use]
    pub const fn event_type(&self) -> EventType {
        match self {
            Self::MethodEntry(_) => EventType::MethodEntry,
            Self::MethodEntry2(_) => EventType::MethodEntry2,
            Self::MethodExit(_) => EventType::MethodExit,
            Self::ObjectAlloc(_) => EventType::ObjectAlloc,
            Self::ObjectFree(_) => EventType::ObjectFree,
            Self::ObjectMove(_) => EventType::ObjectMove,
            Self::CompiledMethodLoad(_) => EventType::CompiledMethodLoad,
            Self::CompiledMethodUnload(_) => EventType::CompiledMethodUnload,
            Self::InstructionStart(_) => EventType::InstructionStart,
            Self::ThreadStart(_) => EventType::ThreadStart,
            Self::ThreadEnd(_) => EventType::ThreadEnd,
            Self::ClassLoadHook(_) => EventType::ClassLoadHook,
            Self::HeapDump(_) => EventType::HeapDump,
            Self::JniGlobalrefAlloc(_) => EventType::JniGlobalrefAlloc,
            Self::JniGlobalrefFree(_) => EventType::JniGlobalrefFree,
            Self::JniWeakGlobalrefAlloc(_) => EventType::JniWeakGlobalrefAlloc,
            Self::JniWeakGlobalrefFree(_) => EventType::JniWeakGlobalrefFree,
            Self::ClassLoad(_) => EventType::ClassLoad,
            Self::ClassUnload(_) => EventType::ClassUnload,
            Self::DataDumpRequest => EventType::DataDumpRequest,
            Self::DataResetRequest => EventType::DataResetRequest,
            Self::JvmInitDone => EventType::JvmInitDone,
            Self::JvmShutDown => EventType::JvmShutDown,
            Self::ArenaNew(_) => EventType::ArenaNew,
            Self::ArenaDelete(_) => EventType::ArenaDelete,
            Self::ObjectDump(_) => EventType::ObjectDump,
            Self::RawMonitorContendedEnter(_) => EventType::RawMonitorContendedEnter,
            Self::RawMonitorContendedEntered(_) => EventType::RawMonitorContendedEntered,
            Self::RawMonitorContendedExit(_) => EventType::RawMonitorContendedExit,
            Self::MonitorContendedEnter(_) => EventType::MonitorContendedEnter,
            Self::MonitorContendedEntered(_) => EventType::MonitorContendedEntered,
            Self::MonitorContendedExit(_) => EventType::MonitorContendedExit,
            Self::MonitorWait(_) => EventType::MonitorWait,
            Self::MonitorWaited(_) => EventType::MonitorWaited,
            Self::MonitorDump(_) => EventType::MonitorDump,
            Self::GcStart => EventType::GcStart,
            Self::GcFinish(_) => EventType::GcFinish,
        }
    }
}

/// A whole `JVMPI_Event`: the thread it happened in, whether it was produced by
/// `RequestEvent`, and its event-specific data.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JvmpiEvent {
    /// `env_id`: the thread the event occurred in.
    pub env_id: EnvId,
    /// Whether `event_type` carries `JVMPI_REQUESTED_EVENT`.
    pub requested: bool,
    /// The event-specific data (which also fixes the event type).
    pub event: Event,
}

impl JvmpiEvent {
    /// The raw `event_type` (base type, plus `JVMPI_REQUESTED_EVENT` when requested).
    #[must_use]
    pub const fn raw_event_type(&self) -> i32 {
        self.event.event_type().with_requested(self.requested)
    }
}
