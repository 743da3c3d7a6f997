//! Where record batches go: any [`BatchSink`] — a Parquet writer per table that splits each
//! table into parts ([`ParquetSink`]), or memory ([`MemorySink`]) for tests and engines that
//! take Arrow directly.

use std::collections::BTreeMap;
use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_schema::Schema;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

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

/// Rows per part unless the caller says otherwise: 8 million.
pub const DEFAULT_ROWS_PER_PART: u64 = 8 << 20;

/// Rows per Parquet row group: 1 Mi, the `parquet` crate's default, which bounds the memory a
/// table's open writer holds.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Batches queued per table before the exporter waits for its writer.
const QUEUE: usize = 4;

/// Writes every table as Parquet files of at most `rows_per_part` rows each,
/// through a [`PartStore`]. Each table is encoded on its own thread (a dump's `objects` and
/// `references` tables encode in parallel); memory stays bounded by one row group and a few
/// queued batches per table.
///
/// Encodings, chosen for encoding speed first, then size:
///
/// * Integer columns are `DELTA_BINARY_PACKED` and not compressed: ids and offsets increase,
///   sizes and lengths are small, so the deltas pack into a few bits per value, and zstd over
///   packed deltas costs more time than it saves bytes.
/// * `class_id` (a few thousand distinct values in millions of rows, in no order) and string
///   columns (Arrow dictionaries too: a dump's `kind`, `element_type`, `heap`, `field`) are
///   plain and zstd-compressed (level 1): as small as dictionary pages once compressed, and
///   faster to write (no hash lookup per row; `benches/README.md` has the figures).
/// * Other columns (floating point) are plain and zstd-compressed.
///
/// Statistics (min and max per row group, for engines to skip row groups) are kept for the
/// id columns looked up by value (`id`, `from_id`, `to_id`, `object_id`) only.
pub struct ParquetSink<S: PartStore + Send + 'static> {
    store: Arc<Mutex<S>>,
    tables: BTreeMap<&'static str, Worker>,
    rows_per_part: u64,
}

struct Worker {
    tx: Option<SyncSender<RecordBatch>>,
    handle: Option<JoinHandle<Result<TableWritten>>>,
}

impl<S: PartStore + Send + 'static> ParquetSink<S> {
    /// A sink writing through `store`, [`DEFAULT_ROWS_PER_PART`] rows per part.
    pub fn new(store: S) -> Self {
        ParquetSink {
            store: Arc::new(Mutex::new(store)),
            tables: BTreeMap::new(),
            rows_per_part: DEFAULT_ROWS_PER_PART,
        }
    }

    /// Splits tables into parts of at most `rows` rows (at least 1). Set it before the first
    /// table begins.
    pub fn with_rows_per_part(mut self, rows: u64) -> Self {
        self.rows_per_part = rows.max(1);
        self
    }

    /// Waits for every table's writer, closes and commits every open part (a table with no
    /// rows gets one empty part, so its schema is there for engines), and returns the store
    /// and what each table holds.
    ///
    /// # Errors
    /// The first error of any table's writer.
    pub fn finish(mut self) -> Result<(S, BTreeMap<&'static str, TableWritten>)> {
        let mut written = BTreeMap::new();
        let mut first_error = None;
        for (&name, worker) in &mut self.tables {
            match worker.join() {
                Ok(w) => {
                    written.insert(name, w);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        let store = Arc::clone(&self.store);
        drop(self); // every worker has ended: this is the last other handle on the store
        let store = Arc::try_unwrap(store)
            .map_err(|_| Error::WriterPanicked)?
            .into_inner()
            .map_err(|_| Error::WriterPanicked)?;
        Ok((store, written))
    }
}

impl Worker {
    fn join(&mut self) -> Result<TableWritten> {
        drop(self.tx.take());
        match self.handle.take() {
            Some(h) => h.join().unwrap_or(Err(Error::WriterPanicked)),
            None => Ok(TableWritten::default()),
        }
    }
}

impl<S: PartStore + Send + 'static> Drop for ParquetSink<S> {
    fn drop(&mut self) {
        for worker in self.tables.values_mut() {
            let _ = worker.join();
        }
    }
}

/// The writer settings of a table (see [`ParquetSink`]).
fn properties(schema: &Schema) -> WriterProperties {
    let zstd = Compression::ZSTD(ZstdLevel::default());
    let mut b = WriterProperties::builder()
        .set_compression(zstd)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::PLAIN)
        .set_statistics_enabled(EnabledStatistics::None)
        // Rows encoded per step (the crate's default is 1024): fewer per-step checks.
        .set_write_batch_size(8192);
    for f in schema.fields() {
        let name = f.name().as_str();
        let path = ColumnPath::from(name);
        if matches!(name, "id" | "from_id" | "to_id" | "object_id") {
            b = b.set_column_statistics_enabled(path.clone(), EnabledStatistics::Chunk);
        }
        // Strings (Arrow dictionaries included) and `class_id` stay plain and zstd-compressed
        // (the defaults above).
        if f.data_type().is_integer() && name != "class_id" {
            b = b
                .set_column_encoding(path.clone(), Encoding::DELTA_BINARY_PACKED)
                .set_column_compression(path, Compression::UNCOMPRESSED);
        }
    }
    b.build()
}

