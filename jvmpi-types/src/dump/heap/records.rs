//! Levels 1 and 2 (`jvmpi.md` §7): the records, GC roots and the four object dumps, each read
//! and written by [`HeapDumpRecord::read`] and [`HeapDumpRecord::write`].

use crate::constants::{DumpLevel, HeapDumpTag, TypeCode};
use crate::cursor::{Cursor, DumpOptions, Writer};
use crate::dump::{ClassResolver, Value};
use crate::error::{Error, Result};
use crate::ids::{EnvId, JniRef, ObjectId};

use super::class_dump::{ClassDump, Level1Shapes, read_class_dump, write_class_dump};
use super::{read_element_type, read_tag, thread_obj_unsupported};

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
    /// when some class of the chain is unknown. This gathers the types for the call; to
    /// decode many instances, use [`InstanceDump::fields_with`] and an
    /// [`InstanceLayoutCache`], which gathers them once per class.
    ///
    /// [`ClassLayouts::instance_field_types`]: crate::ClassLayouts::instance_field_types
    /// [`InstanceLayoutCache`]: crate::dump::InstanceLayoutCache
    pub fn fields_from(
        &self,
        classes: &crate::ClassLayouts,
        options: DumpOptions,
        level: DumpLevel,
    ) -> Option<Result<Vec<Value>>> {
        let types = classes.instance_field_types(self.class)?;
        Some(self.fields(types, options, level))
    }

    /// Decodes [`InstanceDump::values`] as [`InstanceDump::fields_from`] does, through the
    /// field types `cache` holds for this instance's class; `None` when some class of the
    /// chain is unknown.
    pub fn fields_with(
        &self,
        cache: &mut crate::dump::InstanceLayoutCache<'_>,
        options: DumpOptions,
        level: DumpLevel,
    ) -> Option<Result<Vec<Value>>> {
        let types = cache.field_types(self.class)?;
        Some(self.fields(types.iter().copied(), options, level))
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
    /// `JVMPI_GC_CLASS_DUMP`. Boxed: class dumps are few and large (136 bytes with 8-byte ids),
    /// so the other records (the many instance and array dumps) do not pay for their size.
    ClassDump(Box<ClassDump>),
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
            HeapDumpTag::ClassDump => Self::ClassDump(Box::new(read_class_dump(
                cur, offset, level, resolver, shapes,
            )?)),
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
