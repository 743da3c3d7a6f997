//! Heap dump buffers (`JVMPI_EVENT_HEAP_DUMP`, spec §4.2 "heap dump format"): level 0 is a run
//! of `ty` + `jobjectID` pairs with no roots; levels 1 and 2 are tagged records (GC roots, then
//! `JVMPI_GC_CLASS_DUMP`, `_INSTANCE_DUMP`, `_OBJ_ARRAY_DUMP`, `_PRIM_ARRAY_DUMP`), level 1
//! leaving out every primitive value. Byte rules as confirmed in the VMs' writers: identifiers
//! native-order, all counts and primitive values big-endian, no padding.
//!
//! A `JVMPI_GC_CLASS_DUMP` does not carry its interface count nor its static field types:
//! decoding one needs a [`ClassResolver`] that knows the class (from its CLASS_LOAD event).
//!
//! ```
//! use jvmpi_types::dump::heap::{self, HeapDumpRecord, Level0Record};
//! use jvmpi_types::{DumpLevel, DumpOptions, IdOrder, IdSize, NoClasses, ObjectId, TypeCode};
//!
//! // A 64-bit big-endian VM (SPARC) at level 0: an instance and a char[]; 1 + 8 bytes each.
//! let o = DumpOptions::new(IdSize::Eight, IdOrder::Big);
//! let level0 = [0x00, 0, 0, 0, 7, 0, 0x10, 0, 0x08, 0x05, 0, 0, 0, 7, 0, 0x10, 0, 0x20];
//! assert_eq!(
//!     heap::decode_level0(&level0, o)?,
//!     [
//!         Level0Record { ty: TypeCode::NormalObject, object: ObjectId(0x7_0010_0008) },
//!         Level0Record { ty: TypeCode::Char, object: ObjectId(0x7_0010_0020) },
//!     ]
//! );
//!
//! // Level 1 on a 32-bit little-endian VM: a char[3] whose elements level 1 leaves out.
//! let o = DumpOptions::new(IdSize::Four, IdOrder::Little);
//! let level1 = [0x23, 0x20, 0, 0x10, 0, 0, 0, 0, 3, 5];
//! let mut records = heap::HeapDumpRecords::new(&level1, o, DumpLevel::Level1, &NoClasses)?;
//! let Some(HeapDumpRecord::PrimArrayDump(a)) = records.next_record()? else { unreachable!() };
//! assert_eq!((a.length, a.element_type, a.elements), (3, TypeCode::Char, None));
//! assert!(records.next_record()?.is_none());
//! # Ok::<(), jvmpi_types::Error>(())
//! ```

use crate::constants::{DumpLevel, HeapDumpTag, TypeCode};
use crate::cursor::{Cursor, DumpOptions, Writer};
use crate::dump::{ClassLayout, ClassResolver, Value};
use crate::error::{Error, Result};
use crate::ids::{EnvId, JniRef, ObjectId, Pointer};
use std::collections::HashMap;

/// One record of a level-0 heap dump: `u1 ty` + `jobjectID object`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Level0Record {
    /// Object type, with `obj_alloc.is_array` meaning: `JVMPI_NORMAL_OBJECT` for instances,
    /// `JVMPI_CLASS` for object arrays, the element type for primitive arrays.
    pub ty: TypeCode,
    /// The object.
    pub object: ObjectId,
}

impl Level0Record {
    /// Reads one record.
    pub fn read(cur: &mut Cursor<'_>) -> Result<Self> {
        let offset = cur.offset();
        let raw = cur.u1("level-0 object type")?;
        let ty = TypeCode::try_from(raw).map_err(|_| Error::BadTypeCode {
            offset,
            expected: "a level-0 object type (JVMPI_NORMAL_OBJECT, JVMPI_CLASS or a primitive type)",
            found: raw,
        })?;
        Ok(Self {
            ty,
            object: ObjectId(cur.id("level-0 object id")?),
        })
    }

    /// Appends this record.
    pub fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u1(self.ty.raw());
        w.id(self.object.0, "level-0 object id")
    }
}

/// Frame number of a `JVMPI_GC_ROOT_JNI_LOCAL` / `_JAVA_FRAME` root: an opaque `u4` whose
/// value `0xFFFFFFFF` (-1) means "empty stack". HotSpot counts down from the top frame
/// (`num_frames` … 1); CVM counts from the top at 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct FrameNumber(pub u32);

impl FrameNumber {
    /// The "empty" sentinel (-1).
    pub const EMPTY: Self = Self(u32::MAX);

    /// Whether this is the "empty" sentinel.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == u32::MAX
    }
}

