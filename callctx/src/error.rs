//! The one error type of this crate: what was expected, what was found, and at which byte.

use std::fmt;

/// Why a context string was rejected, and where.
///
/// `offset` is the byte offset into the text handed to the parser. The `Display` form reads
/// `expected ':' at byte 3, found 'x'` or `expected a method id (decimal digits) at byte 4,
/// found the end of the context`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at byte {offset}{}", FoundSuffix(self.kind))]
pub struct Error {
    /// Byte offset of the offending input (the input length when the input ended too early).
    pub offset: usize,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The kinds of [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Something other than what the grammar allows here.
    Unexpected {
        /// What the grammar allowed here.
        expected: Expected,
        /// The character found instead.
        found: char,
    },
    /// The context ended where the grammar needed more (`5:0<`, `5:`).
    Truncated {
        /// What the grammar needed here.
        expected: Expected,
    },
    /// A method id larger than `u32::MAX`.
    MethodIdOutOfRange,
    /// A bci outside the signed 32-bit range.
    BciOutOfRange,
}

/// What the grammar `frame ('<' frame)*`, `frame = digits ':' '-'? digits` allowed at the
/// place where parsing stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expected {
    /// The decimal method id that starts a frame.
    MethodId,
    /// The `:` between method id and bci.
    Colon,
    /// The decimal bci, optionally negative.
    Bci,
    /// The `<` that joins frames, or the end of the input.
    SeparatorOrEnd,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::MethodId => "a method id (decimal digits)",
            Expected::Colon => "':'",
            Expected::Bci => "a bci (decimal digits, optionally negative)",
            Expected::SeparatorOrEnd => "'<' or the end of the context",
        })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Unexpected { expected, .. } | ErrorKind::Truncated { expected } => {
                write!(f, "expected {expected}")
            }
            ErrorKind::MethodIdOutOfRange => f.write_str("method id larger than 4294967295"),
            ErrorKind::BciOutOfRange => f.write_str("bci outside -2147483648..=2147483647"),
        }
    }
}

/// Formats the ", found …" tail of an error message.
struct FoundSuffix(ErrorKind);

impl fmt::Display for FoundSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ErrorKind::Unexpected { found, .. } => write!(f, ", found {found:?}"),
            ErrorKind::Truncated { .. } => f.write_str(", found the end of the context"),
            _ => Ok(()),
        }
    }
}

impl Error {
    /// True when the input ended where more was needed (a truncated context such as `5:0<`).
    pub fn is_truncated(&self) -> bool {
        matches!(self.kind, ErrorKind::Truncated { .. })
    }
}
