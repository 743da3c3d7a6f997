//! The streaming reader: a line-oriented state machine keyed on the section markers of
//! hprof.md §2 (`THREAD START`, `TRACE n:`, `HEAP DUMP BEGIN`, `SITES BEGIN`, `CPU SAMPLES BEGIN`,
//! `CPU TIME (ms) BEGIN`, `MONITOR DUMP BEGIN`, `MONITOR TIME BEGIN`, their `END` lines, …)
//! that yields one zero-copy [`Entry`] per line with its position.

use super::cpu::{CpuBegin, CpuKind, CpuRow, OLD_CPU_HEADER, OldCpuRow};
use super::cursor::{Cursor, LineEnding, Lines, RawLine};
use super::entry::{Entry, Located, Section, Truncation};
use super::error::{Error, Position};
use super::header::{FileHeader, SEPARATOR};
use super::heap_dump::{
    ArrayDump, ArrayElement, ClassDump, ClassRef, FieldRef, HeapDumpBegin, InstanceDump, Root,
};
use super::monitor::{
    MonitorEvent, MonitorHeader, MonitorOwner, MonitorThread, MonitorTimeBegin, MonitorTimeRow,
    WaitingKind, WaitingList,
};
use super::sites::{Site, SitesBegin};
use super::threads::{ThreadEnd, ThreadStart};
use super::traces::{Frame, TraceHeader};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeapSub {
    None,
    Class,
    Instance,
    ObjectArray,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Prelude,
    Body,
    Trace,
    Heap(HeapSub),
    Sites,
    Cpu(CpuKind),
    OldCpu,
    MonitorDump { in_monitor: bool },
    MonitorTime,
    Done,
}

/// Streams the entries of a report, lazily, one line at a time, without copying text.
///
/// `next_entry` (and the [`Iterator`] impl) returns `Err` for a malformed line; the reader has
/// then already stepped past that line, so calling it again continues with the next one. A
/// report that ends early ends with [`Entry::Truncated`].
///
/// ```
/// use hprof::ascii::{Entry, Reader};
///
/// let text = b"THREAD START (obj=1, id = 2, name=\"main\", group=\"main\")\nTRACE 7:\n\tA.b(A.java:3)\n";
/// let mut frames = 0;
/// for item in Reader::new(text) {
///     let item = item?;
///     if let Entry::Frame(f) = item.entry {
///         assert_eq!((f.method, item.position.line), ("A.b", 3));
///         frames += 1;
///     }
/// }
/// assert_eq!(frames, 1);
/// # Ok::<(), hprof::ascii::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    lines: Lines<'a>,
    /// The whole input as text when it is valid UTF-8 (checked once, up front), so lines are
    /// sliced from it without validating each one.
    text: Option<&'a str>,
    state: State,
    pending: Option<Located<Entry<'a>>>,
    line_ending: Option<LineEnding>,
    /// More input follows this slice: stop before an unterminated last line instead of
    /// reporting truncation.
    partial: bool,
}

/// Where a [`Reader`] stopped, to continue with the next chunk of a report
/// ([`Reader::state`], [`Reader::resume`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderState {
    state: State,
    line: usize,
    offset: usize,
    line_ending: Option<LineEnding>,
}

impl<'a> Reader<'a> {
    /// A reader over a whole report (or any prefix of one).
    pub fn new(input: &'a [u8]) -> Self {
        Reader {
            lines: Lines::new(input),
            text: std::str::from_utf8(input).ok(),
            state: State::Start,
            pending: None,
            line_ending: None,
            partial: false,
        }
    }

