//! The object tree model: the report's lines as a tree, nesting and ids checked
//! (`points-to-analysis-reports.ja.txt`, "オブジェクト・ツリー"; ordering quirks:
//! `iprof-pointsto.md` §2.6).
//!
//! Scopes close by indentation depth, never by `└── ` (arrays reserve `└── ` for their highest
//! index even when it is null).

use std::collections::HashMap;

use crate::cursor::{self, ByteLines, Marker, StyleTracker, TextStyle};
use crate::error::{Error, Result, quote};
use crate::object_tree::txt::{ObjectEntry, ObjectTreeLine, Role, Scope, parse_line_bytes, syntax};

/// A node of the object tree model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjectNode {
    /// Depth (roots are 0).
    pub depth: usize,
    /// The parent node's index in [`ObjectTree::nodes`] (`None` for roots).
    pub parent: Option<usize>,
    /// Whether the line carries `└── ` (not always its parent's last printed child: see the
    /// module documentation).
    pub last: bool,
    /// What the line says.
    pub entry: ObjectEntry<String>,
}

/// An object tree: its lines as a tree in pre-order (each node's children follow it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjectTree {
    /// Every node, in report order.
    pub nodes: Vec<ObjectNode>,
    /// Index of each `id=` value's node, by id.
    pub values: HashMap<u64, usize>,
    /// Line endings, tree characters, trailing empty lines.
    pub style: TextStyle,
}

