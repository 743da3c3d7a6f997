//! Top-level records (`hprof.md` §1.2–1.3): `u1 tag, u4 time, u4 length, body[length]`, and
//! the body of every tag: UTF8, LOAD_CLASS, UNLOAD_CLASS, FRAME, TRACE, ALLOC_SITES,
//! HEAP_SUMMARY, START_THREAD, END_THREAD, HEAP_DUMP, CPU_SAMPLES, CONTROL_SETTINGS,
//! HEAP_DUMP_SEGMENT, HEAP_DUMP_END.

use super::cursor::Cursor;
use super::error::{Error, Result};
use super::header::Header;
use super::heap_dump::SubRecords;
use super::types::{Id, IdSize};

/// Top-level record tags.
pub mod tag {
    /// `STRING_IN_UTF8`.
    pub const UTF8: u8 = 0x01;
    /// `LOAD_CLASS`.
    pub const LOAD_CLASS: u8 = 0x02;
    /// `UNLOAD_CLASS`.
    pub const UNLOAD_CLASS: u8 = 0x03;
    /// `STACK_FRAME`.
    pub const FRAME: u8 = 0x04;
    /// `STACK_TRACE`.
    pub const TRACE: u8 = 0x05;
    /// `ALLOC_SITES`.
    pub const ALLOC_SITES: u8 = 0x06;
    /// `HEAP_SUMMARY`.
    pub const HEAP_SUMMARY: u8 = 0x07;
    /// `START_THREAD`.
    pub const START_THREAD: u8 = 0x0A;
    /// `END_THREAD`.
    pub const END_THREAD: u8 = 0x0B;
    /// `HEAP_DUMP`.
    pub const HEAP_DUMP: u8 = 0x0C;
    /// `CPU_SAMPLES`.
    pub const CPU_SAMPLES: u8 = 0x0D;
    /// `CONTROL_SETTINGS`.
    pub const CONTROL_SETTINGS: u8 = 0x0E;
    /// `HEAP_DUMP_SEGMENT`.
    pub const HEAP_DUMP_SEGMENT: u8 = 0x1C;
    /// `HEAP_DUMP_END`.
    pub const HEAP_DUMP_END: u8 = 0x2C;
}

/// The record's name as error messages give it (`"UTF8 record"`), by tag.
pub(crate) fn record_what(t: u8) -> &'static str {
    match t {
        tag::UTF8 => "UTF8 record",
        tag::LOAD_CLASS => "LOAD_CLASS record",
        tag::UNLOAD_CLASS => "UNLOAD_CLASS record",
        tag::FRAME => "STACK_FRAME record",
        tag::TRACE => "STACK_TRACE record",
        tag::ALLOC_SITES => "ALLOC_SITES record",
        tag::HEAP_SUMMARY => "HEAP_SUMMARY record",
        tag::START_THREAD => "START_THREAD record",
        tag::END_THREAD => "END_THREAD record",
        tag::HEAP_DUMP => "HEAP_DUMP record",
        tag::CPU_SAMPLES => "CPU_SAMPLES record",
        tag::CONTROL_SETTINGS => "CONTROL_SETTINGS record",
        tag::HEAP_DUMP_SEGMENT => "HEAP_DUMP_SEGMENT record",
        tag::HEAP_DUMP_END => "HEAP_DUMP_END record",
        _ => "record with an unknown tag",
    }
}

/// Length of a record header (`u1 tag, u4 time, u4 length`).
pub const RECORD_HEADER_LEN: usize = 9;

/// The 9-byte framing of a top-level record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RecordHeader {
    /// The record's tag.
    pub tag: u8,
    /// Microseconds since the header timestamp (HotSpot and ART write 0).
    pub time: u32,
    /// Length of the body in bytes.
    pub length: u32,
    /// File offset of the tag byte.
    pub offset: u64,
}

impl RecordHeader {
    /// Reads a record header.
    #[inline]
    pub fn parse(c: &mut Cursor<'_>) -> Result<RecordHeader> {
        let offset = c.offset();
        let b = c.array::<RECORD_HEADER_LEN>("a record header (tag, time, length)")?;
        let [tag, t0, t1, t2, t3, l0, l1, l2, l3] = *b;
        Ok(RecordHeader {
            tag,
            time: u32::from_be_bytes([t0, t1, t2, t3]),
            length: u32::from_be_bytes([l0, l1, l2, l3]),
            offset,
        })
    }

