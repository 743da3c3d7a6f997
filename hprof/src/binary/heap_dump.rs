//! Heap-dump sub-records (`hprof.md` §1.5), the body of `HEAP_DUMP` (0x0C) and
//! `HEAP_DUMP_SEGMENT` (0x1C): every `ROOT_*` kind, `CLASS_DUMP`, `INSTANCE_DUMP`,
//! `OBJ_ARRAY_DUMP`, `PRIM_ARRAY_DUMP`, and the Android additions (`HEAP_DUMP_INFO`,
//! `ROOT_INTERNED_STRING` … `ROOT_UNREACHABLE`, `PRIMITIVE_ARRAY_NODATA`).
//!
//! Sub-records carry no length: an unknown sub-tag ends decoding of its heap-dump record.

use super::cursor::Cursor;
use super::error::{Error, Result};
use super::types::{BasicType, Id, IdList, IdSize, Value};

/// The sub-record's name as error messages give it (`"INSTANCE_DUMP sub-record"`), by tag.
pub(crate) fn sub_record_what(t: u8) -> &'static str {
    use sub_tag::*;
    match t {
        ROOT_UNKNOWN => "ROOT_UNKNOWN sub-record",
        ROOT_JNI_GLOBAL => "ROOT_JNI_GLOBAL sub-record",
        ROOT_JNI_LOCAL => "ROOT_JNI_LOCAL sub-record",
        ROOT_JAVA_FRAME => "ROOT_JAVA_FRAME sub-record",
        ROOT_NATIVE_STACK => "ROOT_NATIVE_STACK sub-record",
        ROOT_STICKY_CLASS => "ROOT_STICKY_CLASS sub-record",
        ROOT_THREAD_BLOCK => "ROOT_THREAD_BLOCK sub-record",
        ROOT_MONITOR_USED => "ROOT_MONITOR_USED sub-record",
        ROOT_THREAD_OBJECT => "ROOT_THREAD_OBJECT sub-record",
        CLASS_DUMP => "CLASS_DUMP sub-record",
        INSTANCE_DUMP => "INSTANCE_DUMP sub-record",
        OBJ_ARRAY_DUMP => "OBJ_ARRAY_DUMP sub-record",
        PRIM_ARRAY_DUMP => "PRIM_ARRAY_DUMP sub-record",
        HEAP_DUMP_INFO => "HEAP_DUMP_INFO sub-record",
        ROOT_INTERNED_STRING => "ROOT_INTERNED_STRING sub-record",
        ROOT_FINALIZING => "ROOT_FINALIZING sub-record",
        ROOT_DEBUGGER => "ROOT_DEBUGGER sub-record",
        ROOT_REFERENCE_CLEANUP => "ROOT_REFERENCE_CLEANUP sub-record",
        ROOT_VM_INTERNAL => "ROOT_VM_INTERNAL sub-record",
        ROOT_JNI_MONITOR => "ROOT_JNI_MONITOR sub-record",
        ROOT_UNREACHABLE => "ROOT_UNREACHABLE sub-record",
        PRIMITIVE_ARRAY_NODATA => "PRIMITIVE_ARRAY_NODATA sub-record",
        _ => "sub-record with an unknown tag",
    }
}

