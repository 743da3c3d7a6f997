//! The one cursor type of the ASCII side: [`Lines`] splits the report into lines (LF or CRLF)
//! and [`Cursor`] reads the fields of one line, returning `Result` on every read.

use super::error::{Error, Position};

/// The line separator a report was written with: `\n` by the agent on Unix, `\r\n` on
/// Windows.
///
/// The same type, variants and methods as `pointsto::style::LineEnding` (the crates share no
/// dependency, so each defines it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LineEnding {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The separator of the first line of `input` (LF when it has none).
    #[must_use]
    pub fn from_input(input: &[u8]) -> LineEnding {
        match Lines::new(input).next_line().and_then(|l| l.ending) {
            Some(e) => e,
            None => LineEnding::Lf,
        }
    }

    /// The separator's text.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
        }
    }
}

/// One line of input, without its line ending.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawLine<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) number: usize,
    /// Byte offset in the whole report (chunk base included).
    pub(crate) offset: usize,
    /// Byte index in the current input slice.
    pub(crate) start: usize,
    /// `None` when the input ends without a newline (an unterminated, possibly cut-off line).
    pub(crate) ending: Option<LineEnding>,
}

impl<'a> RawLine<'a> {
    #[inline]
    pub(crate) fn position(&self) -> Position {
        Position {
            line: self.number,
            column: 1,
            offset: self.offset,
        }
    }

    /// The line as text, or an error pointing at the first invalid byte.
    pub(crate) fn text(&self) -> Result<&'a str, Error> {
        std::str::from_utf8(self.bytes).map_err(|e| {
            let at = e.valid_up_to();
            Error::InvalidUtf8 {
                position: Position {
                    line: self.number,
                    column: column_of(at),
                    offset: self.offset.saturating_add(at),
                },
                found: self.bytes.get(at).copied().unwrap_or(0),
            }
        })
    }
}

fn column_of(index: usize) -> usize {
    index.saturating_add(1)
}

/// Finds the first `\n` in `bytes`, sixteen bytes at a time (SWAR on two `u64`s).
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * (b'\n' as u64);
    #[inline(always)]
    fn zero_bytes(word: u64) -> u64 {
        let x = word ^ NL;
        x.wrapping_sub(LO) & !x & HI
    }
    let mut chunks = bytes.chunks_exact(16);
    let mut base = 0usize;
    for chunk in &mut chunks {
        let (a, b) = chunk.split_at(8);
        let mut wa = [0u8; 8];
        let mut wb = [0u8; 8];
        wa.copy_from_slice(a);
        wb.copy_from_slice(b);
        let za = zero_bytes(u64::from_le_bytes(wa));
        let zb = zero_bytes(u64::from_le_bytes(wb));
        if za | zb != 0 {
            return Some(if za != 0 {
                base + (za.trailing_zeros() / 8) as usize
            } else {
                base + 8 + (zb.trailing_zeros() / 8) as usize
            });
        }
        base += 16;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| base + i)
}

/// Splits input into lines, counting line numbers and byte offsets.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
    number: usize,
    /// Offset of `data` in the whole report (for chunked input).
    base: usize,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Lines::resume(data, 0, 0)
    }

    /// Lines of a chunk that starts at byte `base` of the report, after line `number`.
    pub(crate) fn resume(data: &'a [u8], base: usize, number: usize) -> Self {
        Lines {
            data,
            pos: 0,
            number,
            base,
        }
    }

    /// Byte offset of the next line in the whole report.
    pub(crate) fn offset(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    /// Byte index of the next line in the current input slice.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The number of the last line read.
    pub(crate) fn number(&self) -> usize {
        self.number
    }

    /// Steps back to before `line` (which must be the last line read).
    pub(crate) fn unread(&mut self, line: &RawLine<'a>) {
        self.pos = line.start;
        self.number = line.number.saturating_sub(1);
    }

    /// Steps back to byte index `pos` of the input, which starts line `number + 1`.
    pub(crate) fn rewind(&mut self, pos: usize, number: usize) {
        self.pos = pos;
        self.number = number;
    }

    /// The number the next line will get.
    pub(crate) fn next_number(&self) -> usize {
        self.number.saturating_add(1)
    }

    /// The input from byte `from` to byte `to` (empty if out of range).
    pub(crate) fn slice(&self, from: usize, to: usize) -> &'a [u8] {
        self.data.get(from..to).unwrap_or_default()
    }

    /// The unread rest of the input.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// The next line without consuming it.
    pub(crate) fn peek(&self) -> Option<RawLine<'a>> {
        self.clone().next_line()
    }

    pub(crate) fn next_line(&mut self) -> Option<RawLine<'a>> {
        let rest = self.data.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let start = self.pos;
        let offset = self.offset();
        self.number = self.number.saturating_add(1);
        let (bytes, ending, advance) = match find_newline(rest) {
            Some(nl) => {
                let line = rest.get(..nl).unwrap_or_default();
                match line.split_last() {
                    Some((b'\r', body)) => (body, Some(LineEnding::CrLf), nl + 1),
                    _ => (line, Some(LineEnding::Lf), nl + 1),
                }
            }
            None => (rest, None, rest.len()),
        };
        self.pos = self.pos.saturating_add(advance);
        Some(RawLine {
            bytes,
            number: self.number,
            offset,
            start,
            ending,
        })
    }
}

