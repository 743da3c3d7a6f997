//! The one cursor every text parser in this crate reads through: lines of a report (LF or CRLF,
//! with or without a final line break) and the tree prefix that opens each tree line
//! (`points-to-analysis-reports.ja.txt`, "TXT形式"; `iprof-pointsto.md` §2.2 and §2.6).

use crate::error::{Error, Result};

pub(crate) use crate::style::{
    Charset, Indent, LineEnding, MARK_CHILD, MARK_LAST, Marker, TextStyle, UNIT_BAR, UNIT_SPACE,
    marker_str, write_indent, write_marker,
};

/// The tree prefix of a line: indentation units, then a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prefix<'a> {
    /// Number of indentation units before the marker.
    pub(crate) depth: usize,
    /// The indentation units, verbatim.
    pub(crate) indent: Indent<'a>,
    /// The marker.
    pub(crate) marker: Marker,
    /// Byte offset of the text after the marker.
    pub(crate) rest: usize,
}

/// Splits a tree prefix off `line`; `None` when the line does not start with one.
pub(crate) fn split_prefix(bytes: &[u8]) -> Option<Prefix<'_>> {
    let mut at = 0usize;
    let mut depth = 0usize;
    loop {
        let tail = bytes.get(at..)?;
        let (width, marker) = match tail.first()? {
            b' ' if tail.starts_with(b"    ") => (4, None),
            b'?' if tail.starts_with(b"?   ") => (4, None),
            b'?' if tail.starts_with(b"??? ") => (4, Some(Marker::Mangled)),
            0xE2 if tail.starts_with(UNIT_BAR.as_bytes()) => (UNIT_BAR.len(), None),
            0xE2 if tail.starts_with(MARK_CHILD.as_bytes()) => {
                (MARK_CHILD.len(), Some(Marker::Child))
            }
            0xE2 if tail.starts_with(MARK_LAST.as_bytes()) => {
                (MARK_LAST.len(), Some(Marker::LastChild))
            }
            _ => return None,
        };
        if let Some(marker) = marker {
            let indent = Indent {
                bytes: bytes.get(..at)?,
            };
            return Some(Prefix {
                depth,
                indent,
                marker,
                rest: at + width,
            });
        }
        at += width;
        depth += 1;
    }
}

/// Where the first line of `rest` ends: the length of its text (without the line break),
/// where the next line starts, and the line break (`None` for a last line without one).
fn split_line(rest: &[u8]) -> (usize, usize, Option<LineEnding>) {
    match memchr::memchr(b'\n', rest) {
        Some(end) => match LineEnding::of_break(rest, end) {
            LineEnding::CrLf => (end - 1, end + 1, Some(LineEnding::CrLf)),
            LineEnding::Lf => (end, end + 1, Some(LineEnding::Lf)),
        },
        None => (rest.len(), rest.len(), None),
    }
}

/// One line of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub(crate) number: u64,
    /// The text without its line break.
    pub(crate) text: &'a str,
    /// The line break that ended it (`None` for a last line without one).
    pub(crate) ending: Option<LineEnding>,
}

/// A cursor over the lines of a text report.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'a> {
    rest: &'a str,
    number: u64,
}

impl<'a> Lines<'a> {
    /// A cursor at the first line of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            rest: text,
            number: 0,
        }
    }

    /// Checks that `bytes` are UTF-8 and returns a cursor over them.
    pub(crate) fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Self::new(text)),
            Err(error) => {
                let valid = bytes.get(..error.valid_up_to()).unwrap_or_default();
                let line = valid.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                let column = (error.valid_up_to() - line_start) as u64 + 1;
                Err(Error::Utf8 { line, column })
            }
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        self.number += 1;
        let (len, next, ending) = split_line(self.rest.as_bytes());
        // `len` and `next` sit next to `\r`/`\n` or at the end: character boundaries.
        let text = self.rest.get(..len).unwrap_or_default();
        self.rest = self.rest.get(next..).unwrap_or_default();
        Some(Line {
            number: self.number,
            text,
            ending,
        })
    }
}

/// One line of a report, not yet checked to be UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ByteLine<'a> {
    /// 1-based line number.
    pub(crate) number: u64,
    /// The bytes without the line break.
    pub(crate) bytes: &'a [u8],
    /// The line break that ended it (`None` for a last line without one).
    pub(crate) ending: Option<LineEnding>,
}

