//! `log.xml`: the experiment header, settings, packet descriptors and the event log
//! (spec: "ログファイル (log.xml)"; format notes §4, gprofng `ExperimentHandler::startElement`).

use crate::cursor::{Endian, WordSize};
use crate::error::{Error, Result};
use crate::xml::{XmlEvent, XmlReader};
use std::collections::HashMap;

/// A timestamp in nanoseconds as written in a log (`sec.nnnnnnnnn`): absolute `gethrtime()` for
/// the `run` event (and Java `jthread_*`/`gc_*` events), relative to the run start elsewhere.
pub type Timestamp = u64;

/// Parses gprofng's `sec.nnnnnnnnn` timestamps into nanoseconds (missing or junk ⇒ 0).
pub fn parse_tstamp(s: &str) -> Timestamp {
    let s = s.trim();
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    let sec = parse_u64(sec);
    let digits: String = frac
        .chars()
        .take_while(char::is_ascii_digit)
        .take(9)
        .collect();
    let mut ns = digits.parse::<u64>().unwrap_or(0);
    for _ in digits.len()..9 {
        ns = ns.saturating_mul(10);
    }
    sec.saturating_mul(1_000_000_000).saturating_add(ns)
}

/// Parses an integer with `strtoull` leniency: optional sign, `0x` hex, leading digits only;
/// anything else is 0.
pub fn parse_u64(s: &str) -> u64 {
    let s = s.trim();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or_default()),
        Some(b'+') => (false, s.get(1..).unwrap_or_default()),
        _ => (false, s),
    };
    let (radix, digits) = match s.get(..2) {
        Some("0x" | "0X") => (16, s.get(2..).unwrap_or_default()),
        _ => (10, s),
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v.wrapping_mul(u64::from(radix)).wrapping_add(u64::from(d));
    }
    if neg { v.wrapping_neg() } else { v }
}

/// Signed form of [`parse_u64`].
pub fn parse_i64(s: &str) -> i64 {
    parse_u64(s) as i64
}

/// `<system>`: the recording host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct System {
    /// `hostname`.
    pub hostname: String,
    /// `arch` (`x86_64`, `aarch64`, `sun4v`, …): decides the byte order.
    pub arch: String,
    /// `os`.
    pub os: String,
    /// `pagesz`.
    pub page_size: u64,
    /// `npages` (physical memory in pages).
    pub npages: u64,
    /// `<cpu>` children.
    pub cpus: Vec<Cpu>,
    /// `<powerm><frequency …/>` attributes, if any.
    pub power: Vec<Vec<(String, String)>>,
}

/// `<cpu id clk …>` inside `<system>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cpu {
    /// `id`.
    pub id: u64,
    /// `clk` in MHz.
    pub clk: u64,
    /// Every attribute as written (incl. `frequency_scaling`, `turbo_mode`).
    pub attributes: Vec<(String, String)>,
}

/// The `<process …>` elements: one attribute each, plus the command line as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Process {
    /// `pid`.
    pub pid: Option<u64>,
    /// `ppid`.
    pub ppid: Option<u64>,
    /// `pgrp`.
    pub pgrp: Option<u64>,
    /// `sid`.
    pub sid: Option<u64>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `wsize` (32 or 64).
    pub wsize: Option<u32>,
    /// `stackbase`.
    pub stackbase: Option<u64>,
    /// `pagesz`.
    pub page_size: Option<u64>,
    /// The target command line (`(fork)` for fork children).
    pub command: Option<String>,
}

/// `<setting …>`: a collection parameter (`sample_period`, `linetrace`, `limit`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Setting {
    /// All attributes as written (normally one, e.g. `sample_period="1"`).
    pub attributes: Vec<(String, String)>,
}

/// Type of a `<field>` of a packet descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum FieldType {
    /// `INT32`.
    Int32,
    /// `UINT32`.
    Uint32,
    /// `INT64`.
    Int64,
    /// `UINT64`.
    Uint64,
    /// `STRING`: from the offset to the end of the packet, NUL-terminated.
    String,
    /// `DOUBLE`.
    Double,
    /// `DATE` (read as `UINT64`).
    Date,
    /// Any other type name: not decoded.
    Unknown,
}

