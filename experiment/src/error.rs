//! The crate's error type: every variant says what was expected, what was found and where.

use thiserror::Error;

/// Errors reported while reading an experiment.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// The input ended before a value could be read.
    #[error("{what}: expected {needed} bytes at byte offset {offset}, found only {available}")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset of the read.
        offset: u64,
        /// Bytes needed.
        needed: u64,
        /// Bytes available from `offset`.
        available: u64,
    },
    /// A binary structure holds a value that cannot be right.
    #[error("{what} at byte offset {offset}: expected {expected}, found {found}")]
    Invalid {
        /// What was being read.
        what: &'static str,
        /// Byte offset of the bad value.
        offset: u64,
        /// What a valid value looks like.
        expected: String,
        /// What was found.
        found: String,
    },
    /// `log.xml`, `map.xml` or another XML file is malformed beyond what the format tolerates.
    #[error("{file}:{line}:{column}: expected {expected}, found {found}")]
    Xml {
        /// File name inside the experiment.
        file: String,
        /// 1-based line.
        line: u32,
        /// 1-based column (bytes).
        column: u32,
        /// What was expected.
        expected: String,
        /// What was found.
        found: String,
    },
    /// A file every experiment must have is missing.
    #[error(
        "missing required file `{name}`: expected it in the experiment directory, found nothing"
    )]
    MissingFile {
        /// The file's name.
        name: String,
    },
    /// The experiment was written by a collector older than format version 12.
    #[error("log.xml:{line}:{column}: expected experiment version 12 or later, found `{found}`")]
    ObsoleteVersion {
        /// The version string found.
        found: String,
        /// 1-based line of the `<experiment>` element.
        line: u32,
        /// 1-based column (bytes) of the `<experiment>` element.
        column: u32,
    },
    /// A stack references a frame-info uid that does not exist, its links loop, or its infos
    /// together resolve to more words than data.frameinfo holds (infos sharing one chain).
    #[error(
        "data.frameinfo: {expected} while resolving uid {uid:#x} (info at byte offset {offset}), found {found}"
    )]
    Stack {
        /// The uid being resolved.
        uid: u64,
        /// Byte offset in data.frameinfo of the info whose words or link failed.
        offset: u64,
        /// What was expected.
        expected: &'static str,
        /// What was found.
        found: String,
    },
}

/// `Result` with this crate's [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;
