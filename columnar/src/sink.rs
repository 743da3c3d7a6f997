//! Where record batches go: any [`BatchSink`] — a Parquet writer per table that splits each
//! table into parts ([`ParquetSink`]), or memory ([`MemorySink`]) for tests and engines that
//! take Arrow directly.

use std::collections::BTreeMap;
use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::{Error, Result};

/// Receives the tables of an export, batch by batch.
pub trait BatchSink {
    /// Announces a table and its schema, before any of its batches; every table the exporter
    /// knows is announced, so a table with no rows still exists (with its schema).
    ///
    /// # Errors
    /// The sink's own (for example a file that cannot be created).
    fn begin(&mut self, table: &'static str, schema: SchemaRef) -> Result<()>;

    /// One batch of rows of `table`.
    ///
    /// # Errors
    /// The sink's own.
    fn write(&mut self, table: &'static str, batch: RecordBatch) -> Result<()>;
}

/// Keeps every batch in memory, by table.
#[derive(Debug, Default)]
pub struct MemorySink {
    /// Each table's schema and batches, by table name.
    pub tables: BTreeMap<&'static str, (SchemaRef, Vec<RecordBatch>)>,
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
    fn begin(&mut self, table: &'static str, schema: SchemaRef) -> Result<()> {
        self.tables.entry(table).or_insert((schema, Vec::new()));
        Ok(())
    }

    fn write(&mut self, table: &'static str, batch: RecordBatch) -> Result<()> {
        let entry = self
            .tables
            .entry(table)
            .or_insert_with(|| (batch.schema(), Vec::new()));
        entry.1.push(batch);
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

struct OpenTable<W: Write + Send> {
    schema: SchemaRef,
    writer: Option<ArrowWriter<W>>,
    part: u32,
    rows_in_part: u64,
    written: TableWritten,
}

/// Writes every table as zstd-compressed Parquet files of at most `rows_per_part` rows each,
/// through a [`PartStore`]. Memory stays bounded by one row group per open table.
pub struct ParquetSink<S: PartStore> {
    store: S,
    tables: BTreeMap<&'static str, OpenTable<S::Part>>,
    rows_per_part: u64,
    props: WriterProperties,
}

/// Rows per part unless the caller says otherwise: 8 million.
pub const DEFAULT_ROWS_PER_PART: u64 = 8 << 20;

/// Rows per Parquet row group: 1 Mi, the `parquet` crate's default, which bounds the memory a
/// table's open writer holds.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

impl<S: PartStore> ParquetSink<S> {
    /// A sink writing through `store`, zstd level 1, [`DEFAULT_ROWS_PER_PART`] rows per part.
    pub fn new(store: S) -> Self {
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        ParquetSink {
            store,
            tables: BTreeMap::new(),
            rows_per_part: DEFAULT_ROWS_PER_PART,
            props,
        }
    }

    /// Splits tables into parts of at most `rows` rows (at least 1).
    pub fn with_rows_per_part(mut self, rows: u64) -> Self {
        self.rows_per_part = rows.max(1);
        self
    }

    fn open(&mut self, table: &'static str) -> Result<()> {
        let Some(t) = self.tables.get_mut(table) else {
            return Err(Error::UnknownTable(table));
        };
        if t.writer.is_none() {
            let file = self
                .store
                .create(table, t.part)
                .map_err(|source| Error::Io {
                    table,
                    part: t.part,
                    source,
                })?;
            t.writer = Some(ArrowWriter::try_new(
                file,
                t.schema.clone(),
                Some(self.props.clone()),
            )?);
        }
        Ok(())
    }

    fn close_part(store: &mut S, table: &'static str, t: &mut OpenTable<S::Part>) -> Result<()> {
        if let Some(writer) = t.writer.take() {
            // Flushes the last row group and writes the footer.
            let file = writer.into_inner()?;
            store
                .commit(table, t.part, file)
                .map_err(|source| Error::Io {
                    table,
                    part: t.part,
                    source,
                })?;
            t.part += 1;
            t.written.parts += 1;
            t.rows_in_part = 0;
        }
        Ok(())
    }

    /// Closes and commits every open part (a table with no rows gets one empty part, so its
    /// schema is there for engines) and returns what each table holds.
    ///
    /// # Errors
    /// Writing or committing a part.
    pub fn finish(mut self) -> Result<(S, BTreeMap<&'static str, TableWritten>)> {
        let names: Vec<&'static str> = self.tables.keys().copied().collect();
        for table in names {
            let empty = self
                .tables
                .get(table)
                .is_some_and(|t| t.written.parts == 0 && t.writer.is_none());
            if empty {
                self.open(table)?;
            }
            if let Some(t) = self.tables.get_mut(table) {
                Self::close_part(&mut self.store, table, t)?;
            }
        }
        let written = self
            .tables
            .iter()
            .map(|(&name, t)| (name, t.written))
            .collect();
        Ok((self.store, written))
    }
}

impl<S: PartStore> BatchSink for ParquetSink<S> {
    fn begin(&mut self, table: &'static str, schema: SchemaRef) -> Result<()> {
        self.tables.entry(table).or_insert(OpenTable {
            schema,
            writer: None,
            part: 0,
            rows_in_part: 0,
            written: TableWritten::default(),
        });
        Ok(())
    }

    fn write(&mut self, table: &'static str, batch: RecordBatch) -> Result<()> {
        let mut batch = batch;
        while batch.num_rows() > 0 {
            self.open(table)?;
            let rows_per_part = self.rows_per_part;
            let Some(t) = self.tables.get_mut(table) else {
                return Err(Error::UnknownTable(table));
            };
            let room = rows_per_part.saturating_sub(t.rows_in_part);
            let take = (batch.num_rows() as u64).min(room) as usize;
            let head = batch.slice(0, take);
            batch = batch.slice(take, batch.num_rows() - take);
            if let Some(w) = t.writer.as_mut() {
                w.write(&head)?;
            }
            t.rows_in_part += take as u64;
            t.written.rows += take as u64;
            if t.rows_in_part >= rows_per_part {
                Self::close_part(&mut self.store, table, t)?;
            }
        }
        Ok(())
    }
}