impl FieldType {
    /// The type named in log.xml.
    pub fn from_name(s: &str) -> Self {
        match s {
            "INT32" => FieldType::Int32,
            "UINT32" => FieldType::Uint32,
            "INT64" => FieldType::Int64,
            "UINT64" => FieldType::Uint64,
            "STRING" => FieldType::String,
            "DOUBLE" => FieldType::Double,
            "DATE" => FieldType::Date,
            _ => FieldType::Unknown,
        }
    }

    /// Width in bytes of a fixed-size field (`None` for strings and unknown types).
    pub fn width(self) -> Option<usize> {
        match self {
            FieldType::Int32 | FieldType::Uint32 => Some(4),
            FieldType::Int64 | FieldType::Uint64 | FieldType::Double | FieldType::Date => Some(8),
            FieldType::String | FieldType::Unknown => None,
        }
    }
}

/// `<state value name uname>` inside a `<field>`: a name for one value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StateName {
    /// The value.
    pub value: i64,
    /// Short name.
    pub name: String,
    /// User-visible name.
    pub uname: String,
}

/// `<field name uname offset type [noshow] [format]>`: one field of a packet kind.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FieldDescriptor {
    /// Property name (`TSTAMP`, `THRID`, `HSIZE`, …).
    pub name: String,
    /// User-visible name.
    pub uname: Option<String>,
    /// Byte offset in the packet.
    pub offset: u32,
    /// Type.
    pub field_type: FieldType,
    /// The type name as written.
    pub type_name: String,
    /// `noshow` present.
    pub noshow: bool,
    /// `format`, if given.
    pub format: Option<String>,
    /// `<state>` children.
    pub states: Vec<StateName>,
}

/// `<profpckt kind uname>`: the layout of one packet kind, with the data file it lives in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PacketDescriptor {
    /// Packet type (`8` clock, `2` sync, `3` HW counter, `5` heap, `19` I/O, …).
    pub kind: u16,
    /// User-visible name.
    pub uname: Option<String>,
    /// Name of the enclosing `<profile>`.
    pub profile: String,
    /// Data file (from the profile's `<profdata fname>`), if any.
    pub file: Option<String>,
    /// Fields in order.
    pub fields: Vec<FieldDescriptor>,
}

impl PacketDescriptor {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldDescriptor> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// `<profile name …>`: one data kind being collected.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Profile {
    /// `name` (`profile`, `heaptrace`, `synctrace`, `iotrace`, `hwcounter`, `jprofile`, …).
    pub name: String,
    /// All attributes (ptimer, numstates, threshold, scope, hwcname, interval, tag, …).
    pub attributes: Vec<(String, String)>,
    /// `<profdata fname>` children.
    pub data_files: Vec<String>,
    /// Kinds of the `<profpckt>` children (descriptors live in [`Log::packets`]).
    pub packet_kinds: Vec<u16>,
}

impl Profile {
    /// Attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        attr(&self.attributes, name)
    }
}

/// A hardware counter being collected: the `HWCTAG` of HW packets selects one by `tag`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HwCounter {
    /// `tag`.
    pub tag: u64,
    /// `hwcname` (user name, e.g. `cycles`).
    pub name: String,
    /// `int_name` (internal name).
    pub int_name: String,
    /// `interval`: events per overflow.
    pub interval: u64,
    /// `cpuver`.
    pub cpuver: Option<i64>,
    /// `memop`.
    pub memop: Option<String>,
}

/// The kinds of `<event kind=…>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum EventKind {
    /// `run`: experiment start (absolute tstamp).
    Run,
    /// `exit`: the target exited normally.
    Exit,
    /// `sample` (id, label).
    Sample,
    /// `pause` (name).
    Pause,
    /// `resume`.
    Resume,
    /// `thread_pause` (tid).
    ThreadPause,
    /// `thread_resume` (tid).
    ThreadResume,
    /// `cerror`: collector error (id, ec, text).
    Cerror,
    /// `cwarn`: collector warning (id, text).
    Cwarn,
    /// `comment` (id, text).
    Comment,
    /// `desc_start`: a descendant is being created (variant, lineage, follow).
    DescStart,
    /// `desc_started` (msg `pid=N`).
    DescStarted,
    /// `exec_start` (variant, lineage, follow, msg = command line).
    ExecStart,
    /// `exec_error`.
    ExecError,
    /// `jthread_start` (name, grpname, prntname, tid, jthr, jenv).
    JthreadStart,
    /// `jthread_end`.
    JthreadEnd,
    /// `gc_start`.
    GcStart,
    /// `gc_end`.
    GcEnd,
    /// `archive_run`.
    ArchiveRun,
    /// `map` (normally in map.xml).
    Map,
    /// `unmap` (normally in map.xml).
    Unmap,
    /// Any other kind, by name.
    Other(String),
}

