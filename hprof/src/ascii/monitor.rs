//! `MONITOR DUMP BEGIN … END` (thread states, monitors, owners, waiters), `MONITOR TIME BEGIN …
//! END` and the monitor event lines `SLEEP:`, `WAIT:`, `WAITED:`, `EXIT:` (hprof.md §2.2
//! "MONITOR TIME", "MONITOR DUMP", "Monitor event lines"; hprof_io.c `io_write_monitor_*`;
//! the JVMPI-era `RAW MONITOR "name"(0x…)` form from hprof-ascii-output.ja.txt).

use super::cursor::Cursor;
use super::error::Error;
use super::percent::Percent;
use super::ranked;
use crate::binary::types::{StackTraceSerial, ThreadSerial};
use std::fmt::Write;

/// The column header printed after `MONITOR TIME BEGIN` when the total is above zero.
pub const MONITOR_TIME_COLUMN_HEADER: &str = "rank   self  accum   count trace monitor";

/// `    THREAD 200001, trace 300123, status: CW`: a thread in a monitor dump.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorThread<S> {
    /// Thread serial number.
    pub thread: ThreadSerial,
    /// Trace serial number of the thread's current stack.
    pub trace: StackTraceSerial,
    /// The status text, e.g. `R`, `CW`, `MW`, `S|CW`, `intr|native|R` (see [`ThreadStatus`]).
    pub status: S,
}

/// The status of a [`MonitorThread`], decoded from its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThreadStatus {
    /// `S|`: suspended (JVMTI agent; the JVMPI agent prints a bare `S`).
    pub suspended: bool,
    /// `intr|`: interrupted.
    pub interrupted: bool,
    /// `native|`: in native code.
    pub native: bool,
    /// The state proper: `R`, `CW`, `MW`, `SL`, `ZO`, `NS`, `UN` (or `S`), kept as text.
    pub state: ThreadState,
}

/// The state part of a [`ThreadStatus`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ThreadState {
    /// `R`: runnable.
    Runnable,
    /// `CW`: waiting on a condition (`Object.wait`).
    ConditionWait,
    /// `MW`: blocked entering a monitor.
    MonitorWait,
    /// `SL`: sleeping.
    Sleeping,
    /// `ZO`: terminated.
    Terminated,
    /// `NS`: not started.
    NotStarted,
    /// `S`: suspended (JVMPI agent).
    Suspended,
    /// `UN` or anything else.
    #[default]
    Unknown,
}

impl<S: AsRef<str>> MonitorThread<S> {
    /// Decodes [`status`](Self::status).
    pub fn status(&self) -> ThreadStatus {
        let mut st = ThreadStatus::default();
        let mut text = self.status.as_ref();
        loop {
            if let Some(r) = text.strip_prefix("S|") {
                st.suspended = true;
                text = r;
            } else if let Some(r) = text.strip_prefix("intr|") {
                st.interrupted = true;
                text = r;
            } else if let Some(r) = text.strip_prefix("native|") {
                st.native = true;
                text = r;
            } else {
                break;
            }
        }
        st.state = match text {
            "R" => ThreadState::Runnable,
            "CW" => ThreadState::ConditionWait,
            "MW" => ThreadState::MonitorWait,
            "SL" => ThreadState::Sleeping,
            "ZO" => ThreadState::Terminated,
            "NS" => ThreadState::NotStarted,
            "S" => {
                st.suspended = true;
                ThreadState::Suspended
            }
            _ => ThreadState::Unknown,
        };
        st
    }

    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "    THREAD {}, trace {}, status: {}",
            self.thread,
            self.trace,
            self.status.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> MonitorThread<String> {
        MonitorThread {
            thread: self.thread,
            trace: self.trace,
            status: self.status.as_ref().to_owned(),
        }
    }
}

impl<'a> MonitorThread<&'a str> {
    /// Parses the line after `    THREAD `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let thread = c.u32()?;
        c.expect(", trace ")?;
        let trace = c.u32()?;
        c.expect(", status: ")?;
        Ok(MonitorThread {
            thread: ThreadSerial(thread),
            trace: StackTraceSerial(trace),
            status: c.take_rest(),
        })
    }
}

