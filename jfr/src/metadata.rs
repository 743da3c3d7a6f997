//! The metadata event (type 0): its string table and the element tree (`root` → `metadata`
//! → `class` → `field`/`setting`/`annotation`, and `region`), read into classes whose fields
//! say how every event and constant is laid out; and each class's layout, its fields
//! flattened into the operations ([`Op`]) that check and skip a value.

use std::sync::Arc;

use crate::cursor::{Cursor, PREALLOCATE};
use crate::error::{Error, Result};
use crate::idmap::IdMap;
use crate::strings::{self, RawString};

/// Deepest element nesting accepted (real metadata nests 5 deep).
const MAX_ELEMENT_DEPTH: usize = 16;

/// The classes of one chunk (or of one metadata event), indexed by id and by name.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Metadata {
    /// The metadata event's own id (it grows each time the recorder rewrites metadata).
    pub id: i64,
    /// Every class the metadata declares, in the order it declares them.
    pub classes: Vec<Class>,
    /// The `region` element: the recording's locale and time-zone offset.
    pub region: Region,
    #[cfg_attr(feature = "serde", serde(skip))]
    by_id: IdMap<usize>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) string_class: Option<usize>,
    /// Class ids below 4096 → index + 1 (0: none), the fast path of [`Metadata::index_of`].
    #[cfg_attr(feature = "serde", serde(skip))]
    dense: Vec<u32>,
    /// Each class's fields flattened into the operations that check and skip a value.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) layouts: Vec<Box<[Op]>>,
    /// The event's bytes from the id on: a later chunk whose metadata event holds the same
    /// bytes shares this metadata.
    #[cfg_attr(feature = "serde", serde(skip))]
    body: Vec<u8>,
}

/// The `region` element of the metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Region {
    /// The recorder's locale (`locale`).
    pub locale: Option<String>,
    /// The recorder's offset from UTC in milliseconds (`gmtOffset`).
    pub gmt_offset_ms: Option<i64>,
}

/// One `class` element: an event type, a constant-pool type, a struct, an annotation or a
/// setting type.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Class {
    /// The class id events and fields refer to it by.
    pub id: u64,
    /// Its name (`jdk.ExecutionSample`, `java.lang.Thread`, `long`…).
    pub name: String,
    /// Its super type (`jdk.jfr.Event` for event types).
    pub super_type: Option<String>,
    /// Whether values of this type stand for their one field (`simpleType="true"`).
    pub simple_type: bool,
    /// Its fields, in the order values are written.
    pub fields: Vec<Field>,
    /// The settings of an event type.
    pub settings: Vec<Setting>,
    /// Its annotations (`@Label`, `@Category`…).
    pub annotations: Vec<Annotation>,
}

/// One `field` element.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// The id of the field's class.
    pub class_id: u64,
    /// Whether values are keys into the constant pool of `class_id`.
    pub constant_pool: bool,
    /// Whether the field is an array (`dimension="1"`).
    pub array: bool,
    /// Its annotations (`@Timespan`, `@Timestamp`, `@Unsigned`, `@DataAmount`…).
    pub annotations: Vec<Annotation>,
    /// How its values are encoded, resolved from `class_id` and `constant_pool`.
    pub kind: FieldKind,
    /// The time unit its annotations give it, if any.
    pub unit: Option<Unit>,
    /// Whether it carries `@Unsigned`.
    pub unsigned: bool,
}

/// How a field's values are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum FieldKind {
    /// One byte, 0 or 1.
    Boolean,
    /// One byte.
    Byte,
    /// A UTF-16 unit, as an integer.
    Char,
    /// A 16-bit integer.
    Short,
    /// A 32-bit integer.
    Int,
    /// A 64-bit integer.
    Long,
    /// 4 big-endian bytes.
    Float,
    /// 8 big-endian bytes.
    Double,
    /// A string in one of the six encodings.
    String,
    /// A key into the constant pool of the class at this index of [`Metadata::classes`].
    Constant(usize),
    /// The fields of the class at this index of [`Metadata::classes`], inline.
    Struct(usize),
}

