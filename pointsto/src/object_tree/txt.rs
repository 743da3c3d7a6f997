//! The object tree TXT report, line by line (`points-to-analysis-reports.ja.txt`,
//! "オブジェクト・ツリー"; every line shape: `iprof-pointsto.md` §2.6).
//!
//! `toString=` values may contain anything the printers do not escape (quotes, parentheses,
//! ` fields:`), so a line's status is read from its end.

use crate::cursor::{self, Indent, Marker, ParsedLines};
use crate::error::{Error, Result, quote};

/// The report's first line.
pub const HEADER: &str = "Heap roots";

/// How an expanded value (`id=`) ends its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Contents {
    /// ` fields:`, fields follow one level deeper.
    Fields,
    /// ` (no fields)`.
    NoFields,
    /// ` elements (excluding null):`, `[i]` elements follow one level deeper.
    Elements,
    /// ` (no elements)`.
    NoElements,
}

impl Contents {
    const ALL: [(Self, &'static str); 4] = [
        (Self::Fields, " fields:"),
        (Self::NoFields, " (no fields)"),
        (Self::Elements, " elements (excluding null):"),
        (Self::NoElements, " (no elements)"),
    ];

    fn suffix(self) -> &'static str {
        match self {
            Self::Fields => " fields:",
            Self::NoFields => " (no fields)",
            Self::Elements => " elements (excluding null):",
            Self::NoElements => " (no elements)",
        }
    }
}

const SUPPRESSED: &str = " (expansion suppressed)";

/// What an object tree line says, after its prefix. `S` is `&str` when borrowed from the
/// report ([`Reader`]) and `String` in the model ([`ObjectTree`](crate::object_tree::ObjectTree)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum ObjectEntry<S> {
    /// `root <source> value:`: the root's value follows one level deeper.
    RootValue {
        /// The root: static field `[<L>:]H.n:T`, method `[<L>:]H.n(p)`, or `… [bci: n]`.
        source: S,
    },
    /// `root <source> id-ref=<N> toString=<S>`: the value was expanded earlier.
    RootIdRef {
        /// The root.
        source: S,
        /// The value's id.
        id: u64,
        /// The value's `toString=`.
        to_string: S,
    },
    /// `root <source> toString=<S> (expansion suppressed)`.
    RootSuppressed {
        /// The root.
        source: S,
        /// The value's `toString=`.
        to_string: S,
    },
    /// `[[<i>] ]<T> id=<N> toString=<S> <contents>`: a value expanded here.
    Value {
        /// The array index, for array elements.
        index: Option<u64>,
        /// The concrete type (`byte[]`, `java.lang.Object[]`).
        type_name: S,
        /// The value's id.
        id: u64,
        /// The value's `toString=`.
        to_string: S,
        /// Fields, elements, or neither.
        contents: Contents,
    },
    /// `[[<i>] ]<T> id-ref=<N> toString=<S>`: a value expanded earlier.
    ValueRef {
        /// The array index, for array elements.
        index: Option<u64>,
        /// The concrete type.
        type_name: S,
        /// The value's id.
        id: u64,
        /// The value's `toString=`.
        to_string: S,
    },
    /// `[[<i>] ][<T> ]toString=<S> (expansion suppressed)` (array elements print no type).
    ValueSuppressed {
        /// The array index, for array elements.
        index: Option<u64>,
        /// The concrete type, when printed.
        type_name: Option<S>,
        /// The value's `toString=`.
        to_string: S,
    },
    /// `<F> value=null`.
    FieldNull {
        /// The field `name:DeclaredType`.
        field: S,
    },
    /// `<F> value:`: the field's value follows one level deeper.
    FieldValue {
        /// The field `name:DeclaredType`.
        field: S,
    },
    /// `<F> toString=<S> (expansion suppressed)`.
    FieldSuppressed {
        /// The field `name:DeclaredType`.
        field: S,
        /// The value's `toString=`.
        to_string: S,
    },
}