/// `    MONITOR java.lang.ref.Reference$Lock` (owned, an `owner:` line follows),
/// `    MONITOR java.lang.Object unowned`, or JVMPI `    RAW MONITOR "_hprof_dump_lock"(0x806d7d0)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorHeader<S> {
    /// `RAW MONITOR` (a JVMPI raw monitor) rather than a Java monitor.
    pub raw: bool,
    /// The monitor's description as printed (class name, JVMPI `name(addr)` or `"name"(0x…)`).
    pub name: S,
    /// Printed with ` unowned`.
    pub unowned: bool,
}

impl<'a> MonitorHeader<&'a str> {
    /// Parses the text after `    MONITOR ` or `    RAW MONITOR `.
    pub(crate) fn parse(raw: bool, c: &mut Cursor<'a>) -> Result<Self, Error> {
        let rest = c.take_rest();
        if rest.is_empty() {
            return Err(c.error("a monitor name"));
        }
        let (name, unowned) = match rest.strip_suffix(" unowned") {
            Some(n) => (n, true),
            None => (rest, false),
        };
        Ok(MonitorHeader { raw, name, unowned })
    }
}

impl<S: AsRef<str>> MonitorHeader<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        out.push_str(if self.raw {
            "    RAW MONITOR "
        } else {
            "    MONITOR "
        });
        out.push_str(self.name.as_ref());
        if self.unowned {
            out.push_str(" unowned");
        }
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> MonitorHeader<String> {
        MonitorHeader {
            raw: self.raw,
            name: self.name.as_ref().to_owned(),
            unowned: self.unowned,
        }
    }
}

/// `\towner: thread 200001, entry count: 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorOwner {
    /// Thread serial number of the owner.
    pub thread: ThreadSerial,
    /// Recursion count.
    pub entry_count: i64,
}

impl MonitorOwner {
    /// Parses the line after `\towner: thread `.
    pub(crate) fn parse(c: &mut Cursor<'_>) -> Result<Self, Error> {
        let thread = c.u32()?;
        c.expect(", entry count: ")?;
        let entry_count = c.i64()?;
        c.finish()?;
        Ok(MonitorOwner {
            thread: ThreadSerial(thread),
            entry_count,
        })
    }

    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "\towner: thread {}, entry count: {}",
            self.thread, self.entry_count
        );
    }
}

/// Which list a [`WaitingList`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WaitingKind {
    /// `waiting to enter:`.
    ToEnter,
    /// `waiting to be notified:`.
    ToBeNotified,
}

/// `\twaiting to enter: thread 200003, thread 200004` (items may be `<unknown thread>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WaitingList<S> {
    /// Which list.
    pub kind: WaitingKind,
    /// The items as printed after the colon (validated when read), e.g. ` thread 2, thread 3`.
    pub items: S,
}

impl<'a> WaitingList<&'a str> {
    /// Parses the text after the colon and checks every item.
    pub(crate) fn parse(kind: WaitingKind, c: &mut Cursor<'a>) -> Result<Self, Error> {
        let items = c.rest();
        let mut first = true;
        while !c.rest().is_empty() {
            if !first {
                c.expect(",")?;
            }
            first = false;
            if c.eat(" thread ") {
                c.u32()?;
            } else {
                c.expect(" <unknown thread>")?;
            }
        }
        Ok(WaitingList { kind, items })
    }
}

impl<S: AsRef<str>> WaitingList<S> {
    /// The waiting threads' serial numbers (`None` for `<unknown thread>`).
    pub fn threads(&self) -> impl Iterator<Item = Option<u32>> + '_ {
        self.items
            .as_ref()
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|item| {
                item.trim()
                    .strip_prefix("thread ")
                    .and_then(|n| n.parse().ok())
            })
    }

    /// A list for a model built in code.
    pub fn from_threads(kind: WaitingKind, threads: &[Option<u32>]) -> WaitingList<String> {
        let mut items = String::new();
        for (i, t) in threads.iter().enumerate() {
            if i > 0 {
                items.push(',');
            }
            let _ = match t {
                Some(t) => write!(items, " thread {t}"),
                None => write!(items, " <unknown thread>"),
            };
        }
        WaitingList { kind, items }
    }

    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        out.push_str(match self.kind {
            WaitingKind::ToEnter => "\twaiting to enter:",
            WaitingKind::ToBeNotified => "\twaiting to be notified:",
        });
        out.push_str(self.items.as_ref());
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> WaitingList<String> {
        WaitingList {
            kind: self.kind,
            items: self.items.as_ref().to_owned(),
        }
    }
}

