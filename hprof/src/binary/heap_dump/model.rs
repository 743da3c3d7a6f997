//! The sub-records (`hprof.md` §1.5): one type per kind, borrowing from the input.

use super::tags::sub_tag;
use crate::binary::cursor::Cursor;
use crate::binary::types::{BasicType, Id, IdList, IdSize, StackTraceSerial, ThreadSerial, Value};

/// A GC root sub-record. New JDKs and Android versions add root kinds, so this enum may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum GcRoot {
    /// 0xFF `ROOT_UNKNOWN`.
    Unknown {
        /// The root object.
        object_id: Id,
    },
    /// 0x01 `ROOT_JNI_GLOBAL`.
    JniGlobal {
        /// The root object.
        object_id: Id,
        /// The JNI global reference id.
        jni_global_ref_id: Id,
    },
    /// 0x02 `ROOT_JNI_LOCAL`.
    JniLocal {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: ThreadSerial,
        /// Frame number in the stack trace (-1 empty).
        frame_number: i32,
    },
    /// 0x03 `ROOT_JAVA_FRAME`.
    JavaFrame {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: ThreadSerial,
        /// Frame number in the stack trace (-1 empty).
        frame_number: i32,
    },
    /// 0x04 `ROOT_NATIVE_STACK`.
    NativeStack {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: ThreadSerial,
    },
    /// 0x05 `ROOT_STICKY_CLASS` (system class).
    StickyClass {
        /// The root object.
        object_id: Id,
    },
    /// 0x06 `ROOT_THREAD_BLOCK`.
    ThreadBlock {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: ThreadSerial,
    },
    /// 0x07 `ROOT_MONITOR_USED` (busy monitor).
    MonitorUsed {
        /// The root object.
        object_id: Id,
    },
    /// 0x08 `ROOT_THREAD_OBJECT`.
    ThreadObject {
        /// The thread object (0 for a JNI-attached thread).
        object_id: Id,
        /// Thread serial.
        thread_serial: ThreadSerial,
        /// Stack trace serial.
        stack_trace_serial: StackTraceSerial,
    },
    /// 0x89 `ROOT_INTERNED_STRING` (Android).
    InternedString {
        /// The root object.
        object_id: Id,
    },
    /// 0x8A `ROOT_FINALIZING` (Android, Dalvik).
    Finalizing {
        /// The root object.
        object_id: Id,
    },
    /// 0x8B `ROOT_DEBUGGER` (Android).
    Debugger {
        /// The root object.
        object_id: Id,
    },
    /// 0x8C `ROOT_REFERENCE_CLEANUP` (Android, Dalvik).
    ReferenceCleanup {
        /// The root object.
        object_id: Id,
    },
    /// 0x8D `ROOT_VM_INTERNAL` (Android).
    VmInternal {
        /// The root object.
        object_id: Id,
    },
    /// 0x8E `ROOT_JNI_MONITOR` (Android).
    JniMonitor {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: ThreadSerial,
        /// Stack depth (ART writes -1).
        stack_depth: i32,
    },
    /// 0x90 `ROOT_UNREACHABLE` (Android, Dalvik).
    Unreachable {
        /// The root object.
        object_id: Id,
    },
}

impl GcRoot {
    /// The rooted object.
    pub fn object_id(&self) -> Id {
        match *self {
            GcRoot::Unknown { object_id }
            | GcRoot::JniGlobal { object_id, .. }
            | GcRoot::JniLocal { object_id, .. }
            | GcRoot::JavaFrame { object_id, .. }
            | GcRoot::NativeStack { object_id, .. }
            | GcRoot::StickyClass { object_id }
            | GcRoot::ThreadBlock { object_id, .. }
            | GcRoot::MonitorUsed { object_id }
            | GcRoot::ThreadObject { object_id, .. }
            | GcRoot::InternedString { object_id }
            | GcRoot::Finalizing { object_id }
            | GcRoot::Debugger { object_id }
            | GcRoot::ReferenceCleanup { object_id }
            | GcRoot::VmInternal { object_id }
            | GcRoot::JniMonitor { object_id, .. }
            | GcRoot::Unreachable { object_id } => object_id,
        }
    }