    /// File offset of the first body byte.
    pub fn body_offset(&self) -> u64 {
        self.offset + RECORD_HEADER_LEN as u64
    }

    /// Whether this is a `HEAP_DUMP` or `HEAP_DUMP_SEGMENT`.
    pub fn is_heap_dump(&self) -> bool {
        self.tag == tag::HEAP_DUMP || self.tag == tag::HEAP_DUMP_SEGMENT
    }
}

/// What to do with a top-level tag this crate does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UnknownTags {
    /// Return it as [`Record::Unknown`] and go on (length framing makes that safe).
    #[default]
    Surface,
    /// Skip it silently.
    Skip,
    /// Stop with [`Error::UnknownTag`].
    Error,
}

/// A `STRING_IN_UTF8` record (0x01): an id and (modified) UTF-8 bytes, not NUL-terminated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Utf8<'a> {
    /// The string id that other records refer to.
    pub id: Id,
    /// The bytes (modified UTF-8; real dumps contain invalid UTF-8).
    pub bytes: &'a [u8],
}

impl Utf8<'_> {
    /// The text, with invalid sequences replaced.
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.bytes)
    }
}

/// A `LOAD_CLASS` record (0x02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LoadClass {
    /// Class serial number (> 0).
    pub class_serial: u32,
    /// The class object id.
    pub class_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: u32,
    /// Id of the UTF8 record with the class name (internal form `java/lang/String`).
    pub name_id: Id,
}

/// An `UNLOAD_CLASS` record (0x03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UnloadClass {
    /// Class serial number.
    pub class_serial: u32,
}

/// A `STACK_FRAME` record (0x04).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame {
    /// The frame id.
    pub frame_id: Id,
    /// UTF8 id of the method name.
    pub method_name_id: Id,
    /// UTF8 id of the method signature.
    pub method_signature_id: Id,
    /// UTF8 id of the source file name.
    pub source_file_id: Id,
    /// Serial of the method's class.
    pub class_serial: u32,
    /// Line: > 0 a line number, 0 no information (ART), -1 unknown, -2 compiled, -3 native.
    pub line: i32,
}

/// A list of identifiers stored back to back (trace frames, object-array elements).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct IdList<'a> {
    data: &'a [u8],
    id_size: IdSize,
}

impl<'a> IdList<'a> {
    /// A list over `data`, whose length must be a multiple of the id size.
    pub fn new(data: &'a [u8], id_size: IdSize) -> IdList<'a> {
        IdList { data, id_size }
    }

    /// The raw big-endian bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The id size.
    pub fn id_size(&self) -> IdSize {
        self.id_size
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.data.len() / self.id_size.bytes()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The id at `index`.
    pub fn get(&self, index: usize) -> Option<Id> {
        let n = self.id_size.bytes();
        let start = index.checked_mul(n)?;
        let b = self.data.get(start..start.checked_add(n)?)?;
        Some(read_id(b))
    }

    /// The ids in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Id> + 'a {
        self.data.chunks_exact(self.id_size.bytes()).map(read_id)
    }
}

impl std::fmt::Debug for IdList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[inline]
fn read_id(b: &[u8]) -> Id {
    b.iter().fold(0, |acc, &x| (acc << 8) | Id::from(x))
}

/// A `STACK_TRACE` record (0x05).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Trace<'a> {
    /// Stack trace serial.
    pub stack_trace_serial: u32,
    /// Serial of the thread.
    pub thread_serial: u32,
    /// Frame ids, innermost first.
    pub frame_ids: IdList<'a>,
}

/// One allocation site of an `ALLOC_SITES` record (25 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AllocSite {
    /// 0 normal object, 2 object array, 4..=11 primitive array of that basic type.
    pub is_array: u8,
    /// Class serial (may be 0).
    pub class_serial: u32,
    /// Stack trace serial.
    pub stack_trace_serial: u32,
    /// Live bytes.
    pub bytes_alive: u32,
    /// Live instances.
    pub instances_alive: u32,
    /// Bytes allocated.
    pub bytes_allocated: u32,
    /// Instances allocated.
    pub instances_allocated: u32,
}