impl EventKind {
    /// The kind named `s`.
    pub fn from_name(s: &str) -> Self {
        match s {
            "run" => EventKind::Run,
            "exit" => EventKind::Exit,
            "sample" => EventKind::Sample,
            "pause" => EventKind::Pause,
            "resume" => EventKind::Resume,
            "thread_pause" => EventKind::ThreadPause,
            "thread_resume" => EventKind::ThreadResume,
            "cerror" => EventKind::Cerror,
            "cwarn" => EventKind::Cwarn,
            "comment" => EventKind::Comment,
            "desc_start" => EventKind::DescStart,
            "desc_started" => EventKind::DescStarted,
            "exec_start" => EventKind::ExecStart,
            "exec_error" => EventKind::ExecError,
            "jthread_start" => EventKind::JthreadStart,
            "jthread_end" => EventKind::JthreadEnd,
            "gc_start" => EventKind::GcStart,
            "gc_end" => EventKind::GcEnd,
            "archive_run" => EventKind::ArchiveRun,
            "map" => EventKind::Map,
            "unmap" => EventKind::Unmap,
            other => EventKind::Other(other.to_owned()),
        }
    }
}

/// One `<event>` of log.xml.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LogEvent {
    /// `kind`.
    pub kind: EventKind,
    /// `tstamp` in ns (see [`Timestamp`]); 0 when absent.
    pub tstamp: Timestamp,
    /// Every attribute except `kind`, as written.
    pub attributes: Vec<(String, String)>,
    /// Text content (message of `cwarn`/`cerror`/`comment`).
    pub text: String,
}

impl LogEvent {
    /// Attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        attr(&self.attributes, name)
    }

    /// `id` as a number (sample id, message id).
    pub fn id(&self) -> Option<u64> {
        self.attribute("id").map(parse_u64)
    }
}

/// A sample point from `<event kind="sample">`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SampleEvent {
    /// `id` (0 = experiment open).
    pub id: u64,
    /// `label` (`periodic`, `collector_close_experiment`, API labels).
    pub label: String,
    /// Relative timestamp.
    pub tstamp: Timestamp,
}

/// How serious a collector message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Severity {
    /// `cerror`.
    Error,
    /// `cwarn`.
    Warning,
    /// `comment`.
    Comment,
}

/// A message the collector recorded (`cerror`, `cwarn`, `comment`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CollectorMessage {
    /// Error, warning or comment.
    pub severity: Severity,
    /// `id` (gprofng `Emsgnum.h` code, e.g. 207 = `COL_WARN_ITMRREP`).
    pub id: u64,
    /// `ec` (errno), if given.
    pub errno: Option<i64>,
    /// Message text (or the `text` attribute of a comment).
    pub text: String,
}

/// Everything read from `log.xml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Log {
    /// `<experiment version>` (e.g. `12.4`).
    pub version: String,
    /// `<collector>` text (e.g. `2.40.00`).
    pub collector: String,
    /// `<system>`.
    pub system: System,
    /// `<process>` elements.
    pub process: Process,
    /// `<setting>` elements in order.
    pub settings: Vec<Setting>,
    /// `<profile>` elements in order.
    pub profiles: Vec<Profile>,
    /// Every `<profpckt>` descriptor in order.
    pub packets: Vec<PacketDescriptor>,
    /// Every `<event>` in file order (not sorted by time).
    pub events: Vec<LogEvent>,
    /// Elements the reader does not know (gprofng warns and ignores them).
    pub unknown_elements: Vec<String>,
}

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Experiment,
    Collector,
    System,
    Process,
    Profile,
    Packet,
    Field,
    Event,
    Other,
}

impl Log {
    /// Parses `log.xml` (or `warnings.xml`, which uses the same elements).
    pub fn parse(data: &[u8]) -> Result<Log> {
        Self::parse_named(data, "log.xml")
    }

