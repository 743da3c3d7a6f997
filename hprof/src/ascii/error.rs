//! Errors of the ASCII side: every variant says what was expected, what was found and where
//! (1-based line and column of the report text).

use std::fmt;

/// A place in the input: byte offset and 1-based line and column.
///
/// Columns count bytes from the start of the line (the reports are ASCII, where bytes and
/// characters coincide). The same type and fields as `iprof::Position` (the crates share no
/// dependency, so each defines it).
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

impl fmt::Display for Position {
    /// `line:column`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Everything that can go wrong while reading an HPROF ASCII report.
///
/// A [`Reader`](super::Reader) that returned an error has already stepped past the offending
/// line, so calling it again continues with the next line (error recovery).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A line did not have the expected shape.
    #[error("{position}: expected {expected}, found {found:?}")]
    Syntax {
        /// Where the unexpected text starts.
        position: Position,
        /// What the line format requires at this place.
        expected: &'static str,
        /// The text found there (at most 40 characters of it).
        found: String,
    },
    /// A number does not fit the field it was read into.
    #[error("{position}: number {found:?} does not fit in {expected}")]
    NumberOutOfRange {
        /// Where the number starts.
        position: Position,
        /// The field type, e.g. `u32`.
        expected: &'static str,
        /// The digits found.
        found: String,
    },
    /// A line that belongs inside a section appeared outside it.
    #[error("{position}: {found} line outside {expected}")]
    Misplaced {
        /// Where the line starts.
        position: Position,
        /// The section this line belongs in, e.g. `a TRACE block`.
        expected: &'static str,
        /// What kind of line was found, e.g. `stack frame`.
        found: &'static str,
    },
    /// The bytes of a line are not valid UTF-8.
    #[error("{position}: expected UTF-8 text, found invalid byte 0x{found:02x}")]
    InvalidUtf8 {
        /// Where the first invalid byte is.
        position: Position,
        /// The first invalid byte.
        found: u8,
    },
}

impl Error {
    /// Where the error occurred.
    pub fn position(&self) -> Position {
        match self {
            Error::Syntax { position, .. }
            | Error::NumberOutOfRange { position, .. }
            | Error::Misplaced { position, .. }
            | Error::InvalidUtf8 { position, .. } => *position,
        }
    }
}