/// Size of one [`AllocSite`] in bytes.
pub const ALLOC_SITE_LEN: usize = 25;

impl AllocSite {
    fn parse(b: &[u8]) -> Option<AllocSite> {
        let mut c = Cursor::new(b, 0, IdSize::Four);
        Some(AllocSite {
            is_array: c.u1("ALLOC_SITES site is array").ok()?,
            class_serial: c.u4("ALLOC_SITES site class serial").ok()?,
            stack_trace_serial: c.u4("ALLOC_SITES site stack trace serial").ok()?,
            bytes_alive: c.u4("ALLOC_SITES site bytes alive").ok()?,
            instances_alive: c.u4("ALLOC_SITES site instances alive").ok()?,
            bytes_allocated: c.u4("ALLOC_SITES site bytes allocated").ok()?,
            instances_allocated: c.u4("ALLOC_SITES site instances allocated").ok()?,
        })
    }

    /// Encodes a list of sites, for [`AllocSites::sites`].
    pub fn encode_list(sites: &[AllocSite]) -> Vec<u8> {
        let mut out = Vec::with_capacity(sites.len() * ALLOC_SITE_LEN);
        for s in sites {
            s.write(&mut out);
        }
        out
    }

    /// Appends the encoded site.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.is_array);
        for v in [
            self.class_serial,
            self.stack_trace_serial,
            self.bytes_alive,
            self.instances_alive,
            self.bytes_allocated,
            self.instances_allocated,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

/// An `ALLOC_SITES` record (0x06, JVMTI agent only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AllocSites<'a> {
    /// 0x1 incremental, 0x2 sorted by allocation, 0x4 force GC.
    pub flags: u16,
    /// Cutoff ratio: the agent writes the raw bits of a C `float`; never validated.
    pub cutoff_ratio: u32,
    /// Total live bytes.
    pub total_live_bytes: u32,
    /// Total live instances.
    pub total_live_instances: u32,
    /// Total bytes allocated.
    pub total_bytes_allocated: u64,
    /// Total instances allocated.
    pub total_instances_allocated: u64,
    /// The encoded site list, 25 bytes per site (see [`AllocSites::sites`] and
    /// [`AllocSite::encode_list`]).
    pub sites: &'a [u8],
}

impl<'a> AllocSites<'a> {
    /// Number of sites.
    pub fn len(&self) -> usize {
        self.sites.len() / ALLOC_SITE_LEN
    }

    /// Whether there are no sites.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// The sites in file order.
    pub fn sites(&self) -> impl Iterator<Item = AllocSite> + 'a {
        self.sites
            .chunks_exact(ALLOC_SITE_LEN)
            .filter_map(AllocSite::parse)
    }
}

/// A `HEAP_SUMMARY` record (0x07, agent only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapSummary {
    /// Live bytes.
    pub live_bytes: u32,
    /// Live instances.
    pub live_instances: u32,
    /// Bytes allocated.
    pub bytes_allocated: u64,
    /// Instances allocated.
    pub instances_allocated: u64,
}

/// A `START_THREAD` record (0x0A, agent only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StartThread {
    /// Thread serial.
    pub thread_serial: u32,
    /// The thread object id.
    pub thread_object_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: u32,
    /// UTF8 id of the thread name.
    pub thread_name_id: Id,
    /// UTF8 id of the thread group name.
    pub group_name_id: Id,
    /// UTF8 id of the parent thread group name.
    pub group_parent_name_id: Id,
}

/// An `END_THREAD` record (0x0B, agent only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EndThread {
    /// Thread serial.
    pub thread_serial: u32,
}

/// One entry of a `CPU_SAMPLES` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuSample {
    /// How many samples hit this trace.
    pub samples: u32,
    /// Stack trace serial.
    pub stack_trace_serial: u32,
}

/// A `CPU_SAMPLES` record (0x0D, agent only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CpuSamples<'a> {
    /// Total number of samples.
    pub total_samples: u32,
    /// The encoded trace list, 8 bytes per trace (see [`CpuSamples::traces`] and
    /// [`CpuSample::encode_list`]).
    pub traces: &'a [u8],
}

