//! The writer: re-emits a [`Report`] (or a stream of [`Entry`]s) in the agent's exact line
//! formats (hprof.md §2.2), using the kept source text for printf-rounded numbers and dates.

use super::cpu::{CPU_COLUMN_HEADER, CpuBegin, CpuKind, CpuRow, OLD_CPU_HEADER};
use super::cursor::LineEnding;
use super::entry::Entry;
use super::header::SEPARATOR;
use super::monitor::{MONITOR_TIME_COLUMN_HEADER, MonitorTimeBegin, MonitorTimeRow};
use super::report::{
    Cpu, HeapRecord, Item, MonitorDump, MonitorDumpEntry, MonitorTime, Report, Sites,
};
use super::sites::{SITES_COLUMN_HEADERS, Site, SitesBegin};

/// Appends `entry` to `out`, followed by `ending` (except for the prelude, which carries its own
/// line endings, and for a truncation's partial line, which had none).
pub fn write_entry(out: &mut String, entry: &Entry<'_>, ending: LineEnding) {
    match entry {
        Entry::Header(h) => h.write_to(out),
        Entry::Prelude(p) => {
            out.push_str(p);
            return;
        }
        Entry::Separator => out.push_str(SEPARATOR),
        Entry::Blank => {}
        Entry::ThreadStart(t) => t.write_to(out),
        Entry::ThreadEnd(t) => t.write_to(out),
        Entry::Trace(t) => t.write_to(out),
        Entry::Frame(f) => f.write_to(out),
        Entry::EmptyTrace => out.push_str("\t<empty>"),
        Entry::HeapDumpBegin(b) => b.write_to(out),
        Entry::Root(r) => r.write_to(out),
        Entry::Class(c) => c.write_to(out),
        Entry::ClassRef(r) => r.write_to(out),
        Entry::Instance(o) => o.write_to(out),
        Entry::Field(f) => f.write_to(out),
        Entry::Array(a) => a.write_to(out),
        Entry::Element(e) => e.write_to(out),
        Entry::HeapDumpEnd => out.push_str("HEAP DUMP END"),
        Entry::SitesBegin(b) => b.write_to(out),
        Entry::ColumnHeader(h) => out.push_str(h),
        Entry::Site(s) => s.write_to(out),
        Entry::SitesEnd => out.push_str("SITES END"),
        Entry::CpuBegin(b) => b.write_to(out),
        Entry::CpuRow(r) => r.write_to(out),
        Entry::CpuEnd(kind) => end_line(out, kind.record_name()),
        Entry::OldCpuHeader => out.push_str(OLD_CPU_HEADER),
        Entry::OldCpuRow(r) => r.write_to(out),
        Entry::MonitorDumpBegin => out.push_str("MONITOR DUMP BEGIN"),
        Entry::MonitorThread(t) => t.write_to(out),
        Entry::Monitor(m) => m.write_to(out),
        Entry::MonitorOwner(o) => o.write_to(out),
        Entry::Waiting(w) => w.write_to(out),
        Entry::MonitorDumpEnd => out.push_str("MONITOR DUMP END"),
        Entry::MonitorTimeBegin(b) => b.write_to(out),
        Entry::MonitorTimeRow(r) => r.write_to(out),
        Entry::MonitorTimeEnd => out.push_str("MONITOR TIME END"),
        Entry::MonitorEvent(e) => e.write_to(out),
        Entry::Truncated(t) => {
            if let Some(p) = t.partial_line {
                out.push_str(p);
            }
            return;
        }
    }
    out.push_str(ending.as_str());
}

fn end_line(out: &mut String, name: &str) {
    out.push_str(name);
    out.push_str(" END");
}

