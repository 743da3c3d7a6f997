//! Stack traces (`jdk.types.StackTrace` constants): frames with their method, class,
//! descriptor, line number, bytecode index and frame type, and the truncated flag; decoded
//! from the chunk's constant pools.

use std::borrow::Cow;

use crate::chunk::Chunk;
use crate::error::Result;
use crate::metadata::Metadata;
use crate::value::{Object, Value};

/// A stack trace, innermost frame first (as the recorder writes it).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StackTrace<'a> {
    /// Whether the recorder cut the stack at its depth limit.
    pub truncated: bool,
    /// The frames, innermost first.
    pub frames: Vec<Frame<'a>>,
}

/// One frame of a stack trace.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Frame<'a> {
    /// The method.
    pub method: Method<'a>,
    /// The line number (-1 or 0 when unknown).
    pub line_number: i32,
    /// The bytecode index.
    pub bytecode_index: i32,
    /// How the frame was executing.
    pub frame_type: FrameType<'a>,
}

/// A method of a frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Method<'a> {
    /// The class's name as the recorder writes it (`java/lang/String`).
    pub class: Cow<'a, str>,
    /// The method's name.
    pub name: Cow<'a, str>,
    /// The method's descriptor (`(I)V`).
    pub descriptor: Cow<'a, str>,
    /// The method's modifiers.
    pub modifiers: i32,
    /// Whether the method is hidden (lambda forms and the like).
    pub hidden: bool,
}

impl Method<'_> {
    /// `java.lang.String.indexOf`: the class name with dots, then the method name.
    pub fn qualified_name(&self) -> String {
        let mut s = self.class.replace('/', ".");
        s.push('.');
        s.push_str(&self.name);
        s
    }
}

/// How a frame was executing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum FrameType<'a> {
    /// `Interpreted`.
    Interpreted,
    /// `JIT compiled`.
    JitCompiled,
    /// `Inlined`.
    Inlined,
    /// `Native`.
    Native,
    /// Another description (or none).
    Other(Cow<'a, str>),
}