    /// Parses with `file` naming the input in errors.
    pub fn parse_named(data: &[u8], file: &str) -> Result<Log> {
        let mut log = Log::default();
        let mut reader = XmlReader::new(data, file);
        let mut stack: Vec<Ctx> = Vec::new();
        let mut saw_experiment = false;
        // Index into `profiles` of the open <profile> (or of an implicit HWC profile).
        let mut profile: Option<usize> = None;
        // Indices into `packets` of the descriptors without a data file yet, by profile name
        // (the next `<profdata>` of that profile gives them its file).
        let mut unfiled: HashMap<String, Vec<usize>> = HashMap::new();
        while let Some(ev) = reader.next_event()? {
            match ev {
                XmlEvent::Start {
                    name,
                    attributes,
                    empty,
                    offset,
                } => {
                    let parent = stack.last().copied();
                    let ctx = match name.as_str() {
                        "experiment" => {
                            saw_experiment = true;
                            let v = attr(&attributes, "version").unwrap_or_default().to_owned();
                            if parse_u64(v.split('.').next().unwrap_or_default()) < 12 {
                                let (line, column) = crate::xml::line_column(data, offset);
                                return Err(Error::ObsoleteVersion {
                                    found: v,
                                    line,
                                    column,
                                });
                            }
                            log.version = v;
                            Ctx::Experiment
                        }
                        "collector" => Ctx::Collector,
                        "system" => {
                            let s = &mut log.system;
                            for (k, v) in &attributes {
                                match k.as_str() {
                                    "hostname" => s.hostname.clone_from(v),
                                    "arch" => s.arch.clone_from(v),
                                    "os" => s.os.clone_from(v),
                                    "pagesz" => s.page_size = parse_u64(v),
                                    "npages" => s.npages = parse_u64(v),
                                    _ => {}
                                }
                            }
                            Ctx::System
                        }
                        "cpu" => {
                            log.system.cpus.push(Cpu {
                                id: attr(&attributes, "id").map(parse_u64).unwrap_or(0),
                                clk: attr(&attributes, "clk").map(parse_u64).unwrap_or(0),
                                attributes,
                            });
                            Ctx::Other
                        }
                        "frequency" => {
                            log.system.power.push(attributes);
                            Ctx::Other
                        }
                        "powerm" | "dataptr" => Ctx::Other,
                        "process" => {
                            let p = &mut log.process;
                            for (k, v) in &attributes {
                                match k.as_str() {
                                    "pid" => p.pid = Some(parse_u64(v)),
                                    "ppid" => p.ppid = Some(parse_u64(v)),
                                    "pgrp" => p.pgrp = Some(parse_u64(v)),
                                    "sid" => p.sid = Some(parse_u64(v)),
                                    "cwd" => p.cwd = Some(v.clone()),
                                    "wsize" => p.wsize = u32::try_from(parse_u64(v)).ok(),
                                    "stackbase" => p.stackbase = Some(parse_u64(v)),
                                    "pagesz" => p.page_size = Some(parse_u64(v)),
                                    _ => {}
                                }
                            }
                            Ctx::Process
                        }
                        "setting" => {
                            log.settings.push(Setting { attributes });
                            Ctx::Other
                        }
                        "profile" => {
                            log.profiles.push(Profile {
                                name: attr(&attributes, "name").unwrap_or_default().to_owned(),
                                attributes,
                                ..Profile::default()
                            });
                            profile = Some(log.profiles.len() - 1);
                            Ctx::Profile
                        }
                        "profdata" => {
                            let fname = attr(&attributes, "fname").unwrap_or_default().to_owned();
                            let idx = Self::profile_for(&mut log, parent, &mut profile);
                            if let Some(p) = log.profiles.get_mut(idx) {
                                p.data_files.push(fname.clone());
                            }
                            let pname = log
                                .profiles
                                .get(idx)
                                .map(|p| p.name.clone())
                                .unwrap_or_default();
                            for i in unfiled.remove(&pname).unwrap_or_default() {
                                if let Some(d) = log.packets.get_mut(i) {
                                    d.file = Some(fname.clone());
                                }
                            }
                            Ctx::Other
                        }
                        "profpckt" => {
                            let idx = Self::profile_for(&mut log, parent, &mut profile);
                            let kind = attr(&attributes, "kind").map(parse_u64).unwrap_or(0);
                            let kind = u16::try_from(kind).unwrap_or(u16::MAX);
                            let (pname, file) = match log.profiles.get_mut(idx) {
                                Some(p) => {
                                    p.packet_kinds.push(kind);
                                    (p.name.clone(), p.data_files.last().cloned())
                                }
                                None => (String::new(), None),
                            };
                            if file.is_none() {
                                unfiled
                                    .entry(pname.clone())
                                    .or_default()
                                    .push(log.packets.len());
                            }
                            log.packets.push(PacketDescriptor {
                                kind,
                                uname: attr(&attributes, "uname").map(str::to_owned),
                                profile: pname,
                                file,
                                fields: Vec::new(),
                            });
                            Ctx::Packet
                        }
                        "field" => {
                            let Some(d) = log
                                .packets
                                .last_mut()
                                .filter(|_| parent == Some(Ctx::Packet))
                            else {
                                let (line, column) = crate::xml::line_column(data, offset);
                                return Err(Error::Xml {
                                    file: file.to_owned(),
                                    line,
                                    column,
                                    expected: "`<field>` inside `<profpckt>`".into(),
                                    found: "`<field>` outside any packet descriptor".into(),
                                });
                            };
                            let type_name =
                                attr(&attributes, "type").unwrap_or_default().to_owned();
                            d.fields.push(FieldDescriptor {
                                name: attr(&attributes, "name").unwrap_or_default().to_owned(),
                                uname: attr(&attributes, "uname").map(str::to_owned),
                                offset: u32::try_from(
                                    attr(&attributes, "offset").map(parse_u64).unwrap_or(0),
                                )
                                .unwrap_or(u32::MAX),
                                field_type: FieldType::from_name(&type_name),
                                type_name,
                                noshow: attr(&attributes, "noshow").is_some(),
                                format: attr(&attributes, "format").map(str::to_owned),
                                states: Vec::new(),
                            });
                            Ctx::Field
                        }
                        "state" => {
                            if parent == Some(Ctx::Field) {
                                if let Some(f) =
                                    log.packets.last_mut().and_then(|d| d.fields.last_mut())
                                {
                                    f.states.push(StateName {
                                        value: attr(&attributes, "value")
                                            .map(parse_i64)
                                            .unwrap_or(0),
                                        name: attr(&attributes, "name")
                                            .unwrap_or_default()
                                            .to_owned(),
                                        uname: attr(&attributes, "uname")
                                            .unwrap_or_default()
                                            .to_owned(),
                                    });
                                }
                            }
                            Ctx::Other
                        }
                        "event" => {
                            let kind =
                                EventKind::from_name(attr(&attributes, "kind").unwrap_or_default());
                            let tstamp = attr(&attributes, "tstamp").map(parse_tstamp).unwrap_or(0);
                            let attributes = attributes
                                .into_iter()
                                .filter(|(k, _)| k != "kind")
                                .collect();
                            log.events.push(LogEvent {
                                kind,
                                tstamp,
                                attributes,
                                text: String::new(),
                            });
                            Ctx::Event
                        }
                        other => {
                            log.unknown_elements.push(other.to_owned());
                            Ctx::Other
                        }
                    };
                    if !empty {
                        stack.push(ctx);
                    }
                }
                XmlEvent::End { name } => {
                    if let Some(Ctx::Profile) = stack.pop() {
                        profile = None;
                    }
                    let _ = name;
                }
                XmlEvent::Text(text) => match stack.last() {
                    Some(Ctx::Collector) => log.collector.push_str(text.trim()),
                    Some(Ctx::Process) => {
                        let t = text.trim();
                        if !t.is_empty() {
                            log.process.command = Some(t.to_owned());
                        }
                    }
                    Some(Ctx::Event) => {
                        if let Some(e) = log.events.last_mut() {
                            e.text.push_str(&text);
                        }
                    }
                    _ => {}
                },
            }
        }
        if !saw_experiment && file == "log.xml" {
            return Err(Error::Xml {
                file: file.to_owned(),
                line: 1,
                column: 1,
                expected: "an `<experiment version=…>` element".into(),
                found: "none".into(),
            });
        }
        Ok(log)
    }

