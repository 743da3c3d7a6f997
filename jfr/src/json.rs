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

/// Appends `event` to `out` as one JSON object on one line.
pub fn write_event(event: &Event<'_, '_>, options: &JsonOptions, out: &mut String) -> Result<()> {
    let values = event.values()?;
    let chunk = event.chunk();
    let Some(class) = event.class() else {
        return Err(Error::invalid(
            "event type",
            "a declared type",
            event.type_id(),
            event.offset() as u64,
        ));
    };
    let w = Writer {
        chunk,
        options,
        offset_seconds: offset_seconds(chunk),
    };
    out.push_str("{\"type\": ");
    string(out, &class.name);
    out.push_str(", \"values\": {");
    for (i, (f, v)) in class.fields.iter().zip(values.fields).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        string(out, &f.name);
        out.push_str(": ");
        w.field(out, f, v, 0)?;
    }
    out.push_str("}}");
    Ok(())
}

/// The time-zone offset the JDK prints times with: the metadata's `gmtOffset`, in whole
/// seconds, if it is one `ZoneOffset` accepts (±18 h), else UTC.
fn offset_seconds(chunk: &Chunk<'_>) -> i32 {
    match chunk.metadata.region.gmt_offset_ms.map(|ms| ms / 1000) {
        Some(s) if (-18 * 3600..=18 * 3600).contains(&s) => s as i32,
        _ => 0,
    }
}

struct Writer<'w, 'c, 'a> {
    chunk: &'c Chunk<'a>,
    options: &'w JsonOptions,
    offset_seconds: i32,
}

impl<'a> Writer<'_, '_, 'a> {
    fn field(&self, out: &mut String, f: &Field, v: Value<'a>, depth: usize) -> Result<()> {
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
                let v = self.chunk.constant(r.class, r.key)?;
                self.field(out, f, v, depth + 1)
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

    fn is_frame_array(&self, f: &Field) -> bool {
        self.chunk
            .metadata
            .class(f.class_id)
            .is_some_and(|c| c.name == "jdk.types.StackFrame")
    }

    fn element(&self, out: &mut String, f: &Field, v: Value<'a>, depth: usize) -> Result<()> {
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
                        let _ = write!(out, "{n}");
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

/// A JSON string with the escapes the JDK's JSON writer uses (`/` included).
pub(crate) fn string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
