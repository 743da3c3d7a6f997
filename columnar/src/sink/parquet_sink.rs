//! [`ParquetSink`]: each table's writer ([`TableWriter`]) on a thread of its own, fed through a
//! short queue, or on the caller's thread; every part committed through the [`PartStore`].

use std::collections::BTreeMap;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::column_encoder::QUEUE;
use super::table_writer::{TableWriter, run_table};
use super::{BatchSink, PartStore, TableWritten};
use crate::{Error, Result};

/// Rows per part unless the caller says otherwise: 8 million.
pub const DEFAULT_ROWS_PER_PART: u64 = 8 << 20;

/// Writes every table as Parquet files of at most `rows_per_part` rows each,
/// through a [`PartStore`]. Each table is written on its own thread (a dump's `objects` and
/// `references` tables encode in parallel; [`ParquetSink::with_table_threads`] writes them on
/// the caller's thread instead), and on a machine with more cores each column is
/// encoded on a thread of its own too ([`ParquetSink::with_column_threads`]); memory stays
/// bounded by one row group and a few queued batches per table. The files are the same
/// either way.
///
/// Encodings, chosen for encoding speed first, then size:
///
/// * Integer columns are `DELTA_BINARY_PACKED` and not compressed: ids and offsets increase,
///   sizes and lengths are small, so the deltas pack into a few bits per value, and zstd over
///   packed deltas costs more time than it saves bytes.
/// * `class_id` (a few thousand distinct values in millions of rows, in no order) and string
///   columns (Arrow dictionaries too: a dump's `kind`, `element_type`, `heap`, `field`) are
///   plain and zstd-compressed (level 1): as small as dictionary pages once compressed, and
///   for strings faster to write than Parquet's dictionary encoding, which looks up every
///   row (`benches/README.md` has the figures per column).
/// * Other columns (floating point) are plain and zstd-compressed.
///
/// Statistics (min and max per row group, for engines to skip row groups) are kept for the
/// id columns looked up by value (`id`, `from_id`, `to_id`, `object_id`) only.
pub struct ParquetSink<S: PartStore + Send + 'static> {
    store: Arc<Mutex<S>>,
    tables: BTreeMap<String, Worker<S>>,
    rows_per_part: u64,
    column_threads: bool,
    table_threads: bool,
}

/// The cores from which [`ParquetSink`] encodes columns on threads of their own by default:
/// with fewer, a thread per table already keeps them busy and more threads only add switching.
pub const COLUMN_THREADS_FROM_CORES: usize = 4;

/// A table's writer: on a thread of its own, or on the caller's.
enum Worker<S: PartStore> {
    Thread {
        tx: Option<SyncSender<RecordBatch>>,
        handle: Option<JoinHandle<Result<TableWritten>>>,
    },
    Inline(Option<Box<TableWriter<S>>>),
}

impl<S: PartStore + Send + 'static> ParquetSink<S> {
    /// A sink writing through `store`, [`DEFAULT_ROWS_PER_PART`] rows per part.
    pub fn new(store: S) -> Self {
        ParquetSink {
            store: Arc::new(Mutex::new(store)),
            tables: BTreeMap::new(),
            rows_per_part: DEFAULT_ROWS_PER_PART,
            column_threads: std::thread::available_parallelism()
                .is_ok_and(|n| n.get() >= COLUMN_THREADS_FROM_CORES),
            table_threads: true,
        }
    }

    /// Writes each table on a thread of its own (`true`, the default), or every table on the
    /// caller's thread, in [`BatchSink::write`] (`false`): for exports of many small tables
    /// (a JFR recording has tens of event types), where a thread per table would cost more
    /// memory (each thread's stack and allocator arena) than it saves time. The files are
    /// the same either way. Set it before the first table begins.
    pub fn with_table_threads(mut self, threads: bool) -> Self {
        self.table_threads = threads;
        self
    }

    /// Encodes each column on a thread of its own (`true`), or each table's columns on the
    /// table's thread (`false`). The default is `true` on machines with at least
    /// [`COLUMN_THREADS_FROM_CORES`] cores. Set it before the first table begins.
    pub fn with_column_threads(mut self, threads: bool) -> Self {
        self.column_threads = threads;
        self
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
    pub fn finish(mut self) -> Result<(S, BTreeMap<String, TableWritten>)> {
        let mut written = BTreeMap::new();
        let mut first_error = None;
        for (name, worker) in &mut self.tables {
            match worker.join() {
                Ok(w) => {
                    written.insert(name.clone(), w);
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

impl<S: PartStore> Worker<S> {
    fn join(&mut self) -> Result<TableWritten> {
        match self {
            Worker::Thread { tx, handle } => {
                drop(tx.take());
                match handle.take() {
                    Some(h) => h.join().unwrap_or(Err(Error::WriterPanicked)),
                    None => Ok(TableWritten::default()),
                }
            }
            Worker::Inline(w) => w.take().map_or(Ok(TableWritten::default()), |w| w.finish()),
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

impl<S: PartStore + Send + 'static> BatchSink for ParquetSink<S> {
    fn begin(&mut self, table: &str, schema: SchemaRef) -> Result<()> {
        if self.tables.contains_key(table) {
            return Ok(());
        }
        let store = Arc::clone(&self.store);
        let rows_per_part = self.rows_per_part;
        let column_threads = self.column_threads;
        if !self.table_threads {
            let writer = TableWriter::new(table, schema, store, rows_per_part, column_threads)?;
            self.tables
                .insert(table.to_owned(), Worker::Inline(Some(Box::new(writer))));
            return Ok(());
        }
        let (tx, rx) = sync_channel(QUEUE);
        let handle = std::thread::Builder::new()
            .name(format!("parquet-{table}"))
            .spawn({
                let table = table.to_owned();
                move || run_table(&table, schema, store, rows_per_part, column_threads, rx)
            })
            .map_err(|source| Error::Io {
                table: table.to_owned(),
                part: 0,
                source,
            })?;
        self.tables.insert(
            table.to_owned(),
            Worker::Thread {
                tx: Some(tx),
                handle: Some(handle),
            },
        );
        Ok(())
    }

    fn write(&mut self, table: &str, batch: RecordBatch) -> Result<()> {
        let worker = self
            .tables
            .get_mut(table)
            .ok_or_else(|| Error::UnknownTable(table.to_owned()))?;
        let tx = match worker {
            Worker::Inline(Some(w)) => return w.write(batch),
            Worker::Inline(None) => return Err(Error::WriterPanicked),
            Worker::Thread { tx, .. } => tx,
        };
        let sent = tx.as_ref().is_some_and(|tx| tx.send(batch).is_ok());
        if sent {
            return Ok(());
        }
        // The writer stopped: its error says why.
        worker.join()?;
        Err(Error::WriterPanicked)
    }
}
