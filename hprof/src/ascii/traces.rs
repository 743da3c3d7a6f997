//! `TRACE n:` blocks and their frame lines (hprof.md §2.2 "TRACE"; hprof_io.c
//! `io_write_trace_header`, `io_write_trace_elem`).

use super::cursor::Cursor;
use super::error::Error;
use crate::binary::types::{StackTraceSerial, ThreadSerial};

/// `TRACE 300001:`, `TRACE 1073: (thread=1)`, `TRACE 5: (thread=2) (from live phase of JVM)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TraceHeader<S> {
    /// Trace serial number, referenced by sites, CPU rows, monitor rows and heap records.
    pub serial: StackTraceSerial,
    /// The thread serial number, printed only with `thread=y`.
    pub thread: Option<ThreadSerial>,
    /// The JVM phase (`from %s phase of JVM`), printed for traces recorded before VM init.
    pub phase: Option<S>,
}

impl<'a> TraceHeader<&'a str> {
    /// Parses the line after `TRACE `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let serial = c.u32()?;
        c.expect(":")?;
        let thread = if c.eat(" (thread=") {
            let t = c.u32()?;
            c.expect(")")?;
            Some(ThreadSerial(t))
        } else {
            None
        };
        let phase = if c.eat(" (from ") {
            let rest = c.rest();
            let Some(p) = rest.strip_suffix(" phase of JVM)") else {
                return Err(c.error("`(from <phase> phase of JVM)`"));
            };
            c.take_rest();
            Some(p)
        } else {
            None
        };
        c.finish()?;
        Ok(TraceHeader {
            serial: StackTraceSerial(serial),
            thread,
            phase,
        })
    }
}

impl<S: AsRef<str>> TraceHeader<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "TRACE {}:", self.serial);
        if let Some(t) = self.thread {
            let _ = write!(out, " (thread={t})");
        }
        if let Some(p) = &self.phase {
            let _ = write!(out, " (from {} phase of JVM)", p.as_ref());
        }
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> TraceHeader<String> {
        TraceHeader {
            serial: self.serial,
            thread: self.thread,
            phase: self.phase.map(|p| p.as_ref().to_owned()),
        }
    }
}

/// The line part of a frame: what follows the last `:` inside the parentheses.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LineNumber<S> {
    /// A source line number.
    Line(u32),
    /// `Unknown line` (line number -1).
    Unknown,
    /// `Compiled method` (-2).
    Compiled,
    /// `Native method` (-3).
    Native,
    /// No `:` in the parentheses (`StackTraceElement` style: `(Native Method)`,
    /// `(Unknown Source)`, `(Foo.java)`).
    Absent,
    /// Any other text after the `:`, kept as written.
    Other(S),
}

/// One frame line of a trace: `\tjava.lang.Thread.<init>(Thread.java:534)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame<S> {
    /// Class and method, `pkg.Class.method` (`<Unknown Method>` when the agent had no name;
    /// JVMPI-era files use `/` in class names and may have an empty method name).
    pub method: S,
    /// Source file name, `<Unknown Source>` when unknown; for [`LineNumber::Absent`] the whole
    /// text inside the parentheses.
    pub source: S,
    /// The line part.
    pub line: LineNumber<S>,
}

impl<'a> Frame<&'a str> {
    /// Parses a frame line after its leading tab.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let text = c.rest();
        let Some(inner_end) = text.len().checked_sub(1).filter(|_| text.ends_with(')')) else {
            return Err(c.error("a frame `class.method(File.java:line)`"));
        };
        let Some(open) = text.get(..inner_end).and_then(|t| t.rfind('(')) else {
            return Err(c.error("a frame `class.method(File.java:line)`"));
        };
        let method = text.get(..open).unwrap_or_default();
        let inner = text.get(open + 1..inner_end).unwrap_or_default();
        let (source, line) = match inner.rfind(':') {
            Some(colon) => {
                let source = inner.get(..colon).unwrap_or_default();
                let line_text = inner.get(colon + 1..).unwrap_or_default();
                (source, LineNumber::from_text(line_text))
            }
            None => (inner, LineNumber::Absent),
        };
        c.take_rest();
        Ok(Frame {
            method,
            source,
            line,
        })
    }
}

impl<'a> LineNumber<&'a str> {
    fn from_text(text: &'a str) -> Self {
        match text {
            "Unknown line" => LineNumber::Unknown,
            "Compiled method" => LineNumber::Compiled,
            "Native method" => LineNumber::Native,
            _ => {
                let canonical = !text.is_empty()
                    && text.bytes().all(|b| b.is_ascii_digit())
                    && (text == "0" || !text.starts_with('0'));
                match text.parse::<u32>() {
                    Ok(n) if canonical => LineNumber::Line(n),
                    _ => LineNumber::Other(text),
                }
            }
        }
    }
}

impl<S: AsRef<str>> LineNumber<S> {
    /// A copy that owns its text.
    pub fn into_owned(self) -> LineNumber<String> {
        match self {
            LineNumber::Line(n) => LineNumber::Line(n),
            LineNumber::Unknown => LineNumber::Unknown,
            LineNumber::Compiled => LineNumber::Compiled,
            LineNumber::Native => LineNumber::Native,
            LineNumber::Absent => LineNumber::Absent,
            LineNumber::Other(s) => LineNumber::Other(s.as_ref().to_owned()),
        }
    }
}

impl<S: AsRef<str>> Frame<S> {
    /// Writes the line (without line ending), including its leading tab.
    pub fn write_to(&self, out: &mut String) {
        use std::fmt::Write;
        out.push('\t');
        out.push_str(self.method.as_ref());
        out.push('(');
        out.push_str(self.source.as_ref());
        match &self.line {
            LineNumber::Line(n) => {
                let _ = write!(out, ":{n}");
            }
            LineNumber::Unknown => out.push_str(":Unknown line"),
            LineNumber::Compiled => out.push_str(":Compiled method"),
            LineNumber::Native => out.push_str(":Native method"),
            LineNumber::Absent => {}
            LineNumber::Other(s) => {
                out.push(':');
                out.push_str(s.as_ref());
            }
        }
        out.push(')');
    }

    /// The class part of [`method`](Self::method) (before the last `.`).
    pub fn class_name(&self) -> &str {
        let m = self.method.as_ref();
        m.rfind('.').and_then(|i| m.get(..i)).unwrap_or_default()
    }

    /// The method name (after the last `.`).
    pub fn method_name(&self) -> &str {
        let m = self.method.as_ref();
        m.rfind('.').and_then(|i| m.get(i + 1..)).unwrap_or(m)
    }

    /// Whether this frame is in a native method (either dialect).
    pub fn is_native(&self) -> bool {
        matches!(self.line, LineNumber::Native)
            || (matches!(self.line, LineNumber::Absent) && self.source.as_ref() == "Native Method")
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> Frame<String> {
        Frame {
            method: self.method.as_ref().to_owned(),
            source: self.source.as_ref().to_owned(),
            line: self.line.into_owned(),
        }
    }
}
