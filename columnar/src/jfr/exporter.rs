//! [`Exporter`]: a recording's chunks handed over one at a time, each chunk's events written
//! as rows and its tables flushed at the end of the chunk, so memory is bounded by a chunk's
//! rows.

use ::jfr::Chunk;

use super::reader::ChunkReader;
use super::tables::Tables;
use super::{Stop, Summary};
use crate::Result;
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
    tables: Tables<'s>,
}

impl std::fmt::Debug for Exporter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("summary", &self.tables.summary)
            .finish_non_exhaustive()
    }
}

impl<'s> Exporter<'s> {
    /// An exporter writing to `sink`; announces `stacks` and `stack_frames`.
    ///
    /// # Errors
    /// The sink's.
    pub fn new(sink: &'s mut dyn BatchSink) -> Result<Self> {
        Ok(Exporter {
            tables: Tables::new(sink)?,
        })
    }

    /// Why reading stopped, once it has: later chunks are not read.
    pub fn stopped(&self) -> Option<&::jfr::Error> {
        self.tables.summary.stopped.as_ref()
    }

    /// Records why reading stopped (a chunk that does not parse, a file that cannot be read
    /// further); later chunks are not read.
    pub fn stop(&mut self, reason: ::jfr::Error) {
        self.tables.summary.stopped.get_or_insert(reason);
    }

    /// Writes every event of `chunk`, which starts at byte `offset` of the recording (added to
    /// the offsets of errors; 0 for a chunk parsed from the whole recording). An event that
    /// does not decode (the cut of a cut chunk, or damage) stops reading: every event before
    /// it is written, and [`Exporter::stopped`] says why.
    ///
    /// # Errors
    /// The sink's.
    pub fn chunk(&mut self, chunk: &Chunk<'_>, offset: u64) -> Result<()> {
        if self.tables.summary.stopped.is_some() {
            return Ok(());
        }
        self.tables.summary.chunks += 1;
        let mut reader = ChunkReader::new(chunk);
        for event in chunk.events() {
            let result = event
                .map_err(Stop::Jfr)
                .and_then(|e| reader.event(&mut self.tables, &e));
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
        for i in 0..self.tables.tables.len() {
            self.tables.flush_table(i)?;
        }
        Ok(())
    }

    /// Sends the rows not yet sent and returns what was written.
    ///
    /// # Errors
    /// The sink's.
    pub fn finish(self) -> Result<Summary> {
        self.tables.finish()
    }
}
