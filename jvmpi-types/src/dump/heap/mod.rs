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
//!     heap::parse_level0(&level0, o)?,
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
use crate::dump::ClassResolver;
use crate::error::{Error, Result};
use crate::ids::ObjectId;
use std::collections::HashMap;

mod class_dump;
mod level0;
mod records;

pub use class_dump::{ClassDump, ConstantPoolEntry};
use class_dump::{Level1Shapes, Statics, class_shape};
pub use level0::{Level0Record, Level0Records, parse_level0, write_level0};
pub use records::{
    FrameNumber, HeapDumpRecord, InstanceDump, ObjArrayDump, PrimArray, PrimArrayDump,
};

/// A level-1/2 record located but not decoded: its tag, where it starts, and its bytes (tag
/// included), borrowed from the buffer. [`HeapDumpRecords::next_raw`] finds record boundaries
/// without building records; [`RawRecord::parse`] decodes one when it is wanted.
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
    pub fn parse(
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
                found: level.name(),
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

/// Decodes a whole level-1 or level-2 heap dump.
pub fn parse(
    data: &[u8],
    options: DumpOptions,
    level: DumpLevel,
    resolver: &dyn ClassResolver,
) -> Result<Vec<HeapDumpRecord>> {
    HeapDumpRecords::new(data, options, level, resolver)?.collect()
}

/// Encodes a level-1 or level-2 heap dump, appending to `out`.
pub fn write(
    records: &[HeapDumpRecord],
    options: DumpOptions,
    level: DumpLevel,
    out: &mut Vec<u8>,
) -> Result<()> {
    if level == DumpLevel::Level0 {
        return Err(Error::WrongLevel {
            expected: "dump level 1 or 2",
            found: level.name(),
        });
    }
    let mut w = Writer::new(out, options);
    records.iter().try_for_each(|r| r.write(&mut w, level))
}
