//! `SITES BEGIN … SITES END`: allocation sites ordered by live or allocated bytes (hprof.md §2.2
//! "SITES"; hprof_io.c `io_write_sites_header`, `io_write_sites_elem`).

use super::cursor::Cursor;
use super::error::Error;
use super::percent::Percent;
use super::ranked;
use crate::binary::types::StackTraceSerial;
use std::fmt::Write;

/// The two column-header lines the JDK 5+ agent prints after `SITES BEGIN`.
pub const SITES_COLUMN_HEADERS: [&str; 2] = [
    "          percent          live          alloc'ed  stack class",
    " rank   self  accum     bytes objs     bytes  objs trace name",
];

/// `SITES BEGIN (ordered by live bytes) Sun Jul 28 00:19:32 2019`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SitesBegin<S> {
    /// `live bytes` or `allocated bytes`.
    pub ordered_by: S,
    /// The time as printed by `ctime()`.
    pub created: S,
}

impl<'a> SitesBegin<&'a str> {
    /// Parses the line after `SITES BEGIN `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        c.expect("(ordered by ")?;
        let ordered_by = c.until(b')', "`)` after the ordering")?;
        c.expect(") ")?;
        Ok(SitesBegin {
            ordered_by,
            created: c.take_rest(),
        })
    }
}

impl<S: AsRef<str>> SitesBegin<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "SITES BEGIN (ordered by {}) {}",
            self.ordered_by.as_ref(),
            self.created.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> SitesBegin<String> {
        SitesBegin {
            ordered_by: self.ordered_by.as_ref().to_owned(),
            created: self.created.as_ref().to_owned(),
        }
    }
}

/// One row: `    1 18.51% 18.51%    131544 1244    131544  1244 300000 char[]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Site<S> {
    /// Rank, from 1.
    pub rank: u32,
    /// Share of this site.
    pub self_percent: Percent<S>,
    /// Running total of the shares.
    pub accum_percent: Percent<S>,
    /// Live bytes.
    pub live_bytes: u64,
    /// Live objects.
    pub live_objects: u64,
    /// Allocated bytes.
    pub alloc_bytes: u64,
    /// Allocated objects.
    pub alloc_objects: u64,
    /// Trace serial number of the allocation site.
    pub trace: StackTraceSerial,
    /// Class name of the allocated objects.
    pub class_name: S,
}

impl<'a> Site<&'a str> {
    /// Parses a row.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let (rank, self_percent, accum_percent) = ranked::parse_rank_shares(c)?;
        c.skip_spaces();
        let live_bytes = c.u64()?;
        c.skip_spaces();
        let live_objects = c.u64()?;
        c.skip_spaces();
        let alloc_bytes = c.u64()?;
        c.skip_spaces();
        let alloc_objects = c.u64()?;
        let trace = ranked::parse_trace(c)?;
        Ok(Site {
            rank,
            self_percent,
            accum_percent,
            live_bytes,
            live_objects,
            alloc_bytes,
            alloc_objects,
            trace: StackTraceSerial(trace),
            class_name: c.take_rest(),
        })
    }
}

impl<S: AsRef<str>> Site<S> {
    /// Writes the row (without line ending) as `%5u %5.2f%% %5.2f%% %9u %4u %9u %5u %5u %s`.
    pub fn write_to(&self, out: &mut String) {
        ranked::write_rank_shares(out, self.rank, 5, &self.self_percent, &self.accum_percent);
        let _ = write!(
            out,
            " {:>9} {:>4} {:>9} {:>5} {:>5} {}",
            self.live_bytes,
            self.live_objects,
            self.alloc_bytes,
            self.alloc_objects,
            self.trace,
            self.class_name.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> Site<String> {
        Site {
            rank: self.rank,
            self_percent: self.self_percent.into_owned(),
            accum_percent: self.accum_percent.into_owned(),
            live_bytes: self.live_bytes,
            live_objects: self.live_objects,
            alloc_bytes: self.alloc_bytes,
            alloc_objects: self.alloc_objects,
            trace: self.trace,
            class_name: self.class_name.as_ref().to_owned(),
        }
    }
}