/// `JVMPI_GC_CLASS_DUMP`: a class object.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassDump {
    /// The class.
    pub class: ObjectId,
    /// Its superclass (NULL for `java.lang.Object` and interfaces).
    pub super_class: ObjectId,
    /// Its class loader.
    pub class_loader: ObjectId,
    /// Its signers.
    pub signers: ObjectId,
    /// Its protection domain.
    pub protection_domain: ObjectId,
    /// A `java.lang.String` id of the class name (may be NULL; `void *reserved` in 1.2.1).
    pub class_name: ObjectId,
    /// The `void *` reserved slot (NULL in every known writer).
    pub reserved: Pointer,
    /// Instance size in bytes.
    pub instance_size: u32,
    /// Directly implemented interfaces (count from the class's CLASS_LOAD).
    pub interfaces: Vec<ObjectId>,
    /// Constant pool entries (`u2` count in the record).
    pub constant_pool: Vec<ConstantPoolEntry>,
    /// Static field values in CLASS_LOAD `statics[]` order; at level 1 only the reference
    /// statics (primitive values are left out).
    pub statics: Vec<Value>,
}

/// One constant-pool entry of a class dump: `u2 index`, `ty`, `vl`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstantPoolEntry {
    /// Constant pool index.
    pub index: u16,
    /// The `ty` byte as written (references may use `JVMPI_CLASS` or `JVMPI_NORMAL_OBJECT`).
    pub ty: TypeCode,
    /// The value.
    pub value: Value,
}

/// `JVMPI_GC_INSTANCE_DUMP`: a normal object. Field values are kept as the raw bytes of the
/// record (the class's own instance fields, then its superclass's, …; at level 1 references
/// only); [`InstanceDump::fields`] decodes them given the field types.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InstanceDump {
    /// The object.
    pub object: ObjectId,
    /// Its class.
    pub class: ObjectId,
    /// Raw field values (`u4` byte count in the record).
    pub values: Vec<u8>,
}

impl InstanceDump {
    /// Decodes [`InstanceDump::values`] with the field types `classes` knows for this
    /// instance's class and its superclasses ([`ClassLayouts::instance_field_types`]); `None`
    /// when some class of the chain is unknown.
    ///
    /// [`ClassLayouts::instance_field_types`]: crate::ClassLayouts::instance_field_types
    pub fn fields_from(
        &self,
        classes: &crate::ClassLayouts,
        options: DumpOptions,
        level: DumpLevel,
    ) -> Option<Result<Vec<Value>>> {
        let types = classes.instance_field_types(self.class)?;
        Some(self.fields(types, options, level))
    }

    /// Decodes [`InstanceDump::values`] given the types of the instance fields in dump order
    /// (own fields, then each superclass's, as in their CLASS_LOAD `instances[]`). At level 1
    /// primitive fields are skipped, as the VM leaves them out. Fails unless the types cover
    /// the bytes exactly.
    pub fn fields(
        &self,
        types: impl IntoIterator<Item = TypeCode>,
        options: DumpOptions,
        level: DumpLevel,
    ) -> Result<Vec<Value>> {
        let mut cur = Cursor::new(&self.values, options);
        let mut out = Vec::new();
        for ty in types {
            if level == DumpLevel::Level1 && ty.is_primitive() {
                continue;
            }
            out.push(Value::read(&mut cur, ty)?);
        }
        if !cur.is_empty() {
            return Err(Error::TrailingBytes {
                offset: cur.offset(),
                remaining: cur.remaining(),
            });
        }
        Ok(out)
    }
}

/// `JVMPI_GC_OBJ_ARRAY_DUMP`: an array of references. Note the element count precedes the
/// element class (unlike HPROF).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjArrayDump {
    /// The array.
    pub array: ObjectId,
    /// The element class.
    pub element_class: ObjectId,
    /// The elements (`u4` count in the record).
    pub elements: Vec<ObjectId>,
}

/// The elements of a primitive array, decoded from big-endian.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PrimArray {
    /// `boolean[]`, raw bytes.
    Boolean(Vec<u8>),
    /// `byte[]`.
    Byte(Vec<i8>),
    /// `char[]`.
    Char(Vec<u16>),
    /// `short[]`.
    Short(Vec<i16>),
    /// `int[]`.
    Int(Vec<i32>),
    /// `long[]`.
    Long(Vec<i64>),
    /// `float[]`.
    Float(Vec<f32>),
    /// `double[]`.
    Double(Vec<f64>),
}

fn chunks<const N: usize, T>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(N)
        .map(|c| {
            let mut a = [0u8; N];
            a.copy_from_slice(c);
            f(a)
        })
        .collect()
}