impl ObjectTree {
    /// Reads an object tree report (UTF-8, LF or CRLF, box drawing or `?`-mangled).
    ///
    /// Checks the nesting (fields under `fields:`, `[i]` elements under `elements …:`, one
    /// value under `value:`), unique `id=`s, and that every `id-ref=` names an `id=`.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let mut tree = Self::default();
        let mut style = StyleTracker::default();
        let mut stack: Vec<usize> = Vec::new();
        let mut seen_header = false;
        let mut empty_lines = 0u64;
        let mut refs: Vec<(u64, u64, u64)> = Vec::new();
        let mut lines = ByteLines::new(bytes);
        let mut defined_line: HashMap<u64, u64> = HashMap::new();
        let mut mangled_last_from_children: Vec<Option<bool>> = Vec::new();
        for line in lines.by_ref() {
            if let Some(error) = cursor::cut_off(&line) {
                return Err(error);
            }
            let parsed = parse_line_bytes(line.number, line.bytes)?;
            let marker = match &parsed {
                ObjectTreeLine::Node(node) => Some(node.marker),
                _ => None,
            };
            style.line(line.bytes.is_empty(), line.ending, marker);
            let node = match parsed {
                ObjectTreeLine::Header if !seen_header => {
                    seen_header = true;
                    continue;
                }
                _ if !seen_header => {
                    return Err(syntax(
                        line.number,
                        line.bytes,
                        &line.lossy(),
                        "the header `Heap roots`",
                    ));
                }
                ObjectTreeLine::Empty => {
                    empty_lines += 1;
                    continue;
                }
                _ if empty_lines > 0 => {
                    return Err(syntax(
                        line.number,
                        line.bytes,
                        &line.lossy(),
                        "nothing after the report's closing empty line",
                    ));
                }
                ObjectTreeLine::Header => {
                    return Err(syntax(
                        line.number,
                        line.bytes,
                        &line.lossy(),
                        "a tree line",
                    ));
                }
                ObjectTreeLine::Node(node) => node,
            };
            if node.depth > stack.len() {
                return Err(Error::Depth {
                    line: line.number,
                    column: node.indent.len() as u64 + 1,
                    max: stack.len() as u64,
                    found: node.depth as u64,
                });
            }
            stack.truncate(node.depth);
            let parent = stack.last().copied();
            let role = node.entry.role();
            // Whole-line errors point at the text after the tree prefix.
            let body_column =
                (node.indent.len() + cursor::marker_str(node.marker).len()) as u64 + 1;
            let parent_scope = parent
                .and_then(|p| tree.nodes.get(p))
                .and_then(|p| p.entry.opens());
            let expected = match (parent.is_some(), parent_scope) {
                (false, _) => Role::Root,
                (true, Some(Scope::OneValue)) => Role::Value,
                (true, Some(Scope::Fields)) => Role::Field,
                (true, Some(Scope::Elements)) => Role::Element,
                (true, None) => {
                    return Err(Error::Nesting {
                        line: line.number,
                        column: body_column,
                        expected: "no child (only `value:`, `fields:` and `elements …:` lines have children)",
                        found: quote(&line.lossy()),
                    });
                }
            };
            if role != expected {
                return Err(Error::Nesting {
                    line: line.number,
                    column: body_column,
                    expected: match expected {
                        Role::Root => "a `root` line at depth 0",
                        Role::Value => "one value line `<type> …` under `value:`",
                        Role::Field => "a field line `<name>:<type> …` under `fields:`",
                        Role::Element => {
                            "an element line `[<index>] …` under `elements (excluding null):`"
                        }
                    },
                    found: quote(&line.lossy()),
                });
            }
            if let (Some(p), Some(Scope::OneValue)) = (parent, parent_scope) {
                // `value:` has exactly one child.
                if tree.nodes.last().is_some_and(|_| tree.nodes.len() > p + 1) {
                    return Err(Error::Nesting {
                        line: line.number,
                        column: body_column,
                        expected: "exactly one value under `value:`",
                        found: quote(&line.lossy()),
                    });
                }
            }
            match &node.entry {
                ObjectEntry::Value { id, type_name, .. } => {
                    if let Some(&first) = defined_line.get(id) {
                        return Err(Error::DuplicateId {
                            line: line.number,
                            column: cursor::column_after(line.bytes, type_name),
                            id: *id,
                            first,
                        });
                    }
                    defined_line.insert(*id, line.number);
                    tree.values.insert(*id, tree.nodes.len());
                }
                ObjectEntry::RootIdRef {
                    id, source: before, ..
                }
                | ObjectEntry::ValueRef {
                    id,
                    type_name: before,
                    ..
                } => {
                    refs.push((*id, line.number, cursor::column_after(line.bytes, before)));
                }
                _ => {}
            }
            if node.marker == Marker::Mangled {
                // The unit right before the marker says whether the parent was a last child.
                if let (Some(p), Some(unit)) = (parent, node.indent.last()) {
                    if let Some(slot) = mangled_last_from_children.get_mut(p) {
                        *slot = Some(unit == crate::style::IndentUnit::Space);
                    }
                }
            }
            mangled_last_from_children.push(None);
            stack.push(tree.nodes.len());
            tree.nodes.push(ObjectNode {
                depth: node.depth,
                parent,
                last: node.marker == Marker::LastChild,
                entry: node.entry.to_owned_entry(),
            });
        }
        if !seen_header {
            return Err(Error::Truncated {
                line: lines.line_number() + 1,
                column: 1,
                expected: "the header `Heap roots`",
            });
        }
        if let Some(&(id, line, column)) =
            refs.iter().find(|(id, _, _)| !tree.values.contains_key(id))
        {
            return Err(Error::UnresolvedId { line, column, id });
        }
        tree.style = style.finish();
        if tree.style.charset == cursor::Charset::Mangled {
            tree.infer_mangled_last(&mangled_last_from_children);
        }
        Ok(tree)
    }

    /// For `?`-mangled reports, where `└── ` and `├── ` look alike: a node is last if its
    /// children's indentation says so, else if no sibling follows it.
    fn infer_mangled_last(&mut self, from_children: &[Option<bool>]) {
        let mut next_sibling = vec![false; self.nodes.len()];
        let mut last_child_of: HashMap<Option<usize>, usize> = HashMap::new();
        for (index, node) in self.nodes.iter().enumerate() {
            if let Some(&previous) = last_child_of.get(&node.parent) {
                if let Some(slot) = next_sibling.get_mut(previous) {
                    *slot = true;
                }
            }
            last_child_of.insert(node.parent, index);
        }
        for (index, node) in self.nodes.iter_mut().enumerate() {
            node.last = match from_children.get(index).copied().flatten() {
                Some(last) => last,
                None => !next_sibling.get(index).copied().unwrap_or(false),
            };
        }
    }

    /// The indices of `index`'s children.
    pub fn children(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .skip(index + 1)
            .take_while(move |(_, n)| self.nodes.get(index).is_some_and(|p| n.depth > p.depth))
            .filter(move |(_, n)| n.parent == Some(index))
            .map(|(i, _)| i)
    }

    /// The roots' indices.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent.is_none())
            .map(|(i, _)| i)
    }
}
