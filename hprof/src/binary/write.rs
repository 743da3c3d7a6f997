//! Encoding: the header, every top-level record and every heap-dump sub-record, mirroring
//! [`records`](super::records) and [`heap_dump`](super::heap_dump). Lengths are computed here;
//! [`Writer`] splits heap dumps into `HEAP_DUMP_SEGMENT`s at a configurable size and closes
//! them with `HEAP_DUMP_END`, as HotSpot does (`hprof.md` §1.1, §1.5 "Writers").

mod builder;
pub use builder::HeapBuilder;

use std::io;

use super::header::{Header, Version};
use super::heap_dump::{GcRoot, SubRecord};
use super::records::{Record, tag};
use super::types::{IdSize, write_id};

fn u2(v: u16, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn u4(v: impl Into<u32>, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.into().to_be_bytes());
}

fn u8_(v: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn count(n: usize, what: &str) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{what}: {n} does not fit in a u4"),
        )
    })
}

/// Appends the body of a record (without the 9-byte framing). Heap dumps are written from
/// their raw body.
///
/// # Errors
/// `InvalidInput` when a count does not fit in its `u4` field.
pub fn encode_record_body(
    record: &Record<'_>,
    id_size: IdSize,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    match record {
        Record::Utf8(u) => {
            write_id(u.id, id_size, out);
            out.extend_from_slice(u.bytes);
        }
        Record::LoadClass(l) => {
            u4(l.class_serial, out);
            write_id(l.class_id, id_size, out);
            u4(l.stack_trace_serial, out);
            write_id(l.name_id, id_size, out);
        }
        Record::UnloadClass(u) => u4(u.class_serial, out),
        Record::Frame(f) => {
            write_id(f.frame_id, id_size, out);
            write_id(f.method_name_id, id_size, out);
            write_id(f.method_signature_id, id_size, out);
            write_id(f.source_file_id, id_size, out);
            u4(f.class_serial, out);
            out.extend_from_slice(&f.line.to_be_bytes());
        }
        Record::Trace(t) => {
            u4(t.stack_trace_serial, out);
            u4(t.thread_serial, out);
            u4(count(t.frame_ids.len(), "TRACE frame count")?, out);
            for id in t.frame_ids.iter() {
                write_id(id, id_size, out);
            }
        }
        Record::AllocSites(a) => {
            u2(a.flags, out);
            u4(a.cutoff_ratio, out);
            u4(a.total_live_bytes, out);
            u4(a.total_live_instances, out);
            u8_(a.total_bytes_allocated, out);
            u8_(a.total_instances_allocated, out);
            u4(count(a.len(), "ALLOC_SITES site count")?, out);
            out.extend_from_slice(a.sites.get(..a.len() * 25).unwrap_or_default());
        }
        Record::HeapSummary(h) => {
            u4(h.live_bytes, out);
            u4(h.live_instances, out);
            u8_(h.bytes_allocated, out);
            u8_(h.instances_allocated, out);
        }
        Record::StartThread(s) => {
            u4(s.thread_serial, out);
            write_id(s.thread_object_id, id_size, out);
            u4(s.stack_trace_serial, out);
            write_id(s.thread_name_id, id_size, out);
            write_id(s.group_name_id, id_size, out);
            write_id(s.group_parent_name_id, id_size, out);
        }
        Record::EndThread(e) => u4(e.thread_serial, out),
        Record::HeapDump(d) | Record::HeapDumpSegment(d) => out.extend_from_slice(d.body),
        Record::CpuSamples(c) => {
            u4(c.total_samples, out);
            u4(count(c.len(), "CPU_SAMPLES trace count")?, out);
            out.extend_from_slice(c.traces.get(..c.len() * 8).unwrap_or_default());
        }
        Record::ControlSettings(c) => {
            u4(c.flags, out);
            u2(c.stack_trace_depth, out);
        }
        Record::HeapDumpEnd => {}
        Record::Unknown { body, .. } => out.extend_from_slice(body),
    }
    Ok(())
}