    /// The sub-record tag.
    pub fn tag(&self) -> u8 {
        use sub_tag::*;
        match self {
            GcRoot::Unknown { .. } => ROOT_UNKNOWN,
            GcRoot::JniGlobal { .. } => ROOT_JNI_GLOBAL,
            GcRoot::JniLocal { .. } => ROOT_JNI_LOCAL,
            GcRoot::JavaFrame { .. } => ROOT_JAVA_FRAME,
            GcRoot::NativeStack { .. } => ROOT_NATIVE_STACK,
            GcRoot::StickyClass { .. } => ROOT_STICKY_CLASS,
            GcRoot::ThreadBlock { .. } => ROOT_THREAD_BLOCK,
            GcRoot::MonitorUsed { .. } => ROOT_MONITOR_USED,
            GcRoot::ThreadObject { .. } => ROOT_THREAD_OBJECT,
            GcRoot::InternedString { .. } => ROOT_INTERNED_STRING,
            GcRoot::Finalizing { .. } => ROOT_FINALIZING,
            GcRoot::Debugger { .. } => ROOT_DEBUGGER,
            GcRoot::ReferenceCleanup { .. } => ROOT_REFERENCE_CLEANUP,
            GcRoot::VmInternal { .. } => ROOT_VM_INTERNAL,
            GcRoot::JniMonitor { .. } => ROOT_JNI_MONITOR,
            GcRoot::Unreachable { .. } => ROOT_UNREACHABLE,
        }
    }

    /// A short human-readable name of the root kind (`"JNI global"`, `"Java frame"`, …).
    pub fn kind_name(&self) -> &'static str {
        match self {
            GcRoot::Unknown { .. } => "unknown",
            GcRoot::JniGlobal { .. } => "JNI global",
            GcRoot::JniLocal { .. } => "JNI local",
            GcRoot::JavaFrame { .. } => "Java frame",
            GcRoot::NativeStack { .. } => "native stack",
            GcRoot::StickyClass { .. } => "sticky class",
            GcRoot::ThreadBlock { .. } => "thread block",
            GcRoot::MonitorUsed { .. } => "monitor used",
            GcRoot::ThreadObject { .. } => "thread object",
            GcRoot::InternedString { .. } => "interned string",
            GcRoot::Finalizing { .. } => "finalizing",
            GcRoot::Debugger { .. } => "debugger",
            GcRoot::ReferenceCleanup { .. } => "reference cleanup",
            GcRoot::VmInternal { .. } => "VM internal",
            GcRoot::JniMonitor { .. } => "JNI monitor",
            GcRoot::Unreachable { .. } => "unreachable",
        }
    }
}

/// One constant-pool entry of a class dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstantPoolEntry {
    /// The constant-pool index.
    pub index: u16,
    /// The value.
    pub value: Value,
}

/// One static field of a class dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StaticField {
    /// UTF8 id of the field name.
    pub name_id: Id,
    /// The value.
    pub value: Value,
}

/// One instance-field descriptor of a class dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FieldDescriptor {
    /// UTF8 id of the field name.
    pub name_id: Id,
    /// The field's type.
    pub field_type: BasicType,
}

/// A `CLASS_DUMP` sub-record (0x20). The three lists are kept encoded and decoded lazily.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassDump<'a> {
    /// The class object id.
    pub class_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// The superclass object id (0 for `java.lang.Object`).
    pub super_class_id: Id,
    /// The class loader object id.
    pub class_loader_id: Id,
    /// The signers object id.
    pub signers_id: Id,
    /// The protection domain object id.
    pub protection_domain_id: Id,
    /// Reserved.
    pub reserved1: Id,
    /// Reserved.
    pub reserved2: Id,
    /// Instance size in bytes, as the VM reports it.
    pub instance_size: u32,
    /// Number of constant-pool entries.
    pub constant_pool_len: u16,
    /// The encoded constant-pool entries (after the count).
    pub constant_pool: &'a [u8],
    /// Number of static fields.
    pub static_fields_len: u16,
    /// The encoded static fields (after the count).
    pub static_fields: &'a [u8],
    /// Number of instance fields.
    pub instance_fields_len: u16,
    /// The encoded instance-field descriptors (after the count): the class's own fields
    /// only, not its superclasses'.
    pub instance_fields: &'a [u8],
    /// The file's id size.
    pub id_size: IdSize,
}

impl<'a> ClassDump<'a> {
    /// The constant-pool entries.
    pub fn constant_pool(&self) -> impl Iterator<Item = ConstantPoolEntry> + 'a {
        let mut c = Cursor::new(self.constant_pool, 0, self.id_size);
        std::iter::from_fn(move || {
            if c.is_empty() {
                return None;
            }
            let index = c.u2("CLASS_DUMP constant pool index").ok()?;
            let ty = c.basic_type("CLASS_DUMP constant pool entry type").ok()?;
            let value = c.value(ty, "CLASS_DUMP constant pool value").ok()?;
            Some(ConstantPoolEntry { index, value })
        })
    }

    /// The static fields.
    pub fn static_fields(&self) -> impl Iterator<Item = StaticField> + 'a {
        let mut c = Cursor::new(self.static_fields, 0, self.id_size);
        std::iter::from_fn(move || {
            if c.is_empty() {
                return None;
            }
            let name_id = c.id("CLASS_DUMP static field name id").ok()?;
            let ty = c.basic_type("CLASS_DUMP static field type").ok()?;
            let value = c.value(ty, "CLASS_DUMP static field value").ok()?;
            Some(StaticField { name_id, value })
        })
    }

    /// The class's own instance-field descriptors, in file order.
    pub fn instance_fields(&self) -> impl Iterator<Item = FieldDescriptor> + 'a {
        let mut c = Cursor::new(self.instance_fields, 0, self.id_size);
        std::iter::from_fn(move || {
            if c.is_empty() {
                return None;
            }
            let name_id = c.id("CLASS_DUMP instance field name id").ok()?;
            let field_type = c.basic_type("CLASS_DUMP instance field type").ok()?;
            Some(FieldDescriptor {
                name_id,
                field_type,
            })
        })
    }
}

