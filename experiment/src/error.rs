//! The crate's error type: every variant says what was expected, what was found and where.

use thiserror::Error;

/// Errors reported while reading an experiment.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A file of the experiment exists but the [`Source`](crate::Source) could not read it.
    #[error("{path}: {reason}")]
    Read {
        /// The file's path in the experiment.
        path: String,
        /// Why it could not be read (the source's words, e.g. the OS error).
        reason: String,
    },
    /// An error inside one file of the experiment: `file` names it (`profile`,
    /// `data.frameinfo`, `_f1.er/heaptrace`), `source` says what and where.
    #[error("{file}: {source}")]
    File {
        /// The file's path in the experiment.
        file: String,
        /// The error, with its byte offset or line:column.
        source: Box<Error>,
    },
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

impl Error {
    /// This error as found in file `file` of the experiment (an error that already names a
    /// file, or a read error naming its path, is returned as is).
    pub fn in_file(self, file: &str) -> Error {
        match self {
            e @ (Error::File { .. } | Error::Read { .. } | Error::Xml { .. }) => e,
            e => Error::File {
                file: file.to_owned(),
                source: Box::new(e),
            },
        }
    }

    /// The file this error names, if any.
    pub fn file(&self) -> Option<&str> {
        match self {
            Error::File { file, .. } | Error::Xml { file, .. } => Some(file),
            Error::Read { path, .. } => Some(path),
            Error::Stack { .. } => Some("data.frameinfo"),
            _ => None,
        }
    }

    /// The byte offset the error is at, for errors of binary structures (possibly inside a
    /// file).
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Truncated { offset, .. } | Error::Invalid { offset, .. } => Some(*offset),
            Error::File { source, .. } => source.offset(),
            _ => None,
        }
    }

    /// True when the error is input running out (possibly inside a file).
    pub fn is_truncated(&self) -> bool {
        match self {
            Error::Truncated { .. } => true,
            Error::File { source, .. } => source.is_truncated(),
            _ => false,
        }
    }
}

/// `Result` with this crate's [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;
