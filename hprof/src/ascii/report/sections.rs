//! The owned sections of a report (hprof.md §2.1): every kind of item in file order, and the
//! traces, heap dumps, sites, CPU tables and monitor dumps they group into.

use super::super::cpu::{CpuBegin, CpuRow, OldCpuRow};
use super::super::header::FileHeader;
use super::super::heap_dump::{
    ArrayDump, ArrayElement, ClassDump, ClassRef, FieldRef, HeapDumpBegin, InstanceDump, Root,
};
use super::super::monitor::{
    MonitorEvent, MonitorHeader, MonitorOwner, MonitorThread, MonitorTimeBegin, MonitorTimeRow,
    WaitingList,
};
use super::super::sites::{Site, SitesBegin};
use super::super::threads::{ThreadEnd, ThreadStart};
use super::super::traces::{Frame, TraceHeader};
use crate::binary::types::{StackTraceSerial, ThreadSerial};
use std::collections::HashMap;

/// One top-level part of a report.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Item {
    /// `JAVA PROFILE 1.0.1, created …`.
    Header(FileHeader<String>),
    /// The opaque prelude text (line endings included).
    Prelude(String),
    /// `--------`.
    Separator,
    /// An empty line.
    Blank,
    /// `THREAD START (…)`.
    ThreadStart(ThreadStart<String>),
    /// `THREAD END (…)`.
    ThreadEnd(ThreadEnd),
    /// A `TRACE` block.
    Trace(Trace),
    /// A `HEAP DUMP` block.
    HeapDump(HeapDump),
    /// A `SITES` block.
    Sites(Sites),
    /// A `CPU SAMPLES` or `CPU TIME (ms)` block.
    Cpu(Cpu),
    /// A cpu=old table.
    OldCpu(OldCpu),
    /// A `MONITOR DUMP` block.
    MonitorDump(MonitorDump),
    /// A `MONITOR TIME` block.
    MonitorTime(MonitorTime),
    /// A monitor event line.
    MonitorEvent(MonitorEvent<String>),
    /// A line that could not be parsed (kept by [`Report::parse_recovering`](super::Report::parse_recovering)).
    Unparsed(String),
}

/// A `TRACE` block: its header and frames (innermost first).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Trace {
    /// `TRACE n: …`.
    pub header: TraceHeader<String>,
    /// Frames, innermost (top of stack) first.
    pub frames: Vec<Frame<String>>,
    /// Whether the block printed `\t<empty>`.
    pub empty_marker: bool,
}

impl Trace {
    /// A trace for a model built in code (an empty one gets the `<empty>` line).
    pub fn new(
        serial: StackTraceSerial,
        thread: Option<ThreadSerial>,
        frames: Vec<Frame<String>>,
    ) -> Self {
        let empty_marker = frames.is_empty();
        Trace {
            header: TraceHeader {
                serial,
                thread,
                phase: None,
            },
            frames,
            empty_marker,
        }
    }

    /// The serial number.
    pub fn serial(&self) -> StackTraceSerial {
        self.header.serial
    }
}

/// A `HEAP DUMP` block.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "HeapDumpData"))]
pub struct HeapDump {
    /// `HEAP DUMP BEGIN (…)`.
    pub begin: HeapDumpBegin<String>,
    /// Roots, classes, instances and arrays in file order.
    pub records: Vec<HeapRecord>,
    /// Whether `HEAP DUMP END` was read.
    pub ended: bool,
    #[cfg_attr(feature = "serde", serde(skip))]
    objects: HashMap<u64, usize>,
}

#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
struct HeapDumpData {
    begin: HeapDumpBegin<String>,
    records: Vec<HeapRecord>,
    ended: bool,
}

impl From<HeapDumpData> for HeapDump {
    fn from(d: HeapDumpData) -> Self {
        HeapDump::new(d.begin, d.records, d.ended)
    }
}

impl HeapDump {
    /// A heap dump from its parts; indexes the objects by id.
    pub fn new(begin: HeapDumpBegin<String>, records: Vec<HeapRecord>, ended: bool) -> Self {
        let mut h = HeapDump {
            begin,
            records,
            ended,
            objects: HashMap::new(),
        };
        h.reindex();
        h
    }

    pub(super) fn reindex(&mut self) {
        self.objects.clear();
        self.objects.reserve(self.records.len());
        for (i, r) in self.records.iter().enumerate() {
            if let Some(id) = r.object_id() {
                self.objects.insert(id, i);
            }
        }
    }

    /// The class, instance or array with this id.
    pub fn object(&self, id: u64) -> Option<&HeapRecord> {
        self.objects.get(&id).and_then(|&i| self.records.get(i))
    }

    /// The class record with this id.
    pub fn class(&self, id: u64) -> Option<&ClassRecord> {
        match self.object(id) {
            Some(HeapRecord::Class(c)) => Some(c),
            _ => None,
        }
    }

    /// How many records of each kind the heap dump holds.
    pub fn counts(&self) -> HeapDumpCounts {
        let mut n = HeapDumpCounts::default();
        for r in &self.records {
            match r {
                HeapRecord::Root(_) => n.roots += 1,
                HeapRecord::Class(_) => n.classes += 1,
                HeapRecord::Instance(_) => n.instances += 1,
                HeapRecord::Array(_) => n.arrays += 1,
            }
        }
        n
    }
}