impl ByteLine<'_> {
    /// The line for an error message (invalid UTF-8 replaced).
    pub(crate) fn lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.bytes)
    }
}

/// A cursor over the lines of a report that checks UTF-8 line by line, so that the
/// (multi-byte) tree prefixes, matched byte for byte, are never validated twice.
#[derive(Debug, Clone)]
pub(crate) struct ByteLines<'a> {
    pub(crate) rest: &'a [u8],
    pub(crate) number: u64,
}

impl<'a> ByteLines<'a> {
    /// A cursor at the first line of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self {
            rest: bytes,
            number: 0,
        }
    }

    /// The number of the line returned last (0 before the first).
    pub(crate) fn line_number(&self) -> u64 {
        self.number
    }
}

impl<'a> Iterator for ByteLines<'a> {
    type Item = ByteLine<'a>;

    fn next(&mut self) -> Option<ByteLine<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        self.number += 1;
        let (len, next, ending) = split_line(self.rest);
        let bytes = self.rest.get(..len).unwrap_or_default();
        self.rest = self.rest.get(next..).unwrap_or_default();
        Some(ByteLine {
            number: self.number,
            bytes,
            ending,
        })
    }
}

/// The cursor behind the public line readers: [`ByteLines`] parsed one line at a time, that
/// stops for good after the first error.
///
/// It also rejects what a cut-off report looks like: an empty input, and a last line without
/// its line break (the printers end every line with one, so the input ended inside that line).
#[derive(Debug, Clone)]
pub(crate) struct ParsedLines<'a> {
    lines: ByteLines<'a>,
    failed: bool,
    /// What the first line should be, for the error on an empty input.
    first: &'static str,
}

/// What a report's last line lacks when the input ends inside it.
pub(crate) const LINE_BREAK: &str =
    "the rest of the line and its line break (the report ends inside this line)";

impl<'a> ParsedLines<'a> {
    /// A cursor at the first line of `bytes`; `first` says what the first line should be.
    pub(crate) fn new(bytes: &'a [u8], first: &'static str) -> Self {
        Self {
            lines: ByteLines::new(bytes),
            failed: bytes.is_empty(),
            first,
        }
    }

    /// The number of the line returned last (0 before the first).
    pub(crate) fn line_number(&self) -> u64 {
        self.lines.line_number()
    }

    /// The next line's number and `parse(number, bytes)`; `None` at the end or after an error.
    pub(crate) fn next_with<T>(
        &mut self,
        parse: impl FnOnce(u64, &'a [u8]) -> Result<T>,
    ) -> Option<Result<(u64, T)>> {
        if self.failed {
            if self.lines.number == 0 && self.lines.rest.is_empty() {
                // An empty input: say so once.
                self.lines.number = 1;
                return Some(Err(Error::Truncated {
                    line: 1,
                    column: 1,
                    expected: self.first,
                }));
            }
            return None;
        }
        let line = self.lines.next()?;
        let parsed = match cut_off(&line) {
            Some(error) => Err(error),
            None => parse(line.number, line.bytes).map(|l| (line.number, l)),
        };
        self.failed = parsed.is_err();
        Some(parsed)
    }
}

/// The error for a last line that has text but no line break: the input ended inside it.
/// A line that is not UTF-8 (other than a character cut at its end) is left to the parser,
/// which says where the bytes stop being text.
pub(crate) fn cut_off(line: &ByteLine<'_>) -> Option<Error> {
    let text = std::str::from_utf8(line.bytes).map_or_else(|e| e.error_len().is_none(), |_| true);
    (line.ending.is_none() && !line.bytes.is_empty() && text).then(|| Error::Truncated {
        line: line.number,
        column: line.bytes.len() as u64 + 1,
        expected: LINE_BREAK,
    })
}

/// Where a line that starts like a tree prefix (a box-drawing character) stops being one:
/// the 1-based column after its whole indentation units, or `None` when the line does not
/// start with a box-drawing character (U+2500–U+257F).
pub(crate) fn broken_prefix(bytes: &[u8]) -> Option<u64> {
    if !matches!(bytes, [0xE2, 0x94 | 0x95, ..]) {
        return None;
    }
    let mut at = 0usize;
    loop {
        let tail = bytes.get(at..).unwrap_or_default();
        if tail.starts_with(UNIT_BAR.as_bytes()) {
            at += UNIT_BAR.len();
        } else if tail.starts_with(UNIT_SPACE.as_bytes()) {
            at += UNIT_SPACE.len();
        } else {
            return Some(at as u64 + 1);
        }
    }
}

/// Checks that `bytes` (part of line `line`, starting at byte `offset` of it) are UTF-8.
pub(crate) fn utf8(line: u64, offset: usize, bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|error| Error::Utf8 {
        line,
        column: (offset + error.valid_up_to()) as u64 + 1,
    })
}