impl PrimArray {
    /// The element type.
    #[must_use]
    pub const fn element_type(&self) -> TypeCode {
        match self {
            Self::Boolean(_) => TypeCode::Boolean,
            Self::Byte(_) => TypeCode::Byte,
            Self::Char(_) => TypeCode::Char,
            Self::Short(_) => TypeCode::Short,
            Self::Int(_) => TypeCode::Int,
            Self::Long(_) => TypeCode::Long,
            Self::Float(_) => TypeCode::Float,
            Self::Double(_) => TypeCode::Double,
        }
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Self::Boolean(v) => v.len(),
            Self::Byte(v) => v.len(),
            Self::Char(v) => v.len(),
            Self::Short(v) => v.len(),
            Self::Int(v) => v.len(),
            Self::Long(v) => v.len(),
            Self::Float(v) => v.len(),
            Self::Double(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decodes `bytes` (whose length is a multiple of the element size) as elements of `ty`.
    fn from_be(ty: TypeCode, bytes: &[u8]) -> Option<Self> {
        Some(match ty {
            TypeCode::Boolean => Self::Boolean(bytes.to_vec()),
            TypeCode::Byte => Self::Byte(bytes.iter().map(|&b| b as i8).collect()),
            TypeCode::Char => Self::Char(chunks(bytes, u16::from_be_bytes)),
            TypeCode::Short => Self::Short(chunks(bytes, i16::from_be_bytes)),
            TypeCode::Int => Self::Int(chunks(bytes, i32::from_be_bytes)),
            TypeCode::Long => Self::Long(chunks(bytes, i64::from_be_bytes)),
            TypeCode::Float => {
                Self::Float(chunks(bytes, |a| f32::from_bits(u32::from_be_bytes(a))))
            }
            TypeCode::Double => {
                Self::Double(chunks(bytes, |a| f64::from_bits(u64::from_be_bytes(a))))
            }
            TypeCode::NormalObject | TypeCode::Class => return None,
        })
    }

    fn write(&self, w: &mut Writer<'_>) {
        match self {
            Self::Boolean(v) => w.bytes(v),
            Self::Byte(v) => v.iter().for_each(|&x| w.u1(x as u8)),
            Self::Char(v) => v.iter().for_each(|&x| w.u2(x)),
            Self::Short(v) => v.iter().for_each(|&x| w.u2(x as u16)),
            Self::Int(v) => v.iter().for_each(|&x| w.u4(x as u32)),
            Self::Long(v) => v.iter().for_each(|&x| w.u8(x as u64)),
            Self::Float(v) => v.iter().for_each(|&x| w.u4(x.to_bits())),
            Self::Double(v) => v.iter().for_each(|&x| w.u8(x.to_bits())),
        }
    }
}

/// `JVMPI_GC_PRIM_ARRAY_DUMP`: an array of primitives.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PrimArrayDump {
    /// The array.
    pub array: ObjectId,
    /// Number of elements (recorded even at level 1).
    pub length: u32,
    /// Element type.
    pub element_type: TypeCode,
    /// The elements: `Some` at level 2, `None` at level 1 (where the VM writes none).
    pub elements: Option<PrimArray>,
}

/// One record of a level-1 or level-2 heap dump (and, object records only, of an object dump).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HeapDumpRecord {
    /// `JVMPI_GC_ROOT_UNKNOWN`.
    RootUnknown {
        /// The object.
        object: ObjectId,
    },
    /// `JVMPI_GC_ROOT_JNI_GLOBAL`.
    RootJniGlobal {
        /// The object.
        object: ObjectId,
        /// The JNI global reference (HotSpot writes it big-endian: see
        /// [`DumpOptions::void_order`]; CVM writes the object pointer again).
        global_ref: JniRef,
    },
    /// `JVMPI_GC_ROOT_JNI_LOCAL`.
    RootJniLocal {
        /// The object.
        object: ObjectId,
        /// The thread.
        thread: EnvId,
        /// Frame number in the stack trace.
        frame: FrameNumber,
    },
    /// `JVMPI_GC_ROOT_JAVA_FRAME`.
    RootJavaFrame {
        /// The object.
        object: ObjectId,
        /// The thread.
        thread: EnvId,
        /// Frame number in the stack trace.
        frame: FrameNumber,
    },
    /// `JVMPI_GC_ROOT_NATIVE_STACK`.
    RootNativeStack {
        /// The object.
        object: ObjectId,
        /// The thread.
        thread: EnvId,
    },
    /// `JVMPI_GC_ROOT_STICKY_CLASS`.
    RootStickyClass {
        /// The class object.
        class: ObjectId,
    },
    /// `JVMPI_GC_ROOT_THREAD_BLOCK`.
    RootThreadBlock {
        /// The thread object.
        thread_object: ObjectId,
        /// The thread.
        thread: EnvId,
    },
    /// `JVMPI_GC_ROOT_MONITOR_USED`.
    RootMonitorUsed {
        /// The object.
        object: ObjectId,
    },
    /// `JVMPI_GC_CLASS_DUMP`.
    ClassDump(ClassDump),
    /// `JVMPI_GC_INSTANCE_DUMP`.
    InstanceDump(InstanceDump),
    /// `JVMPI_GC_OBJ_ARRAY_DUMP`.
    ObjArrayDump(ObjArrayDump),
    /// `JVMPI_GC_PRIM_ARRAY_DUMP`.
    PrimArrayDump(PrimArrayDump),
}

