//! `CPU SAMPLES BEGIN … END` (cpu=samples) and `CPU TIME (ms) BEGIN … END` (cpu=times), plus the
//! header-less `count callee caller time` table of cpu=old (hprof.md §2.2 "CPU SAMPLES / CPU
//! TIME"; hprof_io.c `io_write_cpu_samples_*`, `io_write_oldprof_*`).

use super::cursor::Cursor;
use super::error::Error;
use super::percent::Percent;
use super::ranked;
use crate::binary::types::StackTraceSerial;
use std::fmt::Write;

/// The column header printed after `BEGIN` when a CPU table has rows.
pub const CPU_COLUMN_HEADER: &str = "rank   self  accum   count trace method";

/// The header line of the cpu=old table.
pub const OLD_CPU_HEADER: &str = "count callee caller time";

/// Which CPU table a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CpuKind {
    /// `CPU SAMPLES` (cpu=samples): `count` is the number of samples.
    Samples,
    /// `CPU TIME (ms)` (cpu=times): `count` is the number of calls; the share is of CPU time.
    Time,
}

impl CpuKind {
    /// The record name as printed before `BEGIN` / `END`.
    pub fn record_name(self) -> &'static str {
        match self {
            CpuKind::Samples => "CPU SAMPLES",
            CpuKind::Time => "CPU TIME (ms)",
        }
    }
}

/// `CPU SAMPLES BEGIN (total = 227) Mon Feb 04 08:12:06 2002`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuBegin<S> {
    /// Samples or times.
    pub kind: CpuKind,
    /// Total samples, or total milliseconds (`%d`, so it may be negative after overflow).
    pub total: i64,
    /// The time as printed by `ctime()`.
    pub created: S,
}

impl<'a> CpuBegin<&'a str> {
    /// Parses the line after `<record name> BEGIN `.
    pub(crate) fn parse(kind: CpuKind, c: &mut Cursor<'a>) -> Result<Self, Error> {
        c.expect("(total = ")?;
        let total = c.i64()?;
        c.expect(") ")?;
        Ok(CpuBegin {
            kind,
            total,
            created: c.take_rest(),
        })
    }
}

impl<S: AsRef<str>> CpuBegin<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "{} BEGIN (total = {}) {}",
            self.kind.record_name(),
            self.total,
            self.created.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> CpuBegin<String> {
        CpuBegin {
            kind: self.kind,
            total: self.total,
            created: self.created.as_ref().to_owned(),
        }
    }
}

/// One row: `   1 24.67% 24.67%      56    30 Station.updateFrom`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CpuRow<S> {
    /// Rank, from 1.
    pub rank: u32,
    /// Share of the total.
    pub self_percent: Percent<S>,
    /// Running total of the shares.
    pub accum_percent: Percent<S>,
    /// Samples (cpu=samples) or calls (cpu=times).
    pub count: u64,
    /// Trace serial number.
    pub trace: StackTraceSerial,
    /// `class.method` of the trace's top frame; `None` for `<empty trace>`.
    pub method: Option<S>,
}

impl<'a> CpuRow<&'a str> {
    /// Parses a row.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let (rank, self_percent, accum_percent) = ranked::parse_rank_shares(c)?;
        let (count, trace) = ranked::parse_count_trace(c)?;
        let rest = c.take_rest();
        let method = if rest == "<empty trace>" {
            None
        } else {
            Some(rest)
        };
        Ok(CpuRow {
            rank,
            self_percent,
            accum_percent,
            count,
            trace: StackTraceSerial(trace),
            method,
        })
    }
}

impl<S: AsRef<str>> CpuRow<S> {
    /// Writes the row (without line ending) as `%4u %5.2f%% %5.2f%% %7u %5u %s`.
    pub fn write_to(&self, out: &mut String) {
        ranked::write_rank_shares(out, self.rank, 4, &self.self_percent, &self.accum_percent);
        ranked::write_count_trace(
            out,
            self.count,
            self.trace,
            self.method.as_ref().map_or("<empty trace>", AsRef::as_ref),
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> CpuRow<String> {
        CpuRow {
            rank: self.rank,
            self_percent: self.self_percent.into_owned(),
            accum_percent: self.accum_percent.into_owned(),
            count: self.count,
            trace: self.trace,
            method: self.method.map(|m| m.as_ref().to_owned()),
        }
    }
}

/// One row of the cpu=old table: `12 java/lang/String.charAt(I)C Foo.bar()V 340`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OldCpuRow<S> {
    /// Number of calls.
    pub count: i64,
    /// `class.method` + signature of the callee; `None` for `<unknown callee>`.
    pub callee: Option<S>,
    /// `class.method` + signature of the caller; `None` for `<unknown caller>`.
    pub caller: Option<S>,
    /// Time.
    pub time: i64,
}

impl<'a> OldCpuRow<&'a str> {
    /// Parses a row.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let count = c.i64()?;
        c.expect(" ")?;
        let callee = if c.eat("<unknown callee>") {
            None
        } else {
            Some(c.word())
        };
        c.expect(" ")?;
        let caller = if c.eat("<unknown caller>") {
            None
        } else {
            Some(c.word())
        };
        c.expect(" ")?;
        let time = c.i64()?;
        c.finish()?;
        Ok(OldCpuRow {
            count,
            callee,
            caller,
            time,
        })
    }
}

impl<S: AsRef<str>> OldCpuRow<S> {
    /// Writes the row (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "{} {} {} {}",
            self.count,
            self.callee
                .as_ref()
                .map_or("<unknown callee>", AsRef::as_ref),
            self.caller
                .as_ref()
                .map_or("<unknown caller>", AsRef::as_ref),
            self.time
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> OldCpuRow<String> {
        OldCpuRow {
            count: self.count,
            callee: self.callee.map(|s| s.as_ref().to_owned()),
            caller: self.caller.map(|s| s.as_ref().to_owned()),
            time: self.time,
        }
    }
}