impl<S: AsRef<str>> ObjectEntry<S> {
    /// Converts to the owned form.
    #[must_use]
    pub fn to_owned_entry(&self) -> ObjectEntry<String> {
        let o = |s: &S| s.as_ref().to_owned();
        match self {
            Self::RootValue { source } => ObjectEntry::RootValue { source: o(source) },
            Self::RootIdRef {
                source,
                id,
                to_string,
            } => ObjectEntry::RootIdRef {
                source: o(source),
                id: *id,
                to_string: o(to_string),
            },
            Self::RootSuppressed { source, to_string } => ObjectEntry::RootSuppressed {
                source: o(source),
                to_string: o(to_string),
            },
            Self::Value {
                index,
                type_name,
                id,
                to_string,
                contents,
            } => ObjectEntry::Value {
                index: *index,
                type_name: o(type_name),
                id: *id,
                to_string: o(to_string),
                contents: *contents,
            },
            Self::ValueRef {
                index,
                type_name,
                id,
                to_string,
            } => ObjectEntry::ValueRef {
                index: *index,
                type_name: o(type_name),
                id: *id,
                to_string: o(to_string),
            },
            Self::ValueSuppressed {
                index,
                type_name,
                to_string,
            } => ObjectEntry::ValueSuppressed {
                index: *index,
                type_name: type_name.as_ref().map(o),
                to_string: o(to_string),
            },
            Self::FieldNull { field } => ObjectEntry::FieldNull { field: o(field) },
            Self::FieldValue { field } => ObjectEntry::FieldValue { field: o(field) },
            Self::FieldSuppressed { field, to_string } => ObjectEntry::FieldSuppressed {
                field: o(field),
                to_string: o(to_string),
            },
        }
    }

    /// Whether the line may have children, and which.
    pub(crate) fn opens(&self) -> Option<Scope> {
        match self {
            Self::RootValue { .. } | Self::FieldValue { .. } => Some(Scope::OneValue),
            Self::Value {
                contents: Contents::Fields,
                ..
            } => Some(Scope::Fields),
            Self::Value {
                contents: Contents::Elements,
                ..
            } => Some(Scope::Elements),
            _ => None,
        }
    }

    /// The kind of child this line is.
    pub(crate) fn role(&self) -> Role {
        match self {
            Self::RootValue { .. } | Self::RootIdRef { .. } | Self::RootSuppressed { .. } => {
                Role::Root
            }
            Self::Value { index, .. }
            | Self::ValueRef { index, .. }
            | Self::ValueSuppressed { index, .. } => {
                if index.is_some() {
                    Role::Element
                } else {
                    Role::Value
                }
            }
            Self::FieldNull { .. } | Self::FieldValue { .. } | Self::FieldSuppressed { .. } => {
                Role::Field
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    OneValue,
    Fields,
    Elements,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Root,
    Value,
    Element,
    Field,
}

/// One tree line, borrowed from the report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ObjectNodeLine<'a> {
    /// Indentation units before the marker (roots are at depth 0).
    pub depth: usize,
    /// The indentation, verbatim.
    pub indent: Indent<'a>,
    /// The marker.
    pub marker: Marker,
    /// What the line says.
    pub entry: ObjectEntry<&'a str>,
}

/// One physical line of an object tree report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ObjectTreeLine<'a> {
    /// `Heap roots`.
    Header,
    /// A tree line.
    Node(ObjectNodeLine<'a>),
    /// An empty line (the printer ends the report with one).
    Empty,
}

pub(crate) fn syntax(line: u64, text: &[u8], part: &str, expected: &'static str) -> Error {
    Error::Syntax {
        line,
        column: cursor::column_of(text, part),
        expected,
        found: quote(part),
    }
}

/// Parses one line (without its line break); `number` is its 1-based line number for errors.
pub fn parse_line(number: u64, text: &str) -> Result<ObjectTreeLine<'_>> {
    parse_line_bytes(number, text.as_bytes())
}

/// Parses one line given as bytes, checking UTF-8 only after the tree prefix.
pub(crate) fn parse_line_bytes(number: u64, text: &[u8]) -> Result<ObjectTreeLine<'_>> {
    if text.is_empty() {
        return Ok(ObjectTreeLine::Empty);
    }
    if text == HEADER.as_bytes() {
        return Ok(ObjectTreeLine::Header);
    }
    let Some(prefix) = cursor::split_prefix(text) else {
        if let Some(column) = cursor::broken_prefix(text) {
            return Err(Error::Syntax {
                line: number,
                column,
                expected: "`├── ` or `└── ` after the indentation of a tree line",
                found: quote(&String::from_utf8_lossy(
                    text.get(column as usize - 1..).unwrap_or_default(),
                )),
            });
        }
        let line = cursor::utf8(number, 0, text)?;
        return Err(syntax(number, text, line, "`Heap roots` or a tree line"));
    };
    let rest = cursor::utf8(
        number,
        prefix.rest,
        text.get(prefix.rest..).unwrap_or_default(),
    )?;
    let entry = if prefix.depth == 0 {
        let Some(root) = rest.strip_prefix("root ") else {
            return Err(syntax(number, text, rest, "`root ` at depth 0"));
        };
        parse_root(number, text, root)?
    } else {
        parse_child(number, text, rest)?
    };
    Ok(ObjectTreeLine::Node(ObjectNodeLine {
        depth: prefix.depth,
        indent: prefix.indent,
        marker: prefix.marker,
        entry,
    }))
}