/// Heap-dump sub-record tags.
pub mod sub_tag {
    /// `ROOT_UNKNOWN`.
    pub const ROOT_UNKNOWN: u8 = 0xFF;
    /// `ROOT_JNI_GLOBAL`.
    pub const ROOT_JNI_GLOBAL: u8 = 0x01;
    /// `ROOT_JNI_LOCAL`.
    pub const ROOT_JNI_LOCAL: u8 = 0x02;
    /// `ROOT_JAVA_FRAME`.
    pub const ROOT_JAVA_FRAME: u8 = 0x03;
    /// `ROOT_NATIVE_STACK`.
    pub const ROOT_NATIVE_STACK: u8 = 0x04;
    /// `ROOT_STICKY_CLASS`.
    pub const ROOT_STICKY_CLASS: u8 = 0x05;
    /// `ROOT_THREAD_BLOCK`.
    pub const ROOT_THREAD_BLOCK: u8 = 0x06;
    /// `ROOT_MONITOR_USED`.
    pub const ROOT_MONITOR_USED: u8 = 0x07;
    /// `ROOT_THREAD_OBJECT`.
    pub const ROOT_THREAD_OBJECT: u8 = 0x08;
    /// `CLASS_DUMP`.
    pub const CLASS_DUMP: u8 = 0x20;
    /// `INSTANCE_DUMP`.
    pub const INSTANCE_DUMP: u8 = 0x21;
    /// `OBJ_ARRAY_DUMP`.
    pub const OBJ_ARRAY_DUMP: u8 = 0x22;
    /// `PRIM_ARRAY_DUMP`.
    pub const PRIM_ARRAY_DUMP: u8 = 0x23;
    /// Android `HEAP_DUMP_INFO`.
    pub const HEAP_DUMP_INFO: u8 = 0xFE;
    /// Android `ROOT_INTERNED_STRING`.
    pub const ROOT_INTERNED_STRING: u8 = 0x89;
    /// Android `ROOT_FINALIZING` (Dalvik).
    pub const ROOT_FINALIZING: u8 = 0x8A;
    /// Android `ROOT_DEBUGGER`.
    pub const ROOT_DEBUGGER: u8 = 0x8B;
    /// Android `ROOT_REFERENCE_CLEANUP` (Dalvik).
    pub const ROOT_REFERENCE_CLEANUP: u8 = 0x8C;
    /// Android `ROOT_VM_INTERNAL`.
    pub const ROOT_VM_INTERNAL: u8 = 0x8D;
    /// Android `ROOT_JNI_MONITOR`.
    pub const ROOT_JNI_MONITOR: u8 = 0x8E;
    /// Android `ROOT_UNREACHABLE` (Dalvik).
    pub const ROOT_UNREACHABLE: u8 = 0x90;
    /// Android `PRIMITIVE_ARRAY_NODATA` (Dalvik).
    pub const PRIMITIVE_ARRAY_NODATA: u8 = 0xC3;
}

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
        thread_serial: u32,
        /// Frame number in the stack trace (-1 empty).
        frame_number: i32,
    },
    /// 0x03 `ROOT_JAVA_FRAME`.
    JavaFrame {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: u32,
        /// Frame number in the stack trace (-1 empty).
        frame_number: i32,
    },
    /// 0x04 `ROOT_NATIVE_STACK`.
    NativeStack {
        /// The root object.
        object_id: Id,
        /// Thread serial.
        thread_serial: u32,
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
        thread_serial: u32,
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
        thread_serial: u32,
        /// Stack trace serial.
        stack_trace_serial: u32,
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
        thread_serial: u32,
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
    pub stack_trace_serial: u32,
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
/// class layouts of an [`Index`](super::index::Index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct InstanceDump<'a> {
    /// The object id.
    pub object_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: u32,
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
    pub stack_trace_serial: u32,
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
    pub stack_trace_serial: u32,
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
    pub stack_trace_serial: u32,
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

/// Walks a class-dump list of `n` entries, returning its bytes.
fn class_list<'a>(
    c: &mut Cursor<'a>,
    n: u16,
    name: bool,
    index: bool,
    value: bool,
    what: &'static str,
) -> Result<&'a [u8]> {
    let start = c.rest();
    let before = c.remaining();
    for _ in 0..n {
        if index {
            c.u2(what)?;
        }
        if name {
            c.id(what)?;
        }
        let ty = c.basic_type(what)?;
        if value {
            c.skip(ty.size(c.id_size()), what)?;
        }
    }
    Ok(start.get(..before - c.remaining()).unwrap_or_default())
}

/// Reads an id of `N` bytes (4 or 8): the id-size-specialised read of the hot paths.
#[inline(always)]
fn id_n<const N: usize>(c: &mut Cursor<'_>, what: &'static str) -> Result<Id> {
    if N == 4 {
        c.u4(what).map(Id::from)
    } else {
        c.u8(what)
    }
}

/// Big-endian `u32` at constant offset `i` of a fixed header (bounds checks fold away).
#[inline(always)]
fn be32<const L: usize>(h: &[u8; L], i: usize) -> u32 {
    let mut b = [0u8; 4];
    if let Some(s) = h.get(i..i + 4) {
        b.copy_from_slice(s);
    }
    u32::from_be_bytes(b)
}

/// An id of `N` bytes at constant offset `i` of a fixed header.
#[inline(always)]
fn be_id<const N: usize, const L: usize>(h: &[u8; L], i: usize) -> Id {
    if N == 4 {
        Id::from(be32(h, i))
    } else {
        let mut b = [0u8; 8];
        if let Some(s) = h.get(i..i + 8) {
            b.copy_from_slice(s);
        }
        u64::from_be_bytes(b)
    }
}