    /// Continues a report in chunks: `input` must start where the previous reader stopped
    /// (its unconsumed bytes, see [`consumed`](Self::consumed), followed by new bytes).
    /// Positions continue from the previous chunk.
    ///
    /// ```
    /// use hprof::ascii::{Entry, Reader};
    ///
    /// let report = b"THREAD END (id = 1)\nTHREAD END (id = 2)\nTHREAD END (id = 3)\n";
    /// let (first, second) = report.split_at(25); // cuts the second line
    /// let mut reader = Reader::new(first).partial();
    /// assert!(matches!(reader.next().unwrap()?.entry, Entry::ThreadEnd(_)));
    /// assert!(reader.next().is_none()); // needs more input
    /// let mut next = reader.consumed_rest().to_vec();
    /// next.extend_from_slice(second);
    /// let state = reader.state();
    /// let lines: Vec<usize> = Reader::resume(&next, state).map(|e| e.map(|e| e.position.line)).collect::<Result<_, _>>()?;
    /// assert_eq!(lines, [2, 3]);
    /// # Ok::<(), hprof::ascii::Error>(())
    /// ```
    pub fn resume(input: &'a [u8], state: ReaderState) -> Self {
        Reader {
            lines: Lines::resume(input, state.offset, state.line),
            text: std::str::from_utf8(input).ok(),
            state: state.state,
            pending: None,
            line_ending: state.line_ending,
            partial: false,
        }
    }

    /// Marks the input as not the end of the report: the reader stops (returns `None`) before
    /// an unterminated last line or an unfinished prelude instead of reporting truncation.
    pub fn partial(mut self) -> Self {
        self.partial = true;
        self
    }

    /// How many bytes of this input have been read (whole lines only).
    pub fn consumed(&self) -> usize {
        self.lines.pos()
    }

