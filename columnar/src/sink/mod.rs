//! Where record batches go: any [`BatchSink`] — a Parquet writer per table that splits each
//! table into parts ([`ParquetSink`]), or memory ([`MemorySink`]) for tests and engines that
//! take Arrow directly.
//!
//! | file | what it does |
//! |---|---|
//! | `mod.rs` | the [`BatchSink`] and [`PartStore`] traits, [`MemorySink`] |
//! | `parquet_sink.rs` | [`ParquetSink`]: a writer per table, on its thread or the caller's |
//! | `table_writer.rs` | one table's writer: row groups, parts, the writer settings |
//! | `column_encoder.rs` | one column's encoder, on the table's thread or its own |

mod column_encoder;
mod parquet_sink;
mod table_writer;

use std::collections::BTreeMap;
use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::Result;

pub use parquet_sink::{COLUMN_THREADS_FROM_CORES, DEFAULT_ROWS_PER_PART, ParquetSink};
pub use table_writer::ROW_GROUP_ROWS;

/// Receives the tables of an export, batch by batch.
///
/// Table names and schemas are the exporter's to decide, some at run time: an HPROF export
/// always has the same seven tables, an experiment's `samples` has a column per field its log
/// declares, and a JFR recording has a table per event type it holds, named after the type.
/// A name is a valid folder name (ASCII letters, digits and `_`).
pub trait BatchSink {
    /// Announces a table and its schema, before any of its batches; every table the exporter
    /// knows is announced, so a table with no rows still exists (with its schema). A table
    /// announced again keeps its first schema.
    ///
    /// # Errors
    /// The sink's own (for example a file that cannot be created).
    fn begin(&mut self, table: &str, schema: SchemaRef) -> Result<()>;

    /// One batch of rows of `table`.
    ///
    /// # Errors
    /// The sink's own.
    fn write(&mut self, table: &str, batch: RecordBatch) -> Result<()>;
}

/// Keeps every batch in memory, by table.
#[derive(Debug, Default)]
pub struct MemorySink {
    /// Each table's schema and batches, by table name.
    pub tables: BTreeMap<String, (SchemaRef, Vec<RecordBatch>)>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Self {
        MemorySink::default()
    }

    /// The number of rows of `table` (0 for a table never announced).
    pub fn rows(&self, table: &str) -> usize {
        self.tables
            .get(table)
            .map_or(0, |(_, b)| b.iter().map(RecordBatch::num_rows).sum())
    }
}

impl BatchSink for MemorySink {
    fn begin(&mut self, table: &str, schema: SchemaRef) -> Result<()> {
        if !self.tables.contains_key(table) {
            self.tables.insert(table.to_owned(), (schema, Vec::new()));
        }
        Ok(())
    }

    fn write(&mut self, table: &str, batch: RecordBatch) -> Result<()> {
        match self.tables.get_mut(table) {
            Some(entry) => entry.1.push(batch),
            None => {
                self.tables
                    .insert(table.to_owned(), (batch.schema(), vec![batch]));
            }
        }
        Ok(())
    }
}

/// Where the parts of a [`ParquetSink`] are stored: the caller does the I/O.
///
/// A part is created, written, and then committed once complete; a part never committed
/// (the export failed) must not look like a finished file. A directory store creates
/// `TABLE/.part-NNNNN.parquet.tmp` and renames it to `TABLE/part-NNNNN.parquet` on commit.
pub trait PartStore {
    /// One part being written.
    type Part: Write + Send;

    /// Starts part number `part` of `table`.
    ///
    /// # Errors
    /// The store's I/O error.
    fn create(&mut self, table: &str, part: u32) -> std::io::Result<Self::Part>;

    /// Publishes a complete part.
    ///
    /// # Errors
    /// The store's I/O error.
    fn commit(&mut self, table: &str, part: u32, file: Self::Part) -> std::io::Result<()>;
}

/// What a [`ParquetSink`] wrote of one table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableWritten {
    /// Rows written.
    pub rows: u64,
    /// Parts (files) written.
    pub parts: u32,
}