/// Tracks the [`TextStyle`] of a report while its lines go by.
#[derive(Debug, Clone, Default)]
pub(crate) struct StyleTracker {
    line_ending: Option<LineEnding>,
    charset: Option<Charset>,
    empty_run: u32,
    final_line_break: bool,
}

impl StyleTracker {
    /// Notes one line; `marker` is the line's tree marker, if any.
    pub(crate) fn line(&mut self, empty: bool, ending: Option<LineEnding>, marker: Option<Marker>) {
        if self.line_ending.is_none() {
            self.line_ending = ending;
        }
        if self.charset.is_none() {
            self.charset = marker.map(|m| match m {
                Marker::Mangled => Charset::Mangled,
                Marker::Child | Marker::LastChild => Charset::BoxDrawing,
            });
        }
        if empty {
            self.empty_run += 1;
        } else {
            self.empty_run = 0;
        }
        self.final_line_break = ending.is_some();
    }

    /// The style seen.
    pub(crate) fn finish(&self) -> TextStyle {
        TextStyle {
            line_ending: self.line_ending.unwrap_or_default(),
            charset: self.charset.unwrap_or_default(),
            trailing_empty_lines: self.empty_run,
            final_line_break: self.final_line_break,
        }
    }
}

/// Parses an unsigned decimal id (`id=<N>`, `[<i>]`).
pub(crate) fn parse_u64(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for b in text.bytes() {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(value)
}

/// The 1-based byte column of the token after `part` (a subslice of `line`) and one space.
pub(crate) fn column_after(line: &[u8], part: &str) -> u64 {
    column_of(line, part) + part.len() as u64 + 1
}

/// The 1-based byte column where `part` (a subslice of `line`) starts.
pub(crate) fn column_of(line: &[u8], part: &str) -> u64 {
    let offset = (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    offset.min(line.len()) as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::IndentUnit;

    #[test]
    fn prefixes() {
        let line = "│   └── directly calls x";
        let p = split_prefix(line.as_bytes()).unwrap();
        assert_eq!(
            (p.depth, p.marker, &line[p.rest..]),
            (1, Marker::LastChild, "directly calls x")
        );
        assert_eq!(p.indent.units().collect::<Vec<_>>(), [IndentUnit::Bar]);
        let p = split_prefix(b"?       ??? x").unwrap();
        assert_eq!((p.depth, p.marker), (2, Marker::Mangled));
        assert_eq!(
            p.indent.units().collect::<Vec<_>>(),
            [IndentUnit::MangledBar, IndentUnit::Space]
        );
        assert_eq!(p.indent.last(), Some(IndentUnit::Space));
        assert!(split_prefix(b"VM Entry Points").is_none());
        assert!(split_prefix(b"at foo").is_none());
        assert!(split_prefix(b"    ").is_none());
    }

    #[test]
    fn lines_and_endings() {
        let lines: Vec<_> = Lines::new("a\r\nb\n\nc")
            .map(|l| (l.text, l.ending))
            .collect();
        assert_eq!(
            lines,
            [
                ("a", Some(LineEnding::CrLf)),
                ("b", Some(LineEnding::Lf)),
                ("", Some(LineEnding::Lf)),
                ("c", None)
            ]
        );
        assert_eq!(
            Lines::from_bytes(b"ok\nb\xffd").unwrap_err(),
            Error::Utf8 { line: 2, column: 2 }
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64("18446744073709551616"), None);
    }
}
