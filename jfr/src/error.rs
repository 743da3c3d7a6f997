//! The crate's one error type: what was expected, what was found, and at which byte offset
//! of the input.

/// A `Result` whose error is [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Why decoding stopped. Every offset is a byte offset from the start of the input handed to
/// the decoder (the whole file for [`crate::Chunks`], across chunks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended in the middle of something.
    #[error(
        "truncated: {what} needs {needed} byte(s) at byte offset {offset}, but only {available} remain"
    )]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// How many bytes it needs.
        needed: u64,
        /// How many bytes the input still holds from `offset`.
        available: u64,
    },
    /// The bytes at `offset` are not what the format allows there.
    #[error("invalid {what} at byte offset {offset}: expected {expected}, found {found}")]
    Invalid {
        /// What was being read.
        what: &'static str,
        /// What the format allows.
        expected: &'static str,
        /// What the input holds.
        found: String,
        /// Where.
        offset: u64,
    },
}

impl Error {
    /// The byte offset the error points at.
    pub fn offset(&self) -> u64 {
        match self {
            Error::Truncated { offset, .. } | Error::Invalid { offset, .. } => *offset,
        }
    }

    /// The same error with its offset moved by `base`: for input handed over in pieces (one
    /// chunk at a time), to report offsets in the whole file.
    pub fn with_base(mut self, base: u64) -> Error {
        match &mut self {
            Error::Truncated { offset, .. } | Error::Invalid { offset, .. } => {
                *offset = offset.saturating_add(base);
            }
        }
        self
    }

    /// Whether the input simply ended (a recording still being written, or cut off).
    pub fn is_truncated(&self) -> bool {
        matches!(self, Error::Truncated { .. })
    }

    pub(crate) fn invalid(
        what: &'static str,
        expected: &'static str,
        found: impl std::fmt::Display,
        offset: u64,
    ) -> Error {
        Error::Invalid {
            what,
            expected,
            found: found.to_string(),
            offset,
        }
    }
}