/// Time units from `@Timespan` and `@Timestamp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Unit {
    /// A duration in the chunk's ticks.
    TimespanTicks,
    /// A duration in nanoseconds.
    TimespanNanos,
    /// A duration in microseconds.
    TimespanMicros,
    /// A duration in milliseconds.
    TimespanMillis,
    /// A duration in seconds.
    TimespanSeconds,
    /// A point in time in the chunk's ticks.
    TimestampTicks,
    /// A point in time in milliseconds since the epoch.
    TimestampMillis,
}

/// One `setting` element of an event type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Setting {
    /// Its name (`enabled`, `threshold`…).
    pub name: String,
    /// The id of its setting class.
    pub class_id: u64,
    /// Its default value.
    pub default_value: Option<String>,
}

/// One `annotation` element.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Annotation {
    /// The annotation's class id.
    pub class_id: u64,
    /// Its class name, resolved after all classes are read (empty if the id is unknown).
    pub class_name: String,
    /// Its values as written (`value`, or `value-0`, `value-1`… for arrays).
    pub values: Vec<(String, String)>,
}

impl Annotation {
    /// The value named `value`, the one most annotations carry.
    pub fn value(&self) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == "value")
            .map(|(_, v)| v.as_str())
    }
}

impl Metadata {
    /// The class with this id.
    pub fn class(&self, id: u64) -> Option<&Class> {
        self.index_of(id).and_then(|i| self.classes.get(i))
    }

    /// The index in [`Metadata::classes`] of the class with this id.
    #[inline]
    pub fn index_of(&self, id: u64) -> Option<usize> {
        if let Some(&i) = self.dense.get(id as usize) {
            return (i as usize).checked_sub(1);
        }
        self.by_id.get(&id).copied()
    }

    /// The class named `name`.
    pub fn class_named(&self, name: &str) -> Option<&Class> {
        self.classes.iter().find(|c| c.name == name)
    }

    /// The event types: classes whose super type is `jdk.jfr.Event`.
    pub fn event_types(&self) -> impl Iterator<Item = &Class> {
        self.classes.iter().filter(|c| c.is_event_type())
    }
}

impl Class {
    /// Whether this is an event type (its super type is `jdk.jfr.Event`).
    pub fn is_event_type(&self) -> bool {
        self.super_type.as_deref() == Some("jdk.jfr.Event")
    }

    /// The index of the field named `name`.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// One step of checking and skipping a value, with inline structs flattened into their
/// fields (see [`compile`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Byte,
    /// This many integers in a row (`short`, `char`, `int`, `long`, references): in a chunk
    /// with compressed integers, that many varints.
    Varints(u32),
    F32,
    F64,
    Str,
    /// An array of values of this kind.
    Array(FieldKind),
    /// A struct left unflattened (deep, large or self-containing): skipped field by field.
    Struct(usize),
}

/// Most operations a class's flattened layout holds; beyond, structs stay [`Op::Struct`].
const MAX_OPS: usize = 512;

/// Every class's layout: its fields as [`Op`]s, inline structs flattened a few levels deep.
fn compile(md: &Metadata) -> Vec<Box<[Op]>> {
    (0..md.classes.len())
        .map(|i| {
            let mut ops = Vec::new();
            flatten(md, i, &mut ops, 0);
            ops.into_boxed_slice()
        })
        .collect()
}