/// How many records of each kind a heap dump holds ([`HeapDump::counts`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeapDumpCounts {
    /// `ROOT` lines.
    pub roots: usize,
    /// `CLS` records.
    pub classes: usize,
    /// `OBJ` records.
    pub instances: usize,
    /// `ARR` records.
    pub arrays: usize,
}

/// One record of a heap dump, with its indented lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HeapRecord {
    /// `ROOT …`.
    Root(Root<String>),
    /// `CLS …` and its references.
    Class(ClassRecord),
    /// `OBJ …` and its non-null object fields.
    Instance(InstanceRecord),
    /// `ARR …` and its non-null elements.
    Array(ArrayRecord),
}

impl HeapRecord {
    /// The object id of a class, instance or array (`None` for roots).
    pub fn object_id(&self) -> Option<u64> {
        match self {
            HeapRecord::Root(_) => None,
            HeapRecord::Class(c) => Some(c.class.id),
            HeapRecord::Instance(o) => Some(o.instance.id),
            HeapRecord::Array(a) => Some(a.array.id),
        }
    }
}

/// `CLS …` with its reference lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassRecord {
    /// The `CLS` line.
    pub class: ClassDump<String>,
    /// `super`, `loader`, `signers`, `domain`, `static …`, `constant pool entry …` lines.
    pub refs: Vec<ClassRef<String>>,
}

/// `OBJ …` with its field lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InstanceRecord {
    /// The `OBJ` line.
    pub instance: InstanceDump<String>,
    /// Non-null object fields.
    pub fields: Vec<FieldRef<String>>,
}

/// `ARR …` with its element lines.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrayRecord {
    /// The `ARR` line.
    pub array: ArrayDump<String>,
    /// Non-null elements (object arrays only).
    pub elements: Vec<ArrayElement>,
}

/// A `SITES` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sites {
    /// `SITES BEGIN (…)`.
    pub begin: SitesBegin<String>,
    /// The column-header lines as written (see [`SITES_COLUMN_HEADERS`](super::super::SITES_COLUMN_HEADERS)).
    pub column_headers: Vec<String>,
    /// The rows.
    pub rows: Vec<Site<String>>,
    /// Whether `SITES END` was read.
    pub ended: bool,
}

/// A `CPU SAMPLES` or `CPU TIME (ms)` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cpu {
    /// `… BEGIN (total = n) …`.
    pub begin: CpuBegin<String>,
    /// The column header as written (the agent prints it only when there are rows).
    pub column_header: Option<String>,
    /// The rows.
    pub rows: Vec<CpuRow<String>>,
    /// Whether the `END` line was read.
    pub ended: bool,
}

/// A cpu=old table (`count callee caller time`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OldCpu {
    /// The rows.
    pub rows: Vec<OldCpuRow<String>>,
}

/// A `MONITOR DUMP` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorDump {
    /// Threads and monitors in file order.
    pub entries: Vec<MonitorDumpEntry>,
    /// Whether `MONITOR DUMP END` was read.
    pub ended: bool,
}

impl MonitorDump {
    /// The thread lines.
    pub fn threads(&self) -> impl Iterator<Item = &MonitorThread<String>> {
        self.entries.iter().filter_map(|e| match e {
            MonitorDumpEntry::Thread(t) => Some(t),
            MonitorDumpEntry::Monitor(_) => None,
        })
    }

    /// The monitors.
    pub fn monitors(&self) -> impl Iterator<Item = &Monitor> {
        self.entries.iter().filter_map(|e| match e {
            MonitorDumpEntry::Monitor(m) => Some(m),
            MonitorDumpEntry::Thread(_) => None,
        })
    }
}

/// A thread or a monitor of a monitor dump.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MonitorDumpEntry {
    /// `    THREAD …`.
    Thread(MonitorThread<String>),
    /// `    MONITOR …` and its lines.
    Monitor(Monitor),
}

/// A monitor of a monitor dump with its owner and waiting lists.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Monitor {
    /// The `MONITOR` line.
    pub header: MonitorHeader<String>,
    /// The `owner:` line of an owned monitor.
    pub owner: Option<MonitorOwner>,
    /// `waiting to enter:` / `waiting to be notified:` lines in file order.
    pub waiting: Vec<WaitingList<String>>,
}

/// A `MONITOR TIME` block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorTime {
    /// `MONITOR TIME BEGIN (…)`.
    pub begin: MonitorTimeBegin<String>,
    /// The column header as written (printed only when the total is above zero).
    pub column_header: Option<String>,
    /// The rows.
    pub rows: Vec<MonitorTimeRow<String>>,
    /// Whether `MONITOR TIME END` was read.
    pub ended: bool,
}

/// A reference that points at nothing in the report.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Unresolved {
    /// A trace serial number used but never defined by a `TRACE` block.
    Trace(StackTraceSerial),
    /// A thread serial number used but never started by `THREAD START`.
    Thread(ThreadSerial),
    /// A class id of an `OBJ` that has no `CLS` in its heap dump.
    Class(u64),
}
