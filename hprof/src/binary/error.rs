//! The one error type of the binary side: what was expected, what was found, and the byte
//! offset in the file where it went wrong.

use thiserror::Error;

/// Everything that can go wrong decoding a binary HPROF file. Every variant carries the byte
/// offset (from the start of the file) where decoding stopped.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended inside a header, record or sub-record.
    #[error(
        "unexpected end of input at byte {offset}: expected {expected}, {needed} more byte(s) needed"
    )]
    Truncated {
        /// Offset of the first missing byte.
        offset: u64,
        /// What was being read.
        expected: &'static str,
        /// How many more bytes that read needed.
        needed: u64,
    },
    /// The dump holds more objects than the heap graph can number.
    #[error("{count} objects: the heap graph holds at most {limit}")]
    TooManyObjects {
        /// Objects in the dump (distinct ids).
        count: u64,
        /// The most the graph holds.
        limit: u64,
    },
    /// The caller's scratch storage could not give an array the graph needs.
    #[error("scratch storage for {what} ({len} elements) failed: {message}")]
    Scratch {
        /// The array (e.g. "references").
        what: &'static str,
        /// Its length in elements.
        len: u64,
        /// Why, as the storage says.
        message: String,
    },
    /// The input starts with the gzip magic `1f 8b`.
    #[error(
        "input at byte 0 is gzip-compressed (starts with 1f 8b): decompress the heap dump first"
    )]
    Gzip,
    /// The file does not start with `JAVA PROFILE 1.0.x\0`.
    #[error(
        "bad magic at byte 0: expected \"JAVA PROFILE 1.0.1\", \"1.0.2\" or \"1.0.3\" followed by NUL, found {found:?}"
    )]
    BadMagic {
        /// The first bytes of the input, lossily decoded.
        found: String,
    },
    /// The header's identifier size is not 4 or 8.
    #[error("unsupported identifier size {found} at byte {offset}: expected 4 or 8")]
    BadIdSize {
        /// Offset of the `id_size` field.
        offset: u64,
        /// The size found.
        found: u32,
    },
    /// A top-level record tag this crate does not know (only with [`UnknownTags::Error`](crate::binary::UnknownTags::Error)).
    #[error("unknown top-level record tag 0x{tag:02x} at byte {offset}")]
    UnknownTag {
        /// Offset of the record's tag byte.
        offset: u64,
        /// The tag found.
        tag: u8,
    },
    /// A heap-dump sub-record tag this crate does not know. Sub-records carry no length, so
    /// the rest of that heap-dump record cannot be decoded.
    #[error("unknown heap dump sub-record tag 0x{tag:02x} at byte {offset}")]
    UnknownSubTag {
        /// Offset of the sub-record's tag byte.
        offset: u64,
        /// The tag found.
        tag: u8,
    },
    /// A basic-type code outside 2 and 4..=11 (or 2 where only primitives are allowed).
    #[error("invalid basic type code {found} at byte {offset}: expected {expected}")]
    BadBasicType {
        /// Offset of the type byte.
        offset: u64,
        /// The code found.
        found: u8,
        /// Which codes were allowed.
        expected: &'static str,
    },
    /// A count times an element size does not fit in the remaining input (or overflows).
    #[error(
        "{what} at byte {offset}: {count} element(s) of {size} byte(s) exceed the {available} byte(s) left"
    )]
    TooLong {
        /// Offset of the count field.
        offset: u64,
        /// What was counted.
        what: &'static str,
        /// The count read.
        count: u64,
        /// Size of one element.
        size: u64,
        /// Bytes left in the enclosing record.
        available: u64,
    },
    /// A record's declared length disagrees with the length of its content.
    #[error(
        "record with tag 0x{tag:02x} at byte {offset} declares {declared} body byte(s), but its content takes {actual}"
    )]
    LengthMismatch {
        /// Offset of the record's tag byte.
        offset: u64,
        /// The record's tag.
        tag: u8,
        /// The length in the record header.
        declared: u64,
        /// The length its fields take.
        actual: u64,
    },
    /// A record's content ends beyond its declared length.
    #[error(
        "record with tag 0x{tag:02x} at byte {offset}: its content runs past its declared length of {declared} byte(s) ({expected} at byte {at})"
    )]
    RecordOverrun {
        /// Offset of the record's tag byte.
        offset: u64,
        /// The record's tag.
        tag: u8,
        /// The length in the record header.
        declared: u64,
        /// What was being read when the body ran out.
        expected: &'static str,
        /// Offset where the read needed bytes past the body.
        at: u64,
    },
    /// A record or sub-record needs more bytes than the input holds from its start (the file
    /// is cut off there, or a length or count field is corrupt). Nothing was allocated for it.
    #[error(
        "{what} at byte {offset} needs {needed} byte(s), but the input ends {available} byte(s) after its start ({} byte(s) missing; decoded up to byte {at})",
        needed.saturating_sub(*available)
    )]
    PastEnd {
        /// Offset of the record's or sub-record's tag byte.
        offset: u64,
        /// Offset of the first byte not decoded (the start of the incomplete record or
        /// heap-dump sub-record).
        at: u64,
        /// The record or sub-record (`"HEAP_DUMP_SEGMENT record"`, `"PRIM_ARRAY_DUMP sub-record"`).
        what: &'static str,
        /// Its size as declared by its length or count fields (header included).
        needed: u64,
        /// Bytes from its start to the end of the input.
        available: u64,
    },
    /// A record or sub-record declares a size above the decoder's limit
    /// ([`Decoder::max_item_len`](crate::binary::Decoder::max_item_len)), used when the input's
    /// size is not known.
    #[error(
        "{what} at byte {offset} declares {needed} byte(s), more than the limit of {limit} byte(s) for one record or sub-record"
    )]
    OverLimit {
        /// Offset of the record's or sub-record's tag byte.
        offset: u64,
        /// The record or sub-record.
        what: &'static str,
        /// Its declared size (header included).
        needed: u64,
        /// The decoder's limit.
        limit: u64,
    },
    /// A string that had to be UTF-8 is not (e.g. the header magic).
    #[error("invalid data at byte {offset}: {message}")]
    Invalid {
        /// Where.
        offset: u64,
        /// What was wrong.
        message: String,
    },
}