fn flatten(md: &Metadata, class: usize, ops: &mut Vec<Op>, depth: usize) {
    if md.string_class == Some(class) {
        ops.push(Op::Str);
        return;
    }
    let Some(cls) = md.classes.get(class) else {
        return;
    };
    for f in &cls.fields {
        if f.array {
            ops.push(Op::Array(f.kind));
            continue;
        }
        let op = match f.kind {
            FieldKind::Boolean | FieldKind::Byte => Op::Byte,
            FieldKind::Char
            | FieldKind::Short
            | FieldKind::Int
            | FieldKind::Long
            | FieldKind::Constant(_) => {
                if let Some(Op::Varints(n)) = ops.last_mut() {
                    *n += 1;
                    continue;
                }
                Op::Varints(1)
            }
            FieldKind::Float => Op::F32,
            FieldKind::Double => Op::F64,
            FieldKind::String => Op::Str,
            FieldKind::Struct(inner) => {
                let size = md.classes.get(inner).map_or(0, |c| c.fields.len());
                if depth < 4 && ops.len() + size < MAX_OPS && md.string_class != Some(inner) {
                    flatten(md, inner, ops, depth + 1);
                    continue;
                }
                Op::Struct(inner)
            }
        };
        ops.push(op);
    }
}

/// A generic element of the tree: name, attributes and children, as string-table indexes
/// resolved to strings.
struct Element<'t> {
    name: &'t str,
    attributes: Vec<(&'t str, &'t str)>,
    children: Vec<Element<'t>>,
    offset: usize,
}

impl<'t> Element<'t> {
    fn attr(&self, key: &str) -> Option<&'t str> {
        self.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
}

fn table_string<'t>(
    table: &'t [String],
    c: &mut Cursor<'_>,
    what: &'static str,
) -> Result<&'t str> {
    let at = c.pos();
    let i = c.int(what)?;
    usize::try_from(i)
        .ok()
        .and_then(|i| table.get(i))
        .map(String::as_str)
        .ok_or_else(|| {
            Error::invalid(
                what,
                "an index into the string table",
                format_args!("{i} (table holds {})", table.len()),
                at as u64,
            )
        })
}

/// An element's name and attributes, and how many children follow it.
fn read_head<'t>(
    table: &'t [String],
    c: &mut Cursor<'_>,
    depth: usize,
) -> Result<(Element<'t>, usize)> {
    let offset = c.pos();
    if depth > MAX_ELEMENT_DEPTH {
        return Err(Error::invalid(
            "metadata element",
            "nesting at most 16 deep",
            depth,
            offset as u64,
        ));
    }
    let name = table_string(table, c, "metadata element name")?;
    let n = c.count("metadata attribute count")?;
    let mut attributes = Vec::with_capacity(n.min(PREALLOCATE));
    for _ in 0..n {
        let k = table_string(table, c, "metadata attribute name")?;
        let v = table_string(table, c, "metadata attribute value")?;
        attributes.push((k, v));
    }
    let n = c.count("metadata child count")?;
    let element = Element {
        name,
        attributes,
        children: Vec::new(),
        offset,
    };
    Ok((element, n))
}

/// An element with all its descendants.
fn read_element<'t>(table: &'t [String], c: &mut Cursor<'_>, depth: usize) -> Result<Element<'t>> {
    let (mut element, n) = read_head(table, c, depth)?;
    element.children = Vec::with_capacity(n.min(PREALLOCATE));
    for _ in 0..n {
        element.children.push(read_element(table, c, depth + 1)?);
    }
    Ok(element)
}

fn id_attr(e: &Element, key: &'static str, what: &'static str) -> Result<u64> {
    let v = e.attr(key).ok_or_else(|| {
        Error::invalid(
            what,
            "an attribute with the class id",
            format_args!("no `{key}` attribute"),
            e.offset as u64,
        )
    })?;
    v.parse::<u64>().map_err(|_| {
        Error::invalid(
            what,
            "a decimal class id",
            format_args!("{v:?}"),
            e.offset as u64,
        )
    })
}

fn annotation(e: &Element) -> Result<Annotation> {
    Ok(Annotation {
        class_id: id_attr(e, "class", "annotation class")?,
        class_name: String::new(),
        values: e
            .attributes
            .iter()
            .filter(|(k, _)| *k != "class")
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    })
}