/// One table's writer thread: batches in, parts out.
fn run_table<S: PartStore>(
    table: &'static str,
    schema: SchemaRef,
    store: Arc<Mutex<S>>,
    rows_per_part: u64,
    rx: Receiver<RecordBatch>,
) -> Result<TableWritten> {
    let props = properties(&schema);
    let mut written = TableWritten::default();
    let mut writer: Option<ArrowWriter<S::Part>> = None;
    let mut rows_in_part = 0u64;
    let open = |part: u32| -> Result<ArrowWriter<S::Part>> {
        let file = lock(&store)?
            .create(table, part)
            .map_err(|source| Error::Io {
                table,
                part,
                source,
            })?;
        Ok(ArrowWriter::try_new(
            file,
            schema.clone(),
            Some(props.clone()),
        )?)
    };
    let close = |w: ArrowWriter<S::Part>, part: u32| -> Result<()> {
        // Flushes the last row group and writes the footer.
        let file = w.into_inner()?;
        lock(&store)?
            .commit(table, part, file)
            .map_err(|source| Error::Io {
                table,
                part,
                source,
            })
    };
    for mut batch in rx {
        while batch.num_rows() > 0 {
            let w = match writer.as_mut() {
                Some(w) => w,
                None => writer.insert(open(written.parts)?),
            };
            let room = rows_per_part.saturating_sub(rows_in_part);
            let take = (batch.num_rows() as u64).min(room) as usize;
            w.write(&batch.slice(0, take))?;
            batch = batch.slice(take, batch.num_rows() - take);
            rows_in_part += take as u64;
            written.rows += take as u64;
            if rows_in_part >= rows_per_part {
                if let Some(w) = writer.take() {
                    close(w, written.parts)?;
                }
                written.parts += 1;
                rows_in_part = 0;
            }
        }
    }
    if writer.is_none() && written.parts == 0 {
        writer = Some(open(0)?);
    }
    if let Some(w) = writer.take() {
        close(w, written.parts)?;
        written.parts += 1;
    }
    Ok(written)
}

fn lock<S>(store: &Mutex<S>) -> Result<std::sync::MutexGuard<'_, S>> {
    store.lock().map_err(|_| Error::WriterPanicked)
}

impl<S: PartStore + Send + 'static> BatchSink for ParquetSink<S> {
    fn begin(&mut self, table: &'static str, schema: SchemaRef) -> Result<()> {
        if self.tables.contains_key(table) {
            return Ok(());
        }
        let (tx, rx) = sync_channel(QUEUE);
        let store = Arc::clone(&self.store);
        let rows_per_part = self.rows_per_part;
        let handle = std::thread::Builder::new()
            .name(format!("parquet-{table}"))
            .spawn(move || run_table(table, schema, store, rows_per_part, rx))
            .map_err(|source| Error::Io {
                table,
                part: 0,
                source,
            })?;
        self.tables.insert(
            table,
            Worker {
                tx: Some(tx),
                handle: Some(handle),
            },
        );
        Ok(())
    }

    fn write(&mut self, table: &'static str, batch: RecordBatch) -> Result<()> {
        let worker = self
            .tables
            .get_mut(table)
            .ok_or(Error::UnknownTable(table))?;
        let sent = worker.tx.as_ref().is_some_and(|tx| tx.send(batch).is_ok());
        if sent {
            return Ok(());
        }
        // The writer stopped: its error says why.
        worker.join()?;
        Err(Error::WriterPanicked)
    }
}