/// Splits `<N> toString=<S>` (what follows `id=` or `id-ref=`) into the id and the rest;
/// `shape` and `id_expected` say what was expected when it does not fit.
fn id_to_string<'a>(
    number: u64,
    text: &[u8],
    after: &'a str,
    shape: &'static str,
    id_expected: &'static str,
) -> Result<(u64, &'a str)> {
    let Some((id_text, rest)) = after.split_once(" toString=") else {
        return Err(syntax(number, text, after, shape));
    };
    let Some(id) = cursor::parse_u64(id_text) else {
        return Err(syntax(number, text, id_text, id_expected));
    };
    Ok((id, rest))
}

/// [`id_to_string`] after `id-ref=`.
fn id_ref_to_string<'a>(number: u64, text: &[u8], after: &'a str) -> Result<(u64, &'a str)> {
    id_to_string(
        number,
        text,
        after,
        "`id-ref=<N> toString=<S>`",
        "a decimal id after `id-ref=`",
    )
}

fn parse_root<'a>(number: u64, text: &[u8], root: &'a str) -> Result<ObjectEntry<&'a str>> {
    let id_ref = root.find(" id-ref=");
    let to_string = root.find(" toString=");
    match (id_ref, to_string) {
        (Some(at), ts) if ts.is_none_or(|ts| at < ts) => {
            let source = root.get(..at).unwrap_or_default();
            let after = root.get(at + 8..).unwrap_or_default();
            let (id, to_string) = id_ref_to_string(number, text, after)?;
            Ok(ObjectEntry::RootIdRef {
                source,
                id,
                to_string,
            })
        }
        (_, Some(at)) => {
            let source = root.get(..at).unwrap_or_default();
            let after = root.get(at + 10..).unwrap_or_default();
            let Some(to_string) = after.strip_suffix(SUPPRESSED) else {
                return Err(syntax(
                    number,
                    text,
                    after,
                    "`toString=<S> (expansion suppressed)`",
                ));
            };
            Ok(ObjectEntry::RootSuppressed { source, to_string })
        }
        _ => match root.strip_suffix(" value:") {
            Some(source) if !source.is_empty() => Ok(ObjectEntry::RootValue { source }),
            _ => Err(syntax(
                number,
                text,
                root,
                "`<root> value:`, `<root> id-ref=<N> toString=<S>` or `<root> toString=<S> (expansion suppressed)`",
            )),
        },
    }
}

