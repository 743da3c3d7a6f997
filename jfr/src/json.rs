//! Events as `jfr print --json` prints them: one element of its `recording.events` array,
//! `{"type": …, "values": {…}}`, with the same field names and nesting, durations and times
//! spelled as `java.time` spells them, constants resolved, simple types (frame types,
//! symbols) standing for their one field, and stack traces cut to a number of frames.

use std::fmt::Write;

use crate::chunk::Chunk;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::metadata::{Field, Unit};
use crate::time::{Duration, Timestamp};
use crate::value::{MAX_DEPTH, Value};

/// How events are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonOptions {
    /// How many frames of each stack trace to print (`jfr print --stack-depth`, 5 by default).
    pub stack_depth: usize,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions { stack_depth: 5 }
    }
}

/// Most bytes one event's JSON may take: constants that refer to other constants many times
/// over could otherwise spell out an exponentially large tree.
const MAX_EVENT_JSON: usize = 64 << 20;

/// Appends `event` to `out` as one JSON object on one line. To print many events of one
/// chunk, an [`EventPrinter`] renders each constant (a thread, a stack trace) once.
pub fn write_event(event: &Event<'_, '_>, options: &JsonOptions, out: &mut String) -> Result<()> {
    EventPrinter::new(event.chunk(), *options).write(event, out)
}

/// Prints the events of one chunk as [`write_event`] does, rendering each object constant
/// (threads, stack traces, methods, classes) once and reusing the text.
#[derive(Debug)]
pub struct EventPrinter<'c, 'a> {
    chunk: &'c Chunk<'a>,
    options: JsonOptions,
    offset_seconds: i32,
    rendered: crate::idmap::IdMap<String>,
    limit: usize,
}

impl<'c, 'a> EventPrinter<'c, 'a> {
    /// A printer for the events of `chunk`.
    pub fn new(chunk: &'c Chunk<'a>, options: JsonOptions) -> Self {
        EventPrinter {
            chunk,
            options,
            offset_seconds: offset_seconds(chunk),
            rendered: crate::idmap::IdMap::default(),
            limit: 0,
        }
    }

    /// Appends `event` (an event of the printer's chunk) to `out` as one JSON object.
    pub fn write(&mut self, event: &Event<'_, 'a>, out: &mut String) -> Result<()> {
        if !std::ptr::eq(event.chunk(), self.chunk) {
            return EventPrinter::new(event.chunk(), self.options).write(event, out);
        }
        let values = event.values()?;
        let Some(class) = event.class() else {
            return Err(Error::invalid(
                "event type",
                "a declared type",
                event.type_id(),
                event.offset() as u64,
            ));
        };
        self.limit = out.len().saturating_add(MAX_EVENT_JSON);
        out.push_str("{\"type\": ");
        string(out, &class.name);
        out.push_str(", \"values\": {");
        for (i, (f, v)) in class.fields.iter().zip(values.fields).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            string(out, &f.name);
            out.push_str(": ");
            self.field(out, f, v, 0)?;
        }
        out.push_str("}}");
        Ok(())
    }
}

/// The time-zone offset the JDK prints times with: the metadata's `gmtOffset`, in whole
/// seconds, if it is one `ZoneOffset` accepts (±18 h), else UTC.
fn offset_seconds(chunk: &Chunk<'_>) -> i32 {
    match chunk.metadata.region.gmt_offset_ms.map(|ms| ms / 1000) {
        Some(s) if (-18 * 3600..=18 * 3600).contains(&s) => s as i32,
        _ => 0,
    }
}

