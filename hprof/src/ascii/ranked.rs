//! The columns shared by the ranked tables: SITES, CPU SAMPLES / CPU TIME and MONITOR TIME
//! (hprof.md §2.2). Every row opens with `rank self accum`; the CPU and MONITOR TIME rows go on
//! with `count trace` and end with one free-text column, as SITES rows end with `trace name`.

use super::cursor::Cursor;
use super::error::Error;
use super::percent::Percent;
use crate::binary::types::StackTraceSerial;
use std::fmt::Write;

/// The `rank self accum` columns of a row.
pub(crate) type RankShares<'a> = (u32, Percent<&'a str>, Percent<&'a str>);

/// Reads `rank self accum`, each after optional padding spaces.
#[inline]
pub(crate) fn parse_rank_shares<'a>(c: &mut Cursor<'a>) -> Result<RankShares<'a>, Error> {
    c.skip_spaces();
    let rank = c.u32()?;
    c.skip_spaces();
    let self_percent = Percent { text: c.percent()? };
    c.skip_spaces();
    let accum_percent = Percent { text: c.percent()? };
    Ok((rank, self_percent, accum_percent))
}

/// Reads the padded trace serial number before the last column, and the one space after it.
#[inline]
pub(crate) fn parse_trace(c: &mut Cursor<'_>) -> Result<u32, Error> {
    c.skip_spaces();
    let trace = c.u32()?;
    c.expect(" ")?;
    Ok(trace)
}

/// Reads the `count trace` columns of a CPU or MONITOR TIME row, up to its last column.
#[inline]
pub(crate) fn parse_count_trace(c: &mut Cursor<'_>) -> Result<(u64, u32), Error> {
    c.skip_spaces();
    let count = c.u64()?;
    Ok((count, parse_trace(c)?))
}

/// Writes `rank self accum ` as `%Nu %5.2f%% %5.2f%%`, the rank right-aligned in `rank_width`
/// (4 in CPU and MONITOR TIME rows, 5 in SITES rows).
pub(crate) fn write_rank_shares<S: AsRef<str>>(
    out: &mut String,
    rank: u32,
    rank_width: usize,
    self_percent: &Percent<S>,
    accum_percent: &Percent<S>,
) {
    let _ = write!(out, "{rank:>rank_width$} ");
    self_percent.write_to(out);
    out.push(' ');
    accum_percent.write_to(out);
}

/// Writes the ` count trace last` columns of a CPU or MONITOR TIME row as ` %7u %5u %s`.
pub(crate) fn write_count_trace(out: &mut String, count: u64, trace: StackTraceSerial, last: &str) {
    let _ = write!(out, " {count:>7} {trace:>5} {last}");
}