/// Appends a whole record: `tag, time, length, body`.
///
/// # Errors
/// `InvalidInput` when the body is longer than `u32::MAX` or a count does not fit.
pub fn encode_record(
    record: &Record<'_>,
    time: u32,
    id_size: IdSize,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    let start = out.len();
    out.push(record.tag());
    u4(time, out);
    u4(0u32, out);
    encode_record_body(record, id_size, out)?;
    let len = count(out.len() - start - 9, "record length")?;
    if let Some(slot) = out.get_mut(start + 5..start + 9) {
        slot.copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

/// Appends one heap-dump sub-record, tag included.
///
/// # Errors
/// `InvalidInput` when an array length does not fit in its `u4` field.
pub fn encode_sub_record(s: &SubRecord<'_>, id_size: IdSize, out: &mut Vec<u8>) -> io::Result<()> {
    out.push(s.tag());
    match s {
        SubRecord::Root(r) => {
            write_id(r.object_id(), id_size, out);
            match *r {
                GcRoot::JniGlobal {
                    jni_global_ref_id, ..
                } => write_id(jni_global_ref_id, id_size, out),
                GcRoot::JniLocal {
                    thread_serial,
                    frame_number,
                    ..
                }
                | GcRoot::JavaFrame {
                    thread_serial,
                    frame_number,
                    ..
                } => {
                    u4(thread_serial, out);
                    out.extend_from_slice(&frame_number.to_be_bytes());
                }
                GcRoot::NativeStack { thread_serial, .. }
                | GcRoot::ThreadBlock { thread_serial, .. } => {
                    u4(thread_serial, out);
                }
                GcRoot::ThreadObject {
                    thread_serial,
                    stack_trace_serial,
                    ..
                } => {
                    u4(thread_serial, out);
                    u4(stack_trace_serial, out);
                }
                GcRoot::JniMonitor {
                    thread_serial,
                    stack_depth,
                    ..
                } => {
                    u4(thread_serial, out);
                    out.extend_from_slice(&stack_depth.to_be_bytes());
                }
                GcRoot::Unknown { .. }
                | GcRoot::StickyClass { .. }
                | GcRoot::MonitorUsed { .. }
                | GcRoot::InternedString { .. }
                | GcRoot::Finalizing { .. }
                | GcRoot::Debugger { .. }
                | GcRoot::ReferenceCleanup { .. }
                | GcRoot::VmInternal { .. }
                | GcRoot::Unreachable { .. } => {}
            }
        }
        SubRecord::ClassDump(c) => {
            write_id(c.class_id, id_size, out);
            u4(c.stack_trace_serial, out);
            for id in [
                c.super_class_id,
                c.class_loader_id,
                c.signers_id,
                c.protection_domain_id,
                c.reserved1,
                c.reserved2,
            ] {
                write_id(id, id_size, out);
            }
            u4(c.instance_size, out);
            u2(c.constant_pool_len, out);
            out.extend_from_slice(c.constant_pool);
            u2(c.static_fields_len, out);
            out.extend_from_slice(c.static_fields);
            u2(c.instance_fields_len, out);
            out.extend_from_slice(c.instance_fields);
        }
        SubRecord::InstanceDump(i) => {
            write_id(i.object_id, id_size, out);
            u4(i.stack_trace_serial, out);
            write_id(i.class_id, id_size, out);
            u4(count(i.data.len(), "INSTANCE_DUMP byte count")?, out);
            out.extend_from_slice(i.data);
        }
        SubRecord::ObjectArrayDump(a) => {
            write_id(a.array_id, id_size, out);
            u4(a.stack_trace_serial, out);
            u4(count(a.elements.len(), "OBJ_ARRAY_DUMP length")?, out);
            write_id(a.array_class_id, id_size, out);
            for id in a.elements.iter() {
                write_id(id, id_size, out);
            }
        }
        SubRecord::PrimitiveArrayDump(a) => {
            write_id(a.array_id, id_size, out);
            u4(a.stack_trace_serial, out);
            u4(count(a.len(), "PRIM_ARRAY_DUMP length")?, out);
            out.push(a.element_type.code());
            let size = a.element_type.size(id_size);
            out.extend_from_slice(a.data.get(..a.len() * size).unwrap_or_default());
        }
        SubRecord::PrimitiveArrayNoData(a) => {
            write_id(a.array_id, id_size, out);
            u4(a.stack_trace_serial, out);
            u4(a.length, out);
            out.push(a.element_type.code());
        }
        SubRecord::HeapDumpInfo(h) => {
            u4(h.heap_id, out);
            write_id(h.name_id, id_size, out);
        }
    }
    Ok(())
}

/// The default size at which [`Writer`] starts a new `HEAP_DUMP_SEGMENT` (1 MiB, like
/// HotSpot's dump buffer).
pub const DEFAULT_SEGMENT_SIZE: usize = 1 << 20;

/// Writes a whole dump to any [`io::Write`]: header, records, and heap dumps split into
/// segments.
///
/// ```
/// use hprof::binary::{Header, Id, IdSize, Version, Record, LoadClass, SubRecord, GcRoot};
/// use hprof::binary::{ClassSerial, StackTraceSerial};
/// use hprof::binary::write::Writer;
/// let header = Header { version: Version::V1_0_2, id_size: IdSize::Eight, timestamp_ms: 0 };
/// let mut w = Writer::new(Vec::new(), &header)?;
/// w.write_record(0, &Record::LoadClass(LoadClass {
///     class_serial: ClassSerial(1),
///     class_id: Id(0x10),
///     stack_trace_serial: StackTraceSerial(0),
///     name_id: Id(0x20),
/// }))?;
/// w.write_sub_record(&SubRecord::Root(GcRoot::StickyClass { object_id: Id(0x10) }))?;
/// let bytes = w.finish()?; // closes the segment and writes HEAP_DUMP_END
/// let (_, records) = hprof::binary::Records::parse(&bytes)?;
/// assert_eq!(records.count(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Writer<W: io::Write> {
    out: W,
    id_size: IdSize,
    version: Version,
    segment_size: usize,
    /// The open heap-dump record: tag, time, and whether it was opened automatically.
    open: Option<(u8, u32, bool)>,
    /// Whether an automatic heap dump was written since the last `HEAP_DUMP_END`.
    pending_end: bool,
    body: Vec<u8>,
    scratch: Vec<u8>,
}

impl<W: io::Write> Writer<W> {
    /// Writes `header` and returns a writer for the records.
    ///
    /// # Errors
    /// I/O errors of `out`.
    pub fn new(mut out: W, header: &Header) -> io::Result<Writer<W>> {
        let mut h = Vec::with_capacity(header.len());
        header.write(&mut h);
        out.write_all(&h)?;
        Ok(Writer {
            out,
            id_size: header.id_size,
            version: header.version,
            segment_size: DEFAULT_SEGMENT_SIZE,
            open: None,
            pending_end: false,
            body: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// Sets the body size at which automatic heap-dump records are split (ART uses 4096).
    pub fn segment_size(mut self, bytes: usize) -> Writer<W> {
        self.segment_size = bytes.max(1);
        self
    }

    /// Writes a top-level record (closing an automatically opened heap-dump segment first).
    ///
    /// # Errors
    /// I/O errors, or `InvalidInput` for lengths that do not fit.
    pub fn write_record(&mut self, time: u32, record: &Record<'_>) -> io::Result<()> {
        if let Some((_, _, true)) = self.open {
            self.close_heap_dump_record()?;
        }
        if matches!(record, Record::HeapDumpEnd) {
            self.pending_end = false;
        }
        self.scratch.clear();
        encode_record(record, time, self.id_size, &mut self.scratch)?;
        self.out.write_all(&self.scratch)
    }

    /// Opens a heap-dump record (`tag` 0x0C or 0x1C) explicitly: every sub-record goes into
    /// it, unsplit, until [`Writer::close_heap_dump_record`].
    ///
    /// # Errors
    /// I/O errors closing a previous record.
    pub fn start_heap_dump_record(&mut self, tag: u8, time: u32) -> io::Result<()> {
        if self.open.is_some() {
            self.close_heap_dump_record()?;
        }
        self.open = Some((tag, time, false));
        Ok(())
    }

    /// Writes a sub-record into the open heap-dump record, opening a segment (or, for
    /// version 1.0.1, a `HEAP_DUMP`) if none is open and starting a new segment when the
    /// current one reaches the segment size.
    ///
    /// # Errors
    /// I/O errors, or `InvalidInput` for lengths that do not fit.
    pub fn write_sub_record(&mut self, s: &SubRecord<'_>) -> io::Result<()> {
        let segmented = !matches!(self.version, Version::V1_0 | Version::V1_0_1);
        match self.open {
            None => {
                let t = if segmented {
                    tag::HEAP_DUMP_SEGMENT
                } else {
                    tag::HEAP_DUMP
                };
                self.open = Some((t, 0, true));
                self.pending_end = segmented;
            }
            Some((_, _, true)) if segmented && self.body.len() >= self.segment_size => {
                self.close_heap_dump_record()?;
                self.open = Some((tag::HEAP_DUMP_SEGMENT, 0, true));
            }
            _ => {}
        }
        encode_sub_record(s, self.id_size, &mut self.body)
    }

    /// Closes the open heap-dump record, writing it with its length.
    ///
    /// # Errors
    /// I/O errors, or `InvalidInput` when the body exceeds `u32::MAX` bytes.
    pub fn close_heap_dump_record(&mut self) -> io::Result<()> {
        let Some((t, time, _)) = self.open.take() else {
            return Ok(());
        };
        let len = count(self.body.len(), "heap dump record length")?;
        let mut h = Vec::with_capacity(9);
        h.push(t);
        u4(time, &mut h);
        u4(len, &mut h);
        self.out.write_all(&h)?;
        self.out.write_all(&self.body)?;
        self.body.clear();
        Ok(())
    }

    /// Closes the open segment and, for segmented versions, writes `HEAP_DUMP_END` if
    /// segments were opened automatically.
    ///
    /// # Errors
    /// I/O errors.
    pub fn end_heap_dump(&mut self) -> io::Result<()> {
        self.close_heap_dump_record()?;
        if self.pending_end {
            self.pending_end = false;
            self.write_record(0, &Record::HeapDumpEnd)?;
        }
        Ok(())
    }

    /// Ends any open heap dump (see [`Writer::end_heap_dump`]), flushes, and returns the
    /// output.
    ///
    /// # Errors
    /// I/O errors.
    pub fn finish(mut self) -> io::Result<W> {
        self.end_heap_dump()?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The Android → standard mapping of `hprof-conv` (`hprof.md` §1.5), for writing a 1.0.3
/// dump as 1.0.2 that JVM tools read: `HEAP_DUMP_INFO` is dropped (`None`), the Android roots
/// become `ROOT_UNKNOWN` (keeping the object id), `PRIMITIVE_ARRAY_NODATA` becomes an empty
/// `PRIM_ARRAY_DUMP`; everything else is unchanged.
pub fn to_standard_sub_record<'a>(s: &SubRecord<'a>) -> Option<SubRecord<'a>> {
    use super::heap_dump::PrimitiveArrayDump;
    Some(match *s {
        SubRecord::HeapDumpInfo(_) => return None,
        SubRecord::Root(
            r @ (GcRoot::InternedString { .. }
            | GcRoot::Finalizing { .. }
            | GcRoot::Debugger { .. }
            | GcRoot::ReferenceCleanup { .. }
            | GcRoot::VmInternal { .. }
            | GcRoot::JniMonitor { .. }
            | GcRoot::Unreachable { .. }),
        ) => SubRecord::Root(GcRoot::Unknown {
            object_id: r.object_id(),
        }),
        SubRecord::PrimitiveArrayNoData(a) => SubRecord::PrimitiveArrayDump(PrimitiveArrayDump {
            array_id: a.array_id,
            stack_trace_serial: a.stack_trace_serial,
            element_type: a.element_type,
            data: &[],
        }),
        other => other,
    })
}
