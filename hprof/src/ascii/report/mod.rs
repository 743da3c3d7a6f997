//! The owned model of a whole report: every line in file order, grouped into the sections of
//! hprof.md §2.1, with references resolved through indexes (traces and threads by serial
//! number, heap objects by id).

use super::cpu::{CpuKind, CpuRow};
use super::cursor::LineEnding;
use super::entry::{Entry, Located, Truncation};
use super::error::Error;
use super::header::FileHeader;
use super::monitor::MonitorTimeRow;
use super::reader::Reader;
use super::sites::Site;
use super::threads::{ThreadEnd, ThreadStart};
use crate::binary::types::{StackTraceSerial, ThreadSerial};
use std::collections::HashMap;

pub use sections::{
    ArrayRecord, ClassRecord, Cpu, HeapDump, HeapDumpCounts, HeapRecord, InstanceRecord, Item,
    Monitor, MonitorDump, MonitorDumpEntry, MonitorTime, OldCpu, Sites, Trace, Unresolved,
};

mod sections;

/// A parsed report that owns its data. [`Report::to_text`] writes it back.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "ReportData"))]
pub struct Report {
    /// Every section and line in file order.
    pub items: Vec<Item>,
    /// Set when the input ended early; always describes the end of the file.
    pub truncation: Option<Truncation<String>>,
    /// The line ending the writer uses (that of the first line read).
    pub line_ending: LineEnding,
    #[cfg_attr(feature = "serde", serde(skip))]
    index: Index,
}

#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
struct ReportData {
    items: Vec<Item>,
    truncation: Option<Truncation<String>>,
    line_ending: LineEnding,
}

