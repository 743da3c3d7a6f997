//! `log.xml`'s event log: `<event kind=…>` (run, exit, samples, pause/resume, descendants,
//! Java threads and GC, collector messages) (format notes §4).

use super::parse::{Ctx, Parser};
use super::{Timestamp, attr, parse_tstamp, parse_u64};

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

/// Handles an `<event>`: its kind and time, the other attributes as written (the text
/// follows as character data).
pub(super) fn start(p: &mut Parser<'_>, attributes: Vec<(String, String)>) -> Ctx {
    let kind = EventKind::from_name(attr(&attributes, "kind").unwrap_or_default());
    let tstamp = attr(&attributes, "tstamp").map(parse_tstamp).unwrap_or(0);
    let attributes = attributes
        .into_iter()
        .filter(|(k, _)| k != "kind")
        .collect();
    p.log.events.push(LogEvent {
        kind,
        tstamp,
        attributes,
        text: String::new(),
    });
    Ctx::Event
}
