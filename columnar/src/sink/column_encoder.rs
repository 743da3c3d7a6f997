//! One column's encoder: on the table's thread, or on a thread of its own that is sent the
//! row group's column writer, the values, and the word to close the chunk and send it back.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use arrow_array::ArrayRef;
use arrow_schema::FieldRef;
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, compute_leaves};

use crate::{Error, Result};

/// Batches queued per table before the exporter waits for its writer (and jobs per column
/// before the table's thread waits for the column's).
pub(super) const QUEUE: usize = 4;

/// Encodes one column of a table: on the table's thread (`Inline`), or on a thread of its
/// own (`Thread`), so a table's columns encode in parallel.
pub(super) enum ColumnEncoder {
    Inline {
        field: FieldRef,
        writer: Option<Box<ArrowColumnWriter>>,
    },
    Thread(ColumnThread),
}

impl ColumnEncoder {
    pub(super) fn new(table: &str, field: FieldRef, threaded: bool) -> Result<ColumnEncoder> {
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
    pub(super) fn open(&mut self, w: ArrowColumnWriter) -> Result<()> {
        match self {
            ColumnEncoder::Inline { writer, .. } => {
                *writer = Some(Box::new(w));
                Ok(())
            }
            ColumnEncoder::Thread(t) => t.send(ColumnJob::Open(Box::new(w))),
        }
    }

    /// Encodes `values` into the open chunk.
    pub(super) fn write(&mut self, values: ArrayRef) -> Result<()> {
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
    pub(super) fn close(&mut self) -> Result<ArrowColumnChunk> {
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
pub(super) struct ColumnThread {
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
