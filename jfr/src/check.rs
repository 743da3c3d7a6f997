//! The fast path of [`crate::Chunk::check_records`] for chunks with compressed integers: one
//! record's size, type and fields checked against its class's flattened layout
//! ([`crate::metadata::Op`]) with the position kept in a register. It only ever says "this record
//! is whole, it ends here" or "not sure": on anything unusual (a long integer, a string of
//! chars, a record near the end of the input, damage) the caller checks the record again the
//! careful way, through [`Cursor`], which gives the error with its offset. So the fast path
//! decides nothing on its own: a record it accepts is one the careful path accepts too.

use crate::cursor::Cursor;
use crate::metadata::{Metadata, Op};
use crate::value;

/// The high bit of every byte of a word: a byte without it ends a compressed integer.
const STOPS: u64 = 0x8080_8080_8080_8080;

/// A compressed integer of at most 8 bytes at `pos`, ending at or before `end`: its value and
/// its length (the recorder pads some sizes to 4 bytes, so longer ones are common too).
#[inline(always)]
fn varint(data: &[u8], pos: usize, end: usize) -> Option<(u64, usize)> {
    let b0 = *data.get(pos)?;
    if b0 < 0x80 {
        return (pos < end).then_some((u64::from(b0), 1));
    }
    let word = u64::from_le_bytes(data.get(pos..pos + 8)?.try_into().ok()?);
    let stops = !word & STOPS;
    if stops == 0 {
        return None;
    }
    let len = stops.trailing_zeros() as usize / 8 + 1;
    if pos + len > end {
        return None;
    }
    // The 7-bit groups of the `len` bytes, packed: pairs, then fours, then all eight.
    let mut x = word & (0x7f7f_7f7f_7f7f_7f7f >> (64 - 8 * len));
    x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
    Some((x, len))
}

/// Skips `n` (≥ 1) compressed integers from `pos`, a machine word at a time: every byte
/// below 0x80 ends an integer, so the ends in 8 bytes are their high bits, cleared, and
/// those past `end` are masked off. Each word starts at an integer and consumes only the
/// integers that end in it (at most 8 bytes each, so the 9-byte rule never applies); a word
/// with no end (a 9-byte integer, the end of the record, or fewer than 8 bytes left in the
/// input) is `None`.
#[inline(always)]
fn skip_varints(data: &[u8], mut pos: usize, end: usize, mut n: u32) -> Option<usize> {
    loop {
        let word = u64::from_le_bytes(data.get(pos..pos + 8)?.try_into().ok()?);
        let mut stops = !word & STOPS;
        let room = end.checked_sub(pos)?;
        if room < 8 {
            stops &= (1u64 << (room * 8)) - 1;
        }
        if stops == 0 {
            return None;
        }
        loop {
            let last = stops.trailing_zeros() as usize / 8 + 1;
            n -= 1;
            stops &= stops - 1;
            if n == 0 {
                return Some(pos + last);
            }
            if stops == 0 {
                pos += last;
                break;
            }
        }
    }
}

/// Skips a string: null, empty, a constant-pool key, UTF-8 / Latin-1 bytes, or chars.
#[inline(always)]
fn skip_string(data: &[u8], pos: usize, end: usize) -> Option<usize> {
    if pos >= end {
        return None;
    }
    match *data.get(pos)? {
        0 | 1 => Some(pos + 1),
        2 => skip_varints(data, pos + 1, end, 1),
        3 | 5 => {
            let (len, k) = varint(data, pos + 1, end)?;
            let after = pos + 1 + k + len as usize;
            (after <= end).then_some(after)
        }
        4 => {
            // A count, then as many chars, each a compressed integer.
            let (n, k) = varint(data, pos + 1, end)?;
            let from = pos + 1 + k;
            if n == 0 {
                return Some(from);
            }
            if n > (end - from) as u64 {
                return None;
            }
            skip_varints(data, from, end, n as u32)
        }
        _ => None,
    }
}

/// Skips `len` bytes.
#[inline(always)]
fn skip_bytes(pos: usize, end: usize, len: usize) -> Option<usize> {
    let after = pos + len;
    (after <= end).then_some(after)
}

