//! [`Exporter`]: each event type's table announced on its first event, filled chunk by chunk
//! and flushed at the end of each chunk, so memory is bounded by a chunk's rows.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};

use ::jfr::Chunk;

use super::builder::Builder;
use super::columns::Column;
use super::reader::{ChunkReader, Stop};
use super::stacks::{FrameRows, StackRows, stack_frames_schema, stacks_schema};
use super::{Summary, table, table_name};
use crate::Result;
use crate::rows::Rows;
use crate::sink::BatchSink;

/// Writes the chunks of a recording it is given, one at a time, to a sink: read each chunk's
/// bytes (its header gives its size) into a buffer, parse it there, hand it over with the
/// offset it had in the file, and only one chunk is in memory at a time.
///
/// ```
/// use columnar::{MemorySink, jfr::Exporter};
///
/// // One chunk read from a file (here built by hand: one `demo.Tick` event).
/// let buffer = ::jfr::testing::tiny_recording();
/// let mut sink = MemorySink::new();
/// let mut exporter = Exporter::new(&mut sink)?;
/// for (offset, chunk) in [(0, ::jfr::Chunk::parse(&buffer, 0))] {
///     match chunk {
///         Ok(chunk) => exporter.chunk(&chunk, offset)?,
///         Err(e) => exporter.stop(e.with_base(offset)),
///     }
/// }
/// let summary = exporter.finish()?;
/// assert!(summary.is_complete());
/// assert_eq!(summary.tables["demo.Tick"], "demo_Tick");
/// assert_eq!(sink.rows("demo_Tick"), 1);
/// # Ok::<(), columnar::Error>(())
/// ```
pub struct Exporter<'s> {
    pub(super) sink: &'s mut dyn BatchSink,
    pub(super) tables: Vec<Table>,
    by_type: HashMap<String, usize>,
    taken: HashSet<String>,
    pub(super) stacks: StackRows,
    pub(super) frames: FrameRows,
    pub(super) next_stack: u64,
    pub(super) summary: Summary,
}

impl std::fmt::Debug for Exporter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

impl<'s> Exporter<'s> {
    /// An exporter writing to `sink`; announces `stacks` and `stack_frames`.
    ///
    /// # Errors
    /// The sink's.
    pub fn new(sink: &'s mut dyn BatchSink) -> Result<Self> {
        sink.begin(table::STACKS, stacks_schema())?;
        sink.begin(table::STACK_FRAMES, stack_frames_schema())?;
        let mut summary = Summary::default();
        summary.rows.insert(table::STACKS.to_owned(), 0);
        summary.rows.insert(table::STACK_FRAMES.to_owned(), 0);
        let taken = [table::STACKS, table::STACK_FRAMES]
            .into_iter()
            .map(str::to_owned)
            .collect();
        Ok(Exporter {
            sink,
            tables: Vec::new(),
            by_type: HashMap::new(),
            taken,
            stacks: StackRows::default(),
            frames: FrameRows::default(),
            next_stack: 0,
            summary,
        })
    }

    /// Why reading stopped, once it has: later chunks are not read.
    pub fn stopped(&self) -> Option<&::jfr::Error> {
        self.summary.stopped.as_ref()
    }

    /// Records why reading stopped (a chunk that does not parse, a file that cannot be read
    /// further); later chunks are not read.
    pub fn stop(&mut self, reason: ::jfr::Error) {
        self.summary.stopped.get_or_insert(reason);
    }

    /// Writes every event of `chunk`, which starts at byte `offset` of the recording (added to
    /// the offsets of errors; 0 for a chunk parsed from the whole recording). An event that
    /// does not decode (the cut of a cut chunk, or damage) stops reading: every event before
    /// it is written, and [`Exporter::stopped`] says why.
    ///
    /// # Errors
    /// The sink's.
    pub fn chunk(&mut self, chunk: &Chunk<'_>, offset: u64) -> Result<()> {
        if self.summary.stopped.is_some() {
            return Ok(());
        }
        self.summary.chunks += 1;
        let mut reader = ChunkReader::new(chunk);
        for event in chunk.events() {
            let result = event
                .map_err(Stop::Jfr)
                .and_then(|e| reader.event(self, &e));
            match result {
                Ok(()) => {}
                Err(Stop::Jfr(e)) => {
                    self.stop(e.with_base(offset));
                    break;
                }
                Err(Stop::Sink(e)) => return Err(e),
            }
        }
        // The rows of the chunk leave with it: memory is bounded by a chunk's rows, however
        // many event tables the recording has and however long it is.
        for i in 0..self.tables.len() {
            self.flush_table(i)?;
        }
        Ok(())
    }

    /// Sends the rows not yet sent and returns what was written.
    ///
    /// # Errors
    /// The sink's.
    pub fn finish(mut self) -> Result<Summary> {
        for i in 0..self.tables.len() {
            self.flush_table(i)?;
        }
        let n = self.stacks.flush(self.sink)?;
        *self
            .summary
            .rows
            .entry(table::STACKS.to_owned())
            .or_default() += n;
        let n = self.frames.flush(self.sink)?;
        *self
            .summary
            .rows
            .entry(table::STACK_FRAMES.to_owned())
            .or_default() += n;
        Ok(self.summary)
    }

    /// The table of event type `name` with the columns `columns`, announced on first use.
    pub(super) fn table_for(&mut self, name: &str, columns: &[Column]) -> Result<usize> {
        if let Some(&i) = self.by_type.get(name) {
            return Ok(i);
        }
        let base = table_name(name);
        let mut table = base.clone();
        let mut n = 1;
        while self.taken.contains(&table) {
            n += 1;
            table = format!("{base}_{n}");
        }
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|c| Field::new(c.name.as_str(), c.conv.data_type(), true))
                .collect::<Vec<_>>(),
        ));
        self.sink.begin(&table, Arc::clone(&schema))?;
        self.taken.insert(table.clone());
        self.summary.tables.insert(name.to_owned(), table.clone());
        self.summary.rows.insert(table.clone(), 0);
        let builders = schema
            .fields()
            .iter()
            .map(|f| Builder::new(f.data_type()))
            .collect();
        self.tables.push(Table {
            name: table,
            schema,
            builders,
            len: 0,
        });
        let i = self.tables.len() - 1;
        self.by_type.insert(name.to_owned(), i);
        Ok(i)
    }

    pub(super) fn flush_table(&mut self, i: usize) -> Result<()> {
        let Some(t) = self.tables.get_mut(i) else {
            return Ok(());
        };
        if t.len == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = t.builders.iter_mut().map(Builder::finish).collect();
        // The row count is given: an event type may declare no field at all.
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(&t.schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(t.len)),
        )?;
        let n = t.len as u64;
        t.len = 0;
        self.sink.write(&t.name, batch)?;
        *self.summary.rows.entry(t.name.clone()).or_default() += n;
        Ok(())
    }
}

/// One event table being filled.
pub(super) struct Table {
    name: String,
    pub(super) schema: SchemaRef,
    pub(super) builders: Vec<Builder>,
    pub(super) len: usize,
}