fn class(e: &Element) -> Result<Class> {
    let mut class = Class {
        id: id_attr(e, "id", "class id")?,
        name: e.attr("name").unwrap_or_default().to_owned(),
        super_type: e.attr("superType").map(str::to_owned),
        simple_type: e.attr("simpleType") == Some("true"),
        fields: Vec::new(),
        settings: Vec::new(),
        annotations: Vec::new(),
    };
    for child in &e.children {
        match child.name {
            "field" => {
                let annotations = child
                    .children
                    .iter()
                    .filter(|a| a.name == "annotation")
                    .map(annotation)
                    .collect::<Result<Vec<_>>>()?;
                class.fields.push(Field {
                    name: child.attr("name").unwrap_or_default().to_owned(),
                    class_id: id_attr(child, "class", "field class")?,
                    constant_pool: child.attr("constantPool") == Some("true"),
                    array: child.attr("dimension").is_some_and(|d| d != "0"),
                    annotations,
                    kind: FieldKind::Long,
                    unit: None,
                    unsigned: false,
                });
            }
            "setting" => class.settings.push(Setting {
                name: child.attr("name").unwrap_or_default().to_owned(),
                class_id: id_attr(child, "class", "setting class")?,
                default_value: child.attr("defaultValue").map(str::to_owned),
            }),
            "annotation" => class.annotations.push(annotation(child)?),
            _ => {}
        }
    }
    Ok(class)
}