impl From<ReportData> for Report {
    fn from(d: ReportData) -> Self {
        Report::from_items(d.items, d.truncation, d.line_ending)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Index {
    traces: HashMap<StackTraceSerial, usize>,
    threads: HashMap<ThreadSerial, usize>,
}

impl Report {
    /// Parses a whole report, stopping at the first malformed line.
    pub fn parse(input: &[u8]) -> Result<Report, Error> {
        let mut b = Builder::default();
        let mut reader = Reader::new(input);
        while let Some(e) = reader.next_entry()? {
            b.push(e);
        }
        Ok(b.finish(reader.line_ending().unwrap_or_default()))
    }

    /// Parses a whole report, keeping malformed lines as [`Item::Unparsed`] and returning their
    /// errors next to the report.
    pub fn parse_recovering(input: &[u8]) -> (Report, Vec<Error>) {
        let mut b = Builder::default();
        let mut errors = Vec::new();
        let mut reader = Reader::new(input);
        loop {
            match reader.next_entry() {
                Ok(Some(e)) => b.push(e),
                Ok(None) => break,
                Err(e) => {
                    let p = e.position();
                    let start = p.offset.saturating_sub(p.column.saturating_sub(1));
                    let rest = input.get(start..).unwrap_or_default();
                    let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                    let line = rest.get(..end).unwrap_or_default();
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    b.items
                        .push(Item::Unparsed(String::from_utf8_lossy(line).into_owned()));
                    b.open = None;
                    errors.push(e);
                }
            }
        }
        (b.finish(reader.line_ending().unwrap_or_default()), errors)
    }

    /// A report from its parts (for models built in code); builds the indexes.
    pub fn from_items(
        items: Vec<Item>,
        truncation: Option<Truncation<String>>,
        line_ending: LineEnding,
    ) -> Self {
        let mut r = Report {
            items,
            truncation,
            line_ending,
            index: Index::default(),
        };
        r.reindex();
        r
    }

    /// Rebuilds the indexes after `items` was changed by hand.
    pub fn reindex(&mut self) {
        let mut index = Index::default();
        for (i, item) in self.items.iter_mut().enumerate() {
            match item {
                Item::Trace(t) => {
                    index.traces.entry(t.header.serial).or_insert(i);
                }
                Item::ThreadStart(t) => {
                    index.threads.entry(t.id).or_insert(i);
                }
                Item::HeapDump(h) => h.reindex(),
                _ => {}
            }
        }
        self.index = index;
    }

    /// The file header, if the report has one.
    pub fn header(&self) -> Option<&FileHeader<String>> {
        self.items.iter().find_map(|i| match i {
            Item::Header(h) => Some(h),
            _ => None,
        })
    }

    /// The prelude text, if any.
    pub fn prelude(&self) -> Option<&str> {
        self.items.iter().find_map(|i| match i {
            Item::Prelude(p) => Some(p.as_str()),
            _ => None,
        })
    }

    /// Whether the input ended early.
    pub fn is_truncated(&self) -> bool {
        self.truncation.is_some()
    }

    /// The trace with this serial number (the first, if it is defined twice).
    pub fn trace(&self, serial: StackTraceSerial) -> Option<&Trace> {
        match self
            .index
            .traces
            .get(&serial)
            .and_then(|&i| self.items.get(i))
        {
            Some(Item::Trace(t)) => Some(t),
            _ => None,
        }
    }

    /// The `THREAD START` of the thread with this serial number.
    pub fn thread(&self, id: ThreadSerial) -> Option<&ThreadStart<String>> {
        match self.index.threads.get(&id).and_then(|&i| self.items.get(i)) {
            Some(Item::ThreadStart(t)) => Some(t),
            _ => None,
        }
    }

    /// All `TRACE` blocks.
    pub fn traces(&self) -> impl Iterator<Item = &Trace> {
        self.items.iter().filter_map(|i| match i {
            Item::Trace(t) => Some(t),
            _ => None,
        })
    }

    /// All `THREAD START` lines.
    pub fn threads_started(&self) -> impl Iterator<Item = &ThreadStart<String>> {
        self.items.iter().filter_map(|i| match i {
            Item::ThreadStart(t) => Some(t),
            _ => None,
        })
    }

    /// All `THREAD END` lines.
    pub fn threads_ended(&self) -> impl Iterator<Item = &ThreadEnd> {
        self.items.iter().filter_map(|i| match i {
            Item::ThreadEnd(t) => Some(t),
            _ => None,
        })
    }

    /// All heap dumps (one per dump request).
    pub fn heap_dumps(&self) -> impl Iterator<Item = &HeapDump> {
        self.items.iter().filter_map(|i| match i {
            Item::HeapDump(h) => Some(h),
            _ => None,
        })
    }

    /// All SITES blocks.
    pub fn sites(&self) -> impl Iterator<Item = &Sites> {
        self.items.iter().filter_map(|i| match i {
            Item::Sites(s) => Some(s),
            _ => None,
        })
    }

    /// All CPU blocks of one kind.
    pub fn cpu(&self, kind: CpuKind) -> impl Iterator<Item = &Cpu> {
        self.items.iter().filter_map(move |i| match i {
            Item::Cpu(c) if c.begin.kind == kind => Some(c),
            _ => None,
        })
    }

    /// All MONITOR DUMP blocks.
    pub fn monitor_dumps(&self) -> impl Iterator<Item = &MonitorDump> {
        self.items.iter().filter_map(|i| match i {
            Item::MonitorDump(m) => Some(m),
            _ => None,
        })
    }

    /// All MONITOR TIME blocks.
    pub fn monitor_times(&self) -> impl Iterator<Item = &MonitorTime> {
        self.items.iter().filter_map(|i| match i {
            Item::MonitorTime(m) => Some(m),
            _ => None,
        })
    }

    /// Every row of every CPU block of `kind`, with its trace resolved.
    pub fn cpu_rows(
        &self,
        kind: CpuKind,
    ) -> impl Iterator<Item = (&CpuRow<String>, Option<&Trace>)> {
        self.cpu(kind)
            .flat_map(move |c| c.rows.iter().map(move |r| (r, self.trace(r.trace))))
    }

    /// Every row of every SITES block, with its allocation trace resolved.
    pub fn site_rows(&self) -> impl Iterator<Item = (&Site<String>, Option<&Trace>)> {
        self.sites()
            .flat_map(move |s| s.rows.iter().map(move |r| (r, self.trace(r.trace))))
    }

    /// Every row of every MONITOR TIME block, with its trace resolved.
    pub fn monitor_time_rows(
        &self,
    ) -> impl Iterator<Item = (&MonitorTimeRow<String>, Option<&Trace>)> {
        self.monitor_times()
            .flat_map(move |m| m.rows.iter().map(move |r| (r, self.trace(r.trace))))
    }

    /// The `THREAD START` of the thread a trace was recorded in (files written with
    /// `thread=y` only).
    pub fn trace_thread(&self, trace: &Trace) -> Option<&ThreadStart<String>> {
        trace.header.thread.and_then(|t| self.thread(t))
    }

    /// Every reference that points at nothing, each reported once, in first-use order.
    pub fn unresolved(&self) -> Vec<Unresolved> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut trace = |out: &mut Vec<Unresolved>, serial: StackTraceSerial| {
            if self.trace(serial).is_none() && seen.insert(Unresolved::Trace(serial)) {
                out.push(Unresolved::Trace(serial));
            }
        };
        let mut classes = std::collections::HashSet::new();
        let mut threads = std::collections::HashSet::new();
        let mut thread = |out: &mut Vec<Unresolved>, id: ThreadSerial| {
            if self.thread(id).is_none() && threads.insert(id) {
                out.push(Unresolved::Thread(id));
            }
        };
        for item in &self.items {
            match item {
                Item::Trace(t) => {
                    if let Some(th) = t.header.thread {
                        thread(&mut out, th);
                    }
                }
                Item::Sites(s) => s.rows.iter().for_each(|r| trace(&mut out, r.trace)),
                Item::Cpu(c) => c.rows.iter().for_each(|r| trace(&mut out, r.trace)),
                Item::MonitorTime(m) => m.rows.iter().for_each(|r| trace(&mut out, r.trace)),
                Item::MonitorDump(m) => {
                    for t in m.threads() {
                        thread(&mut out, t.thread);
                        trace(&mut out, t.trace);
                    }
                }
                Item::HeapDump(h) => {
                    for r in &h.records {
                        match r {
                            HeapRecord::Class(c) => trace(&mut out, c.class.trace),
                            HeapRecord::Instance(o) => {
                                trace(&mut out, o.instance.trace);
                                let id = o.instance.class_id;
                                if h.class(id).is_none() && classes.insert(id) {
                                    out.push(Unresolved::Class(id));
                                }
                            }
                            HeapRecord::Array(a) => trace(&mut out, a.array.trace),
                            HeapRecord::Root(_) => {}
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// Groups entries into items.
#[derive(Default)]
struct Builder {
    items: Vec<Item>,
    truncation: Option<Truncation<String>>,
    /// Index of the block that indented or row lines attach to.
    open: Option<usize>,
}

impl Builder {
    fn open_item(&mut self) -> Option<&mut Item> {
        self.open.and_then(|i| self.items.get_mut(i))
    }

    fn open_block(&mut self, item: Item) {
        self.open = Some(self.items.len());
        self.items.push(item);
    }

    fn heap(&mut self) -> Option<&mut HeapDump> {
        match self.open_item() {
            Some(Item::HeapDump(h)) => Some(h),
            _ => None,
        }
    }

    fn push(&mut self, located: Located<Entry<'_>>) {
        match located.entry {
            Entry::Header(h) => self.items.push(Item::Header(h.into_owned())),
            Entry::Prelude(p) => self.items.push(Item::Prelude(p.to_owned())),
            Entry::Separator => self.items.push(Item::Separator),
            Entry::Blank => self.items.push(Item::Blank),
            Entry::ThreadStart(t) => self.items.push(Item::ThreadStart(t.into_owned())),
            Entry::ThreadEnd(t) => self.items.push(Item::ThreadEnd(t)),
            Entry::MonitorEvent(e) => self.items.push(Item::MonitorEvent(e.into_owned())),
            Entry::Trace(h) => self.open_block(Item::Trace(Trace {
                header: h.into_owned(),
                frames: Vec::new(),
                empty_marker: false,
            })),
            Entry::Frame(f) => {
                if let Some(Item::Trace(t)) = self.open_item() {
                    t.frames.push(f.into_owned());
                }
            }
            Entry::EmptyTrace => {
                if let Some(Item::Trace(t)) = self.open_item() {
                    t.empty_marker = true;
                }
            }
            Entry::HeapDumpBegin(b) => {
                self.open_block(Item::HeapDump(HeapDump::new(
                    b.into_owned(),
                    Vec::new(),
                    false,
                )));
            }
            Entry::Root(r) => {
                if let Some(h) = self.heap() {
                    h.records.push(HeapRecord::Root(r.into_owned()));
                }
            }
            Entry::Class(c) => {
                if let Some(h) = self.heap() {
                    h.records.push(HeapRecord::Class(ClassRecord {
                        class: c.into_owned(),
                        refs: Vec::new(),
                    }));
                }
            }
            Entry::ClassRef(r) => {
                if let Some(HeapRecord::Class(c)) = self.heap().and_then(|h| h.records.last_mut()) {
                    c.refs.push(r.into_owned());
                }
            }
            Entry::Instance(o) => {
                if let Some(h) = self.heap() {
                    h.records.push(HeapRecord::Instance(InstanceRecord {
                        instance: o.into_owned(),
                        fields: Vec::new(),
                    }));
                }
            }
            Entry::Field(f) => {
                if let Some(HeapRecord::Instance(o)) =
                    self.heap().and_then(|h| h.records.last_mut())
                {
                    o.fields.push(f.into_owned());
                }
            }
            Entry::Array(a) => {
                if let Some(h) = self.heap() {
                    h.records.push(HeapRecord::Array(ArrayRecord {
                        array: a.into_owned(),
                        elements: Vec::new(),
                    }));
                }
            }
            Entry::Element(e) => {
                if let Some(HeapRecord::Array(a)) = self.heap().and_then(|h| h.records.last_mut()) {
                    a.elements.push(e);
                }
            }
            Entry::HeapDumpEnd => {
                if let Some(h) = self.heap() {
                    h.ended = true;
                }
                self.open = None;
            }
            Entry::SitesBegin(b) => self.open_block(Item::Sites(Sites {
                begin: b.into_owned(),
                column_headers: Vec::new(),
                rows: Vec::new(),
                ended: false,
            })),
            Entry::ColumnHeader(text) => match self.open_item() {
                Some(Item::Sites(s)) => s.column_headers.push(text.to_owned()),
                Some(Item::Cpu(c)) => c.column_header = Some(text.to_owned()),
                Some(Item::MonitorTime(m)) => m.column_header = Some(text.to_owned()),
                _ => {}
            },
            Entry::Site(r) => {
                if let Some(Item::Sites(s)) = self.open_item() {
                    s.rows.push(r.into_owned());
                }
            }
            Entry::SitesEnd => {
                if let Some(Item::Sites(s)) = self.open_item() {
                    s.ended = true;
                }
                self.open = None;
            }
            Entry::CpuBegin(b) => self.open_block(Item::Cpu(Cpu {
                begin: b.into_owned(),
                column_header: None,
                rows: Vec::new(),
                ended: false,
            })),
            Entry::CpuRow(r) => {
                if let Some(Item::Cpu(c)) = self.open_item() {
                    c.rows.push(r.into_owned());
                }
            }
            Entry::CpuEnd(_) => {
                if let Some(Item::Cpu(c)) = self.open_item() {
                    c.ended = true;
                }
                self.open = None;
            }
            Entry::OldCpuHeader => self.open_block(Item::OldCpu(OldCpu { rows: Vec::new() })),
            Entry::OldCpuRow(r) => {
                if let Some(Item::OldCpu(c)) = self.open_item() {
                    c.rows.push(r.into_owned());
                }
            }
            Entry::MonitorDumpBegin => {
                self.open_block(Item::MonitorDump(MonitorDump {
                    entries: Vec::new(),
                    ended: false,
                }));
            }
            Entry::MonitorThread(t) => {
                if let Some(Item::MonitorDump(m)) = self.open_item() {
                    m.entries.push(MonitorDumpEntry::Thread(t.into_owned()));
                }
            }
            Entry::Monitor(h) => {
                if let Some(Item::MonitorDump(m)) = self.open_item() {
                    m.entries.push(MonitorDumpEntry::Monitor(Monitor {
                        header: h.into_owned(),
                        owner: None,
                        waiting: Vec::new(),
                    }));
                }
            }
            Entry::MonitorOwner(o) => {
                if let Some(Item::MonitorDump(m)) = self.open_item() {
                    if let Some(MonitorDumpEntry::Monitor(mon)) = m.entries.last_mut() {
                        mon.owner = Some(o);
                    }
                }
            }
            Entry::Waiting(w) => {
                if let Some(Item::MonitorDump(m)) = self.open_item() {
                    if let Some(MonitorDumpEntry::Monitor(mon)) = m.entries.last_mut() {
                        mon.waiting.push(w.into_owned());
                    }
                }
            }
            Entry::MonitorDumpEnd => {
                if let Some(Item::MonitorDump(m)) = self.open_item() {
                    m.ended = true;
                }
                self.open = None;
            }
            Entry::MonitorTimeBegin(b) => self.open_block(Item::MonitorTime(MonitorTime {
                begin: b.into_owned(),
                column_header: None,
                rows: Vec::new(),
                ended: false,
            })),
            Entry::MonitorTimeRow(r) => {
                if let Some(Item::MonitorTime(m)) = self.open_item() {
                    m.rows.push(r.into_owned());
                }
            }
            Entry::MonitorTimeEnd => {
                if let Some(Item::MonitorTime(m)) = self.open_item() {
                    m.ended = true;
                }
                self.open = None;
            }
            Entry::Truncated(t) => self.truncation = Some(t.into_owned()),
        }
    }

    fn finish(self, line_ending: LineEnding) -> Report {
        Report::from_items(self.items, self.truncation, line_ending)
    }
}
