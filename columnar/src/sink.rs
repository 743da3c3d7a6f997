//! Where record batches go: any [`BatchSink`] — a Parquet writer per table that splits each
//! table into parts ([`ParquetSink`]), or memory ([`MemorySink`]) for tests and engines that
//! take Arrow directly.

use std::collections::BTreeMap;
use std::io::Write;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{FieldRef, SchemaRef};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_schema::Schema;
use parquet::arrow::arrow_writer::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves,
};
use parquet::arrow::{ArrowSchemaConverter, add_encoded_arrow_schema_to_metadata};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use crate::{Error, Result};

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

/// Rows per part unless the caller says otherwise: 8 million.
pub const DEFAULT_ROWS_PER_PART: u64 = 8 << 20;

/// Rows per Parquet row group: 1 Mi, the `parquet` crate's default, which bounds the memory a
/// table's open writer holds.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Batches queued per table before the exporter waits for its writer.
const QUEUE: usize = 4;

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

/// Encodes one column of a table: on the table's thread (`Inline`), or on a thread of its
/// own (`Thread`), so a table's columns encode in parallel.
enum ColumnEncoder {
    Inline {
        field: FieldRef,
        writer: Option<Box<ArrowColumnWriter>>,
    },
    Thread(ColumnThread),
}

impl ColumnEncoder {
    fn new(table: &str, field: FieldRef, threaded: bool) -> Result<ColumnEncoder> {
        if !threaded {
            return Ok(ColumnEncoder::Inline {
                field,
                writer: None,
            });
        }
        let (tx, rx) = sync_channel::<ColumnJob>(QUEUE);
        let (done_tx, done) = sync_channel(1);
        let handle = std::thread::Builder::new()
            .name(format!("{table}.{}", field.name()))
            .spawn(move || encode_column(&field, &rx, &done_tx))
            .map_err(|source| Error::Io {
                table: table.to_owned(),
                part: 0,
                source,
            })?;
        Ok(ColumnEncoder::Thread(ColumnThread {
            tx: Some(tx),
            done,
            handle: Some(handle),
        }))
    }

    /// Starts a row group's chunk.
    fn open(&mut self, w: ArrowColumnWriter) -> Result<()> {
        match self {
            ColumnEncoder::Inline { writer, .. } => {
                *writer = Some(Box::new(w));
                Ok(())
            }
            ColumnEncoder::Thread(t) => t.send(ColumnJob::Open(Box::new(w))),
        }
    }

    /// Encodes `values` into the open chunk.
    fn write(&mut self, values: ArrayRef) -> Result<()> {
        match self {
            ColumnEncoder::Inline { field, writer } => {
                let w = writer.as_mut().ok_or(Error::WriterPanicked)?;
                for leaf in compute_leaves(field, &values)? {
                    w.write(&leaf)?;
                }
                Ok(())
            }
            ColumnEncoder::Thread(t) => t.send(ColumnJob::Write(values)),
        }
    }

    /// Closes the open chunk.
    fn close(&mut self) -> Result<ArrowColumnChunk> {
        match self {
            ColumnEncoder::Inline { writer, .. } => {
                Ok(writer.take().ok_or(Error::WriterPanicked)?.close()?)
            }
            ColumnEncoder::Thread(t) => {
                t.send(ColumnJob::Close)?;
                t.done.recv().map_err(|_| Error::WriterPanicked)?
            }
        }
    }
}

/// What a column's encoder thread is told.
enum ColumnJob {
    /// Encode into this writer (a new row group's column chunk).
    Open(Box<ArrowColumnWriter>),
    /// Encode these values.
    Write(ArrayRef),
    /// Close the chunk and send it back.
    Close,
}

/// A column's encoder thread, and its way back.
struct ColumnThread {
    tx: Option<SyncSender<ColumnJob>>,
    done: Receiver<Result<ArrowColumnChunk>>,
    handle: Option<JoinHandle<()>>,
}