impl<'a> CpuSamples<'a> {
    /// Number of traces.
    pub fn len(&self) -> usize {
        self.traces.len() / 8
    }

    /// Whether there are no traces.
    pub fn is_empty(&self) -> bool {
        self.traces.is_empty()
    }

    /// The per-trace sample counts.
    pub fn traces(&self) -> impl Iterator<Item = CpuSample> + 'a {
        self.traces.chunks_exact(8).filter_map(|b| {
            let mut c = Cursor::new(b, 0, IdSize::Four);
            Some(CpuSample {
                samples: c.u4("CPU_SAMPLES trace sample count").ok()?,
                stack_trace_serial: c.u4("CPU_SAMPLES trace stack trace serial").ok()?,
            })
        })
    }
}

impl CpuSample {
    /// Encodes a list of samples, for [`CpuSamples::traces`].
    pub fn encode_list(samples: &[CpuSample]) -> Vec<u8> {
        let mut out = Vec::with_capacity(samples.len() * 8);
        for s in samples {
            out.extend_from_slice(&s.samples.to_be_bytes());
            out.extend_from_slice(&s.stack_trace_serial.to_be_bytes());
        }
        out
    }
}

/// A `CONTROL_SETTINGS` record (0x0E, agent only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ControlSettings {
    /// 0x1 allocation traces on, 0x2 CPU sampling on.
    pub flags: u32,
    /// Maximum stack depth.
    pub stack_trace_depth: u16,
}

/// The body of a `HEAP_DUMP` (0x0C) or `HEAP_DUMP_SEGMENT` (0x1C): sub-records, decoded lazily
/// with [`HeapDump::sub_records`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeapDump<'a> {
    /// The body bytes.
    pub body: &'a [u8],
    /// File offset of the first body byte.
    pub offset: u64,
    /// The file's id size.
    pub id_size: IdSize,
}

impl<'a> HeapDump<'a> {
    /// A lazy, fallible iterator over the sub-records.
    pub fn sub_records(&self) -> SubRecords<'a> {
        SubRecords::new(self.body, self.offset, self.id_size)
    }
}

