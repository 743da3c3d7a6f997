//! The records outside heap dumps (`UTF8`, `LOAD_CLASS`, `STACK_FRAME`, `STACK_TRACE`): the
//! names they give, and the `strings`, `stack_traces`, `stack_frames` and `classes` rows.

use std::collections::HashMap;

use hprof::binary::hash::IdMap;
use hprof::binary::names::ClassNames;
use hprof::binary::records::{Frame, Record, Records};
use hprof::binary::types::{ClassSerial, Id};

use super::columns::TraceFrame;
use super::lossy;
use super::schema::{FrameRows, StringsRows, TraceRows, table};
use super::summary::Summary;
use crate::Result;
use crate::rows::Rows;
use crate::sink::BatchSink;

/// What the records outside heap dumps say (names, load classes, frames), and the `strings`
/// and `stack_traces` rows they give.
pub(super) struct TopLevel {
    pub(super) names: ClassNames,
    /// Class serial of each class with a `LOAD_CLASS`.
    pub(super) load_classes: IdMap<ClassSerial>,
    class_by_serial: HashMap<ClassSerial, Id>,
    frames: Vec<Frame>,
    strings: StringsRows,
    traces: TraceRows,
}

impl TopLevel {
    /// Reads the records before the first heap dump, so the names they give (all of them,
    /// in the dumps HotSpot and ART write) are known before the first object is read.
    /// Returns the offset of that heap dump, where the heap pass takes over the other
    /// records.
    pub(super) fn before_heap_dumps(
        records: Records<'_>,
        end: u64,
        sink: &mut dyn BatchSink,
        summary: &mut Summary,
    ) -> Result<(TopLevel, u64)> {
        let mut top = TopLevel {
            names: ClassNames::new(),
            load_classes: IdMap::default(),
            class_by_serial: HashMap::new(),
            frames: Vec::new(),
            strings: StringsRows::default(),
            traces: TraceRows::default(),
        };
        for r in records {
            // A damaged record: the heap pass reports it.
            let Ok((rh, record)) = r else { break };
            if matches!(record, Record::HeapDump(_) | Record::HeapDumpSegment(_)) {
                return Ok((top, rh.offset));
            }
            top.record(record, sink, summary)?;
        }
        Ok((top, end))
    }

    /// Takes in one record outside heap dumps.
    pub(super) fn record(
        &mut self,
        record: Record<'_>,
        sink: &mut dyn BatchSink,
        summary: &mut Summary,
    ) -> Result<()> {
        match record {
            Record::Utf8(u) => {
                self.names.add_string(u.id, u.bytes);
                self.strings.push(u.id, &lossy(u.bytes));
                summary.add_rows(table::STRINGS, self.strings.flush_if_full(sink)?);
            }
            Record::LoadClass(l) => {
                self.names.add_class(l.class_id, l.name_id);
                self.load_classes.insert(l.class_id, l.class_serial);
                self.class_by_serial.insert(l.class_serial, l.class_id);
            }
            Record::Frame(f) => self.frames.push(f),
            Record::Trace(t) => {
                for (depth, frame_id) in t.frame_ids.iter().enumerate() {
                    self.traces.push(TraceFrame {
                        stack_trace_serial: t.stack_trace_serial.0,
                        thread_serial: t.thread_serial.0,
                        depth: depth as u32,
                        frame_id,
                    });
                }
                summary.add_rows(table::STACK_TRACES, self.traces.flush_if_full(sink)?);
            }
            _ => {}
        }
        Ok(())
    }

    /// Sends the last `strings` and `stack_traces` rows.
    pub(super) fn finish(&mut self, sink: &mut dyn BatchSink, summary: &mut Summary) -> Result<()> {
        summary.add_rows(table::STRINGS, self.strings.flush(sink)?);
        summary.add_rows(table::STACK_TRACES, self.traces.flush(sink)?);
        Ok(())
    }

    /// Writes the `stack_frames` rows.
    pub(super) fn write_frames(
        &self,
        sink: &mut dyn BatchSink,
        summary: &mut Summary,
    ) -> Result<()> {
        let mut rows = FrameRows::default();
        let string = |id: Id| self.names.string(id).map(|b| lossy(b).into_owned());
        for f in &self.frames {
            rows.frame_id.append_value(f.frame_id.get());
            rows.method_name.append_option(string(f.method_name_id));
            rows.method_signature
                .append_option(string(f.method_signature_id));
            rows.source_file.append_option(string(f.source_file_id));
            rows.class_serial.append_value(f.class_serial.0);
            rows.class_name.append_option(
                self.class_by_serial
                    .get(&f.class_serial)
                    .map(|&id| self.names.java_name(id)),
            );
            rows.line.append_value(f.line);
            rows.len += 1;
            summary.add_rows(table::STACK_FRAMES, rows.flush_if_full(sink)?);
        }
        summary.add_rows(table::STACK_FRAMES, rows.flush(sink)?);
        Ok(())
    }
}
