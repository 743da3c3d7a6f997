//! The record bodies (`hprof.md` §1.3): one type per tag, borrowing from the input.

use super::tags::tag;
use crate::binary::cursor::Cursor;
use crate::binary::heap_dump::SubRecords;
use crate::binary::types::{ClassSerial, Id, IdList, IdSize, StackTraceSerial, ThreadSerial};

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
    pub class_serial: ClassSerial,
    /// The class object id.
    pub class_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// Id of the UTF8 record with the class name (internal form `java/lang/String`).
    pub name_id: Id,
}

/// An `UNLOAD_CLASS` record (0x03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UnloadClass {
    /// Class serial number.
    pub class_serial: ClassSerial,
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
    pub class_serial: ClassSerial,
    /// Line: > 0 a line number, 0 no information (ART), -1 unknown, -2 compiled, -3 native.
    pub line: i32,
}

/// A `STACK_TRACE` record (0x05).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Trace<'a> {
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// Serial of the thread.
    pub thread_serial: ThreadSerial,
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
    pub class_serial: ClassSerial,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
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
            class_serial: ClassSerial(c.u4("ALLOC_SITES site class serial").ok()?),
            stack_trace_serial: StackTraceSerial(c.u4("ALLOC_SITES site stack trace serial").ok()?),
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
            self.class_serial.0,
            self.stack_trace_serial.0,
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
    pub thread_serial: ThreadSerial,
    /// The thread object id.
    pub thread_object_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
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
    pub thread_serial: ThreadSerial,
}

/// One entry of a `CPU_SAMPLES` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuSample {
    /// How many samples hit this trace.
    pub samples: u32,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
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
                stack_trace_serial: StackTraceSerial(
                    c.u4("CPU_SAMPLES trace stack trace serial").ok()?,
                ),
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
            out.extend_from_slice(&s.stack_trace_serial.0.to_be_bytes());
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