impl HeapDumpRecord {
    /// The record's tag.
    #[must_use]
    pub const fn tag(&self) -> HeapDumpTag {
        match self {
            Self::RootUnknown { .. } => HeapDumpTag::RootUnknown,
            Self::RootJniGlobal { .. } => HeapDumpTag::RootJniGlobal,
            Self::RootJniLocal { .. } => HeapDumpTag::RootJniLocal,
            Self::RootJavaFrame { .. } => HeapDumpTag::RootJavaFrame,
            Self::RootNativeStack { .. } => HeapDumpTag::RootNativeStack,
            Self::RootStickyClass { .. } => HeapDumpTag::RootStickyClass,
            Self::RootThreadBlock { .. } => HeapDumpTag::RootThreadBlock,
            Self::RootMonitorUsed { .. } => HeapDumpTag::RootMonitorUsed,
            Self::ClassDump(_) => HeapDumpTag::ClassDump,
            Self::InstanceDump(_) => HeapDumpTag::InstanceDump,
            Self::ObjArrayDump(_) => HeapDumpTag::ObjArrayDump,
            Self::PrimArrayDump(_) => HeapDumpTag::PrimArrayDump,
        }
    }

    /// Whether this is a GC root record (tags 0x01–0x07, 0xff).
    #[must_use]
    pub const fn is_root(&self) -> bool {
        !matches!(
            self,
            Self::ClassDump(_)
                | Self::InstanceDump(_)
                | Self::ObjArrayDump(_)
                | Self::PrimArrayDump(_)
        )
    }

    /// Reads one record (tag and body) of a level-1 or level-2 dump.
    pub fn read(
        cur: &mut Cursor<'_>,
        level: DumpLevel,
        resolver: &dyn ClassResolver,
    ) -> Result<Self> {
        let (offset, tag) = read_tag(cur)?;
        Self::read_body(cur, tag, offset, level, resolver, None)
    }

    pub(crate) fn read_body(
        cur: &mut Cursor<'_>,
        tag: HeapDumpTag,
        offset: usize,
        level: DumpLevel,
        resolver: &dyn ClassResolver,
        shapes: Option<&mut Level1Shapes>,
    ) -> Result<Self> {
        let obj = |cur: &mut Cursor<'_>, what| cur.id(what).map(ObjectId);
        let env = |cur: &mut Cursor<'_>| cur.id("JNIEnv * thread").map(EnvId);
        Ok(match tag {
            HeapDumpTag::RootUnknown => Self::RootUnknown {
                object: obj(cur, "root object id")?,
            },
            HeapDumpTag::RootJniGlobal => Self::RootJniGlobal {
                object: obj(cur, "root object id")?,
                global_ref: JniRef(cur.void_id("jobject JNI global reference")?),
            },
            HeapDumpTag::RootJniLocal => Self::RootJniLocal {
                object: obj(cur, "root object id")?,
                thread: env(cur)?,
                frame: FrameNumber(cur.u4("u4 frame number")?),
            },
            HeapDumpTag::RootJavaFrame => Self::RootJavaFrame {
                object: obj(cur, "root object id")?,
                thread: env(cur)?,
                frame: FrameNumber(cur.u4("u4 frame number")?),
            },
            HeapDumpTag::RootNativeStack => Self::RootNativeStack {
                object: obj(cur, "root object id")?,
                thread: env(cur)?,
            },
            HeapDumpTag::RootStickyClass => Self::RootStickyClass {
                class: obj(cur, "sticky class id")?,
            },
            HeapDumpTag::RootThreadBlock => Self::RootThreadBlock {
                thread_object: obj(cur, "thread object id")?,
                thread: env(cur)?,
            },
            HeapDumpTag::RootMonitorUsed => Self::RootMonitorUsed {
                object: obj(cur, "root object id")?,
            },
            HeapDumpTag::RootThreadObj => return Err(thread_obj_unsupported(offset)),
            HeapDumpTag::ClassDump => {
                Self::ClassDump(read_class_dump(cur, offset, level, resolver, shapes)?)
            }
            HeapDumpTag::InstanceDump => {
                let object = obj(cur, "instance object id")?;
                let class = obj(cur, "instance class id")?;
                let n = cur.u4("u4 instance field byte count")?;
                let n = cur.ensure_items(u64::from(n), 1, "instance field values")?;
                let values = cur.bytes(n, "instance field values")?.to_vec();
                Self::InstanceDump(InstanceDump {
                    object,
                    class,
                    values,
                })
            }
            HeapDumpTag::ObjArrayDump => {
                let array = obj(cur, "array object id")?;
                let n = cur.u4("u4 array length")?;
                let element_class = obj(cur, "array element class id")?;
                let elements = cur.ids(u64::from(n), "array elements")?;
                Self::ObjArrayDump(ObjArrayDump {
                    array,
                    element_class,
                    elements,
                })
            }
            HeapDumpTag::PrimArrayDump => {
                let array = obj(cur, "array object id")?;
                let length = cur.u4("u4 array length")?;
                let (element_type, size) = read_element_type(cur)?;
                let elements = if level == DumpLevel::Level2 {
                    let n =
                        cur.ensure_items(u64::from(length), size, "primitive array elements")?;
                    let bytes = cur.bytes(n * size, "primitive array elements")?;
                    PrimArray::from_be(element_type, bytes)
                } else {
                    None
                };
                Self::PrimArrayDump(PrimArrayDump {
                    array,
                    length,
                    element_type,
                    elements,
                })
            }
        })
    }

