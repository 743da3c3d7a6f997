//! Level 0 (`jvmpi.md` §6): a run of `u1 ty` + `jobjectID` pairs, no roots and no values.

use crate::constants::TypeCode;
use crate::cursor::{Cursor, DumpOptions, Writer};
use crate::error::{Error, Result};
use crate::ids::ObjectId;

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

/// Decodes a whole level-0 heap dump.
pub fn parse_level0(data: &[u8], options: DumpOptions) -> Result<Vec<Level0Record>> {
    // Records are fixed-size, so the count is known up front.
    let mut out = Vec::with_capacity(data.len() / (1 + options.id_bytes()));
    let mut records = Level0Records::new(data, options);
    while let Some(r) = records.next_record()? {
        out.push(r);
    }
    Ok(out)
}

/// Encodes a level-0 heap dump, appending to `out`.
pub fn write_level0(
    records: &[Level0Record],
    options: DumpOptions,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut w = Writer::new(out, options);
    records.iter().try_for_each(|r| r.write(&mut w))
}
