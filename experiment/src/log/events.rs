//! `log.xml`'s event log: `<event kind=…>` (run, exit, samples, pause/resume, descendants,
//! Java threads and GC, collector messages) (format notes §4).

use super::{Attrs, Timestamp, parse_tstamp};

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

/// One `<event>` of log.xml. Which attributes an event carries depends on its kind (see
/// [`EventKind`]); those gprofng reads are fields here, any others are kept in `other`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LogEvent {
    /// `kind`.
    pub kind: EventKind,
    /// `tstamp` in ns (see [`Timestamp`]); 0 when absent.
    pub tstamp: Timestamp,
    /// Text content (message of `cwarn`/`cerror`/`comment`), or a `comment`'s `text` attribute.
    pub text: String,
    /// `id`: the sample id, or the message's `Emsgnum.h` code.
    pub id: Option<u64>,
    /// `label` of a `sample` (`periodic`, `collector_close_experiment`, API labels).
    pub label: Option<String>,
    /// `name` of a `pause` (e.g. `API`) or of a Java thread (`jthread_start`).
    pub name: Option<String>,
    /// `time` of a `run`: wall-clock seconds since the epoch.
    pub time: Option<u64>,
    /// `tm_zone` of a `run`: the time zone's offset in seconds.
    pub tm_zone: Option<i64>,
    /// `ec` of a `cerror`: the errno.
    pub ec: Option<i64>,
    /// `variant` of `desc_*`/`exec_*` (`fork`, `vfork`, `execve`, `posix_spawn`, …).
    pub variant: Option<String>,
    /// `lineage` of `desc_*`/`exec_*`: the descendant's name suffix (`_f1`, `_x2`, …).
    pub lineage: Option<String>,
    /// `follow` of `desc_*`/`exec_*`: whether the descendant is followed.
    pub follow: Option<u64>,
    /// `msg` of `desc_started` (`pid=N`) and `exec_*` (the command line).
    pub msg: Option<String>,
    /// `tid` of Java thread and `thread_pause`/`thread_resume` events.
    pub tid: Option<u64>,
    /// `jthr` of a Java thread event: its `jthread` pointer.
    pub jthr: Option<u64>,
    /// `jenv` of a Java thread event: its `JNIEnv` pointer.
    pub jenv: Option<u64>,
    /// `grpname` of a `jthread_start`: the thread group.
    pub grpname: Option<String>,
    /// `prntname` of a `jthread_start`: the parent thread group.
    pub prntname: Option<String>,
    /// Attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
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

/// Reads an `<event>`: its kind and time, the other attributes as written (the text
/// follows as character data).
pub(super) fn read(attributes: Vec<(String, String)>) -> LogEvent {
    let mut a = Attrs::new(attributes);
    let kind = EventKind::from_name(&a.take("kind").unwrap_or_default());
    LogEvent {
        kind,
        tstamp: a.take("tstamp").map_or(0, |t| parse_tstamp(&t)),
        text: a.take("text").unwrap_or_default(),
        id: a.take_u64("id"),
        label: a.take("label"),
        name: a.take("name"),
        time: a.take_u64("time"),
        tm_zone: a.take_i64("tm_zone"),
        ec: a.take_i64("ec"),
        variant: a.take("variant"),
        lineage: a.take("lineage"),
        follow: a.take_u64("follow"),
        msg: a.take("msg"),
        tid: a.take_u64("tid"),
        jthr: a.take_u64("jthr"),
        jenv: a.take_u64("jenv"),
        grpname: a.take("grpname"),
        prntname: a.take("prntname"),
        other: a.other(),
    }
}