/// A decoded top-level record body. Bodies borrow from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Record<'a> {
    /// 0x01.
    Utf8(Utf8<'a>),
    /// 0x02.
    LoadClass(LoadClass),
    /// 0x03.
    UnloadClass(UnloadClass),
    /// 0x04.
    Frame(Frame),
    /// 0x05.
    Trace(Trace<'a>),
    /// 0x06.
    AllocSites(AllocSites<'a>),
    /// 0x07.
    HeapSummary(HeapSummary),
    /// 0x0A.
    StartThread(StartThread),
    /// 0x0B.
    EndThread(EndThread),
    /// 0x0C.
    HeapDump(HeapDump<'a>),
    /// 0x0D.
    CpuSamples(CpuSamples<'a>),
    /// 0x0E.
    ControlSettings(ControlSettings),
    /// 0x1C.
    HeapDumpSegment(HeapDump<'a>),
    /// 0x2C (empty body).
    HeapDumpEnd,
    /// A tag this crate does not know, with its raw body.
    Unknown {
        /// The tag.
        tag: u8,
        /// The body bytes.
        body: &'a [u8],
    },
}

impl Record<'_> {
    /// The record's tag.
    pub fn tag(&self) -> u8 {
        match self {
            Record::Utf8(_) => tag::UTF8,
            Record::LoadClass(_) => tag::LOAD_CLASS,
            Record::UnloadClass(_) => tag::UNLOAD_CLASS,
            Record::Frame(_) => tag::FRAME,
            Record::Trace(_) => tag::TRACE,
            Record::AllocSites(_) => tag::ALLOC_SITES,
            Record::HeapSummary(_) => tag::HEAP_SUMMARY,
            Record::StartThread(_) => tag::START_THREAD,
            Record::EndThread(_) => tag::END_THREAD,
            Record::HeapDump(_) => tag::HEAP_DUMP,
            Record::CpuSamples(_) => tag::CPU_SAMPLES,
            Record::ControlSettings(_) => tag::CONTROL_SETTINGS,
            Record::HeapDumpSegment(_) => tag::HEAP_DUMP_SEGMENT,
            Record::HeapDumpEnd => tag::HEAP_DUMP_END,
            Record::Unknown { tag, .. } => *tag,
        }
    }
}

/// Whether `t` is one of the tags this crate decodes.
pub fn is_known_tag(t: u8) -> bool {
    matches!(
        t,
        tag::UTF8
            | tag::LOAD_CLASS
            | tag::UNLOAD_CLASS
            | tag::FRAME
            | tag::TRACE
            | tag::ALLOC_SITES
            | tag::HEAP_SUMMARY
            | tag::START_THREAD
            | tag::END_THREAD
            | tag::HEAP_DUMP
            | tag::CPU_SAMPLES
            | tag::CONTROL_SETTINGS
            | tag::HEAP_DUMP_SEGMENT
            | tag::HEAP_DUMP_END
    )
}

/// Decodes a record body. `body` holds exactly `header.length` bytes at file offset
/// `header.body_offset()`. Heap dumps are not descended into (see [`HeapDump::sub_records`]).
///
/// # Errors
/// [`Error::LengthMismatch`] when the fields do not fill the body exactly,
/// [`Error::RecordOverrun`] when they need more bytes than it has, [`Error::TooLong`] for
/// counts that cannot fit.
pub fn parse_body<'a>(
    header: &RecordHeader,
    body: &'a [u8],
    id_size: IdSize,
) -> Result<Record<'a>> {
    let mut c = Cursor::new(body, header.body_offset(), id_size);
    let record = match parse_fields(header.tag, &mut c) {
        Ok(r) => r,
        Err(Error::Truncated {
            expected, offset, ..
        }) => {
            return Err(Error::RecordOverrun {
                offset: header.offset,
                tag: header.tag,
                declared: header.length.into(),
                expected,
                at: offset,
            });
        }
        Err(e) => return Err(e),
    };
    if !c.is_empty() {
        return Err(Error::LengthMismatch {
            offset: header.offset,
            tag: header.tag,
            declared: header.length.into(),
            actual: (body.len() - c.remaining()) as u64,
        });
    }
    Ok(record)
}

fn parse_fields<'a>(t: u8, c: &mut Cursor<'a>) -> Result<Record<'a>> {
    let id_size = c.id_size();
    Ok(match t {
        tag::UTF8 => {
            let id = c.id("the UTF8 string id")?;
            Record::Utf8(Utf8 {
                id,
                bytes: c.bytes(c.remaining(), "the UTF8 string bytes")?,
            })
        }
        tag::LOAD_CLASS => Record::LoadClass(LoadClass {
            class_serial: c.u4("LOAD_CLASS class serial")?,
            class_id: c.id("LOAD_CLASS class object id")?,
            stack_trace_serial: c.u4("LOAD_CLASS stack trace serial")?,
            name_id: c.id("LOAD_CLASS class name id")?,
        }),
        tag::UNLOAD_CLASS => Record::UnloadClass(UnloadClass {
            class_serial: c.u4("UNLOAD_CLASS class serial")?,
        }),
        tag::FRAME => Record::Frame(Frame {
            frame_id: c.id("FRAME frame id")?,
            method_name_id: c.id("FRAME method name id")?,
            method_signature_id: c.id("FRAME method signature id")?,
            source_file_id: c.id("FRAME source file id")?,
            class_serial: c.u4("FRAME class serial")?,
            line: c.i4("FRAME line number")?,
        }),
        tag::TRACE => {
            let stack_trace_serial = c.u4("TRACE stack trace serial")?;
            let thread_serial = c.u4("TRACE thread serial")?;
            let at = c.offset();
            let n = c.u4("TRACE frame count")?;
            let ids = c.counted(n.into(), id_size.bytes(), at, "TRACE frame ids")?;
            Record::Trace(Trace {
                stack_trace_serial,
                thread_serial,
                frame_ids: IdList::new(ids, id_size),
            })
        }
        tag::ALLOC_SITES => {
            let flags = c.u2("ALLOC_SITES flags")?;
            let cutoff_ratio = c.u4("ALLOC_SITES cutoff ratio")?;
            let total_live_bytes = c.u4("ALLOC_SITES total live bytes")?;
            let total_live_instances = c.u4("ALLOC_SITES total live instances")?;
            let total_bytes_allocated = c.u8("ALLOC_SITES total bytes allocated")?;
            let total_instances_allocated = c.u8("ALLOC_SITES total instances allocated")?;
            let at = c.offset();
            let n = c.u4("ALLOC_SITES site count")?;
            let sites = c.counted(n.into(), ALLOC_SITE_LEN, at, "ALLOC_SITES sites")?;
            Record::AllocSites(AllocSites {
                flags,
                cutoff_ratio,
                total_live_bytes,
                total_live_instances,
                total_bytes_allocated,
                total_instances_allocated,
                sites,
            })
        }
        tag::HEAP_SUMMARY => Record::HeapSummary(HeapSummary {
            live_bytes: c.u4("HEAP_SUMMARY live bytes")?,
            live_instances: c.u4("HEAP_SUMMARY live instances")?,
            bytes_allocated: c.u8("HEAP_SUMMARY bytes allocated")?,
            instances_allocated: c.u8("HEAP_SUMMARY instances allocated")?,
        }),
        tag::START_THREAD => Record::StartThread(StartThread {
            thread_serial: c.u4("START_THREAD thread serial")?,
            thread_object_id: c.id("START_THREAD thread object id")?,
            stack_trace_serial: c.u4("START_THREAD stack trace serial")?,
            thread_name_id: c.id("START_THREAD thread name id")?,
            group_name_id: c.id("START_THREAD group name id")?,
            group_parent_name_id: c.id("START_THREAD parent group name id")?,
        }),
        tag::END_THREAD => Record::EndThread(EndThread {
            thread_serial: c.u4("END_THREAD thread serial")?,
        }),
        tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT => {
            let offset = c.offset();
            let body = c.bytes(c.remaining(), "the heap dump body")?;
            let dump = HeapDump {
                body,
                offset,
                id_size,
            };
            if t == tag::HEAP_DUMP {
                Record::HeapDump(dump)
            } else {
                Record::HeapDumpSegment(dump)
            }
        }
        tag::CPU_SAMPLES => {
            let total_samples = c.u4("CPU_SAMPLES total samples")?;
            let at = c.offset();
            let n = c.u4("CPU_SAMPLES trace count")?;
            let traces = c.counted(n.into(), 8, at, "CPU_SAMPLES traces")?;
            Record::CpuSamples(CpuSamples {
                total_samples,
                traces,
            })
        }
        tag::CONTROL_SETTINGS => Record::ControlSettings(ControlSettings {
            flags: c.u4("CONTROL_SETTINGS flags")?,
            stack_trace_depth: c.u2("CONTROL_SETTINGS stack trace depth")?,
        }),
        tag::HEAP_DUMP_END => Record::HeapDumpEnd,
        other => Record::Unknown {
            tag: other,
            body: c.bytes(c.remaining(), "the body of a record with an unknown tag")?,
        },
    })
}