    /// Appends this record (tag and body) as written at `level` (1 or 2). Fails when the
    /// record contradicts the level (primitive values at level 1, missing elements at level
    /// 2) or itself (array length vs. elements), or an id does not fit the id size.
    pub fn write(&self, w: &mut Writer<'_>, level: DumpLevel) -> Result<()> {
        w.u1(self.tag().raw());
        match self {
            Self::RootUnknown { object } | Self::RootMonitorUsed { object } => {
                w.id(object.0, "root object id")
            }
            Self::RootStickyClass { class } => w.id(class.0, "sticky class id"),
            Self::RootJniGlobal { object, global_ref } => {
                w.id(object.0, "root object id")?;
                w.void_id(global_ref.0, "jobject JNI global reference")
            }
            Self::RootJniLocal {
                object,
                thread,
                frame,
            }
            | Self::RootJavaFrame {
                object,
                thread,
                frame,
            } => {
                w.id(object.0, "root object id")?;
                w.id(thread.0, "JNIEnv * thread")?;
                w.u4(frame.0);
                Ok(())
            }
            Self::RootNativeStack { object, thread } => {
                w.id(object.0, "root object id")?;
                w.id(thread.0, "JNIEnv * thread")
            }
            Self::RootThreadBlock {
                thread_object,
                thread,
            } => {
                w.id(thread_object.0, "thread object id")?;
                w.id(thread.0, "JNIEnv * thread")
            }
            Self::ClassDump(c) => write_class_dump(c, w, level),
            Self::InstanceDump(i) => {
                w.id(i.object.0, "instance object id")?;
                w.id(i.class.0, "instance class id")?;
                w.count(i.values.len(), "instance field values")?;
                w.bytes(&i.values);
                Ok(())
            }
            Self::ObjArrayDump(a) => {
                w.id(a.array.0, "array object id")?;
                w.count(a.elements.len(), "object array elements")?;
                w.id(a.element_class.0, "array element class id")?;
                a.elements
                    .iter()
                    .try_for_each(|e| w.id(e.0, "array element"))
            }
            Self::PrimArrayDump(a) => {
                w.id(a.array.0, "array object id")?;
                w.u4(a.length);
                if !a.element_type.is_primitive() {
                    return Err(Error::Inconsistent {
                        what: "JVMPI_GC_PRIM_ARRAY_DUMP",
                        reason: format!("element type {} is not primitive", a.element_type),
                    });
                }
                w.u1(a.element_type.raw());
                match (&a.elements, level) {
                    (None, DumpLevel::Level1) => Ok(()),
                    (Some(e), DumpLevel::Level2) => {
                        if e.element_type() != a.element_type || e.len() != a.length as usize {
                            return Err(Error::Inconsistent {
                                what: "JVMPI_GC_PRIM_ARRAY_DUMP",
                                reason: format!(
                                    "header says {} × {}, elements are {} × {}",
                                    a.length,
                                    a.element_type,
                                    e.len(),
                                    e.element_type()
                                ),
                            });
                        }
                        e.write(w);
                        Ok(())
                    }
                    (_, level) => Err(Error::Inconsistent {
                        what: "JVMPI_GC_PRIM_ARRAY_DUMP",
                        reason: format!(
                            "elements must be present exactly at level 2, not at {level}"
                        ),
                    }),
                }
            }
        }
    }
}

/// A level-1/2 record located but not decoded: its tag, where it starts, and its bytes (tag
/// included), borrowed from the buffer. [`HeapDumpRecords::next_raw`] finds record boundaries
/// without building records; [`RawRecord::decode`] decodes one when it is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRecord<'a> {
    /// The record's tag.
    pub tag: HeapDumpTag,
    /// Byte offset of the tag in the dump buffer.
    pub offset: usize,
    /// The whole record, tag included.
    pub bytes: &'a [u8],
}

impl RawRecord<'_> {
    /// Decodes this record (error offsets count from the start of the dump buffer).
    pub fn decode(
        &self,
        options: DumpOptions,
        level: DumpLevel,
        resolver: &dyn ClassResolver,
    ) -> Result<HeapDumpRecord> {
        HeapDumpRecord::read(
            &mut Cursor::with_base(self.bytes, self.offset, options),
            level,
            resolver,
        )
    }
}

/// Reads a level-1/2 record tag; returns its offset with it.
fn read_tag(cur: &mut Cursor<'_>) -> Result<(usize, HeapDumpTag)> {
    let offset = cur.offset();
    let raw = cur.u1("heap dump record tag")?;
    let tag = HeapDumpTag::try_from(raw).map_err(|_| Error::UnknownTag {
        offset,
        context: "heap dump",
        tag: raw,
    })?;
    Ok((offset, tag))
}

/// The error for a `JVMPI_GC_ROOT_THREAD_OBJ` record (tag at `offset`), which has no layout.
fn thread_obj_unsupported(offset: usize) -> Error {
    let tag = HeapDumpTag::RootThreadObj;
    Error::UnsupportedRecord {
        offset,
        tag: tag.raw(),
        name: tag.name(),
        reason: "JVMPI documents no layout for it and no VM writes it",
    }
}