    /// The profile a `profdata`/`profpckt` belongs to: the open `<profile>`, or (old HWC logs)
    /// an implicit `hwcounter` profile.
    fn profile_for(log: &mut Log, parent: Option<Ctx>, open: &mut Option<usize>) -> usize {
        if let (Some(Ctx::Profile), Some(i)) = (parent, *open) {
            return i;
        }
        if let Some(i) = *open {
            return i;
        }
        log.profiles.push(Profile {
            name: "hwcounter".into(),
            ..Profile::default()
        });
        let i = log.profiles.len() - 1;
        *open = Some(i);
        i
    }

    /// Byte order of the data files (from `<system arch>`).
    pub fn endian(&self) -> Endian {
        Endian::from_arch(&self.system.arch)
    }

    /// Word size of the process (`wsize` 32 ⇒ 32-bit; absent ⇒ 64-bit like gprofng).
    pub fn word_size(&self) -> WordSize {
        if self.process.wsize == Some(32) {
            WordSize::W32
        } else {
            WordSize::W64
        }
    }

    /// Absolute start of the experiment (the first `run` event's tstamp), in ns.
    pub fn run_start(&self) -> Option<Timestamp> {
        self.events
            .iter()
            .find(|e| e.kind == EventKind::Run)
            .map(|e| e.tstamp)
    }