fn parse_child<'a>(number: u64, text: &[u8], rest: &'a str) -> Result<ObjectEntry<&'a str>> {
    let (index, body) = match rest.strip_prefix('[') {
        Some(after) => {
            let Some((index_text, body)) = after.split_once("] ") else {
                return Err(syntax(
                    number,
                    text,
                    rest,
                    "`[<index>] ` before an array element",
                ));
            };
            let Some(index) = cursor::parse_u64(index_text) else {
                return Err(syntax(number, text, index_text, "a decimal array index"));
            };
            (Some(index), body)
        }
        None => (None, rest),
    };
    if let Some(to_string) = body.strip_prefix("toString=") {
        let Some(to_string) = to_string.strip_suffix(SUPPRESSED) else {
            return Err(syntax(
                number,
                text,
                body,
                "`toString=<S> (expansion suppressed)`",
            ));
        };
        return Ok(ObjectEntry::ValueSuppressed {
            index,
            type_name: None,
            to_string,
        });
    }
    let Some((first, tail)) = body.split_once(' ') else {
        return Err(syntax(
            number,
            text,
            body,
            "a value `<type> id=…` or a field `<name>:<type> …`",
        ));
    };
    if index.is_none() && first.contains(':') {
        let field = first;
        return match tail {
            "value=null" => Ok(ObjectEntry::FieldNull { field }),
            "value:" => Ok(ObjectEntry::FieldValue { field }),
            _ => match tail
                .strip_prefix("toString=")
                .and_then(|t| t.strip_suffix(SUPPRESSED))
            {
                Some(to_string) => Ok(ObjectEntry::FieldSuppressed { field, to_string }),
                None => Err(syntax(
                    number,
                    text,
                    tail,
                    "`value=null`, `value:` or `toString=<S> (expansion suppressed)` after a field",
                )),
            },
        };
    }
    let type_name = first;
    if let Some(after) = tail.strip_prefix("id=") {
        let (id, rest) = id_to_string(
            number,
            text,
            after,
            "`id=<N> toString=<S> …`",
            "a decimal id after `id=`",
        )?;
        for (contents, suffix) in Contents::ALL {
            if let Some(to_string) = rest.strip_suffix(suffix) {
                return Ok(ObjectEntry::Value {
                    index,
                    type_name,
                    id,
                    to_string,
                    contents,
                });
            }
        }
        return Err(syntax(
            number,
            text,
            rest,
            "` fields:`, ` (no fields)`, ` elements (excluding null):` or ` (no elements)` at the end",
        ));
    }
    if let Some(after) = tail.strip_prefix("id-ref=") {
        let (id, to_string) = id_ref_to_string(number, text, after)?;
        return Ok(ObjectEntry::ValueRef {
            index,
            type_name,
            id,
            to_string,
        });
    }
    if let Some(to_string) = tail
        .strip_prefix("toString=")
        .and_then(|t| t.strip_suffix(SUPPRESSED))
    {
        return Ok(ObjectEntry::ValueSuppressed {
            index,
            type_name: Some(type_name),
            to_string,
        });
    }
    Err(syntax(
        number,
        text,
        tail,
        "`id=`, `id-ref=` or `toString=… (expansion suppressed)` after the type",
    ))
}

