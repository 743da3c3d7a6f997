//! One table's writer: its batches cut into row groups and parts, each column encoded by a
//! [`ColumnEncoder`], the encoded chunks written to the part, each part committed when full;
//! and the writer settings (encodings, compression, statistics) of a table.

use std::io::Write;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory;
use parquet::arrow::{ArrowSchemaConverter, add_encoded_arrow_schema_to_metadata};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use super::column_encoder::ColumnEncoder;
use super::{PartStore, TableWritten};
use crate::{Error, Result};

/// Rows per Parquet row group: 1 Mi, the `parquet` crate's default, which bounds the memory a
/// table's open writer holds.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

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

/// One table's writer thread: batches in, parts out (see [`TableWriter`]).
pub(super) fn run_table<S: PartStore>(
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
pub(super) struct TableWriter<S: PartStore> {
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
    pub(super) fn new(
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

    pub(super) fn write(&mut self, mut batch: RecordBatch) -> Result<()> {
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

    pub(super) fn finish(mut self) -> Result<TableWritten> {
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
