//! What the incremental decoder finds, and the outcome of one call.

use crate::binary::header::Header;
use crate::binary::heap_dump::SubRecord;
use crate::binary::records::{Record, RecordHeader};

/// One thing the incremental decoder found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Event<'a> {
    /// The file header (always first).
    Header(Header),
    /// A complete top-level record other than `HEAP_DUMP`/`HEAP_DUMP_SEGMENT`.
    Record(RecordHeader, Record<'a>),
    /// A `HEAP_DUMP` or `HEAP_DUMP_SEGMENT` record starts; its sub-records follow.
    HeapDumpStart(RecordHeader),
    /// One heap-dump sub-record, with its file offset.
    SubRecord(u64, SubRecord<'a>),
    /// The heap-dump record started by the last [`Event::HeapDumpStart`] is complete.
    HeapDumpBodyEnd(RecordHeader),
}

/// The outcome of one [`Decoder::decode`](super::Decoder::decode) call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status<T> {
    /// Something was decoded from the first `consumed` bytes of the input.
    Complete {
        /// What was decoded.
        item: T,
        /// How many input bytes it took (drop them before the next call).
        consumed: usize,
    },
    /// The input ends inside the next item.
    Partial {
        /// Bytes that could be dropped anyway (skipped unknown records).
        consumed: usize,
        /// At least this many more bytes are needed after the unconsumed input.
        needed: usize,
    },
}