impl Error {
    /// The byte offset at which the error was detected (0 for [`Error::Gzip`] and
    /// [`Error::BadMagic`]).
    pub fn offset(&self) -> u64 {
        match self {
            Error::Gzip
            | Error::BadMagic { .. }
            | Error::TooManyObjects { .. }
            | Error::Scratch { .. } => 0,
            Error::Truncated { offset, .. }
            | Error::BadIdSize { offset, .. }
            | Error::UnknownTag { offset, .. }
            | Error::UnknownSubTag { offset, .. }
            | Error::BadBasicType { offset, .. }
            | Error::TooLong { offset, .. }
            | Error::LengthMismatch { offset, .. }
            | Error::RecordOverrun { offset, .. }
            | Error::PastEnd { offset, .. }
            | Error::OverLimit { offset, .. }
            | Error::Invalid { offset, .. } => *offset,
        }
    }
}

/// Result of every decoding function of the binary side.
pub type Result<T> = core::result::Result<T, Error>;

/// What could be read from an input that is cut off or damaged part-way, and the error that
/// stopped reading: a partial result *and* the reason, not one or the other.
///
/// ```
/// use hprof::binary::{Header, Id, IdSize, InstanceDump, Histogram, StackTraceSerial, SubRecord, Version};
/// use hprof::binary::write::Writer;
/// let header = Header { version: Version::V1_0_2, id_size: IdSize::Eight, timestamp_ms: 0 };
/// let mut w = Writer::new(Vec::new(), &header)?;
/// for object_id in (1..=100).map(Id) {
///     let stack_trace_serial = StackTraceSerial(0);
///     let dump = InstanceDump { object_id, stack_trace_serial, class_id: Id(7), data: &[0; 4] };
///     w.write_sub_record(&SubRecord::InstanceDump(dump))?;
/// }
/// let file = w.finish()?;
///
/// // The same dump cut off in the middle of its heap dump.
/// let salvaged = Histogram::salvage(&file[..file.len() / 2])?;
/// assert!(!salvaged.is_complete() && salvaged.value.total_instances() > 10);
/// let error = salvaged.error.unwrap();
/// assert!(error.to_string().contains("HEAP_DUMP_SEGMENT record at byte 31"), "{error}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Salvaged<T> {
    /// Everything read before the error.
    pub value: T,
    /// Why reading stopped before the end (`None`: the input was read to its end).
    pub error: Option<Error>,
}

impl<T> Salvaged<T> {
    /// Whether the whole input was read.
    pub fn is_complete(&self) -> bool {
        self.error.is_none()
    }

    /// The value if the whole input was read, else the error.
    ///
    /// # Errors
    /// The error that stopped reading.
    pub fn into_result(self) -> Result<T> {
        match self.error {
            None => Ok(self.value),
            Some(e) => Err(e),
        }
    }
}
