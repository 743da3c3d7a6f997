//! The crate's one error type: every variant says what was expected, what was found and where
//! (line:column for text reports, file and line for CSV files).

use thiserror::Error;

/// How many bytes of offending input an error message quotes at most.
const QUOTE_LIMIT: usize = 80;

/// Quotes at most [`QUOTE_LIMIT`] bytes of `text` (cut on a character boundary).
pub(crate) fn quote(text: &str) -> String {
    if text.len() <= QUOTE_LIMIT {
        return text.to_owned();
    }
    let mut end = QUOTE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut quoted = text.get(..end).unwrap_or_default().to_owned();
    quoted.push('…');
    quoted
}

/// An error while reading or writing a points-to analysis report.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A line did not have the shape the report grammar requires.
    #[error("{line}:{column}: expected {expected}, found {found:?}")]
    Syntax {
        /// 1-based line number.
        line: u64,
        /// 1-based column, counted in bytes.
        column: u64,
        /// What the grammar allows here.
        expected: &'static str,
        /// The offending text (shortened to 80 bytes).
        found: String,
    },
    /// The input is not valid UTF-8.
    #[error("{line}:{column}: expected UTF-8 text, found an invalid byte sequence")]
    Utf8 {
        /// 1-based line number.
        line: u64,
        /// 1-based column, counted in bytes.
        column: u64,
    },
    /// A tree line is nested deeper than its predecessor allows (a child without a parent).
    #[error("{line}:{column}: expected a tree depth of at most {max}, found depth {found}")]
    Depth {
        /// 1-based line number.
        line: u64,
        /// 1-based column of the marker, counted in bytes.
        column: u64,
        /// The deepest depth allowed here.
        max: u64,
        /// The depth found.
        found: u64,
    },
    /// A line is a child of a line that cannot have children (or of the wrong kind of line).
    #[error("{line}:{column}: expected {expected} under the line above, found {found:?}")]
    Nesting {
        /// 1-based line number.
        line: u64,
        /// 1-based column of the line's text after its tree prefix, counted in bytes.
        column: u64,
        /// What the parent line allows as a child.
        expected: &'static str,
        /// The child line's content (shortened to 80 bytes).
        found: String,
    },
    /// An `id=` is defined twice.
    #[error(
        "{line}:{column}: expected id {id} to be defined once, found a second `id={id}` (first at line {first})"
    )]
    DuplicateId {
        /// 1-based line number of the second definition.
        line: u64,
        /// 1-based column of the second `id=` (the field number in a CSV file).
        column: u64,
        /// The id.
        id: u64,
        /// 1-based line number of the first definition (0 when it came from a CSV row).
        first: u64,
    },
    /// An `id-ref=` (or a CSV id column) names an id that is never defined.
    #[error(
        "{line}:{column}: expected `id={id}` to be defined somewhere in the report, found only references to it"
    )]
    UnresolvedId {
        /// 1-based line number of the first reference.
        line: u64,
        /// 1-based column of the first `id-ref=` (the field number in a CSV file).
        column: u64,
        /// The id.
        id: u64,
    },
    /// The input ended too early: before the report's first line, or inside a line (a report
    /// cut off mid-line; the printers end every line with a line break).
    #[error("{line}:{column}: expected {expected}, found the end of the input")]
    Truncated {
        /// 1-based line number where the input ended.
        line: u64,
        /// 1-based column where the input ended, counted in bytes.
        column: u64,
        /// What was expected.
        expected: &'static str,
    },
    /// A CSV file had a malformed header or row.
    #[error("{file} line {line}, column {column}: expected {expected}, found {found:?}")]
    Csv {
        /// Which file of the CSV report (`call_tree_methods`, …).
        file: &'static str,
        /// 1-based line number.
        line: u64,
        /// 1-based column (field) number.
        column: u64,
        /// What the CSV layout requires.
        expected: &'static str,
        /// The offending text (shortened to 80 bytes).
        found: String,
    },
    /// A CSV report is missing one of its files.
    #[error("expected the CSV report file {file}, found none")]
    MissingCsvFile {
        /// Which file (`call_tree_invokes`, …).
        file: &'static str,
    },
}

/// `Result` with this crate's [`Error`](enum@Error).
pub type Result<T> = std::result::Result<T, Error>;