/// `MONITOR TIME BEGIN (total = 0 ms) Thu Aug 29 16:41:59 2002`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorTimeBegin<S> {
    /// Total contention time in milliseconds.
    pub total: i64,
    /// The time as printed by `ctime()`.
    pub created: S,
}

impl<'a> MonitorTimeBegin<&'a str> {
    /// Parses the line after `MONITOR TIME BEGIN `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        c.expect("(total = ")?;
        let total = c.i64()?;
        c.expect(" ms) ")?;
        Ok(MonitorTimeBegin {
            total,
            created: c.take_rest(),
        })
    }
}

impl<S: AsRef<str>> MonitorTimeBegin<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "MONITOR TIME BEGIN (total = {} ms) {}",
            self.total,
            self.created.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> MonitorTimeBegin<String> {
        MonitorTimeBegin {
            total: self.total,
            created: self.created.as_ref().to_owned(),
        }
    }
}

/// One row: `   1 80.00% 80.00%       4 300123 java.lang.Object (Java)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MonitorTimeRow<S> {
    /// Rank, from 1.
    pub rank: u32,
    /// Share of the total contention time.
    pub self_percent: Percent<S>,
    /// Running total of the shares.
    pub accum_percent: Percent<S>,
    /// Number of contended entries.
    pub count: u64,
    /// Trace serial number.
    pub trace: StackTraceSerial,
    /// The monitor as printed, e.g. `java.lang.Object (Java)`.
    pub monitor: S,
}

impl<'a> MonitorTimeRow<&'a str> {
    /// Parses a row.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let (rank, self_percent, accum_percent) = ranked::parse_rank_shares(c)?;
        let (count, trace) = ranked::parse_count_trace(c)?;
        Ok(MonitorTimeRow {
            rank,
            self_percent,
            accum_percent,
            count,
            trace: StackTraceSerial(trace),
            monitor: c.take_rest(),
        })
    }
}

impl<S: AsRef<str>> MonitorTimeRow<S> {
    /// The monitor's class name (without the ` (Java)` suffix).
    pub fn class_name(&self) -> &str {
        let m = self.monitor.as_ref();
        m.strip_suffix(" (Java)").unwrap_or(m)
    }

    /// Writes the row (without line ending) as `%4u %5.2f%% %5.2f%% %7u %5u %s`.
    pub fn write_to(&self, out: &mut String) {
        ranked::write_rank_shares(out, self.rank, 4, &self.self_percent, &self.accum_percent);
        ranked::write_count_trace(out, self.count, self.trace, self.monitor.as_ref());
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> MonitorTimeRow<String> {
        MonitorTimeRow {
            rank: self.rank,
            self_percent: self.self_percent.into_owned(),
            accum_percent: self.accum_percent.into_owned(),
            count: self.count,
            trace: self.trace,
            monitor: self.monitor.as_ref().to_owned(),
        }
    }
}

/// A monitor event line written while the program runs (monitor=y).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MonitorEvent<S> {
    /// `SLEEP: timeout=%d, thread %d`.
    Sleep {
        /// Timeout in ms.
        timeout: i64,
        /// Thread serial number; `None` for `<unknown thread>`.
        thread: Option<ThreadSerial>,
    },
    /// `WAIT: MONITOR %s, timeout=%d, thread %d`.
    Wait {
        /// The monitor's class name.
        monitor: S,
        /// Timeout in ms.
        timeout: i64,
        /// Thread serial number; `None` for `<unknown thread>`.
        thread: Option<ThreadSerial>,
    },
    /// `WAITED: MONITOR %s, time_waited=%d, thread %d`.
    Waited {
        /// The monitor's class name.
        monitor: S,
        /// Time waited in ms.
        time_waited: i64,
        /// Thread serial number; `None` for `<unknown thread>`.
        thread: Option<ThreadSerial>,
    },
    /// `EXIT: MONITOR %s, thread %d`.
    Exit {
        /// The monitor's class name.
        monitor: S,
        /// Thread serial number; `None` for `<unknown thread>`.
        thread: Option<ThreadSerial>,
    },
}

fn thread_item(c: &mut Cursor<'_>) -> Result<Option<ThreadSerial>, Error> {
    let t = if c.eat("thread ") {
        Some(ThreadSerial(c.u32()?))
    } else {
        c.expect("<unknown thread>")?;
        None
    };
    c.finish()?;
    Ok(t)
}

