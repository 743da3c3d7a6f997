//! What the streaming reader yields: one [`Entry`] per line (or run of prelude lines), with
//! its position, and the section a cut-off report was in.

use super::cpu::{CpuBegin, CpuKind, CpuRow, OldCpuRow};
use super::error::Position;
use super::header::FileHeader;
use super::heap_dump::{
    ArrayDump, ArrayElement, ClassDump, ClassRef, FieldRef, HeapDumpBegin, InstanceDump, Root,
};
use super::monitor::{
    MonitorEvent, MonitorHeader, MonitorOwner, MonitorThread, MonitorTimeBegin, MonitorTimeRow,
    WaitingList,
};
use super::sites::{Site, SitesBegin};
use super::threads::{ThreadEnd, ThreadStart};
use super::traces::{Frame, TraceHeader};

/// One line (or, for the prelude, one run of lines) of a report, borrowing from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Entry<'a> {
    /// `JAVA PROFILE 1.0.1, created …`.
    Header(FileHeader<&'a str>),
    /// The opaque text between the header line and the separator line, line endings included.
    Prelude(&'a str),
    /// The `--------` line that ends the prelude.
    Separator,
    /// An empty line.
    Blank,
    /// `THREAD START (…)`.
    ThreadStart(ThreadStart<&'a str>),
    /// `THREAD END (…)`.
    ThreadEnd(ThreadEnd),
    /// `TRACE n:` — the frames follow as [`Entry::Frame`].
    Trace(TraceHeader<&'a str>),
    /// A frame line of the current trace.
    Frame(Frame<&'a str>),
    /// `\t<empty>`: the current trace has no frames.
    EmptyTrace,
    /// `HEAP DUMP BEGIN (…)`.
    HeapDumpBegin(HeapDumpBegin<&'a str>),
    /// `ROOT …`.
    Root(Root<&'a str>),
    /// `CLS …` — its references follow as [`Entry::ClassRef`].
    Class(ClassDump<&'a str>),
    /// A reference line of the current `CLS`.
    ClassRef(ClassRef<&'a str>),
    /// `OBJ …` — its non-null object fields follow as [`Entry::Field`].
    Instance(InstanceDump<&'a str>),
    /// A field line of the current `OBJ`.
    Field(FieldRef<&'a str>),
    /// `ARR …` — for object arrays, non-null elements follow as [`Entry::Element`].
    Array(ArrayDump<&'a str>),
    /// An element line of the current object `ARR`.
    Element(ArrayElement),
    /// `HEAP DUMP END`.
    HeapDumpEnd,
    /// `SITES BEGIN (…)`.
    SitesBegin(SitesBegin<&'a str>),
    /// A column-header line of a SITES, CPU or MONITOR TIME table, kept as written.
    ColumnHeader(&'a str),
    /// A SITES row.
    Site(Site<&'a str>),
    /// `SITES END`.
    SitesEnd,
    /// `CPU SAMPLES BEGIN (…)` or `CPU TIME (ms) BEGIN (…)`.
    CpuBegin(CpuBegin<&'a str>),
    /// A CPU SAMPLES / CPU TIME row.
    CpuRow(CpuRow<&'a str>),
    /// `CPU SAMPLES END` or `CPU TIME (ms) END`.
    CpuEnd(CpuKind),
    /// `count callee caller time` (cpu=old).
    OldCpuHeader,
    /// A cpu=old row.
    OldCpuRow(OldCpuRow<&'a str>),
    /// `MONITOR DUMP BEGIN`.
    MonitorDumpBegin,
    /// `    THREAD n, trace n, status: …` inside a monitor dump.
    MonitorThread(MonitorThread<&'a str>),
    /// `    MONITOR …` or `    RAW MONITOR …` inside a monitor dump.
    Monitor(MonitorHeader<&'a str>),
    /// `\towner: thread n, entry count: n` of the current monitor.
    MonitorOwner(MonitorOwner),
    /// `\twaiting to enter: …` / `\twaiting to be notified: …` of the current monitor.
    Waiting(WaitingList<&'a str>),
    /// `MONITOR DUMP END`.
    MonitorDumpEnd,
    /// `MONITOR TIME BEGIN (…)`.
    MonitorTimeBegin(MonitorTimeBegin<&'a str>),
    /// A MONITOR TIME row.
    MonitorTimeRow(MonitorTimeRow<&'a str>),
    /// `MONITOR TIME END`.
    MonitorTimeEnd,
    /// `SLEEP:`, `WAIT:`, `WAITED:` or `EXIT:` event.
    MonitorEvent(MonitorEvent<&'a str>),
    /// The input ended early: always the last entry when present.
    Truncated(Truncation<&'a str>),
}

/// A section that has a BEGIN and an END (or, for the prelude, a separator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Section {
    /// The prelude (no `--------` line followed).
    Prelude,
    /// `HEAP DUMP BEGIN` without `HEAP DUMP END` (also every stray `.TMP` heap file).
    HeapDump,
    /// `SITES BEGIN` without `SITES END`.
    Sites,
    /// A CPU table without its `END`.
    Cpu(CpuKind),
    /// `MONITOR DUMP BEGIN` without `MONITOR DUMP END`.
    MonitorDump,
    /// `MONITOR TIME BEGIN` without `MONITOR TIME END`.
    MonitorTime,
}

/// How a report ends early: the section left open, and the unterminated last line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Truncation<S> {
    /// The section that was still open at the end of the input.
    pub open_section: Option<Section>,
    /// The last line when it had no line ending (an agent killed mid-write); it is not parsed.
    pub partial_line: Option<S>,
}

impl<S: AsRef<str>> Truncation<S> {
    /// A copy that owns its text.
    pub fn into_owned(self) -> Truncation<String> {
        Truncation {
            open_section: self.open_section,
            partial_line: self.partial_line.map(|p| p.as_ref().to_owned()),
        }
    }
}

/// An entry with the position of the line it came from (column 1).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Located<T> {
    /// Where the line starts.
    pub position: Position,
    /// The entry.
    pub entry: T,
}