impl Metadata {
    /// Reads the metadata event that starts at `offset` (its size, type 0, start, duration,
    /// id, string table and element tree). `c` limits the read to the chunk.
    pub(crate) fn parse(
        c: &mut Cursor<'_>,
        previous: Option<&Arc<Metadata>>,
    ) -> Result<Arc<Metadata>> {
        let offset = c.pos();
        let size = c.int("metadata event size")?;
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| {
                Error::invalid(
                    "metadata event size",
                    "a positive size",
                    size,
                    offset as u64,
                )
            })?;
        let end = offset.saturating_add(size);
        if end > c.end() {
            return Err(Error::Truncated {
                what: "metadata event",
                offset: offset as u64,
                needed: size as u64,
                available: (c.end() - offset) as u64,
            });
        }
        c.seek(end);
        let mut c = Cursor::new(c.data(), offset, end, c.compressed());
        c.int("metadata event size")?;
        let type_at = c.pos();
        let kind = c.long("metadata event type")?;
        if kind != 0 {
            return Err(Error::invalid(
                "metadata event type",
                "0",
                kind,
                type_at as u64,
            ));
        }
        c.long("metadata start time")?;
        c.long("metadata duration")?;
        let body_at = c.pos();
        let body = c.data().get(body_at..end).unwrap_or_default();
        if let Some(previous) = previous.filter(|p| p.body == body) {
            return Ok(Arc::clone(previous));
        }
        let id = c.long("metadata id")?;
        let n = c.count("metadata string count")?;
        let mut table = Vec::with_capacity(n.min(PREALLOCATE));
        for _ in 0..n {
            let at = c.pos();
            match strings::read(&mut c)? {
                RawString::Text(s) => table.push(s.into_owned()),
                RawString::Null => table.push(String::new()),
                RawString::Constant(_) => {
                    return Err(Error::invalid(
                        "metadata string",
                        "an inline string",
                        "a constant-pool reference",
                        at as u64,
                    ));
                }
            }
        }
        // One class's subtree at a time: the tree is never held whole.
        let (root, children) = read_head(&table, &mut c, 0)?;
        if root.name != "root" {
            return Err(Error::invalid(
                "metadata root element",
                "`root`",
                format_args!("`{}`", root.name),
                root.offset as u64,
            ));
        }
        let mut md = Metadata {
            id,
            body: body.to_vec(),
            ..Metadata::default()
        };
        for _ in 0..children {
            let (child, n) = read_head(&table, &mut c, 1)?;
            for _ in 0..n {
                let e = read_element(&table, &mut c, 2)?;
                if child.name == "metadata" && e.name == "class" {
                    md.classes.push(class(&e)?);
                }
            }
            if child.name == "region" {
                md.region.locale = child.attr("locale").map(str::to_owned);
                md.region.gmt_offset_ms = child.attr("gmtOffset").and_then(|v| v.parse().ok());
            }
        }
        md.resolve(offset)?;
        md.string_class = md.classes.iter().position(|c| c.name == "java.lang.String");
        for (i, c) in md.classes.iter().enumerate() {
            if c.id < 4096 {
                let at = c.id as usize;
                if md.dense.len() <= at {
                    md.dense.resize(at + 1, 0);
                }
                if let Some(slot) = md.dense.get_mut(at) {
                    *slot = i as u32 + 1;
                }
            }
        }
        md.layouts = compile(&md);
        Ok(Arc::new(md))
    }

    /// Indexes the classes by id and resolves every field's kind, unit and annotation names.
    fn resolve(&mut self, offset: usize) -> Result<()> {
        self.by_id = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id, i))
            .collect();
        let names: IdMap<String> = self
            .classes
            .iter()
            .map(|c| (c.id, c.name.clone()))
            .collect();
        let name_of = |id: u64| names.get(&id).cloned().unwrap_or_default();
        for ci in 0..self.classes.len() {
            let Some(class) = self.classes.get(ci) else {
                continue;
            };
            let mut fields = class.fields.clone();
            for f in &mut fields {
                let type_name = names.get(&f.class_id).ok_or_else(|| {
                    Error::invalid(
                        "field class",
                        "the id of a declared class",
                        format_args!("{} (field `{}` of `{}`)", f.class_id, f.name, class.name),
                        offset as u64,
                    )
                })?;
                let index = self.by_id.get(&f.class_id).copied().unwrap_or(0);
                f.kind = if f.constant_pool {
                    FieldKind::Constant(index)
                } else {
                    match type_name.as_str() {
                        "boolean" => FieldKind::Boolean,
                        "byte" => FieldKind::Byte,
                        "char" => FieldKind::Char,
                        "short" => FieldKind::Short,
                        "int" => FieldKind::Int,
                        "long" => FieldKind::Long,
                        "float" => FieldKind::Float,
                        "double" => FieldKind::Double,
                        "java.lang.String" => FieldKind::String,
                        _ => FieldKind::Struct(index),
                    }
                };
                for a in &mut f.annotations {
                    a.class_name = name_of(a.class_id);
                    match (a.class_name.as_str(), a.value()) {
                        ("jdk.jfr.Unsigned", _) => f.unsigned = true,
                        ("jdk.jfr.Timespan", Some(v)) => {
                            f.unit = match v {
                                "TICKS" => Some(Unit::TimespanTicks),
                                "NANOSECONDS" => Some(Unit::TimespanNanos),
                                "MICROSECONDS" => Some(Unit::TimespanMicros),
                                "MILLISECONDS" => Some(Unit::TimespanMillis),
                                "SECONDS" => Some(Unit::TimespanSeconds),
                                _ => f.unit,
                            }
                        }
                        ("jdk.jfr.Timestamp", Some(v)) => {
                            f.unit = match v {
                                "TICKS" => Some(Unit::TimestampTicks),
                                "MILLISECONDS_SINCE_EPOCH" => Some(Unit::TimestampMillis),
                                _ => f.unit,
                            }
                        }
                        _ => {}
                    }
                }
            }
            let mut annotations = class.annotations.clone();
            for a in &mut annotations {
                a.class_name = name_of(a.class_id);
            }
            if let Some(class) = self.classes.get_mut(ci) {
                class.fields = fields;
                class.annotations = annotations;
            }
        }
        Ok(())
    }
}