/// [`parse_instance_dump`] for ids of `N` bytes.
#[inline(always)]
pub(crate) fn instance_dump_n<'a, const N: usize>(c: &mut Cursor<'a>) -> Result<InstanceDump<'a>> {
    // Fast path: the fixed part (id, u4, id, u4) read with one bounds check.
    let rest = c.rest();
    if let Some((h, _)) = rest.split_first_chunk::<24>() {
        let object_id = be_id::<N, 24>(h, 0);
        let stack_trace_serial = be32(h, N);
        let class_id = be_id::<N, 24>(h, N + 4);
        let n = be32(h, 2 * N + 4);
        if let Some(data) = rest.get(2 * N + 8..).and_then(|r| r.get(..n as usize)) {
            c.rewind(rest.get(2 * N + 8 + n as usize..).unwrap_or_default());
            return Ok(InstanceDump {
                object_id,
                stack_trace_serial,
                class_id,
                data,
            });
        }
    }
    let object_id = id_n::<N>(c, "INSTANCE_DUMP object id")?;
    let stack_trace_serial = c.u4("INSTANCE_DUMP stack trace serial")?;
    let class_id = id_n::<N>(c, "INSTANCE_DUMP class id")?;
    let n = c.u4("INSTANCE_DUMP field byte count")?;
    let data = c.bytes(n as usize, "INSTANCE_DUMP field values")?;
    Ok(InstanceDump {
        object_id,
        stack_trace_serial,
        class_id,
        data,
    })
}

/// [`parse_object_array_dump`] for ids of `N` bytes.
#[inline(always)]
pub(crate) fn object_array_dump_n<'a, const N: usize>(
    c: &mut Cursor<'a>,
) -> Result<ObjectArrayDump<'a>> {
    // Fast path: the fixed part (id, u4, u4, id) read with one bounds check.
    let rest = c.rest();
    if let Some((h, _)) = rest.split_first_chunk::<24>() {
        let array_id = be_id::<N, 24>(h, 0);
        let stack_trace_serial = be32(h, N);
        let n = be32(h, N + 4);
        let array_class_id = be_id::<N, 24>(h, N + 8);
        let len = (n as usize).saturating_mul(N);
        if let Some(data) = rest.get(2 * N + 8..).and_then(|r| r.get(..len)) {
            c.rewind(rest.get(2 * N + 8 + len..).unwrap_or_default());
            return Ok(ObjectArrayDump {
                array_id,
                stack_trace_serial,
                array_class_id,
                elements: IdList::new(data, c.id_size()),
            });
        }
    }
    let array_id = id_n::<N>(c, "OBJ_ARRAY_DUMP array id")?;
    let stack_trace_serial = c.u4("OBJ_ARRAY_DUMP stack trace serial")?;
    let at = c.offset();
    let n = c.u4("OBJ_ARRAY_DUMP element count")?;
    let array_class_id = id_n::<N>(c, "OBJ_ARRAY_DUMP array class id")?;
    let data = c.counted(n.into(), N, at, "OBJ_ARRAY_DUMP elements")?;
    Ok(ObjectArrayDump {
        array_id,
        stack_trace_serial,
        array_class_id,
        elements: IdList::new(data, c.id_size()),
    })
}

/// [`parse_primitive_array_dump`] for ids of `N` bytes.
#[inline(always)]
pub(crate) fn primitive_array_dump_n<'a, const N: usize>(
    c: &mut Cursor<'a>,
) -> Result<PrimitiveArrayDump<'a>> {
    // Fast path: the fixed part (id, u4, u4, u1) read with one bounds check.
    let rest = c.rest();
    if let Some((h, _)) = rest.split_first_chunk::<17>() {
        let code = h.get(N + 8).copied().unwrap_or(0);
        if let Some(element_type) = BasicType::from_code(code).filter(|t| *t != BasicType::Object) {
            let array_id = be_id::<N, 17>(h, 0);
            let stack_trace_serial = be32(h, N);
            let n = be32(h, N + 4);
            let len = (n as usize).saturating_mul(element_type.size(IdSize::Four));
            if let Some(data) = rest.get(N + 9..).and_then(|r| r.get(..len)) {
                c.rewind(rest.get(N + 9 + len..).unwrap_or_default());
                return Ok(PrimitiveArrayDump {
                    array_id,
                    stack_trace_serial,
                    element_type,
                    data,
                });
            }
        }
    }
    let array_id = id_n::<N>(c, "PRIM_ARRAY_DUMP array id")?;
    let stack_trace_serial = c.u4("PRIM_ARRAY_DUMP stack trace serial")?;
    let at = c.offset();
    let n = c.u4("PRIM_ARRAY_DUMP element count")?;
    let element_type = c.primitive_type("PRIM_ARRAY_DUMP element type")?;
    let data = c.counted(
        n.into(),
        element_type.size(c.id_size()),
        at,
        "PRIM_ARRAY_DUMP elements",
    )?;
    Ok(PrimitiveArrayDump {
        array_id,
        stack_trace_serial,
        element_type,
        data,
    })
}