    /// True when an `exit` event was recorded.
    pub fn has_exit(&self) -> bool {
        self.events.iter().any(|e| e.kind == EventKind::Exit)
    }

    /// True when the process exec'ed another image (its log ends without `exit`).
    pub fn has_exec(&self) -> bool {
        self.events.iter().any(|e| e.kind == EventKind::ExecStart)
    }

    /// Latest relative timestamp of the log's events other than `run` (gprofng's
    /// "Experiment Ended"), in ns.
    pub fn end(&self) -> Timestamp {
        self.events
            .iter()
            .filter(|e| {
                !matches!(
                    e.kind,
                    EventKind::Run
                        | EventKind::JthreadStart
                        | EventKind::JthreadEnd
                        | EventKind::GcStart
                        | EventKind::GcEnd
                )
            })
            .map(|e| e.tstamp)
            .max()
            .unwrap_or(0)
    }

    /// True for a Java experiment (`<profile name="jprofile">`).
    pub fn is_java(&self) -> bool {
        self.profile("jprofile").is_some()
    }

    /// gprofng's thread numbering for this experiment: Java threads get their numbers from the
    /// `jthread_start` events (in log order, by `tid`) before any packet is read; the data
    /// packets' `THRID`s then take the next numbers in order of first appearance.
    pub fn thread_tags(&self) -> crate::packets::TagMap {
        let mut tags = crate::packets::TagMap::new();
        for e in self
            .events
            .iter()
            .filter(|e| e.kind == EventKind::JthreadStart)
        {
            if let Some(tid) = e.attribute("tid") {
                tags.tag(parse_u64(tid));
            }
        }
        tags
    }

    /// The hardware counters (`<profile name="hwcounter">`), in order.
    pub fn hw_counters(&self) -> Vec<HwCounter> {
        self.profiles
            .iter()
            .filter(|p| p.name == "hwcounter" && p.attribute("hwcname").is_some())
            .map(|p| HwCounter {
                tag: p.attribute("tag").map_or(0, parse_u64),
                name: p.attribute("hwcname").unwrap_or_default().to_owned(),
                int_name: p.attribute("int_name").unwrap_or_default().to_owned(),
                interval: p.attribute("interval").map_or(0, parse_u64),
                cpuver: p.attribute("cpuver").map(parse_i64),
                memop: p.attribute("memop").map(str::to_owned),
            })
            .collect()
    }

    /// The sample points in file order.
    pub fn samples(&self) -> Vec<SampleEvent> {
        self.events
            .iter()
            .filter(|e| e.kind == EventKind::Sample)
            .map(|e| SampleEvent {
                id: e.id().unwrap_or(0),
                label: e.attribute("label").unwrap_or_default().to_owned(),
                tstamp: e.tstamp,
            })
            .collect()
    }

    /// The collector's errors, warnings and comments in file order.
    pub fn messages(&self) -> Vec<CollectorMessage> {
        self.events
            .iter()
            .filter_map(|e| {
                let severity = match e.kind {
                    EventKind::Cerror => Severity::Error,
                    EventKind::Cwarn => Severity::Warning,
                    EventKind::Comment => Severity::Comment,
                    _ => return None,
                };
                let text = if e.text.trim().is_empty() {
                    e.attribute("text").unwrap_or_default().to_owned()
                } else {
                    e.text.trim().to_owned()
                };
                Some(CollectorMessage {
                    severity,
                    id: e.id().unwrap_or(0),
                    errno: e.attribute("ec").map(parse_i64),
                    text,
                })
            })
            .collect()
    }

    /// The packet descriptor for packet type `kind`.
    pub fn descriptor(&self, kind: u16) -> Option<&PacketDescriptor> {
        self.packets.iter().find(|d| d.kind == kind)
    }