impl Report {
    /// The report as text, byte-identical to the input it was parsed from (see the module
    /// documentation for the few exceptions).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write_to(&mut out);
        out
    }

    /// Appends the report's text to `out`.
    pub fn write_to(&self, out: &mut String) {
        let nl = self.line_ending.as_str();
        let line = |out: &mut String, f: &dyn Fn(&mut String)| {
            f(out);
            out.push_str(nl);
        };
        for item in &self.items {
            match item {
                Item::Header(h) => line(out, &|o| h.write_to(o)),
                Item::Prelude(p) => out.push_str(p),
                Item::Separator => line(out, &|o| o.push_str(SEPARATOR)),
                Item::Blank => line(out, &|_| {}),
                Item::ThreadStart(t) => line(out, &|o| t.write_to(o)),
                Item::ThreadEnd(t) => line(out, &|o| t.write_to(o)),
                Item::MonitorEvent(e) => line(out, &|o| e.write_to(o)),
                Item::Unparsed(s) => line(out, &|o| o.push_str(s)),
                Item::Trace(t) => {
                    line(out, &|o| t.header.write_to(o));
                    if t.empty_marker {
                        line(out, &|o| o.push_str("\t<empty>"));
                    }
                    for f in &t.frames {
                        line(out, &|o| f.write_to(o));
                    }
                }
                Item::HeapDump(h) => {
                    line(out, &|o| h.begin.write_to(o));
                    for r in &h.records {
                        match r {
                            HeapRecord::Root(r) => line(out, &|o| r.write_to(o)),
                            HeapRecord::Class(c) => {
                                line(out, &|o| c.class.write_to(o));
                                for r in &c.refs {
                                    line(out, &|o| r.write_to(o));
                                }
                            }
                            HeapRecord::Instance(i) => {
                                line(out, &|o| i.instance.write_to(o));
                                for f in &i.fields {
                                    line(out, &|o| f.write_to(o));
                                }
                            }
                            HeapRecord::Array(a) => {
                                line(out, &|o| a.array.write_to(o));
                                for e in &a.elements {
                                    line(out, &|o| e.write_to(o));
                                }
                            }
                        }
                    }
                    if h.ended {
                        line(out, &|o| o.push_str("HEAP DUMP END"));
                    }
                }
                Item::Sites(s) => {
                    line(out, &|o| s.begin.write_to(o));
                    for h in &s.column_headers {
                        line(out, &|o| o.push_str(h));
                    }
                    for r in &s.rows {
                        line(out, &|o| r.write_to(o));
                    }
                    if s.ended {
                        line(out, &|o| o.push_str("SITES END"));
                    }
                }
                Item::Cpu(c) => {
                    line(out, &|o| c.begin.write_to(o));
                    if let Some(h) = &c.column_header {
                        line(out, &|o| o.push_str(h));
                    }
                    for r in &c.rows {
                        line(out, &|o| r.write_to(o));
                    }
                    if c.ended {
                        line(out, &|o| end_line(o, c.begin.kind.record_name()));
                    }
                }
                Item::OldCpu(c) => {
                    line(out, &|o| o.push_str(OLD_CPU_HEADER));
                    for r in &c.rows {
                        line(out, &|o| r.write_to(o));
                    }
                }
                Item::MonitorDump(m) => {
                    line(out, &|o| o.push_str("MONITOR DUMP BEGIN"));
                    for e in &m.entries {
                        match e {
                            MonitorDumpEntry::Thread(t) => line(out, &|o| t.write_to(o)),
                            MonitorDumpEntry::Monitor(mon) => {
                                line(out, &|o| mon.header.write_to(o));
                                if let Some(owner) = &mon.owner {
                                    line(out, &|o| owner.write_to(o));
                                }
                                for w in &mon.waiting {
                                    line(out, &|o| w.write_to(o));
                                }
                            }
                        }
                    }
                    if m.ended {
                        line(out, &|o| o.push_str("MONITOR DUMP END"));
                    }
                }
                Item::MonitorTime(m) => {
                    line(out, &|o| m.begin.write_to(o));
                    if let Some(h) = &m.column_header {
                        line(out, &|o| o.push_str(h));
                    }
                    for r in &m.rows {
                        line(out, &|o| r.write_to(o));
                    }
                    if m.ended {
                        line(out, &|o| o.push_str("MONITOR TIME END"));
                    }
                }
            }
        }
        if let Some(p) = self
            .truncation
            .as_ref()
            .and_then(|t| t.partial_line.as_ref())
        {
            out.push_str(p);
        }
    }
}

impl Sites {
    /// A complete SITES block for a model built in code, with the JDK 5+ column headers.
    pub fn new(begin: SitesBegin<String>, rows: Vec<Site<String>>) -> Self {
        Sites {
            begin,
            column_headers: SITES_COLUMN_HEADERS
                .iter()
                .map(|h| (*h).to_owned())
                .collect(),
            rows,
            ended: true,
        }
    }
}

impl Cpu {
    /// A complete CPU block for a model built in code (column header only when there are rows,
    /// as the agent does).
    pub fn new(kind: CpuKind, total: i64, created: String, rows: Vec<CpuRow<String>>) -> Self {
        Cpu {
            begin: CpuBegin {
                kind,
                total,
                created,
            },
            column_header: (!rows.is_empty()).then(|| CPU_COLUMN_HEADER.to_owned()),
            rows,
            ended: true,
        }
    }
}

impl MonitorTime {
    /// A complete MONITOR TIME block for a model built in code (column header only when the
    /// total is above zero, as the agent does).
    pub fn new(total: i64, created: String, rows: Vec<MonitorTimeRow<String>>) -> Self {
        MonitorTime {
            begin: MonitorTimeBegin { total, created },
            column_header: (total > 0).then(|| MONITOR_TIME_COLUMN_HEADER.to_owned()),
            rows,
            ended: true,
        }
    }
}

impl MonitorDump {
    /// A complete MONITOR DUMP block for a model built in code.
    pub fn new(entries: Vec<MonitorDumpEntry>) -> Self {
        MonitorDump {
            entries,
            ended: true,
        }
    }
}