impl ColumnThread {
    fn send(&self, job: ColumnJob) -> Result<()> {
        match &self.tx {
            Some(tx) if tx.send(job).is_ok() => Ok(()),
            _ => Err(Error::WriterPanicked),
        }
    }
}

impl Drop for ColumnThread {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The loop of a column's encoder thread. An error is kept and answers the next `Close`.
fn encode_column(
    field: &FieldRef,
    rx: &Receiver<ColumnJob>,
    done: &SyncSender<Result<ArrowColumnChunk>>,
) {
    let mut writer = None;
    let mut failed = None;
    for job in rx {
        match job {
            ColumnJob::Open(w) => writer = Some(w),
            ColumnJob::Write(values) => {
                let (Some(w), None) = (writer.as_mut(), &failed) else {
                    continue;
                };
                let written = compute_leaves(field, &values)
                    .and_then(|leaves| leaves.iter().try_for_each(|leaf| w.write(leaf)));
                if let Err(e) = written {
                    failed = Some(e);
                }
            }
            ColumnJob::Close => {
                let chunk = match (writer.take(), failed.take()) {
                    (_, Some(e)) => Err(e.into()),
                    (Some(w), None) => w.close().map_err(Error::from),
                    (None, None) => Err(Error::WriterPanicked),
                };
                if done.send(chunk).is_err() {
                    return;
                }
            }
        }
    }
}

/// One table's writer thread: batches in, parts out (see [`TableWriter`]).
fn run_table<S: PartStore>(
    table: &str,
    schema: SchemaRef,
    store: Arc<Mutex<S>>,
    rows_per_part: u64,
    column_threads: bool,
    rx: Receiver<RecordBatch>,
) -> Result<TableWritten> {
    let mut writer = TableWriter::new(table, schema, store, rows_per_part, column_threads)?;
    for batch in rx {
        writer.write(batch)?;
    }
    writer.finish()
}

/// Writes one table: cuts its batches into row groups and parts, has each column encoded
/// ([`ColumnEncoder`], on a thread per column when `column_threads`), and writes the encoded
/// column chunks to the part.
struct TableWriter<S: PartStore> {
    table: String,
    schema: SchemaRef,
    store: Arc<Mutex<S>>,
    props: Arc<WriterProperties>,
    parquet_schema: parquet::schema::types::SchemaDescriptor,
    columns: Vec<ColumnEncoder>,
    part: Part<S::Part>,
    written: TableWritten,
    rows_per_part: u64,
}

impl<S: PartStore> TableWriter<S> {
    fn new(
        table: &str,
        schema: SchemaRef,
        store: Arc<Mutex<S>>,
        rows_per_part: u64,
        column_threads: bool,
    ) -> Result<Self> {
        let mut props = properties(&schema);
        add_encoded_arrow_schema_to_metadata(&schema, &mut props);
        let props = Arc::new(props);
        let parquet_schema = ArrowSchemaConverter::new()
            .with_coerce_types(props.coerce_types())
            .convert(&schema)?;
        if parquet_schema.num_columns() != schema.fields().len() {
            return Err(arrow_schema::ArrowError::SchemaError(format!(
                "{table}: nested columns are not supported"
            ))
            .into());
        }
        let columns = schema
            .fields()
            .iter()
            .map(|f| ColumnEncoder::new(table, Arc::clone(f), column_threads))
            .collect::<Result<Vec<_>>>()?;
        Ok(TableWriter {
            table: table.to_owned(),
            schema,
            store,
            props,
            parquet_schema,
            columns,
            part: Part::default(),
            written: TableWritten::default(),
            rows_per_part,
        })
    }