/// Reads the `%d, thread %d` that ends the SLEEP, WAIT and WAITED lines.
fn value_then_thread(c: &mut Cursor<'_>) -> Result<(i64, Option<ThreadSerial>), Error> {
    let value = c.i64()?;
    c.expect(", ")?;
    Ok((value, thread_item(c)?))
}

/// Splits `MONITOR <name>, <key>=` off the front of the line.
fn monitor_then<'a>(c: &mut Cursor<'a>, key: &'static str) -> Result<&'a str, Error> {
    c.expect("MONITOR ")?;
    c.until_last(key).ok_or_else(|| c.error(key))
}

impl<'a> MonitorEvent<&'a str> {
    /// Parses an event line after its `SLEEP: ` / `WAIT: ` / `WAITED: ` / `EXIT: ` prefix.
    pub(crate) fn parse(prefix: &str, c: &mut Cursor<'a>) -> Result<Self, Error> {
        match prefix {
            "SLEEP: " => {
                c.expect("timeout=")?;
                let (timeout, thread) = value_then_thread(c)?;
                Ok(MonitorEvent::Sleep { timeout, thread })
            }
            "WAIT: " => {
                let monitor = monitor_then(c, ", timeout=")?;
                let (timeout, thread) = value_then_thread(c)?;
                Ok(MonitorEvent::Wait {
                    monitor,
                    timeout,
                    thread,
                })
            }
            "WAITED: " => {
                let monitor = monitor_then(c, ", time_waited=")?;
                let (time_waited, thread) = value_then_thread(c)?;
                Ok(MonitorEvent::Waited {
                    monitor,
                    time_waited,
                    thread,
                })
            }
            _ => {
                c.expect("MONITOR ")?;
                let Some(monitor) = c.until_last(", ") else {
                    return Err(c.error("`MONITOR <name>, thread <n>`"));
                };
                Ok(MonitorEvent::Exit {
                    monitor,
                    thread: thread_item(c)?,
                })
            }
        }
    }
}

fn write_thread(out: &mut String, thread: Option<ThreadSerial>) {
    let _ = match thread {
        Some(t) => write!(out, "thread {t}"),
        None => write!(out, "<unknown thread>"),
    };
}

impl<S: AsRef<str>> MonitorEvent<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        match self {
            MonitorEvent::Sleep { timeout, thread } => {
                let _ = write!(out, "SLEEP: timeout={timeout}, ");
                write_thread(out, *thread);
            }
            MonitorEvent::Wait {
                monitor,
                timeout,
                thread,
            } => {
                let _ = write!(
                    out,
                    "WAIT: MONITOR {}, timeout={timeout}, ",
                    monitor.as_ref()
                );
                write_thread(out, *thread);
            }
            MonitorEvent::Waited {
                monitor,
                time_waited,
                thread,
            } => {
                let _ = write!(
                    out,
                    "WAITED: MONITOR {}, time_waited={time_waited}, ",
                    monitor.as_ref()
                );
                write_thread(out, *thread);
            }
            MonitorEvent::Exit { monitor, thread } => {
                let _ = write!(out, "EXIT: MONITOR {}, ", monitor.as_ref());
                write_thread(out, *thread);
            }
        }
    }

    /// The thread serial number of the event.
    pub fn thread(&self) -> Option<ThreadSerial> {
        match self {
            MonitorEvent::Sleep { thread, .. }
            | MonitorEvent::Wait { thread, .. }
            | MonitorEvent::Waited { thread, .. }
            | MonitorEvent::Exit { thread, .. } => *thread,
        }
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> MonitorEvent<String> {
        match self {
            MonitorEvent::Sleep { timeout, thread } => MonitorEvent::Sleep { timeout, thread },
            MonitorEvent::Wait {
                monitor,
                timeout,
                thread,
            } => MonitorEvent::Wait {
                monitor: monitor.as_ref().to_owned(),
                timeout,
                thread,
            },
            MonitorEvent::Waited {
                monitor,
                time_waited,
                thread,
            } => MonitorEvent::Waited {
                monitor: monitor.as_ref().to_owned(),
                time_waited,
                thread,
            },
            MonitorEvent::Exit { monitor, thread } => MonitorEvent::Exit {
                monitor: monitor.as_ref().to_owned(),
                thread,
            },
        }
    }
}
