//! The one error type of the crate: what was expected, what was found, and where (1-based line
//! and column plus the byte offset in the JSON text, or the byte offset in compressed input).

use std::fmt;

/// A place in the input: byte offset and 1-based line and column.
///
/// Columns count bytes from the start of the line (the real files are ASCII, where bytes
/// and characters coincide). The same type and fields as `hprof::ascii::Position` (the crates
/// share no dependency, so each defines it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Position {
    /// Byte offset from the start of the input.
    pub offset: usize,
    /// Line number, starting at 1.
    pub line: usize,
    /// Column number in bytes, starting at 1.
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `input`.
    pub fn locate(input: &[u8], offset: usize) -> Self {
        let before = input.get(..offset).unwrap_or(input);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Position {
            offset,
            line,
            column: offset.saturating_sub(line_start) + 1,
        }
    }
}

impl fmt::Display for Position {
    /// `line:column`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The result of this crate's operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an `.iprof` file could not be read (or a typed view could not be taken).
///
/// The JSON variants carry the [`Position`] of the offending input and their `Display` form
/// starts with `line:column`; [`Error::Gzip`] and [`Error::Xz`] give the byte offset in the
/// compressed input. Schema problems that real files exhibit (dangling ids, wrong record
/// arities, negative counts, …) are *not* read errors: see [`crate::validate`]; a typed view
/// of an entry with the wrong arity is [`Error::Arity`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The JSON grammar or the `.iprof` layout wanted something else here.
    #[error("{at}: expected {expected}, found {found}")]
    Unexpected {
        /// What was allowed here.
        expected: &'static str,
        /// A short description of what was found instead.
        found: String,
        /// Where.
        at: Position,
    },
    /// The input ended early (a truncated file).
    #[error("{at}: unexpected end of input (truncated file?), expected {expected}")]
    Truncated {
        /// What was needed next.
        expected: &'static str,
        /// The end of the input.
        at: Position,
    },
    /// Bytes that are not UTF-8.
    #[error("{at}: invalid UTF-8")]
    InvalidUtf8 {
        /// The first invalid byte.
        at: Position,
    },
    /// An integer outside the signed 64-bit range, or a fraction or exponent where the
    /// format only has integers.
    #[error("{at}: expected {expected}, found the number {found}")]
    Number {
        /// What kind of integer was expected.
        expected: &'static str,
        /// The number's text.
        found: String,
        /// Where the number starts.
        at: Position,
    },
    /// A string escape the JSON grammar does not allow (or an unpaired surrogate).
    #[error("{at}: invalid escape in string: {found}")]
    Escape {
        /// The escape's text.
        found: String,
        /// Where the escape starts.
        at: Position,
    },
    /// A `ctx` (or legacy `methodBciList`) string that is not a call context.
    #[error("{at}: invalid call context {text:?}: {source}")]
    Context {
        /// The context text as decoded.
        text: String,
        /// The `callctx` error (its offset is relative to `text`).
        source: callctx::Error,
        /// Where the offending byte is (exact when the string has no escapes).
        at: Position,
    },
    /// A required key is missing from an object.
    #[error("{at}: object has no {key:?} key ({object} requires it)")]
    MissingKey {
        /// The missing key.
        key: &'static str,
        /// Which object it was (e.g. `a type`, `the profile`).
        object: &'static str,
        /// Where the object starts.
        at: Position,
    },
    /// A key given twice in one object (or a section given under its modern and its legacy
    /// name).
    #[error("{at}: duplicate key {key:?}")]
    DuplicateKey {
        /// The key.
        key: String,
        /// Where the second occurrence starts.
        at: Position,
    },
    /// Arrays and objects nested deeper than the reader allows (in unknown values).
    #[error("{at}: nesting deeper than {limit} levels")]
    TooDeep {
        /// The nesting limit.
        limit: usize,
        /// Where the limit was exceeded.
        at: Position,
    },
    /// Bytes that do not start like JSON at all (an `.iprof` file is one JSON object): a heap
    /// dump, a recording or a binary handed to the wrong reader.
    #[error("1:1: not a JSON profile: an .iprof file starts with `{{`, this one with {found}")]
    NotJson {
        /// What the input starts with (and what it looks like, when its magic is known).
        found: String,
    },
    /// The input is gzip- or xz-compressed: decompress it first with [`crate::decompress`].
    #[error(
        "1:1: the input is {format}-compressed (magic bytes {magic}); decompress it first \
         (iprof::decompress, with the crate's `{format}` feature)"
    )]
    Compressed {
        /// `gzip` or `xz`.
        format: &'static str,
        /// The magic bytes found, in hex.
        magic: &'static str,
    },
    /// Invalid or truncated gzip data, or more output than the caller allows (see the `gzip`
    /// module, feature `gzip`).
    #[error("byte {offset} of the gzip data: {what}")]
    Gzip {
        /// What is wrong.
        what: &'static str,
        /// The byte offset in the compressed input.
        offset: usize,
    },
    /// Invalid or truncated xz data, or more output than the caller allows (see the `xz`
    /// module, feature `xz`).
    #[error("byte {offset} of the xz data: {what}")]
    Xz {
        /// What is wrong.
        what: &'static str,
        /// How far into the compressed input the decoder had read.
        offset: usize,
    },
    /// The input is compressed in a format whose cargo feature is off.
    #[error(
        "1:1: the input is {format}-compressed, and this build of iprof has no `{format}` feature"
    )]
    Unsupported {
        /// `gzip` or `xz`.
        format: &'static str,
    },
    /// A typed view of an entry whose `records` do not have the shape its section requires.
    #[error("{section} records hold {len} integers, expected {}", section.records_len_rule())]
    Arity {
        /// The section of the entry.
        section: crate::model::Section,
        /// How many integers `records` holds.
        len: usize,
    },
}

impl Error {
    /// Where the error is in the JSON text (`None` for errors about compressed input, which
    /// carry a byte offset in it, and for [`Error::Arity`]).
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Unexpected { at, .. }
            | Error::Truncated { at, .. }
            | Error::InvalidUtf8 { at }
            | Error::Number { at, .. }
            | Error::Escape { at, .. }
            | Error::Context { at, .. }
            | Error::MissingKey { at, .. }
            | Error::DuplicateKey { at, .. }
            | Error::TooDeep { at, .. } => Some(*at),
            Error::NotJson { .. } => Some(Position {
                line: 1,
                column: 1,
                offset: 0,
            }),
            Error::Compressed { .. }
            | Error::Gzip { .. }
            | Error::Xz { .. }
            | Error::Unsupported { .. }
            | Error::Arity { .. } => None,
        }
    }

    /// True when the input ended early (a truncated file).
    pub fn is_truncated(&self) -> bool {
        matches!(self, Error::Truncated { .. })
    }
}