    fn io_error(&self, part: u32) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            table: self.table.clone(),
            part,
            source,
        }
    }

    fn open(&self, number: u32) -> Result<OpenPart<S::Part>> {
        let file = lock(&self.store)?
            .create(&self.table, number)
            .map_err(self.io_error(number))?;
        let writer = SerializedFileWriter::new(
            file,
            self.parquet_schema.root_schema_ptr(),
            self.props.clone(),
        )?;
        let factory = ArrowRowGroupWriterFactory::new(&writer, self.schema.clone());
        Ok(OpenPart {
            writer,
            factory,
            row_groups: 0,
            rows_in_group: 0,
        })
    }

    fn close(&self, p: OpenPart<S::Part>, number: u32) -> Result<()> {
        // Writes the footer.
        let file = p.writer.into_inner()?;
        lock(&self.store)?
            .commit(&self.table, number, file)
            .map_err(self.io_error(number))
    }

    fn write(&mut self, mut batch: RecordBatch) -> Result<()> {
        if batch.schema_ref().fields() != self.schema.fields() {
            return Err(arrow_schema::ArrowError::SchemaError(format!(
                "{}: a batch's columns differ from the table's schema",
                self.table
            ))
            .into());
        }
        while batch.num_rows() > 0 {
            if self.part.open.is_none() {
                self.part.open = Some(self.open(self.written.parts)?);
            }
            let p = self.part.open.as_mut().ok_or(Error::WriterPanicked)?;
            if p.rows_in_group == 0 {
                for (e, w) in self
                    .columns
                    .iter_mut()
                    .zip(p.factory.create_column_writers(p.row_groups)?)
                {
                    e.open(w)?;
                }
            }
            let room_in_part = self.rows_per_part.saturating_sub(self.part.rows);
            let room_in_group = (ROW_GROUP_ROWS - p.rows_in_group) as u64;
            let take = (batch.num_rows() as u64)
                .min(room_in_part)
                .min(room_in_group) as usize;
            for (e, c) in self.columns.iter_mut().zip(batch.columns()) {
                e.write(c.slice(0, take))?;
            }
            batch = batch.slice(take, batch.num_rows() - take);
            p.rows_in_group += take;
            self.part.rows += take as u64;
            self.written.rows += take as u64;
            if p.rows_in_group >= ROW_GROUP_ROWS || self.part.rows >= self.rows_per_part {
                p.close_row_group(&mut self.columns)?;
            }
            if self.part.rows >= self.rows_per_part {
                if let Some(p) = self.part.open.take() {
                    self.close(p, self.written.parts)?;
                }
                self.written.parts += 1;
                self.part.rows = 0;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<TableWritten> {
        if self.part.open.is_none() && self.written.parts == 0 {
            // A table with no rows: one part, its schema and no row group.
            self.part.open = Some(self.open(0)?);
        }
        if let Some(mut p) = self.part.open.take() {
            if p.rows_in_group > 0 {
                p.close_row_group(&mut self.columns)?;
            }
            self.close(p, self.written.parts)?;
            self.written.parts += 1;
        }
        Ok(self.written)
    }
}

/// The part being written and how many rows it holds.
struct Part<W: Write + Send> {
    open: Option<OpenPart<W>>,
    rows: u64,
}

impl<W: Write + Send> Default for Part<W> {
    fn default() -> Self {
        Part {
            open: None,
            rows: 0,
        }
    }
}

/// An open part: its file writer, and the row group being encoded.
struct OpenPart<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    row_groups: usize,
    rows_in_group: usize,
}

impl<W: Write + Send> OpenPart<W> {
    /// Collects every column's chunk of the open row group and writes the row group.
    fn close_row_group(&mut self, columns: &mut [ColumnEncoder]) -> Result<()> {
        let chunks = columns
            .iter_mut()
            .map(ColumnEncoder::close)
            .collect::<Result<Vec<_>>>()?;
        let mut group = self.writer.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.row_groups += 1;
        self.rows_in_group = 0;
        Ok(())
    }
}

fn lock<S>(store: &Mutex<S>) -> Result<std::sync::MutexGuard<'_, S>> {
    store.lock().map_err(|_| Error::WriterPanicked)
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
