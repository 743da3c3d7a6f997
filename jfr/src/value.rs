//! Values as the metadata lays them out: primitives, strings, arrays (a count, then the
//! elements), inline structs (their fields in order) and constant-pool references (a key),
//! decoded generically, or checked and skipped without building anything.

use std::borrow::Cow;

use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::metadata::{Field, FieldKind, Metadata, Op};
use crate::strings::{self, RawString};

/// Deepest nesting of structs inside structs accepted (real recordings nest 2 deep; hostile
/// metadata can declare a struct that contains itself).
pub(crate) const MAX_DEPTH: usize = 32;

/// A decoded value. Strings and byte runs borrow from the input where its bytes allow.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum Value<'a> {
    /// A null string or reference, or a constant the pools do not hold.
    Null,
    /// `boolean`.
    Boolean(bool),
    /// `byte`.
    Byte(i8),
    /// `char` (a UTF-16 unit).
    Char(u16),
    /// `short`.
    Short(i16),
    /// `int`.
    Int(i32),
    /// `long`.
    Long(i64),
    /// `float`.
    Float(f32),
    /// `double`.
    Double(f64),
    /// `java.lang.String`.
    String(Cow<'a, str>),
    /// An array field's elements.
    Array(Vec<Value<'a>>),
    /// A struct, or a constant-pool entry once resolved.
    Object(Object<'a>),
    /// A key into a constant pool, not yet resolved (see [`crate::Chunk::resolve`]).
    Constant(ConstantRef),
}

/// The fields of a struct or constant, in the order of its class's fields.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Object<'a> {
    /// The index of its class in [`Metadata::classes`].
    pub class: usize,
    /// One value per field of the class.
    pub fields: Vec<Value<'a>>,
}

/// A reference into a constant pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ConstantRef {
    /// The index of the pool's class in [`Metadata::classes`].
    pub class: usize,
    /// The entry's key.
    pub key: i64,
}

impl<'a> Value<'a> {
    /// The value as an `i64`, for every integer kind (`char` and `boolean` included).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Boolean(b) => Some(i64::from(b)),
            Value::Byte(v) => Some(i64::from(v)),
            Value::Char(v) => Some(i64::from(v)),
            Value::Short(v) => Some(i64::from(v)),
            Value::Int(v) => Some(i64::from(v)),
            Value::Long(v) => Some(v),
            _ => None,
        }
    }

    /// The value as an `f64`, for every numeric kind.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Float(v) => Some(f64::from(v)),
            Value::Double(v) => Some(v),
            _ => self.as_i64().map(|v| v as f64),
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }
}

fn depth_error(c: &Cursor<'_>) -> Error {
    Error::invalid(
        "struct nesting",
        "at most 32 levels",
        "a deeper (or self-containing) struct",
        c.pos() as u64,
    )
}

/// Reads one value of field `f` (an array if the field is one).
pub(crate) fn read_field<'a>(
    md: &Metadata,
    c: &mut Cursor<'a>,
    f: &Field,
    depth: usize,
) -> Result<Value<'a>> {
    if f.array {
        let n = c.count("array length")?;
        let mut items = Vec::with_capacity(n.min(crate::cursor::PREALLOCATE));
        for _ in 0..n {
            items.push(read_kind(md, c, f.kind, depth)?);
        }
        Ok(Value::Array(items))
    } else {
        read_kind(md, c, f.kind, depth)
    }
}

/// Reads one value of `kind`.
pub(crate) fn read_kind<'a>(
    md: &Metadata,
    c: &mut Cursor<'a>,
    kind: FieldKind,
    depth: usize,
) -> Result<Value<'a>> {
    Ok(match kind {
        FieldKind::Boolean => Value::Boolean(c.u8("boolean")? != 0),
        FieldKind::Byte => Value::Byte(c.u8("byte")? as i8),
        FieldKind::Char => Value::Char(c.short("char")? as u16),
        FieldKind::Short => Value::Short(c.short("short")?),
        FieldKind::Int => Value::Int(c.int("int")?),
        FieldKind::Long => Value::Long(c.long("long")?),
        FieldKind::Float => Value::Float(c.float("float")?),
        FieldKind::Double => Value::Double(c.double("double")?),
        FieldKind::String => match strings::read(c)? {
            RawString::Null => Value::Null,
            RawString::Text(s) => Value::String(s),
            RawString::Constant(key) => match md.string_class {
                Some(class) => Value::Constant(ConstantRef { class, key }),
                None => Value::Null,
            },
        },
        FieldKind::Constant(class) => Value::Constant(ConstantRef {
            class,
            key: c.long("constant-pool key")?,
        }),
        FieldKind::Struct(class) => read_struct(md, c, class, depth + 1)?,
    })
}