/// Reads the `ty` byte of a constant-pool entry.
fn read_value_type(cur: &mut Cursor<'_>) -> Result<TypeCode> {
    let offset = cur.offset();
    let raw = cur.u1("constant pool entry type")?;
    TypeCode::try_from(raw).map_err(|_| Error::BadTypeCode {
        offset,
        expected: "a value type code",
        found: raw,
    })
}

/// Reads the element type of a `JVMPI_GC_PRIM_ARRAY_DUMP`, with its size in bytes.
fn read_element_type(cur: &mut Cursor<'_>) -> Result<(TypeCode, usize)> {
    let offset = cur.offset();
    let raw = cur.u1("array element type")?;
    TypeCode::try_from(raw)
        .ok()
        .and_then(|ty| Some((ty, ty.primitive_size()?)))
        .ok_or(Error::BadTypeCode {
            offset,
            expected: "a primitive element type (JVMPI_BOOLEAN … JVMPI_LONG)",
            found: raw,
        })
}

/// What a level-1 `JVMPI_GC_CLASS_DUMP` needs from its class's layout: the interface count and
/// the number of reference statics (the primitive ones take no bytes at level 1). The record
/// iterators keep it per class, so a class dumped many times has its statics list walked once.
pub(crate) type Level1Shapes = HashMap<ObjectId, (u32, usize)>;

/// The static values a class dump holds.
enum Statics<'l> {
    /// Level 1: this many reference values.
    References(usize),
    /// Level 2: one value of each type.
    All(&'l [TypeCode]),
}

/// The interface count and statics of the class dump of `class` (tag at `offset`).
fn class_shape<'l>(
    class: ObjectId,
    offset: usize,
    level: DumpLevel,
    resolver: &'l dyn ClassResolver,
    shapes: Option<&mut Level1Shapes>,
) -> Result<(u32, Statics<'l>)> {
    if level == DumpLevel::Level1 {
        if let Some(&(interfaces, refs)) = shapes.as_ref().and_then(|s| s.get(&class)) {
            return Ok((interfaces, Statics::References(refs)));
        }
    }
    let layout: &ClassLayout = resolver
        .class_layout(class)
        .ok_or(Error::MissingClassInfo { offset, class })?;
    if level == DumpLevel::Level1 {
        let refs = layout.statics.iter().filter(|t| !t.is_primitive()).count();
        if let Some(shapes) = shapes {
            shapes.insert(class, (layout.interfaces, refs));
        }
        return Ok((layout.interfaces, Statics::References(refs)));
    }
    Ok((layout.interfaces, Statics::All(&layout.statics)))
}

/// Moves `cur` past one record (tag included) with the same checks as decoding, but without
/// building it.
fn skip_record(
    cur: &mut Cursor<'_>,
    level: DumpLevel,
    resolver: &dyn ClassResolver,
    shapes: &mut Level1Shapes,
) -> Result<HeapDumpTag> {
    let (offset, tag) = read_tag(cur)?;
    let i = cur.options().id_bytes();
    let skip = |cur: &mut Cursor<'_>, n: usize, what| cur.bytes(n, what).map(|_| ());
    match tag {
        HeapDumpTag::RootUnknown | HeapDumpTag::RootStickyClass | HeapDumpTag::RootMonitorUsed => {
            skip(cur, i, "root object id")?;
        }
        HeapDumpTag::RootJniGlobal
        | HeapDumpTag::RootNativeStack
        | HeapDumpTag::RootThreadBlock => {
            skip(cur, 2 * i, "root record")?;
        }
        HeapDumpTag::RootJniLocal | HeapDumpTag::RootJavaFrame => {
            skip(cur, 2 * i + 4, "root record")?;
        }
        HeapDumpTag::RootThreadObj => return Err(thread_obj_unsupported(offset)),
        HeapDumpTag::ClassDump => {
            let class = ObjectId(cur.id("class id")?);
            skip(cur, 6 * i + 4, "class dump header")?;
            let (interfaces, statics) = class_shape(class, offset, level, resolver, Some(shapes))?;
            let n = cur.ensure_items(u64::from(interfaces), i, "interface ids")?;
            skip(cur, n * i, "interface ids")?;
            let m = cur.u2("u2 constant pool size")?;
            for _ in 0..m {
                skip(cur, 2, "u2 constant pool index")?;
                let ty = read_value_type(cur)?;
                skip(cur, ty.primitive_size().unwrap_or(i), "constant pool value")?;
            }
            match statics {
                Statics::References(n) => {
                    let n = cur.ensure_items(n as u64, i, "reference value")?;
                    skip(cur, n * i, "reference value")?;
                }
                Statics::All(types) => {
                    for ty in types {
                        match ty.primitive_size() {
                            None => skip(cur, i, "reference value")?,
                            Some(n) => skip(cur, n, "static value")?,
                        }
                    }
                }
            }
        }
        HeapDumpTag::InstanceDump => {
            skip(cur, 2 * i, "instance object and class ids")?;
            let n = cur.u4("u4 instance field byte count")?;
            let n = cur.ensure_items(u64::from(n), 1, "instance field values")?;
            skip(cur, n, "instance field values")?;
        }
        HeapDumpTag::ObjArrayDump => {
            skip(cur, i, "array object id")?;
            let n = cur.u4("u4 array length")?;
            skip(cur, i, "array element class id")?;
            let n = cur.ensure_items(u64::from(n), i, "array elements")?;
            skip(cur, n * i, "array elements")?;
        }
        HeapDumpTag::PrimArrayDump => {
            skip(cur, i, "array object id")?;
            let length = cur.u4("u4 array length")?;
            let (_, size) = read_element_type(cur)?;
            if level == DumpLevel::Level2 {
                let n = cur.ensure_items(u64::from(length), size, "primitive array elements")?;
                skip(cur, n * size, "primitive array elements")?;
            }
        }
    }
    Ok(tag)
}