impl<'a> FrameType<'a> {
    fn from_description(s: Option<Cow<'a, str>>) -> FrameType<'a> {
        match s.as_deref() {
            Some("Interpreted") => FrameType::Interpreted,
            Some("JIT compiled") => FrameType::JitCompiled,
            Some("Inlined") => FrameType::Inlined,
            Some("Native") => FrameType::Native,
            _ => FrameType::Other(s.unwrap_or_default()),
        }
    }

    /// The description as the JDK prints it.
    pub fn as_str(&self) -> &str {
        match self {
            FrameType::Interpreted => "Interpreted",
            FrameType::JitCompiled => "JIT compiled",
            FrameType::Inlined => "Inlined",
            FrameType::Native => "Native",
            FrameType::Other(s) => s,
        }
    }
}

/// The field named `name` of a struct or constant.
pub(crate) fn field<'v, 'a>(md: &Metadata, o: &'v Object<'a>, name: &str) -> Option<&'v Value<'a>> {
    let class = md.classes.get(o.class)?;
    o.fields.get(class.field_index(name)?)
}

fn text<'a>(v: Option<&Value<'a>>) -> Option<Cow<'a, str>> {
    match v {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

impl<'a> Chunk<'a> {
    /// The stack trace with this key in the `jdk.types.StackTrace` pool; `None` if the pool
    /// has no such entry (key 0 is "no stack trace").
    pub fn stack_trace(&self, key: i64) -> Result<Option<StackTrace<'a>>> {
        let Some(class) = self
            .metadata
            .classes
            .iter()
            .position(|c| c.name == "jdk.types.StackTrace")
        else {
            return Ok(None);
        };
        let Value::Object(o) = self.constant(class, key)? else {
            return Ok(None);
        };
        let md = &self.metadata;
        let truncated = matches!(field(md, &o, "truncated"), Some(Value::Boolean(true)));
        let mut frames = Vec::new();
        if let Some(Value::Array(items)) = field(md, &o, "frames") {
            frames.reserve(items.len());
            for item in items {
                let Value::Object(f) = item else { continue };
                frames.push(self.frame(f)?);
            }
        }
        Ok(Some(StackTrace { truncated, frames }))
    }

    fn frame(&self, f: &Object<'a>) -> Result<Frame<'a>> {
        let md = &self.metadata;
        let int = |name| field(md, f, name).and_then(Value::as_i64).unwrap_or(0) as i32;
        let frame_type = match field(md, f, "type") {
            Some(Value::Constant(r)) => {
                FrameType::from_description(text(Some(&self.constant(r.class, r.key)?)))
            }
            other => FrameType::from_description(text(other)),
        };
        let method = match field(md, f, "method") {
            Some(Value::Constant(r)) => self.method(r.class, r.key)?,
            _ => None,
        };
        let method = method.unwrap_or(Method {
            class: Cow::Borrowed(""),
            name: Cow::Borrowed(""),
            descriptor: Cow::Borrowed(""),
            modifiers: 0,
            hidden: false,
        });
        Ok(Frame {
            method,
            line_number: int("lineNumber"),
            bytecode_index: int("bytecodeIndex"),
            frame_type,
        })
    }

    /// The name of the class with this key in the `java.lang.Class` pool, as the recorder
    /// writes it (`java/lang/String`, `[B`); `None` if the pool has no such entry.
    pub fn class_name(&self, key: i64) -> Result<Option<Cow<'a, str>>> {
        self.name_in_pool("java.lang.Class", key, &["name"])
    }

    /// The name of the thread with this key in the `java.lang.Thread` pool: its Java name,
    /// else its OS name; `None` if the pool has no such entry.
    pub fn thread_name(&self, key: i64) -> Result<Option<Cow<'a, str>>> {
        self.name_in_pool("java.lang.Thread", key, &["javaName", "osName"])
    }

    fn name_in_pool(&self, pool: &str, key: i64, fields: &[&str]) -> Result<Option<Cow<'a, str>>> {
        let Some(class) = self.metadata.classes.iter().position(|c| c.name == pool) else {
            return Ok(None);
        };
        let Value::Object(o) = self.constant(class, key)? else {
            return Ok(None);
        };
        for name in fields {
            let v = match field(&self.metadata, &o, name) {
                Some(v @ Value::Constant(_)) => self.resolve(v.clone())?,
                Some(v) => v.clone(),
                None => continue,
            };
            if let Value::String(s) = v {
                return Ok(Some(s));
            }
        }
        Ok(None)
    }

    /// The method with this key in the pool of the class at index `class` (`jdk.types.Method`).
    pub fn method(&self, class: usize, key: i64) -> Result<Option<Method<'a>>> {
        let Value::Object(m) = self.constant(class, key)? else {
            return Ok(None);
        };
        let md = &self.metadata;
        let resolve_text = |v: Option<&Value<'a>>| -> Result<Cow<'a, str>> {
            Ok(match v {
                Some(Value::Constant(r)) => {
                    text(Some(&self.resolve(Value::Constant(*r))?)).unwrap_or_default()
                }
                other => text(other).unwrap_or_default(),
            })
        };
        let class_name = match field(md, &m, "type") {
            Some(Value::Constant(r)) => match self.constant(r.class, r.key)? {
                Value::Object(c) => resolve_text(field(md, &c, "name"))?,
                _ => Cow::Borrowed(""),
            },
            _ => Cow::Borrowed(""),
        };
        Ok(Some(Method {
            class: class_name,
            name: resolve_text(field(md, &m, "name"))?,
            descriptor: resolve_text(field(md, &m, "descriptor"))?,
            modifiers: field(md, &m, "modifiers")
                .and_then(Value::as_i64)
                .unwrap_or(0) as i32,
            hidden: matches!(field(md, &m, "hidden"), Some(Value::Boolean(true))),
        }))
    }
}