/// A lazy, fallible iterator over the top-level records of a whole file held in memory.
///
/// Yields each record with its framing; stops at the end of the input or after the first
/// error.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    c: Cursor<'a>,
    unknown: UnknownTags,
    done: bool,
    salvage: bool,
    /// The error to yield after a heap dump cut off by the end of the input (salvage mode).
    pending: Option<Error>,
    /// What the end-of-file checks need.
    whole: Wholeness,
}

impl<'a> Records<'a> {
    /// Iterates over the records of `data` (a whole file, header included).
    ///
    /// # Errors
    /// Header errors (see [`Header::parse`]).
    pub fn new(data: &'a [u8]) -> Result<(Header, Records<'a>)> {
        let (header, len) = Header::parse(data)?;
        let rest = data.get(len..).unwrap_or_default();
        Ok((
            header,
            Records::after_header(rest, len as u64, header.id_size),
        ))
    }

    /// Iterates over records in `data`, which starts at file offset `offset` (after a header).
    pub fn after_header(data: &'a [u8], offset: u64, id_size: IdSize) -> Records<'a> {
        Records {
            c: Cursor::new(data, offset, id_size),
            unknown: UnknownTags::Surface,
            done: false,
            salvage: false,
            pending: None,
            whole: Wholeness::default(),
        }
    }

    /// Reads as much as possible of a file that may be cut off, and checks that it is whole:
    /// a `HEAP_DUMP`/`HEAP_DUMP_SEGMENT` record that runs past the end of the input is yielded
    /// with the bytes present as its body (its last sub-record is then incomplete), followed
    /// by an [`Error::PastEnd`] saying how many bytes are missing; at the end of the input, a
    /// file with no record after its header, or with `HEAP_DUMP_SEGMENT`s but no
    /// `HEAP_DUMP_END` after them, yields an [`Error::Truncated`].
    pub fn salvaging(mut self) -> Records<'a> {
        self.salvage = true;
        self
    }

