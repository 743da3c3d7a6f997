//! The 9-byte framing of every top-level record (`u1 tag, u4 time, u4 length`), and what to
//! do with a tag this crate does not know.

use super::tags::tag;
use crate::binary::cursor::Cursor;
use crate::binary::error::Result;

/// Length of a record header (`u1 tag, u4 time, u4 length`).
pub const RECORD_HEADER_LEN: usize = 9;

/// The 9-byte framing of a top-level record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RecordHeader {
    /// The record's tag.
    pub tag: u8,
    /// Microseconds since the header timestamp (HotSpot and ART write 0).
    pub time: u32,
    /// Length of the body in bytes.
    pub length: u32,
    /// File offset of the tag byte.
    pub offset: u64,
}

impl RecordHeader {
    /// Reads a record header.
    #[inline]
    pub fn parse(c: &mut Cursor<'_>) -> Result<RecordHeader> {
        let offset = c.offset();
        let b = c.array::<RECORD_HEADER_LEN>("a record header (tag, time, length)")?;
        let [tag, t0, t1, t2, t3, l0, l1, l2, l3] = *b;
        Ok(RecordHeader {
            tag,
            time: u32::from_be_bytes([t0, t1, t2, t3]),
            length: u32::from_be_bytes([l0, l1, l2, l3]),
            offset,
        })
    }

    /// File offset of the first body byte.
    pub fn body_offset(&self) -> u64 {
        self.offset + RECORD_HEADER_LEN as u64
    }

    /// Whether this is a `HEAP_DUMP` or `HEAP_DUMP_SEGMENT`.
    pub fn is_heap_dump(&self) -> bool {
        self.tag == tag::HEAP_DUMP || self.tag == tag::HEAP_DUMP_SEGMENT
    }
}

/// What to do with a top-level tag this crate does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UnknownTags {
    /// Return it as [`Record::Unknown`](super::Record::Unknown) and go on (length framing makes that safe).
    #[default]
    Surface,
    /// Skip it silently.
    Skip,
    /// Stop with [`Error::UnknownTag`](crate::binary::Error::UnknownTag).
    Error,
}