/// Writes what follows the marker.
pub(crate) fn write_body<S: AsRef<str>>(out: &mut String, entry: &ObjectEntry<S>) {
    use std::fmt::Write as _;
    let index = |out: &mut String, index: &Option<u64>| {
        if let Some(i) = index {
            let _ = write!(out, "[{i}] ");
        }
    };
    match entry {
        ObjectEntry::RootValue { source } => {
            let _ = write!(out, "root {} value:", source.as_ref());
        }
        ObjectEntry::RootIdRef {
            source,
            id,
            to_string,
        } => {
            let _ = write!(
                out,
                "root {} id-ref={id} toString={}",
                source.as_ref(),
                to_string.as_ref()
            );
        }
        ObjectEntry::RootSuppressed { source, to_string } => {
            let _ = write!(
                out,
                "root {} toString={}{SUPPRESSED}",
                source.as_ref(),
                to_string.as_ref()
            );
        }
        ObjectEntry::Value {
            index: i,
            type_name,
            id,
            to_string,
            contents,
        } => {
            index(out, i);
            let _ = write!(
                out,
                "{} id={id} toString={}{}",
                type_name.as_ref(),
                to_string.as_ref(),
                contents.suffix()
            );
        }
        ObjectEntry::ValueRef {
            index: i,
            type_name,
            id,
            to_string,
        } => {
            index(out, i);
            let _ = write!(
                out,
                "{} id-ref={id} toString={}",
                type_name.as_ref(),
                to_string.as_ref()
            );
        }
        ObjectEntry::ValueSuppressed {
            index: i,
            type_name,
            to_string,
        } => {
            index(out, i);
            if let Some(type_name) = type_name {
                out.push_str(type_name.as_ref());
                out.push(' ');
            }
            let _ = write!(out, "toString={}{SUPPRESSED}", to_string.as_ref());
        }
        ObjectEntry::FieldNull { field } => {
            let _ = write!(out, "{} value=null", field.as_ref());
        }
        ObjectEntry::FieldValue { field } => {
            let _ = write!(out, "{} value:", field.as_ref());
        }
        ObjectEntry::FieldSuppressed { field, to_string } => {
            let _ = write!(
                out,
                "{} toString={}{SUPPRESSED}",
                field.as_ref(),
                to_string.as_ref()
            );
        }
    }
}

/// Writes one line exactly as parsed (indentation verbatim), without a line break.
pub fn write_line(out: &mut String, line: &ObjectTreeLine<'_>) {
    match line {
        ObjectTreeLine::Header => out.push_str(HEADER),
        ObjectTreeLine::Empty => {}
        ObjectTreeLine::Node(node) => {
            node.indent.write_to(out);
            out.push_str(cursor::marker_str(node.marker));
            write_body(out, &node.entry);
        }
    }
}

/// A lazy, fallible iterator over the lines of an object tree report (or a fragment of one).
///
/// An empty input, and an input that ends inside a line (without the line break the printer
/// ends every line with: a report cut off), are errors with the line and column where it ended.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    lines: ParsedLines<'a>,
}

impl<'a> Reader<'a> {
    /// A reader over report text.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Self::from_bytes(text.as_bytes())
    }

    /// A reader over report bytes; each line is checked to be UTF-8 when read.
    #[must_use]
    pub fn from_bytes(bytes: &'a [u8]) -> Self {
        Self {
            lines: ParsedLines::new(bytes, "`Heap roots` or a tree line"),
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    /// The line's 1-based number and the line.
    type Item = Result<(u64, ObjectTreeLine<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        self.lines.next_with(parse_line_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> ObjectEntry<&str> {
        match parse_line(1, text).unwrap() {
            ObjectTreeLine::Node(node) => node.entry,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn status_is_read_from_the_end() {
        assert_eq!(
            entry("│   └── java.lang.Object id=3 toString=weird fields: (no fields) fields:"),
            ObjectEntry::Value {
                index: None,
                type_name: "java.lang.Object",
                id: 3,
                to_string: "weird fields: (no fields)",
                contents: Contents::Fields
            }
        );
        assert_eq!(
            entry("    ├── [4] toString=\"abc (expansion suppressed)\" (expansion suppressed)"),
            ObjectEntry::ValueSuppressed {
                index: Some(4),
                type_name: None,
                to_string: "\"abc (expansion suppressed)\""
            }
        );
        assert_eq!(
            entry("└── root a.B.c(int, long) [bci: 3] id-ref=5 toString=x id-ref=7"),
            ObjectEntry::RootIdRef {
                source: "a.B.c(int, long) [bci: 3]",
                id: 5,
                to_string: "x id-ref=7"
            }
        );
        assert_eq!(
            entry("    └── next:a.B value=null"),
            ObjectEntry::FieldNull { field: "next:a.B" }
        );
        assert!(parse_line(1, "    └── next:a.B value=nil").is_err());
        assert!(parse_line(1, "└── a.B id=1 toString=x").is_err());
        assert!(parse_line(1, "    └── a.B id=1 toString=x").is_err());
    }
}