/// Decodes the body of an `INSTANCE_DUMP` (after its tag byte).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it.
#[inline]
pub fn parse_instance_dump<'a>(c: &mut Cursor<'a>) -> Result<InstanceDump<'a>> {
    match c.id_size() {
        IdSize::Four => instance_dump_n::<4>(c),
        IdSize::Eight => instance_dump_n::<8>(c),
    }
}

/// Decodes the body of an `OBJ_ARRAY_DUMP` (after its tag byte).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it.
#[inline]
pub fn parse_object_array_dump<'a>(c: &mut Cursor<'a>) -> Result<ObjectArrayDump<'a>> {
    match c.id_size() {
        IdSize::Four => object_array_dump_n::<4>(c),
        IdSize::Eight => object_array_dump_n::<8>(c),
    }
}

/// Decodes the body of a `PRIM_ARRAY_DUMP` (after its tag byte).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it, [`Error::BadBasicType`].
#[inline]
pub fn parse_primitive_array_dump<'a>(c: &mut Cursor<'a>) -> Result<PrimitiveArrayDump<'a>> {
    match c.id_size() {
        IdSize::Four => primitive_array_dump_n::<4>(c),
        IdSize::Eight => primitive_array_dump_n::<8>(c),
    }
}

/// Receives one decoded sub-record: the three object dumps through their own methods (the
/// hot path, no [`SubRecord`] built), any other sub-record whole.
pub(crate) trait SubRecordSink<'a> {
    /// What the sink makes of a sub-record.
    type Output;
    /// An `INSTANCE_DUMP` at file offset `at`.
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) -> Self::Output;
    /// An `OBJ_ARRAY_DUMP` at file offset `at`.
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) -> Self::Output;
    /// A `PRIM_ARRAY_DUMP` at file offset `at`.
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) -> Self::Output;
    /// Any other sub-record at file offset `at`.
    fn other(&mut self, at: u64, sub: SubRecord<'a>) -> Self::Output;
}

/// Decodes the sub-record at the cursor (tag byte included), whose ids are `N` bytes, into
/// `sink`: the one dispatch on sub-record tags, used by [`parse_sub_record`] and by the
/// visiting fast path of the incremental decoder.
///
/// # Errors
/// As [`parse_sub_record`].
#[inline(always)]
pub(crate) fn sub_record_n<'a, const N: usize, S: SubRecordSink<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    sink: &mut S,
) -> Result<S::Output> {
    let at = c.offset();
    let t = c.u1("a heap dump sub-record tag")?;
    match t {
        sub_tag::INSTANCE_DUMP => instance_dump_n::<N>(c).map(|d| sink.instance_dump(at, d)),
        sub_tag::OBJ_ARRAY_DUMP => {
            object_array_dump_n::<N>(c).map(|d| sink.object_array_dump(at, d))
        }
        sub_tag::PRIM_ARRAY_DUMP => {
            primitive_array_dump_n::<N>(c).map(|d| sink.primitive_array_dump(at, d))
        }
        other => parse_other_sub_record(c, at, other).map(|s| sink.other(at, s)),
    }
}

/// The [`SubRecordSink`] that hands back the sub-record.
struct Whole;