/// An `INSTANCE_DUMP` sub-record (0x21). Field values stay encoded: decode them through the
/// class layouts of an [`Index`](crate::binary::index::Index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct InstanceDump<'a> {
    /// The object id.
    pub object_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// The class object id.
    pub class_id: Id,
    /// The field values, class first, then superclass, …
    pub data: &'a [u8],
}

/// An `OBJ_ARRAY_DUMP` sub-record (0x22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ObjectArrayDump<'a> {
    /// The array object id.
    pub array_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// The array class object id.
    pub array_class_id: Id,
    /// The elements.
    pub elements: IdList<'a>,
}

/// A `PRIM_ARRAY_DUMP` sub-record (0x23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PrimitiveArrayDump<'a> {
    /// The array object id.
    pub array_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// The element type (never [`BasicType::Object`]).
    pub element_type: BasicType,
    /// The elements, big-endian, `len() × element size` bytes.
    pub data: &'a [u8],
}

impl<'a> PrimitiveArrayDump<'a> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len() / self.element_type.size(IdSize::Four)
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements as values.
    pub fn values(&self) -> impl Iterator<Item = Value> + 'a {
        let ty = self.element_type;
        let mut c = Cursor::new(self.data, 0, IdSize::Four);
        std::iter::from_fn(move || c.value(ty, "PRIM_ARRAY_DUMP element").ok())
    }

    /// For `char[]`: the UTF-16 code units.
    pub fn chars(&self) -> Option<impl Iterator<Item = u16> + 'a> {
        (self.element_type == BasicType::Char).then(|| {
            self.data.chunks_exact(2).map(|c| {
                u16::from_be_bytes([
                    c.first().copied().unwrap_or(0),
                    c.last().copied().unwrap_or(0),
                ])
            })
        })
    }
}

/// An Android `PRIMITIVE_ARRAY_NODATA` sub-record (0xC3): an array header without elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PrimitiveArrayNoData {
    /// The array object id.
    pub array_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// Number of elements.
    pub length: u32,
    /// The element type.
    pub element_type: BasicType,
}

/// An Android `HEAP_DUMP_INFO` sub-record (0xFE): the heap of the sub-records that follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapDumpInfo {
    /// Heap id: 0 default, 0x41 'A' app, 0x49 'I' image, 0x5A 'Z' zygote.
    pub heap_id: u32,
    /// UTF8 id of the heap name.
    pub name_id: Id,
}

/// A decoded heap-dump sub-record; variable parts borrow from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum SubRecord<'a> {
    /// Any `ROOT_*` sub-record.
    Root(GcRoot),
    /// 0x20.
    ClassDump(ClassDump<'a>),
    /// 0x21.
    InstanceDump(InstanceDump<'a>),
    /// 0x22.
    ObjectArrayDump(ObjectArrayDump<'a>),
    /// 0x23.
    PrimitiveArrayDump(PrimitiveArrayDump<'a>),
    /// 0xC3 (Android).
    PrimitiveArrayNoData(PrimitiveArrayNoData),
    /// 0xFE (Android).
    HeapDumpInfo(HeapDumpInfo),
}

impl SubRecord<'_> {
    /// The sub-record tag.
    pub fn tag(&self) -> u8 {
        match self {
            SubRecord::Root(r) => r.tag(),
            SubRecord::ClassDump(_) => sub_tag::CLASS_DUMP,
            SubRecord::InstanceDump(_) => sub_tag::INSTANCE_DUMP,
            SubRecord::ObjectArrayDump(_) => sub_tag::OBJ_ARRAY_DUMP,
            SubRecord::PrimitiveArrayDump(_) => sub_tag::PRIM_ARRAY_DUMP,
            SubRecord::PrimitiveArrayNoData(_) => sub_tag::PRIMITIVE_ARRAY_NODATA,
            SubRecord::HeapDumpInfo(_) => sub_tag::HEAP_DUMP_INFO,
        }
    }
}
