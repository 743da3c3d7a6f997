//! The crate's one error type: every variant says what was expected, what was found and, for
//! buffer decoding, at which byte offset.

use crate::ids::ObjectId;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Everything that can go wrong while converting raw JVMPI values or dump buffers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A raw value does not name any constant of the expected kind.
    #[error("unknown {kind} value {value} (0x{value:x})")]
    UnknownConstant {
        /// Which kind of constant was expected (`"event type"`, `"type code"`, ...).
        kind: &'static str,
        /// The raw value found.
        value: i64,
    },
    /// The buffer ended in the middle of an item.
    #[error(
        "at byte offset {offset}: expected {what} ({needed} bytes), found only {available} bytes before the end of the buffer"
    )]
    Truncated {
        /// Offset at which the item starts.
        offset: usize,
        /// What was being read.
        what: &'static str,
        /// Bytes the item needs.
        needed: u64,
        /// Bytes left in the buffer.
        available: usize,
    },
    /// A record tag byte is not one this dump format allows.
    #[error("at byte offset {offset}: expected a {context} record tag, found 0x{tag:02x}")]
    UnknownTag {
        /// Offset of the tag byte.
        offset: usize,
        /// Which dump format was being decoded.
        context: &'static str,
        /// The tag byte found.
        tag: u8,
    },
    /// A record tag that is valid JVMPI but has no layout this crate (or JVMPI) can decode.
    #[error(
        "at byte offset {offset}: record tag 0x{tag:02x} ({name}) is not allowed here: {reason}"
    )]
    UnsupportedRecord {
        /// Offset of the tag byte.
        offset: usize,
        /// The tag byte.
        tag: u8,
        /// The tag's header name.
        name: &'static str,
        /// Why it cannot be decoded here.
        reason: &'static str,
    },
    /// A `ty` byte holds a value that is not allowed in its position.
    #[error("at byte offset {offset}: expected {expected}, found type code {found}")]
    BadTypeCode {
        /// Offset of the `ty` byte.
        offset: usize,
        /// What kinds of type code are allowed there.
        expected: &'static str,
        /// The byte found.
        found: u8,
    },
    /// A CLASS_DUMP record refers to a class the resolver knows nothing about.
    #[error(
        "at byte offset {offset}: JVMPI_GC_CLASS_DUMP of class id {class} needs the class's interface count and static field types (from its JVMPI_EVENT_CLASS_LOAD), but the resolver has none"
    )]
    MissingClassInfo {
        /// Offset of the record's tag byte.
        offset: usize,
        /// The class id from the record.
        class: ObjectId,
    },
    /// A field signature (as in `JVMPI_Field.field_signature`) is not a Java field descriptor.
    #[error("expected a Java field signature (Z B C S I J F D L... [...), found {found:?}")]
    BadSignature {
        /// The signature found.
        found: String,
    },
    /// The buffer has bytes left after the one record an object dump may hold.
    #[error(
        "at byte offset {offset}: expected the end of the object dump, found {remaining} more bytes"
    )]
    TrailingBytes {
        /// Offset just after the record.
        offset: usize,
        /// Bytes left.
        remaining: usize,
    },
    /// A heap dump of level 0 was passed where a level 1/2 decoder was expected, or vice versa.
    #[error("expected {expected}, found {found}")]
    WrongLevel {
        /// What the function handles.
        expected: &'static str,
        /// The level passed in, by its header name (`JVMPI_DUMP_LEVEL_0`).
        found: &'static str,
    },
    /// An identifier does not fit the configured identifier size when encoding.
    #[error("cannot encode {what} 0x{value:x} in a {id_size}-byte identifier")]
    IdTooLarge {
        /// Which item.
        what: &'static str,
        /// The value.
        value: u64,
        /// The configured size.
        id_size: u8,
    },
    /// A value to encode contradicts the rest of its record (or the dump level).
    #[error("cannot encode {what}: {reason}")]
    Inconsistent {
        /// Which item.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// An identifier size other than 4 or 8 was requested.
    #[error("expected an identifier size of 4 or 8 bytes, found {0}")]
    BadIdSize(u64),
}