    /// Sets what to do with unknown top-level tags (default: [`UnknownTags::Surface`]).
    pub fn unknown_tags(mut self, policy: UnknownTags) -> Records<'a> {
        self.unknown = policy;
        self
    }

    /// File offset of the next record.
    pub fn offset(&self) -> u64 {
        self.c.offset()
    }

    fn next_record(&mut self) -> Result<Option<(RecordHeader, Record<'a>)>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        loop {
            if self.c.is_empty() {
                if self.salvage {
                    self.whole.check(self.c.offset())?;
                }
                return Ok(None);
            }
            let header = RecordHeader::parse(&mut self.c)?;
            let len = header.length as usize;
            let body = match self.c.bytes(len, "a record body") {
                Ok(body) => body,
                Err(e) if !self.salvage => return Err(e),
                Err(_) => {
                    let body = self.c.rest();
                    let _ = self.c.skip(body.len(), "a record body");
                    let cut = |at| Error::PastEnd {
                        offset: header.offset,
                        at,
                        what: record_what(header.tag),
                        needed: RECORD_HEADER_LEN as u64 + u64::from(header.length),
                        available: (RECORD_HEADER_LEN + body.len()) as u64,
                    };
                    if !header.is_heap_dump() {
                        return Err(cut(header.offset));
                    }
                    // The sub-records present are still worth reading.
                    self.pending = Some(cut(self.c.offset()));
                    body
                }
            };
            self.whole.see(header.tag);
            if !is_known_tag(header.tag) {
                match self.unknown {
                    UnknownTags::Surface => {}
                    UnknownTags::Skip => continue,
                    UnknownTags::Error => {
                        return Err(Error::UnknownTag {
                            offset: header.offset,
                            tag: header.tag,
                        });
                    }
                }
            }
            let record = parse_body(&header, body, self.c.id_size())?;
            return Ok(Some((header, record)));
        }
    }
}

/// The file-level judgement of "whole" that every reader of a dump shares: a file holds at
/// least one record after its header, and `HEAP_DUMP_SEGMENT`s are closed by a `HEAP_DUMP_END`.
/// Feed it every top-level record's tag with [`see`](Wholeness::see), then ask
/// [`check`](Wholeness::check) at the end of the input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wholeness {
    /// Top-level records seen.
    records: u64,
    /// A `HEAP_DUMP_SEGMENT` was seen and no `HEAP_DUMP_END` after it yet.
    segments_open: bool,
}

impl Wholeness {
    /// Counts one top-level record of tag `t`.
    pub fn see(&mut self, t: u8) {
        self.records += 1;
        match t {
            tag::HEAP_DUMP_SEGMENT => self.segments_open = true,
            tag::HEAP_DUMP_END => self.segments_open = false,
            _ => {}
        }
    }

    /// Top-level records seen so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The end-of-file checks, the input having ended at file offset `end`.
    ///
    /// # Errors
    /// [`Error::Truncated`] for a file that holds only its header, or whose
    /// `HEAP_DUMP_SEGMENT`s have no `HEAP_DUMP_END` after them.
    pub fn check(&self, end: u64) -> Result<()> {
        if self.records == 0 {
            return Err(Error::Truncated {
                offset: end,
                expected: "a record after the file header (the file holds only its header)",
                needed: RECORD_HEADER_LEN as u64,
            });
        }
        if self.segments_open {
            return Err(Error::Truncated {
                offset: end,
                expected: "the HEAP_DUMP_END record that ends the HEAP_DUMP_SEGMENTs",
                needed: RECORD_HEADER_LEN as u64,
            });
        }
        Ok(())
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(RecordHeader, Record<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