/// Checks the record at `at` (before `end`, the chunk's end, within `data`): `Some((size,
/// type id))` when it is whole, every field of an event
/// fits its class's layout; `None` when the careful path must decide.
#[inline(always)]
pub(crate) fn record(md: &Metadata, data: &[u8], at: usize, end: usize) -> Option<(usize, i64)> {
    let (size, n1) = varint(data, at, end)?;
    let (kind, n2) = varint(data, at + n1, end)?;
    let size = size as usize;
    let mut pos = at + n1 + n2;
    let stop = at + size;
    // (The careful path reads the size as a Java `int`.)
    if size == 0 || size > i32::MAX as usize || stop > end || pos > stop {
        return None;
    }
    if kind > 1 {
        let class = md.index_of(kind)?;
        if md.string_class == Some(class) {
            // An event's fields, for the string class: none (see `value::skip_event`).
            return Some((size, kind as i64));
        }
        for op in md.layouts.get(class)?.iter() {
            pos = match *op {
                Op::Varints(n) => skip_varints(data, pos, stop, n)?,
                Op::Str => skip_string(data, pos, stop)?,
                Op::Byte => skip_bytes(pos, stop, 1)?,
                Op::F32 => skip_bytes(pos, stop, 4)?,
                Op::F64 => skip_bytes(pos, stop, 8)?,
                Op::Array(_) | Op::Struct(_) => careful(md, data, pos, stop, *op)?,
            };
        }
    }
    Some((size, kind as i64))
}

/// One operation checked through [`Cursor`] (arrays, deep structs): the position after it.
#[inline(never)]
fn careful(md: &Metadata, data: &[u8], pos: usize, stop: usize, op: Op) -> Option<usize> {
    let mut c = Cursor::new(data, pos, stop, true);
    value::skip_ops(md, &mut c, 0, &[op]).ok()?;
    Some(c.pos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    /// Integers of every length 1..=9, each read by both readers at every room before `end`.
    #[test]
    fn integers_agree_with_the_cursor() {
        for v in (0..64)
            .map(|s| 1u64 << s)
            .chain([0, 127, 128, 16_383, u64::MAX])
        {
            let mut bytes = Vec::new();
            testing::varint(&mut bytes, v);
            let len = bytes.len();
            bytes.extend([0x80; 9]);
            for end in 0..=len + 2 {
                let fast = varint(&bytes, 0, end);
                let mut c = Cursor::new(&bytes, 0, end, true);
                let careful = c.varint("v").ok().map(|x| (x, c.pos()));
                if let Some(got) = fast {
                    assert_eq!(Some(got), careful, "{v} end {end}");
                }
                // Only 9-byte integers and those past `end` go the careful way.
                assert_eq!(fast.is_none(), len == 9 || end < len, "{v} end {end}");
            }
        }
    }

    #[test]
    fn runs_of_integers_agree_with_the_cursor() {
        let values = [1u64, 300, 1 << 40, 5, 1 << 20, 0, 1 << 55, 7, 1 << 14];
        let mut bytes = Vec::new();
        for v in values {
            testing::varint(&mut bytes, v);
        }
        let total = bytes.len();
        bytes.extend([0x80; 8]);
        for n in 1..=values.len() as u32 {
            for end in 0..=total {
                let fast = skip_varints(&bytes, 0, end, n);
                let mut c = Cursor::new(&bytes, 0, end, true);
                let careful = c.skip_varints(n, "v").ok().map(|()| c.pos());
                assert_eq!(fast, careful, "n {n} end {end}");
            }
        }
        // A 9-byte integer is left to the careful path.
        let mut nine = Vec::new();
        testing::varint(&mut nine, u64::MAX);
        nine.extend([0; 8]);
        assert_eq!(skip_varints(&nine, 0, nine.len(), 1), None);
    }

    #[test]
    fn strings_agree_with_the_cursor() {
        let cases: [&[u8]; 7] = [
            &[0],
            &[1],
            &[2, 0x81, 0x01],
            &[3, 2, b'h', b'i'],
            &[4, 2, 0xe9, 0x01, 0x41],
            &[5, 2, 0xe9, b'A'],
            &[4, 0],
        ];
        for case in cases {
            let mut bytes = case.to_vec();
            bytes.extend([0x80; 9]);
            for end in 0..=case.len() {
                let fast = skip_string(&bytes, 0, end);
                let mut c = Cursor::new(&bytes, 0, end, true);
                let careful = crate::strings::skip(&mut c).ok().map(|()| c.pos());
                assert_eq!(fast, careful, "{case:?} end {end}");
            }
        }
        assert_eq!(skip_string(&[9, 0, 0, 0, 0, 0, 0, 0, 0], 0, 9), None);
    }
}