/// Reads the fields of the class at `class` (its one field's value for a simple type).
pub(crate) fn read_struct<'a>(
    md: &Metadata,
    c: &mut Cursor<'a>,
    class: usize,
    depth: usize,
) -> Result<Value<'a>> {
    if depth > MAX_DEPTH {
        return Err(depth_error(c));
    }
    if md.string_class == Some(class) {
        // The `java.lang.String` pool holds strings, written as strings.
        return read_kind(md, c, FieldKind::String, depth);
    }
    let Some(cls) = md.classes.get(class) else {
        return Ok(Value::Null);
    };
    if cls.simple_type {
        if let [only] = cls.fields.as_slice() {
            return read_field(md, c, only, depth);
        }
    }
    let mut fields = Vec::with_capacity(cls.fields.len());
    for f in &cls.fields {
        fields.push(read_field(md, c, f, depth)?);
    }
    Ok(Value::Object(Object { class, fields }))
}

/// Checks and skips one value of field `f`, building nothing.
pub(crate) fn skip_field(md: &Metadata, c: &mut Cursor<'_>, f: &Field, depth: usize) -> Result<()> {
    if f.array {
        let n = c.count("array length")?;
        for _ in 0..n {
            skip_kind(md, c, f.kind, depth)?;
        }
        Ok(())
    } else {
        skip_kind(md, c, f.kind, depth)
    }
}

#[inline]
fn skip_kind(md: &Metadata, c: &mut Cursor<'_>, kind: FieldKind, depth: usize) -> Result<()> {
    match kind {
        FieldKind::Boolean | FieldKind::Byte => c.u8("byte").map(drop),
        FieldKind::Char | FieldKind::Short => c.short("short").map(drop),
        FieldKind::Int => c.int("int").map(drop),
        FieldKind::Long | FieldKind::Constant(_) => c.long("long").map(drop),
        FieldKind::Float => c.bytes(4, "float").map(drop),
        FieldKind::Double => c.bytes(8, "double").map(drop),
        FieldKind::String => strings::skip(c),
        FieldKind::Struct(class) => skip_struct(md, c, class, depth + 1),
    }
}

/// Checks and skips the fields of the class at `class`.
pub(crate) fn skip_struct(
    md: &Metadata,
    c: &mut Cursor<'_>,
    class: usize,
    depth: usize,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(depth_error(c));
    }
    if md.string_class == Some(class) {
        return strings::skip(c);
    }
    if let Some(cls) = md.classes.get(class) {
        for f in &cls.fields {
            skip_field(md, c, f, depth)?;
        }
    }
    Ok(())
}

/// Checks and skips a value of the class at `class`, laid out as `ops` (its layout).
#[inline]
pub(crate) fn skip_ops(md: &Metadata, c: &mut Cursor<'_>, class: usize, ops: &[Op]) -> Result<()> {
    if !c.compressed() {
        // Integers of different kinds differ in size: field by field.
        return skip_struct(md, c, class, 0);
    }
    for op in ops {
        match *op {
            Op::Varints(n) => c.skip_varints(n, "integer")?,
            Op::Byte => c.skip(1, "byte")?,
            Op::F32 => c.skip(4, "float")?,
            Op::F64 => c.skip(8, "double")?,
            Op::Str => strings::skip(c)?,
            Op::Array(kind) => {
                let n = c.count("array length")?;
                for _ in 0..n {
                    skip_kind(md, c, kind, 0)?;
                }
            }
            Op::Struct(class) => skip_struct(md, c, class, 1)?,
        }
    }
    Ok(())
}

/// Checks and skips the fields of an event of the class at `class` (an event's fields: for
/// the `java.lang.String` class, none, not the string its pool entries hold).
#[inline]
pub(crate) fn skip_event(md: &Metadata, c: &mut Cursor<'_>, class: usize) -> Result<()> {
    if md.string_class == Some(class) {
        return Ok(());
    }
    if !c.compressed() {
        let Some(cls) = md.classes.get(class) else {
            return Ok(());
        };
        for f in &cls.fields {
            skip_field(md, c, f, 0)?;
        }
        return Ok(());
    }
    skip_ops(md, c, class, md.layouts.get(class).map_or(&[], |l| &l[..]))
}