impl<'a> SubRecordSink<'a> for Whole {
    type Output = SubRecord<'a>;
    #[inline]
    fn instance_dump(&mut self, _: u64, dump: InstanceDump<'a>) -> SubRecord<'a> {
        SubRecord::InstanceDump(dump)
    }
    #[inline]
    fn object_array_dump(&mut self, _: u64, dump: ObjectArrayDump<'a>) -> SubRecord<'a> {
        SubRecord::ObjectArrayDump(dump)
    }
    #[inline]
    fn primitive_array_dump(&mut self, _: u64, dump: PrimitiveArrayDump<'a>) -> SubRecord<'a> {
        SubRecord::PrimitiveArrayDump(dump)
    }
    #[inline]
    fn other(&mut self, _: u64, sub: SubRecord<'a>) -> SubRecord<'a> {
        sub
    }
}

/// Decodes one sub-record at the cursor (tag byte included).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it, [`Error::UnknownSubTag`],
/// [`Error::BadBasicType`], [`Error::TooLong`].
#[inline]
pub fn parse_sub_record<'a>(c: &mut Cursor<'a>) -> Result<SubRecord<'a>> {
    match c.id_size() {
        IdSize::Four => sub_record_n::<4, _>(c, &mut Whole),
        IdSize::Eight => sub_record_n::<8, _>(c, &mut Whole),
    }
}

/// Decodes a sub-record other than instance and array dumps (class dumps, roots, Android
/// records) whose tag byte `t`, at file offset `offset`, was just read.
///
/// # Errors
/// As [`parse_sub_record`].
#[inline(never)]
pub fn parse_other_sub_record<'a>(c: &mut Cursor<'a>, offset: u64, t: u8) -> Result<SubRecord<'a>> {
    use sub_tag::*;
    let id_size = c.id_size();
    Ok(match t {
        CLASS_DUMP => {
            let class_id = c.id("CLASS_DUMP class id")?;
            let stack_trace_serial = c.u4("CLASS_DUMP stack trace serial")?;
            let super_class_id = c.id("CLASS_DUMP super class id")?;
            let class_loader_id = c.id("CLASS_DUMP class loader id")?;
            let signers_id = c.id("CLASS_DUMP signers id")?;
            let protection_domain_id = c.id("CLASS_DUMP protection domain id")?;
            let reserved1 = c.id("CLASS_DUMP reserved id")?;
            let reserved2 = c.id("CLASS_DUMP reserved id")?;
            let instance_size = c.u4("CLASS_DUMP instance size")?;
            let constant_pool_len = c.u2("CLASS_DUMP constant pool size")?;
            let constant_pool = class_list(
                c,
                constant_pool_len,
                false,
                true,
                true,
                "CLASS_DUMP constant pool entry",
            )?;
            let static_fields_len = c.u2("CLASS_DUMP static field count")?;
            let static_fields = class_list(
                c,
                static_fields_len,
                true,
                false,
                true,
                "CLASS_DUMP static field",
            )?;
            let instance_fields_len = c.u2("CLASS_DUMP instance field count")?;
            let instance_fields = class_list(
                c,
                instance_fields_len,
                true,
                false,
                false,
                "CLASS_DUMP instance field",
            )?;
            SubRecord::ClassDump(ClassDump {
                class_id,
                stack_trace_serial,
                super_class_id,
                class_loader_id,
                signers_id,
                protection_domain_id,
                reserved1,
                reserved2,
                instance_size,
                constant_pool_len,
                constant_pool,
                static_fields_len,
                static_fields,
                instance_fields_len,
                instance_fields,
                id_size,
            })
        }
        ROOT_UNKNOWN => SubRecord::Root(GcRoot::Unknown {
            object_id: c.id("ROOT_UNKNOWN object id")?,
        }),
        ROOT_JNI_GLOBAL => SubRecord::Root(GcRoot::JniGlobal {
            object_id: c.id("ROOT_JNI_GLOBAL object id")?,
            jni_global_ref_id: c.id("ROOT_JNI_GLOBAL reference id")?,
        }),
        ROOT_JNI_LOCAL => SubRecord::Root(GcRoot::JniLocal {
            object_id: c.id("ROOT_JNI_LOCAL object id")?,
            thread_serial: c.u4("ROOT_JNI_LOCAL thread serial")?,
            frame_number: c.i4("ROOT_JNI_LOCAL frame number")?,
        }),
        ROOT_JAVA_FRAME => SubRecord::Root(GcRoot::JavaFrame {
            object_id: c.id("ROOT_JAVA_FRAME object id")?,
            thread_serial: c.u4("ROOT_JAVA_FRAME thread serial")?,
            frame_number: c.i4("ROOT_JAVA_FRAME frame number")?,
        }),
        ROOT_NATIVE_STACK => SubRecord::Root(GcRoot::NativeStack {
            object_id: c.id("ROOT_NATIVE_STACK object id")?,
            thread_serial: c.u4("ROOT_NATIVE_STACK thread serial")?,
        }),
        ROOT_STICKY_CLASS => SubRecord::Root(GcRoot::StickyClass {
            object_id: c.id("ROOT_STICKY_CLASS object id")?,
        }),
        ROOT_THREAD_BLOCK => SubRecord::Root(GcRoot::ThreadBlock {
            object_id: c.id("ROOT_THREAD_BLOCK object id")?,
            thread_serial: c.u4("ROOT_THREAD_BLOCK thread serial")?,
        }),
        ROOT_MONITOR_USED => SubRecord::Root(GcRoot::MonitorUsed {
            object_id: c.id("ROOT_MONITOR_USED object id")?,
        }),
        ROOT_THREAD_OBJECT => SubRecord::Root(GcRoot::ThreadObject {
            object_id: c.id("ROOT_THREAD_OBJECT thread object id")?,
            thread_serial: c.u4("ROOT_THREAD_OBJECT thread serial")?,
            stack_trace_serial: c.u4("ROOT_THREAD_OBJECT stack trace serial")?,
        }),
        ROOT_INTERNED_STRING => SubRecord::Root(GcRoot::InternedString {
            object_id: c.id("ROOT_INTERNED_STRING object id")?,
        }),
        ROOT_FINALIZING => SubRecord::Root(GcRoot::Finalizing {
            object_id: c.id("ROOT_FINALIZING object id")?,
        }),
        ROOT_DEBUGGER => SubRecord::Root(GcRoot::Debugger {
            object_id: c.id("ROOT_DEBUGGER object id")?,
        }),
        ROOT_REFERENCE_CLEANUP => SubRecord::Root(GcRoot::ReferenceCleanup {
            object_id: c.id("ROOT_REFERENCE_CLEANUP object id")?,
        }),
        ROOT_VM_INTERNAL => SubRecord::Root(GcRoot::VmInternal {
            object_id: c.id("ROOT_VM_INTERNAL object id")?,
        }),
        ROOT_JNI_MONITOR => SubRecord::Root(GcRoot::JniMonitor {
            object_id: c.id("ROOT_JNI_MONITOR object id")?,
            thread_serial: c.u4("ROOT_JNI_MONITOR thread serial")?,
            stack_depth: c.i4("ROOT_JNI_MONITOR stack depth")?,
        }),
        ROOT_UNREACHABLE => SubRecord::Root(GcRoot::Unreachable {
            object_id: c.id("ROOT_UNREACHABLE object id")?,
        }),
        PRIMITIVE_ARRAY_NODATA => SubRecord::PrimitiveArrayNoData(PrimitiveArrayNoData {
            array_id: c.id("PRIMITIVE_ARRAY_NODATA array id")?,
            stack_trace_serial: c.u4("PRIMITIVE_ARRAY_NODATA stack trace serial")?,
            length: c.u4("PRIMITIVE_ARRAY_NODATA element count")?,
            element_type: c.primitive_type("PRIMITIVE_ARRAY_NODATA element type")?,
        }),
        HEAP_DUMP_INFO => SubRecord::HeapDumpInfo(HeapDumpInfo {
            heap_id: c.u4("HEAP_DUMP_INFO heap id")?,
            name_id: c.id("HEAP_DUMP_INFO heap name id")?,
        }),
        other => return Err(Error::UnknownSubTag { offset, tag: other }),
    })
}

/// A lazy, fallible iterator over the sub-records of one heap-dump body. Stops at the end of
/// the body or after the first error.
#[derive(Debug, Clone)]
pub struct SubRecords<'a> {
    c: Cursor<'a>,
    done: bool,
}

impl<'a> SubRecords<'a> {
    /// Iterates over `body`, whose first byte is at file offset `offset`.
    pub fn new(body: &'a [u8], offset: u64, id_size: IdSize) -> SubRecords<'a> {
        SubRecords {
            c: Cursor::new(body, offset, id_size),
            done: false,
        }
    }

    /// File offset of the next sub-record.
    pub fn offset(&self) -> u64 {
        self.c.offset()
    }
}

impl<'a> Iterator for SubRecords<'a> {
    type Item = Result<SubRecord<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.c.is_empty() {
            return None;
        }
        let r = parse_sub_record(&mut self.c);
        if r.is_err() {
            self.done = true;
        }
        Some(r)
    }
}
