//! The one reader every parser is written against: a position in the input, a limit (the end
//! of the chunk or of the event being read), and whether the chunk writes integers compressed
//! (LEB128-like, at most 9 bytes, the 9th contributing all 8 bits) or as big-endian bytes.

use crate::error::{Error, Result};

/// Most items reserved up front for a count read from the input: counts are bounded by the
/// bytes left, but an item in memory is larger than its one byte on disk, so vectors grow
/// past this only as items actually decode.
pub(crate) const PREALLOCATE: usize = 1024;

/// A position in the input with a limit; every read is checked and returns a `Result` whose
/// error carries the byte offset.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
    compressed: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data[pos..end]` (`end` clamped to the input).
    pub(crate) fn new(data: &'a [u8], pos: usize, end: usize, compressed: bool) -> Cursor<'a> {
        let end = end.min(data.len());
        Cursor {
            data,
            pos: pos.min(end),
            end,
            compressed,
        }
    }

    /// The whole input (offsets are into it).
    pub(crate) fn data(&self) -> &'a [u8] {
        self.data
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn end(&self) -> usize {
        self.end
    }

    pub(crate) fn compressed(&self) -> bool {
        self.compressed
    }

    /// Bytes left before the limit.
    pub(crate) fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// A cursor over the next `len` bytes, and this one moved past them.
    pub(crate) fn split(&mut self, len: usize, what: &'static str) -> Result<Cursor<'a>> {
        let start = self.pos;
        self.bytes(len, what)?;
        Ok(Cursor {
            data: self.data,
            pos: start,
            end: self.pos,
            compressed: self.compressed,
        })
    }

    fn truncated(&self, what: &'static str, needed: usize) -> Error {
        Error::Truncated {
            what,
            offset: self.pos as u64,
            needed: needed as u64,
            available: self.remaining() as u64,
        }
    }

    /// The next `len` bytes, borrowed.
    pub(crate) fn bytes(&mut self, len: usize, what: &'static str) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(self.truncated(what, len));
        }
        let out = self
            .data
            .get(self.pos..self.pos + len)
            .ok_or_else(|| self.truncated(what, len))?;
        self.pos += len;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let b = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    #[inline]
    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) if self.pos < self.end => {
                self.pos += 1;
                Ok(b)
            }
            _ => Err(self.truncated(what, 1)),
        }
    }

    pub(crate) fn raw_u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn raw_u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn raw_u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    /// A compressed integer: 7 bits per byte, least significant group first, the high bit
    /// saying another byte follows; the 9th byte, if reached, holds 8 bits.
    #[inline]
    pub(crate) fn varint(&mut self, what: &'static str) -> Result<u64> {
        // Fast path for the common one- and two-byte integers.
        if self.pos + 2 <= self.end {
            if let Some(&[b0, b1]) = self.data.get(self.pos..self.pos + 2) {
                if b0 < 0x80 {
                    self.pos += 1;
                    return Ok(u64::from(b0));
                }
                if b1 < 0x80 {
                    self.pos += 2;
                    return Ok(u64::from(b0 & 0x7f) | (u64::from(b1) << 7));
                }
            }
        }
        self.varint_long(what)
    }

    #[inline(never)]
    fn varint_long(&mut self, what: &'static str) -> Result<u64> {
        if self.pos + 9 <= self.end {
            if let Some(window) = self.data.get(self.pos..self.pos + 9) {
                let mut value = 0u64;
                for (i, &b) in window.iter().enumerate().take(8) {
                    value |= u64::from(b & 0x7f) << (7 * i);
                    if b < 0x80 {
                        self.pos += i + 1;
                        return Ok(value);
                    }
                }
                let last = window.get(8).copied().unwrap_or(0);
                self.pos += 9;
                return Ok(value | (u64::from(last) << 56));
            }
        }
        let start = self.pos;
        let mut value = 0u64;
        for i in 0..8 {
            let b = self.u8(what).map_err(|_| {
                self.pos = start;
                self.truncated(what, i + 1)
            })?;
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(value);
            }
        }
        let b = self.u8(what).map_err(|_| {
            self.pos = start;
            self.truncated(what, 9)
        })?;
        Ok(value | (u64::from(b) << 56))
    }

    /// Skips `n` compressed integers, a machine word at a time: every byte below 0x80 ends
    /// an integer, so the stops in 8 bytes are their high bits, cleared. Each step starts at
    /// an integer and consumes only integers that end in its word (at most 8 bytes each, so
    /// the 9th-byte rule never applies to them); a word without a stop (an integer of 9
    /// bytes, or the input's last bytes) goes the slow way.
    #[inline]
    pub(crate) fn skip_varints(&mut self, mut n: u32, what: &'static str) -> Result<()> {
        while n > 0 {
            let word = match self.data.get(self.pos..self.pos + 8) {
                Some(w) if self.pos + 8 <= self.end => {
                    let mut word = [0u8; 8];
                    word.copy_from_slice(w);
                    u64::from_le_bytes(word)
                }
                _ => 0xffff_ffff_ffff_ffff,
            };
            let mut stops = !word & 0x8080_8080_8080_8080;
            let count = stops.count_ones();
            if count == 0 {
                self.varint(what)?;
                n -= 1;
            } else if count >= n {
                for _ in 1..n {
                    stops &= stops - 1;
                }
                self.pos += stops.trailing_zeros() as usize / 8 + 1;
                return Ok(());
            } else {
                self.pos += (63 - stops.leading_zeros()) as usize / 8 + 1;
                n -= count;
            }
        }
        Ok(())
    }

    /// Skips `len` bytes.
    #[inline]
    pub(crate) fn skip(&mut self, len: usize, what: &'static str) -> Result<()> {
        if len > self.remaining() {
            return Err(self.truncated(what, len));
        }
        self.pos += len;
        Ok(())
    }

    /// A Java `int` as the chunk writes it (compressed, or 4 big-endian bytes).
    #[inline]
    pub(crate) fn int(&mut self, what: &'static str) -> Result<i32> {
        if self.compressed {
            Ok(self.varint(what)? as i32)
        } else {
            Ok(self.raw_u32(what)? as i32)
        }
    }

    /// A Java `long` as the chunk writes it (compressed, or 8 big-endian bytes).
    #[inline]
    pub(crate) fn long(&mut self, what: &'static str) -> Result<i64> {
        if self.compressed {
            Ok(self.varint(what)? as i64)
        } else {
            Ok(self.raw_u64(what)? as i64)
        }
    }

    /// A Java `short` (compressed, or 2 big-endian bytes).
    #[inline]
    pub(crate) fn short(&mut self, what: &'static str) -> Result<i16> {
        if self.compressed {
            Ok(self.varint(what)? as i16)
        } else {
            Ok(self.raw_u16(what)? as i16)
        }
    }

    pub(crate) fn float(&mut self, what: &'static str) -> Result<f32> {
        Ok(f32::from_bits(self.raw_u32(what)?))
    }

    pub(crate) fn double(&mut self, what: &'static str) -> Result<f64> {
        Ok(f64::from_bits(self.raw_u64(what)?))
    }

    /// A count of items each taking at least one byte: bounded by what is left, so a hostile
    /// count never makes a caller allocate or loop more than the input backs.
    pub(crate) fn count(&mut self, what: &'static str) -> Result<usize> {
        let at = self.pos;
        let n = self.int(what)?;
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => Ok(n),
            _ => Err(Error::invalid(
                what,
                "a count the remaining bytes can hold",
                format_args!("{n} with {} byte(s) left", self.remaining()),
                at as u64,
            )),
        }
    }

    /// A length in bytes, bounded by what is left.
    pub(crate) fn length(&mut self, what: &'static str) -> Result<usize> {
        let at = self.pos;
        let n = self.int(what)?;
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => Ok(n),
            Ok(n) => Err(Error::Truncated {
                what,
                offset: self.pos as u64,
                needed: n as u64,
                available: self.remaining() as u64,
            }),
            Err(_) => Err(Error::invalid(what, "a length >= 0", n, at as u64)),
        }
    }

    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let cases: &[(&[u8], u64)] = &[
            (&[0], 0),
            (&[0x7f], 127),
            (&[0x80, 0x01], 128),
            (&[0xff, 0xff, 0xff, 0xff, 0x0f], 0xffff_ffff),
            (
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                u64::MAX,
            ),
        ];
        for (bytes, want) in cases {
            let mut c = Cursor::new(bytes, 0, bytes.len(), true);
            assert_eq!(c.varint("v").unwrap(), *want, "{bytes:?}");
            assert_eq!(c.remaining(), 0);
            // The same value with padding after it takes the fast path.
            let mut padded = bytes.to_vec();
            padded.extend([0xaa; 9]);
            let mut c = Cursor::new(&padded, 0, padded.len(), true);
            assert_eq!(c.varint("v").unwrap(), *want);
            assert_eq!(c.pos(), bytes.len());
        }
        let mut c = Cursor::new(&[0x80, 0x80], 0, 2, true);
        let e = c.varint("v").unwrap_err();
        assert!(
            matches!(
                e,
                Error::Truncated {
                    offset: 0,
                    needed: 3,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn skipping_many_varints_agrees_with_reading_them() {
        // Varints of every length 1..=9 (9: eight continuation bytes, then a full byte with
        // its high bit set), in varied orders, with and without room after them.
        let values: Vec<u64> = (0..64)
            .map(|i| {
                if i % 9 == 8 {
                    u64::MAX - i
                } else {
                    1u64 << (i % 64)
                }
            })
            .collect();
        let mut bytes = Vec::new();
        for &v in &values {
            crate::testing::varint(&mut bytes, v);
        }
        for n in 1..values.len() {
            for tail in [0usize, 3, 16] {
                let mut data = bytes.clone();
                data.extend(std::iter::repeat_n(0x80, tail));
                let mut read = Cursor::new(&data, 0, data.len(), true);
                for &v in values.iter().take(n) {
                    assert_eq!(read.varint("v").unwrap(), v);
                }
                let mut skip = Cursor::new(&data, 0, data.len(), true);
                skip.skip_varints(n as u32, "v").unwrap();
                assert_eq!(skip.pos(), read.pos(), "n {n} tail {tail}");
            }
        }
        let mut c = Cursor::new(&[0x80, 0x80, 0x01, 0x80], 0, 4, true);
        assert!(c.skip_varints(2, "v").unwrap_err().is_truncated());
    }

    #[test]
    fn counts_are_bounded() {
        let mut c = Cursor::new(&[0xff, 0xff, 0x03, 0, 0], 0, 5, true);
        let e = c.count("n").unwrap_err();
        assert!(e.to_string().contains("65535 with 2 byte(s) left"), "{e}");
    }
}