fn read_class_dump(
    cur: &mut Cursor<'_>,
    offset: usize,
    level: DumpLevel,
    resolver: &dyn ClassResolver,
    shapes: Option<&mut Level1Shapes>,
) -> Result<ClassDump> {
    let class = ObjectId(cur.id("class id")?);
    let super_class = ObjectId(cur.id("super class id")?);
    let class_loader = ObjectId(cur.id("class loader id")?);
    let signers = ObjectId(cur.id("signers id")?);
    let protection_domain = ObjectId(cur.id("protection domain id")?);
    let class_name = ObjectId(cur.id("class name id")?);
    let reserved = Pointer(cur.void_id("reserved")?);
    let instance_size = cur.u4("u4 instance size")?;
    let (interfaces, statics_shape) = class_shape(class, offset, level, resolver, shapes)?;
    let interfaces = cur.ids(u64::from(interfaces), "interface ids")?;
    let m = cur.u2("u2 constant pool size")?;
    // Smallest entry: u2 + ty + 1-byte value.
    let m = cur.ensure_items(u64::from(m), 4, "constant pool entries")?;
    let mut constant_pool = Vec::with_capacity(m);
    for _ in 0..m {
        let index = cur.u2("u2 constant pool index")?;
        let ty = read_value_type(cur)?;
        constant_pool.push(ConstantPoolEntry {
            index,
            ty,
            value: Value::read(cur, ty)?,
        });
    }
    let statics = match statics_shape {
        Statics::References(n) => {
            let n = cur.ensure_items(n as u64, cur.options().id_bytes(), "reference value")?;
            let mut statics = Vec::with_capacity(n);
            for _ in 0..n {
                statics.push(Value::Object(ObjectId(cur.id("reference value")?)));
            }
            statics
        }
        // Every value takes at least one byte, so the reservation is bounded by the buffer.
        Statics::All(types) => {
            let mut statics = Vec::with_capacity(types.len().min(cur.remaining()));
            for &ty in types {
                statics.push(Value::read(cur, ty)?);
            }
            statics
        }
    };
    Ok(ClassDump {
        class,
        super_class,
        class_loader,
        signers,
        protection_domain,
        class_name,
        reserved,
        instance_size,
        interfaces,
        constant_pool,
        statics,
    })
}

fn write_class_dump(c: &ClassDump, w: &mut Writer<'_>, level: DumpLevel) -> Result<()> {
    w.id(c.class.0, "class id")?;
    w.id(c.super_class.0, "super class id")?;
    w.id(c.class_loader.0, "class loader id")?;
    w.id(c.signers.0, "signers id")?;
    w.id(c.protection_domain.0, "protection domain id")?;
    w.id(c.class_name.0, "class name id")?;
    w.void_id(c.reserved.0, "reserved")?;
    w.u4(c.instance_size);
    for i in &c.interfaces {
        w.id(i.0, "interface id")?;
    }
    let m = u16::try_from(c.constant_pool.len()).map_err(|_| Error::Inconsistent {
        what: "JVMPI_GC_CLASS_DUMP constant pool",
        reason: format!("{} entries do not fit a u2 count", c.constant_pool.len()),
    })?;
    w.u2(m);
    for e in &c.constant_pool {
        if !e.value.fits(e.ty) {
            return Err(Error::Inconsistent {
                what: "JVMPI_GC_CLASS_DUMP constant pool entry",
                reason: format!("value {:?} does not match type {}", e.value, e.ty),
            });
        }
        w.u2(e.index);
        w.u1(e.ty.raw());
        e.value.write(w)?;
    }
    for v in &c.statics {
        if level == DumpLevel::Level1 && !matches!(v, Value::Object(_)) {
            return Err(Error::Inconsistent {
                what: "JVMPI_GC_CLASS_DUMP static value",
                reason: format!("primitive static {v:?} cannot be written at level 1"),
            });
        }
        v.write(w)?;
    }
    Ok(())
}

/// Lazy, fallible iterator over the records of a level-0 heap dump.
#[derive(Debug, Clone)]
pub struct Level0Records<'a> {
    cur: Cursor<'a>,
    failed: bool,
}

