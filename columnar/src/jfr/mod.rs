//! JDK Flight Recorder recordings as tables: one table per event type the recording holds,
//! its fields as columns, and the stack traces as `stacks` and `stack_frames` (schemas in the
//! [crate docs](crate#jfr-tables)).
//!
//! The tables are decided by each recording's own metadata, chunk by chunk: an event type
//! gets its table the first time one of its events is read. A recording is read one chunk at
//! a time ([`Exporter::chunk`]), so memory is bounded by the largest chunk (and a batch of
//! rows per table), never by the recording: stack ids and resolved constants are kept for the
//! chunk being read only.
//!
//! | file | what it does |
//! |---|---|
//! | `mod.rs` | the entry point ([`export`]), table names, the [`Summary`] |
//! | `exporter.rs` | [`Exporter`]: chunks handed over one at a time, their tables flushed after each |
//! | `tables.rs` | the tables being written: announced on first use, sent in batches, stacks |
//! | `stacks.rs` | the `stacks` and `stack_frames` tables' schemas |
//! | `columns.rs` | an event type's columns: which fields, named how, converted how |
//! | `reader.rs` | one chunk's events as rows: plans, constants resolved once, labels |
//! | `builder.rs` | a row's cells, a column's Arrow builder and how a cell is appended to it |

mod builder;
mod columns;
mod exporter;
mod reader;
mod stacks;
mod tables;

use std::collections::BTreeMap;

use crate::sink::BatchSink;
use crate::{Error, Result};

pub use exporter::Exporter;
pub use stacks::{stack_frames_schema, stacks_schema};

/// The names of the tables every export has; event tables are named after their type.
pub mod table {
    /// One row per distinct stack trace of each chunk.
    pub const STACKS: &str = "stacks";
    /// One row per frame of each stack trace.
    pub const STACK_FRAMES: &str = "stack_frames";
}

/// Why an event could not be written: the recording (reading stops) or the sink (the
/// export fails).
enum Stop {
    Jfr(::jfr::Error),
    Sink(Error),
}

impl From<::jfr::Error> for Stop {
    fn from(e: ::jfr::Error) -> Stop {
        Stop::Jfr(e)
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Sink(e)
    }
}

/// Most levels of one-field structs unwrapped, and of constants followed for a label.
const MAX_UNWRAP: usize = 8;

/// The table an event type is written to: its name with every character other than an ASCII
/// letter, digit or `_` replaced by `_` (`jdk.ExecutionSample` → `jdk_ExecutionSample`), and
/// `event_` before a name that does not start with a letter (engines skip folders whose name
/// starts with `_` or `.`). [`Exporter`] adds `_2`, `_3`… to a name already taken by another
/// type or by `stacks` and `stack_frames`.
pub fn table_name(event_type: &str) -> String {
    let name: String = event_type
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("event_{name}")
    }
}

/// What an export wrote, and what it could not read.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rows per table.
    pub rows: BTreeMap<String, u64>,
    /// The table of each event type written (`jdk.ExecutionSample` → `jdk_ExecutionSample`).
    pub tables: BTreeMap<String, String>,
    /// Chunks read (a cut chunk included).
    pub chunks: u64,
    /// Events skipped because the metadata declares no type for them.
    pub undeclared_events: u64,
    /// Values left out because a later chunk's metadata declares their field differently
    /// (another type, or a field the table's first chunk did not have): the table keeps the
    /// columns of the first chunk that held its type.
    pub mismatched_values: u64,
    /// Why reading stopped before the end of the recording (a recording cut mid-chunk, or
    /// damage), with its byte offset in the recording; every event before it was written.
    pub stopped: Option<::jfr::Error>,
}

impl Summary {
    /// Whether every event of the recording was written.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none()
    }
}

/// Writes the tables of the recording `data` (a whole `.jfr` file, every chunk) to `sink`;
/// `progress` gets the bytes read so far after each chunk. To keep only one chunk in memory
/// at a time, read the chunks yourself and give them to an [`Exporter`].
///
/// # Errors
/// [`Error::Jfr`] when the first chunk does not decode (not a recording: no chunk header,
/// or not even its metadata), and the sink's errors. A recording cut off or damaged after
/// that is not an error: the summary says where reading stopped ([`Summary::stopped`]).
pub fn export(
    data: &[u8],
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary> {
    let mut chunks = ::jfr::Chunks::new(data);
    let first = match chunks.next() {
        Some(Ok(c)) => c,
        Some(Err(e)) => return Err(Error::Jfr(e)),
        None => {
            return Err(Error::Jfr(::jfr::Error::Truncated {
                what: "chunk header",
                offset: 0,
                needed: ::jfr::HEADER_SIZE as u64,
                available: 0,
            }));
        }
    };
    let mut exporter = Exporter::new(sink)?;
    exporter.chunk(&first, 0)?;
    progress(first.range().end as u64);
    for chunk in chunks {
        if exporter.stopped().is_some() {
            break;
        }
        match chunk {
            Ok(c) => {
                exporter.chunk(&c, 0)?;
                progress(c.range().end as u64);
            }
            Err(e) => {
                exporter.stop(e);
                break;
            }
        }
    }
    exporter.finish()
}

#[cfg(test)]
mod tests {
    use super::table_name;

    #[test]
    fn table_names_are_folder_names_engines_read() {
        assert_eq!(table_name("jdk.ExecutionSample"), "jdk_ExecutionSample");
        assert_eq!(
            table_name("com.example.My-Event$1"),
            "com_example_My_Event_1"
        );
        assert_eq!(table_name("_SUCCESS"), "event__SUCCESS");
        assert_eq!(table_name(".hidden"), "event__hidden");
        assert_eq!(table_name("1x"), "event_1x");
        assert_eq!(table_name(""), "event_");
    }
}