/// Reads the fields of one line. Every read returns `Result`; errors carry line:column.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    offset: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str, line: usize, offset: usize) -> Self {
        Cursor {
            text,
            pos: 0,
            line,
            offset,
        }
    }

    /// Position of the next unread byte.
    #[inline]
    pub(crate) fn position(&self) -> Position {
        Position {
            line: self.line,
            column: column_of(self.pos),
            offset: self.offset.saturating_add(self.pos),
        }
    }

    /// The unread rest of the line.
    #[inline]
    pub(crate) fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    #[cold]
    pub(crate) fn error(&self, expected: &'static str) -> Error {
        let found: String = self.rest().chars().take(40).collect();
        Error::Syntax {
            position: self.position(),
            expected,
            found: if found.is_empty() {
                "end of line".into()
            } else {
                found
            },
        }
    }

    /// Consumes `lit` or fails.
    #[inline]
    pub(crate) fn expect(&mut self, lit: &'static str) -> Result<(), Error> {
        if self.rest().starts_with(lit) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(self.error(lit))
        }
    }

    /// Consumes `lit` if it is next.
    #[inline]
    pub(crate) fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Skips `n` bytes (callers pass lengths found with `str::find`, so on char boundaries).
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n).min(self.text.len());
    }

    /// Skips spaces (not tabs).
    #[inline]
    pub(crate) fn skip_spaces(&mut self) {
        let n = self.rest().bytes().take_while(|&b| b == b' ').count();
        self.pos += n;
    }

    /// Skips tabs.
    #[inline]
    pub(crate) fn skip_tabs(&mut self) {
        let n = self.rest().bytes().take_while(|&b| b == b'\t').count();
        self.pos += n;
    }

    /// Takes the text up to (not including) the first `stop` byte; fails if there is none.
    #[inline]
    pub(crate) fn until(&mut self, stop: u8, expected: &'static str) -> Result<&'a str, Error> {
        let rest = self.rest();
        match rest.bytes().position(|b| b == stop) {
            Some(i) => {
                self.pos += i;
                Ok(rest.get(..i).unwrap_or_default())
            }
            None => Err(self.error(expected)),
        }
    }

    /// Takes the text up to the last `sep` of the line and skips the `sep`, for a field whose
    /// text may itself contain `sep`; `None` (and nothing read) if the line has no `sep`.
    #[inline]
    pub(crate) fn until_last(&mut self, sep: &str) -> Option<&'a str> {
        let rest = self.rest();
        let i = rest.rfind(sep)?;
        self.advance(i + sep.len());
        rest.get(..i)
    }

    /// Takes the text up to the next space or tab (or the end of the line).
    #[inline]
    pub(crate) fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let i = rest
            .bytes()
            .position(|b| b == b' ' || b == b'\t')
            .unwrap_or(rest.len());
        self.pos += i;
        rest.get(..i).unwrap_or_default()
    }

    /// Takes the rest of the line.
    #[inline]
    pub(crate) fn take_rest(&mut self) -> &'a str {
        let rest = self.rest();
        self.pos = self.text.len();
        rest
    }

    /// Fails unless the whole line has been read.
    #[inline]
    pub(crate) fn finish(&self) -> Result<(), Error> {
        if self.pos >= self.text.len() {
            Ok(())
        } else {
            Err(self.error("end of line"))
        }
    }

    #[inline]
    fn number<const HEX: bool>(&mut self, expected: &'static str, max: u64) -> Result<u64, Error> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut i = start;
        let mut value: u64 = 0;
        let mut overflow = false;
        if HEX {
            while let Some(&b) = bytes.get(i) {
                let d = match b {
                    b'0'..=b'9' => b - b'0',
                    b'a'..=b'f' => b - b'a' + 10,
                    b'A'..=b'F' => b - b'A' + 10,
                    _ => break,
                };
                overflow |= value >> 60 != 0;
                value = (value << 4) | u64::from(d);
                i += 1;
            }
        } else {
            while let Some(&b) = bytes.get(i) {
                let d = b.wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(d)))
                {
                    Some(v) => value = v,
                    None => overflow = true,
                }
                i += 1;
            }
        }
        if i == start {
            return Err(self.error(expected));
        }
        if overflow || value > max {
            return Err(self.out_of_range(start, i, expected));
        }
        self.pos = i;
        Ok(value)
    }

    #[cold]
    fn out_of_range(&self, start: usize, end: usize, expected: &'static str) -> Error {
        Error::NumberOutOfRange {
            position: self.position(),
            expected,
            found: self
                .text
                .get(start..end)
                .unwrap_or_default()
                .chars()
                .take(40)
                .collect(),
        }
    }

    /// A decimal `u32` (`%u` / `%d` of a serial number).
    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        let v = self.number::<false>("a decimal number (u32)", u64::from(u32::MAX))?;
        Ok(u32::try_from(v).unwrap_or(u32::MAX))
    }

    /// A decimal `u64`.
    #[inline]
    pub(crate) fn u64(&mut self) -> Result<u64, Error> {
        self.number::<false>("a decimal number (u64)", u64::MAX)
    }

    /// A decimal `i64`, with an optional leading `-`.
    #[inline]
    pub(crate) fn i64(&mut self) -> Result<i64, Error> {
        let negative = self.eat("-");
        let v = self.number::<false>("a decimal number (i64)", 1u64 << 63)?;
        if negative {
            Ok(0i64.checked_sub_unsigned(v).unwrap_or(i64::MIN))
        } else {
            i64::try_from(v).map_err(|_| Error::NumberOutOfRange {
                position: self.position(),
                expected: "i64",
                found: v.to_string(),
            })
        }
    }

    /// A hexadecimal `u64` without `0x` (`%x` of an object id).
    #[inline]
    pub(crate) fn hex(&mut self) -> Result<u64, Error> {
        self.number::<true>("a hexadecimal id", u64::MAX)
    }

    /// A percentage written with `%5.2f%%`: returns the number's text without the `%`.
    #[inline]
    pub(crate) fn percent(&mut self) -> Result<&'a str, Error> {
        let rest = self.rest();
        let n = rest
            .bytes()
            .take_while(|&b| b.is_ascii_digit() || b == b'.' || b == b'-')
            .count();
        if n == 0 || rest.as_bytes().get(n) != Some(&b'%') {
            return Err(self.error("a percentage like `12.34%`"));
        }
        self.pos += n + 1;
        Ok(rest.get(..n).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newline_search_matches_naive() {
        let data = b"abcdefghijklmnopq\nrs\n\ntuvwxyz0123456789";
        for start in 0..data.len() {
            let s = &data[start..];
            assert_eq!(
                find_newline(s),
                s.iter().position(|&b| b == b'\n'),
                "start {start}"
            );
        }
    }

    #[test]
    fn lines_report_endings() {
        let mut lines = Lines::new(b"a\r\nb\nc");
        let a = lines.next_line().unwrap();
        assert_eq!(
            (a.bytes, a.ending, a.number),
            (&b"a"[..], Some(LineEnding::CrLf), 1)
        );
        let b = lines.next_line().unwrap();
        assert_eq!(
            (b.bytes, b.ending, b.offset),
            (&b"b"[..], Some(LineEnding::Lf), 3)
        );
        let c = lines.next_line().unwrap();
        assert_eq!((c.bytes, c.ending), (&b"c"[..], None));
        assert!(lines.next_line().is_none());
    }

    #[test]
    fn numbers_overflow_is_an_error() {
        let mut c = Cursor::new("4294967296", 7, 0);
        let e = c.u32().unwrap_err();
        assert!(matches!(
            e,
            Error::NumberOutOfRange {
                position: Position {
                    line: 7,
                    column: 1,
                    ..
                },
                ..
            }
        ));
        let mut c = Cursor::new("-12 x", 1, 0);
        assert_eq!(c.i64().unwrap(), -12);
        let mut c = Cursor::new("-9223372036854775808", 1, 0);
        assert_eq!(c.i64().unwrap(), i64::MIN);
        let mut c = Cursor::new("ffffffffffffffff", 1, 0);
        assert_eq!(c.hex().unwrap(), u64::MAX);
    }
}