    /// The bytes of this input not read yet (to be followed by the next chunk).
    pub fn consumed_rest(&self) -> &'a [u8] {
        self.lines.rest()
    }

    /// Where the reader stands, for [`resume`](Self::resume). Take it after `next` returned
    /// `None`.
    pub fn state(&self) -> ReaderState {
        ReaderState {
            state: self.state,
            line: self.lines.number(),
            offset: self.lines.offset(),
            line_ending: self.line_ending,
        }
    }

    /// The line ending of the first complete line read so far.
    pub fn line_ending(&self) -> Option<LineEnding> {
        self.line_ending
    }

    /// The next entry, `Ok(None)` at the end, or an error for a malformed line.
    #[inline]
    pub fn next_entry(&mut self) -> Result<Option<Located<Entry<'a>>>, Error> {
        self.advance().transpose()
    }

    fn advance(&mut self) -> Option<Result<Located<Entry<'a>>, Error>> {
        if let Some(p) = self.pending.take() {
            return Some(Ok(p));
        }
        match self.state {
            State::Done => return None,
            State::Prelude => return self.read_prelude(),
            _ => {}
        }
        self.advance_line()
    }

    fn advance_line(&mut self) -> Option<Result<Located<Entry<'a>>, Error>> {
        let Some(raw) = self.lines.next_line() else {
            if self.partial {
                return None;
            }
            let open = self.open_section();
            let position = Position {
                line: self.lines.next_number(),
                column: 1,
                offset: self.lines.offset(),
            };
            self.state = State::Done;
            return open.map(|section| {
                Ok(Located {
                    position,
                    entry: Entry::Truncated(Truncation {
                        open_section: Some(section),
                        partial_line: None,
                    }),
                })
            });
        };
        let Some(ending) = raw.ending else {
            if self.partial {
                self.lines.unread(&raw);
                return None;
            }
            let open = self.open_section();
            self.state = State::Done;
            let valid = match std::str::from_utf8(raw.bytes) {
                Ok(t) => t,
                Err(e) => std::str::from_utf8(raw.bytes.get(..e.valid_up_to()).unwrap_or_default())
                    .unwrap_or_default(),
            };
            return Some(Ok(Located {
                position: raw.position(),
                entry: Entry::Truncated(Truncation {
                    open_section: open,
                    partial_line: Some(valid),
                }),
            }));
        };
        if self.line_ending.is_none() {
            self.line_ending = Some(ending);
        }
        let text = match self
            .text
            .and_then(|t| t.get(raw.start..raw.start + raw.bytes.len()))
        {
            Some(t) => t,
            None => match raw.text() {
                Ok(t) => t,
                Err(e) => return Some(Err(e)),
            },
        };
        let mut c = Cursor::new(text, raw.number, raw.offset);
        let position = raw.position();
        Some(
            self.line(text, &mut c)
                .map(|entry| Located { position, entry }),
        )
    }

    fn open_section(&self) -> Option<Section> {
        match self.state {
            State::Prelude => Some(Section::Prelude),
            State::Heap(_) => Some(Section::HeapDump),
            State::Sites => Some(Section::Sites),
            State::Cpu(k) => Some(Section::Cpu(k)),
            State::MonitorDump { .. } => Some(Section::MonitorDump),
            State::MonitorTime => Some(Section::MonitorTime),
            _ => None,
        }
    }

    /// Reads from after the header line up to and including the separator line.
    fn read_prelude(&mut self) -> Option<Result<Located<Entry<'a>>, Error>> {
        let start_abs = self.lines.offset();
        let start = self.lines.pos();
        let start_number = self.lines.number();
        let first: Option<RawLine<'a>> = self.lines.peek();
        let mut sep = None;
        while let Some(raw) = self.lines.next_line() {
            if raw.bytes == SEPARATOR.as_bytes() && raw.ending.is_some() {
                sep = Some(raw);
                break;
            }
        }
        if sep.is_none() && self.partial {
            self.lines.rewind(start, start_number);
            return None;
        }
        let end = sep.map_or(self.lines.pos(), |s| s.start);
        let position = first.map_or(
            Position {
                line: self.lines.next_number(),
                column: 1,
                offset: start_abs,
            },
            |f| f.position(),
        );
        self.state = State::Body;
        let after = match sep {
            Some(s) => Located {
                position: s.position(),
                entry: Entry::Separator,
            },
            None => {
                self.state = State::Done;
                Located {
                    position: Position {
                        line: self.lines.next_number(),
                        column: 1,
                        offset: self.lines.offset(),
                    },
                    entry: Entry::Truncated(Truncation {
                        open_section: Some(Section::Prelude),
                        partial_line: None,
                    }),
                }
            }
        };
        let bytes = self.lines.slice(start, end);
        if bytes.is_empty() {
            return Some(Ok(after));
        }
        self.pending = Some(after);
        Some(match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Located {
                position,
                entry: Entry::Prelude(text),
            }),
            Err(e) => {
                let at = e.valid_up_to();
                let bad = bytes.get(at).copied().unwrap_or(0);
                let line = position.line.saturating_add(
                    bytes
                        .get(..at)
                        .unwrap_or_default()
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count(),
                );
                Err(Error::InvalidUtf8 {
                    position: Position {
                        line,
                        column: 1,
                        offset: start_abs.saturating_add(at),
                    },
                    found: bad,
                })
            }
        })
    }

    fn line(&mut self, text: &'a str, c: &mut Cursor<'a>) -> Result<Entry<'a>, Error> {
        match self.state {
            State::Start => {
                self.state = State::Body;
                if text.starts_with("JAVA PROFILE ") {
                    let h = FileHeader::parse(c)?;
                    self.state = State::Prelude;
                    return Ok(Entry::Header(h));
                }
            }
            State::Trace => {
                if let Some(rest) = text.strip_prefix('\t') {
                    if rest == "<empty>" {
                        return Ok(Entry::EmptyTrace);
                    }
                    c.advance(1);
                    return Frame::parse(c).map(Entry::Frame);
                }
                self.state = State::Body;
            }
            State::Heap(sub) => {
                if text.starts_with('\t') {
                    c.advance(1);
                    return match sub {
                        HeapSub::Class => ClassRef::parse(c).map(Entry::ClassRef),
                        HeapSub::Instance => FieldRef::parse(c).map(Entry::Field),
                        HeapSub::ObjectArray => ArrayElement::parse(c).map(Entry::Element),
                        HeapSub::None => Err(Error::Misplaced {
                            position: c.position(),
                            expected: "a CLS, OBJ or object ARR record",
                            found: "tab-indented reference",
                        }),
                    };
                }
                if let Some(e) = self.heap_record(text, c) {
                    return e;
                }
                if text == "HEAP DUMP END" {
                    self.state = State::Body;
                    return Ok(Entry::HeapDumpEnd);
                }
            }
            State::Sites => {
                if text == "SITES END" {
                    self.state = State::Body;
                    return Ok(Entry::SitesEnd);
                }
                if let Some(e) = table_line(text, c, Site::parse, Entry::Site) {
                    return e;
                }
            }
            State::Cpu(kind) => {
                if text.strip_suffix(" END") == Some(kind.record_name()) {
                    self.state = State::Body;
                    return Ok(Entry::CpuEnd(kind));
                }
                if let Some(e) = table_line(text, c, CpuRow::parse, Entry::CpuRow) {
                    return e;
                }
            }
            State::MonitorTime => {
                if text == "MONITOR TIME END" {
                    self.state = State::Body;
                    return Ok(Entry::MonitorTimeEnd);
                }
                if let Some(e) = table_line(text, c, MonitorTimeRow::parse, Entry::MonitorTimeRow) {
                    return e;
                }
            }
            State::OldCpu => {
                if text.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-') {
                    return OldCpuRow::parse(c).map(Entry::OldCpuRow);
                }
                self.state = State::Body;
            }
            State::MonitorDump { in_monitor } => {
                if text == "MONITOR DUMP END" {
                    self.state = State::Body;
                    return Ok(Entry::MonitorDumpEnd);
                }
                if c.eat("    THREAD ") {
                    self.state = State::MonitorDump { in_monitor: false };
                    return MonitorThread::parse(c).map(Entry::MonitorThread);
                }
                let raw = c.eat("    RAW MONITOR ");
                if raw || c.eat("    MONITOR ") {
                    self.state = State::MonitorDump { in_monitor: true };
                    return MonitorHeader::parse(raw, c).map(Entry::Monitor);
                }
                if text.starts_with('\t') {
                    if !in_monitor {
                        return Err(Error::Misplaced {
                            position: c.position(),
                            expected: "a MONITOR entry",
                            found: "owner or waiting list",
                        });
                    }
                    if c.eat("\towner: thread ") {
                        return MonitorOwner::parse(c).map(Entry::MonitorOwner);
                    }
                    if c.eat("\twaiting to enter:") {
                        return WaitingList::parse(WaitingKind::ToEnter, c).map(Entry::Waiting);
                    }
                    if c.eat("\twaiting to be notified:") {
                        return WaitingList::parse(WaitingKind::ToBeNotified, c)
                            .map(Entry::Waiting);
                    }
                    return Err(c.error(
                        "`\\towner:`, `\\twaiting to enter:` or `\\twaiting to be notified:`",
                    ));
                }
            }
            State::Body | State::Prelude | State::Done => {}
        }
        self.body_line(text, c)
    }

    /// `ROOT`, `CLS`, `OBJ`, `ARR` inside a heap dump.
    fn heap_record(&mut self, text: &str, c: &mut Cursor<'a>) -> Option<Result<Entry<'a>, Error>> {
        if !matches!(text.as_bytes().first(), Some(b'R' | b'C' | b'O' | b'A')) {
            return None;
        }
        let (sub, result) = if c.eat("ROOT ") {
            (HeapSub::None, Root::parse(c).map(Entry::Root))
        } else if c.eat("CLS ") {
            (HeapSub::Class, ClassDump::parse(c).map(Entry::Class))
        } else if c.eat("OBJ ") {
            (
                HeapSub::Instance,
                InstanceDump::parse(c).map(Entry::Instance),
            )
        } else if c.eat("ARR ") {
            let a = ArrayDump::parse(c);
            let sub = match &a {
                Ok(a) if a.class_id.is_some() => HeapSub::ObjectArray,
                _ => HeapSub::None,
            };
            (sub, a.map(Entry::Array))
        } else {
            let _ = text;
            return None;
        };
        self.state = State::Heap(if result.is_ok() { sub } else { HeapSub::None });
        Some(result)
    }

    fn body_line(&mut self, text: &'a str, c: &mut Cursor<'a>) -> Result<Entry<'a>, Error> {
        let Some(&first) = text.as_bytes().first() else {
            return Ok(Entry::Blank);
        };
        if !matches!(
            first,
            b'T' | b'H' | b'S' | b'C' | b'M' | b'W' | b'E' | b'c' | b'-'
        ) {
            return Err(self.unrecognized(text, c));
        }
        if c.eat("THREAD START ") {
            return ThreadStart::parse(c).map(Entry::ThreadStart);
        }
        if c.eat("THREAD END ") {
            return ThreadEnd::parse(c).map(Entry::ThreadEnd);
        }
        if c.eat("TRACE ") {
            let t = TraceHeader::parse(c)?;
            self.state = State::Trace;
            return Ok(Entry::Trace(t));
        }
        if c.eat("HEAP DUMP BEGIN ") {
            let h = HeapDumpBegin::parse(c)?;
            self.state = State::Heap(HeapSub::None);
            return Ok(Entry::HeapDumpBegin(h));
        }
        if c.eat("SITES BEGIN ") {
            let s = SitesBegin::parse(c)?;
            self.state = State::Sites;
            return Ok(Entry::SitesBegin(s));
        }
        for kind in [CpuKind::Samples, CpuKind::Time] {
            let name = kind.record_name();
            if text.starts_with(name)
                && text
                    .get(name.len()..)
                    .is_some_and(|r| r.starts_with(" BEGIN "))
            {
                c.advance(name.len() + 7);
                let b = CpuBegin::parse(kind, c)?;
                self.state = State::Cpu(kind);
                return Ok(Entry::CpuBegin(b));
            }
        }
        if text == "MONITOR DUMP BEGIN" {
            self.state = State::MonitorDump { in_monitor: false };
            return Ok(Entry::MonitorDumpBegin);
        }
        if c.eat("MONITOR TIME BEGIN ") {
            let b = MonitorTimeBegin::parse(c)?;
            self.state = State::MonitorTime;
            return Ok(Entry::MonitorTimeBegin(b));
        }
        for prefix in ["SLEEP: ", "WAIT: ", "WAITED: ", "EXIT: "] {
            if c.eat(prefix) {
                return MonitorEvent::parse(prefix, c).map(Entry::MonitorEvent);
            }
        }
        if text == OLD_CPU_HEADER {
            self.state = State::OldCpu;
            return Ok(Entry::OldCpuHeader);
        }
        if text == SEPARATOR {
            return Ok(Entry::Separator);
        }
        Err(self.unrecognized(text, c))
    }

    /// The error for a line that is no record line here.
    #[cold]
    fn unrecognized(&self, text: &str, c: &Cursor<'a>) -> Error {
        let misplaced = |found: &'static str, expected: &'static str| Error::Misplaced {
            position: c.position(),
            expected,
            found,
        };
        if text.starts_with('\t') {
            return misplaced("tab-indented", "a TRACE block or HEAP DUMP record");
        }
        if ["ROOT ", "CLS ", "OBJ ", "ARR "]
            .iter()
            .any(|p| text.starts_with(p))
            || text == "HEAP DUMP END"
        {
            return misplaced("heap dump", "HEAP DUMP BEGIN … END");
        }
        if text.ends_with(" END") {
            return misplaced("END", "the matching BEGIN");
        }
        if text
            .trim_start()
            .starts_with(|ch: char| ch.is_ascii_digit())
        {
            return misplaced("table row", "a SITES, CPU or MONITOR TIME table");
        }
        c.error("a record line (THREAD, TRACE, HEAP DUMP, SITES, CPU, MONITOR, …)")
    }
}

/// A row or column header of a SITES / CPU / MONITOR TIME table, or `None` for other lines.
fn table_line<'a, T>(
    text: &'a str,
    c: &mut Cursor<'a>,
    parse: fn(&mut Cursor<'a>) -> Result<T, Error>,
    wrap: fn(T) -> Entry<'a>,
) -> Option<Result<Entry<'a>, Error>> {
    let trimmed = text.trim_start();
    if trimmed.starts_with(|ch: char| ch.is_ascii_digit()) {
        return Some(parse(c).map(wrap));
    }
    if trimmed.starts_with("percent") || trimmed.starts_with("rank") {
        return Some(Ok(Entry::ColumnHeader(text)));
    }
    None
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Located<Entry<'a>>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.advance()
    }
}