impl<'a> Level0Records<'a> {
    /// Records of the level-0 buffer `data` (`heap_dump.begin .. end`).
    #[must_use]
    pub const fn new(data: &'a [u8], options: DumpOptions) -> Self {
        Self {
            cur: Cursor::new(data, options),
            failed: false,
        }
    }

    /// Byte offset of the next record.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.cur.offset()
    }

    /// The next record, `Ok(None)` at the end of the buffer.
    pub fn next_record(&mut self) -> Result<Option<Level0Record>> {
        if self.failed || self.cur.is_empty() {
            return Ok(None);
        }
        Level0Record::read(&mut self.cur)
            .map(Some)
            .inspect_err(|_| self.failed = true)
    }
}

impl Iterator for Level0Records<'_> {
    type Item = Result<Level0Record>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Lazy, fallible iterator over the records of a level-1 or level-2 heap dump.
pub struct HeapDumpRecords<'a, 'r> {
    cur: Cursor<'a>,
    level: DumpLevel,
    resolver: &'r dyn ClassResolver,
    shapes: Level1Shapes,
    failed: bool,
}

impl core::fmt::Debug for HeapDumpRecords<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HeapDumpRecords")
            .field("offset", &self.cur.offset())
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

impl<'a, 'r> HeapDumpRecords<'a, 'r> {
    /// Records of the buffer `data` (`heap_dump.begin .. end`) dumped at `level` (1 or 2),
    /// with class layouts from `resolver`.
    pub fn new(
        data: &'a [u8],
        options: DumpOptions,
        level: DumpLevel,
        resolver: &'r dyn ClassResolver,
    ) -> Result<Self> {
        if level == DumpLevel::Level0 {
            return Err(Error::WrongLevel {
                expected: "dump level 1 or 2",
                found: level,
            });
        }
        Ok(Self {
            cur: Cursor::new(data, options),
            level,
            resolver,
            shapes: HashMap::new(),
            failed: false,
        })
    }

    /// Byte offset of the next record.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.cur.offset()
    }

    /// The next record located but not decoded, `Ok(None)` at the end of the buffer. Mixes
    /// freely with [`HeapDumpRecords::next_record`]. It allocates nothing but, at level 1, one
    /// small entry per dumped class (its interface and reference-static counts, so a class
    /// dumped many times has its layout walked once).
    pub fn next_raw(&mut self) -> Result<Option<RawRecord<'a>>> {
        if self.failed || self.cur.is_empty() {
            return Ok(None);
        }
        let offset = self.cur.offset();
        match skip_record(&mut self.cur, self.level, self.resolver, &mut self.shapes) {
            Ok(tag) => Ok(Some(RawRecord {
                tag,
                offset,
                bytes: self.cur.since(offset),
            })),
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    /// The next record, `Ok(None)` at the end of the buffer.
    pub fn next_record(&mut self) -> Result<Option<HeapDumpRecord>> {
        if self.failed || self.cur.is_empty() {
            return Ok(None);
        }
        read_tag(&mut self.cur)
            .and_then(|(offset, tag)| {
                HeapDumpRecord::read_body(
                    &mut self.cur,
                    tag,
                    offset,
                    self.level,
                    self.resolver,
                    Some(&mut self.shapes),
                )
            })
            .map(Some)
            .inspect_err(|_| self.failed = true)
    }
}

impl Iterator for HeapDumpRecords<'_, '_> {
    type Item = Result<HeapDumpRecord>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Decodes a whole level-0 heap dump.
pub fn decode_level0(data: &[u8], options: DumpOptions) -> Result<Vec<Level0Record>> {
    // Records are fixed-size, so the count is known up front.
    let mut out = Vec::with_capacity(data.len() / (1 + options.id_bytes()));
    let mut records = Level0Records::new(data, options);
    while let Some(r) = records.next_record()? {
        out.push(r);
    }
    Ok(out)
}

/// Decodes a whole level-1 or level-2 heap dump.
pub fn decode(
    data: &[u8],
    options: DumpOptions,
    level: DumpLevel,
    resolver: &dyn ClassResolver,
) -> Result<Vec<HeapDumpRecord>> {
    HeapDumpRecords::new(data, options, level, resolver)?.collect()
}

/// Encodes a level-0 heap dump, appending to `out`.
pub fn encode_level0(
    records: &[Level0Record],
    options: DumpOptions,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut w = Writer::new(out, options);
    records.iter().try_for_each(|r| r.write(&mut w))
}

/// Encodes a level-1 or level-2 heap dump, appending to `out`.
pub fn encode(
    records: &[HeapDumpRecord],
    options: DumpOptions,
    level: DumpLevel,
    out: &mut Vec<u8>,
) -> Result<()> {
    if level == DumpLevel::Level0 {
        return Err(Error::WrongLevel {
            expected: "dump level 1 or 2",
            found: level,
        });
    }
    let mut w = Writer::new(out, options);
    records.iter().try_for_each(|r| r.write(&mut w, level))
}