    /// The descriptors of the packets stored in data file `file`.
    pub fn descriptors_for_file(&self, file: &str) -> Vec<&PacketDescriptor> {
        self.packets
            .iter()
            .filter(|d| d.file.as_deref() == Some(file))
            .collect()
    }

    /// The data files the log describes (`profile`, `heaptrace`, …), in order, without duplicates.
    pub fn data_files(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for f in self.profiles.iter().flat_map(|p| p.data_files.iter()) {
            if !v.contains(f) {
                v.push(f.clone());
            }
        }
        v
    }

    /// The profile named `name`.
    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// Setting `name` (the value of the first `<setting>` carrying that attribute).
    pub fn setting(&self, name: &str) -> Option<&str> {
        self.settings.iter().find_map(|s| attr(&s.attributes, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_timestamps() {
        assert_eq!(parse_tstamp("2385.996055481"), 2_385_996_055_481);
        assert_eq!(parse_tstamp("1.5"), 1_500_000_000);
        assert_eq!(parse_tstamp("junk"), 0);
        assert_eq!(parse_u64("0x000055E736B11000"), 0x55E7_36B1_1000);
        assert_eq!(parse_u64("+0x00001000"), 0x1000);
        assert_eq!(parse_i64("-0x10"), -16);
        assert_eq!(parse_u64("12abc"), 12);
    }

    #[test]
    fn old_version_is_rejected() {
        let e = Log::parse(b"<experiment version=\"11.0\">").unwrap_err();
        assert_eq!(
            e,
            Error::ObsoleteVersion {
                found: "11.0".into(),
                line: 1,
                column: 1,
            }
        );
        let e = Log::parse(b"<?xml version=\"1.0\"?>\n  <experiment version=\"9\">").unwrap_err();
        assert_eq!(
            e,
            Error::ObsoleteVersion {
                found: "9".into(),
                line: 2,
                column: 3,
            }
        );
        assert_eq!(
            e.to_string(),
            "log.xml:2:3: expected experiment version 12 or later, found `9`"
        );
    }

    #[test]
    fn twenty_thousand_profdata_after_twenty_thousand_packets() {
        // Each <profdata> used to scan every descriptor (quadratic: minutes for this size).
        let n = 20_000;
        let mut xml = String::from("<experiment version=\"12.4\"/><profile name=\"a\">");
        for k in 0..n {
            xml.push_str(&format!("<profpckt kind=\"{k}\"/>"));
        }
        for i in 0..n {
            xml.push_str(&format!("<profdata fname=\"d{i}\"/>"));
        }
        xml.push_str("<profpckt kind=\"1\"/></profile><profile name=\"b\"><profpckt kind=\"2\"/>");
        xml.push_str("</profile><profile name=\"a\"><profdata fname=\"late\"/></profile>");
        let log = Log::parse(xml.as_bytes()).unwrap();
        assert_eq!(log.packets.len(), n + 2);
        assert_eq!(log.profiles[0].data_files.len(), n);
        // The first <profdata> of the profile names the file of the packets before it ...
        assert!(
            log.packets[..n]
                .iter()
                .all(|d| d.file.as_deref() == Some("d0"))
        );
        // ... a packet after it takes the profile's last file ...
        assert_eq!(
            log.packets[n].file.as_deref(),
            Some(&*format!("d{}", n - 1))
        );
        // ... and a profile without <profdata> leaves its packets without one.
        assert_eq!(log.packets[n + 1].profile, "b");
        assert_eq!(log.packets[n + 1].file, None);
    }

    #[test]
    fn old_hwc_profdata_without_profile() {
        let log = Log::parse(
            b"<experiment version=\"12.1\"></experiment><profdata fname=\"hwcounters\"/>\
              <profpckt kind=\"3\"><field name=\"HWCTAG\" offset=\"48\" type=\"UINT32\"/></profpckt>",
        )
        .unwrap();
        assert_eq!(log.profiles[0].name, "hwcounter");
        assert_eq!(log.packets[0].file.as_deref(), Some("hwcounters"));
        assert_eq!(log.packets[0].fields[0].field_type, FieldType::Uint32);
    }

    #[test]
    fn field_outside_profpckt_is_an_error() {
        let e = Log::parse(b"<experiment version=\"12.4\"/>\n<field name=\"X\"/>").unwrap_err();
        assert!(
            matches!(
                e,
                Error::Xml {
                    line: 2,
                    column: 1,
                    ..
                }
            ),
            "{e}"
        );
    }
}