impl<'a> EventPrinter<'_, 'a> {
    fn field(&mut self, out: &mut String, f: &Field, v: Value<'a>, depth: usize) -> Result<()> {
        self.check_size(out)?;
        if depth > MAX_DEPTH * 2 {
            return Err(Error::invalid(
                "constant-pool reference",
                "a chain of at most 64 references",
                "a longer (or circular) chain",
                self.chunk.range().start as u64,
            ));
        }
        match v {
            Value::Constant(r) => {
                let cache_key = ((r.class as u64) << 48) ^ (r.key as u64);
                let cacheable = r.class < 1 << 15 && (r.key as u64) >> 48 == 0;
                if cacheable {
                    if let Some(text) = self.rendered.get(&cache_key) {
                        out.push_str(text);
                        return self.check_size(out);
                    }
                }
                let v = self.chunk.constant(r.class, r.key)?;
                if cacheable && matches!(v, Value::Object(_)) {
                    let mut text = String::new();
                    self.field(&mut text, f, v, depth + 1)?;
                    out.push_str(&text);
                    self.rendered.insert(cache_key, text);
                    self.check_size(out)
                } else {
                    self.field(out, f, v, depth + 1)
                }
            }
            Value::Array(items) => {
                let frames = self.is_frame_array(f);
                out.push('[');
                let mut first = true;
                for (i, item) in items.into_iter().enumerate() {
                    if frames && i >= self.options.stack_depth {
                        break;
                    }
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                    self.element(out, f, item, depth + 1)?;
                }
                out.push(']');
                Ok(())
            }
            v => self.element(out, f, v, depth),
        }
    }

    fn check_size(&self, out: &str) -> Result<()> {
        if out.len() > self.limit {
            return Err(Error::invalid(
                "event",
                "JSON of at most 64 MiB",
                "constants that spell out a larger tree",
                self.chunk.range().start as u64,
            ));
        }
        Ok(())
    }

    fn is_frame_array(&self, f: &Field) -> bool {
        self.chunk
            .metadata
            .class(f.class_id)
            .is_some_and(|c| c.name == "jdk.types.StackFrame")
    }

    fn element(&mut self, out: &mut String, f: &Field, v: Value<'a>, depth: usize) -> Result<()> {
        let h = &self.chunk.header;
        match v {
            Value::Constant(_) | Value::Array(_) => self.field(out, f, v, depth + 1)?,
            Value::Null => out.push_str("null"),
            Value::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
            Value::Char(c) => string(out, &String::from_utf16_lossy(&[c])),
            Value::Float(x) => float(out, f64::from(x), &format!("{x:?}")),
            Value::Double(x) => float(out, x, &format!("{x:?}")),
            Value::String(s) => string(out, &s),
            Value::Object(o) => {
                let Some(class) = self.chunk.metadata.classes.get(o.class) else {
                    out.push_str("null");
                    return Ok(());
                };
                out.push('{');
                for (i, (cf, cv)) in class.fields.iter().zip(o.fields).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    string(out, &cf.name);
                    out.push_str(": ");
                    self.field(out, cf, cv, depth + 1)?;
                }
                out.push('}');
            }
            v => {
                let n = v.as_i64().unwrap_or(0);
                match f.unit {
                    Some(unit @ (Unit::TimestampTicks | Unit::TimestampMillis)) => {
                        if let Some(t) = Timestamp::of_field(h, unit, n, self.offset_seconds) {
                            let _ = write!(out, "\"{t}\"");
                        }
                    }
                    Some(unit) => {
                        if let Some(d) = Duration::of_field(h, unit, n) {
                            let _ = write!(out, "\"{d}\"");
                        }
                    }
                    None => {
                        push_i64(out, n);
                    }
                }
            }
        }
        Ok(())
    }
}

fn float(out: &mut String, x: f64, text: &str) {
    if x.is_finite() {
        out.push_str(text);
    } else {
        // Not a JSON number: quoted, in Java's spelling.
        out.push_str(if x.is_nan() {
            "\"NaN\""
        } else if x > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    }
}

/// Appends `n` in decimal (what `write!` does, without the formatting machinery).
fn push_i64(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut v = n.unsigned_abs();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || at == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    for &d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// A JSON string with the escapes the JDK's JSON writer uses (`/` included). Runs of bytes
/// that need no escape are copied whole.
pub(crate) fn string(out: &mut String, s: &str) {
    out.push('"');
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'/' => "\\/",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(s.get(run..i).unwrap_or_default());
        if escape.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(s.get(run..).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn integers() {
        for n in [0, 7, -7, 10, 1234567890, i64::MAX, i64::MIN] {
            let mut out = String::new();
            super::push_i64(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn escapes_as_the_jdk() {
        let mut out = String::new();
        super::string(&mut out, "a/b\"c\\d\ne\u{1}f\u{e9}g");
        assert_eq!(
            out,
            r#""a\/b\"c\\d\ne\u0001f\u{e9}g""#.replace("\\u{e9}", "\u{e9}")
        );
    }
}
