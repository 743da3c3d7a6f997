//! Assembles the lines of a call tree TXT report into the [`CallGraph`] model: nesting,
//! id definitions and references, entry points' multi-line parsing reasons, and the layout
//! details the writer needs (`iprof-pointsto.md` §2.3).

use std::collections::HashMap;

use crate::call_tree::graph::{
    CallGraph, Callee, Callees, DeclaredTarget, EntryPoint, Invoke, InvokeKind, Method,
    TrailingSpaces, TxtLayout, dispatch,
};
use crate::call_tree::ids::{IdSet, IdState};
use crate::call_tree::txt::{self, CallTreeLine, IdTag, NodeKind};
use crate::cursor::{ByteLines, LineEnding, StyleTracker, column_after};
use crate::error::{Error, Result, quote};

/// A frame of the open tree path while lines stream by.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// A method expanded here (`entry`, `id=` lines): its id and index in `methods`.
    Method(u64, usize),
    /// A virtual or interface invoke (index into `invokes`).
    Dispatch(usize, InvokeKind),
    /// A line that cannot have children (`id-ref=`).
    Leaf,
}

/// Builds a [`CallGraph`] from TXT lines pushed one at a time, so a report never has to be in
/// memory whole: feed it lines from any reader, then call [`CallGraphBuilder::finish`].
///
/// ```
/// use pointsto::call_tree::CallGraphBuilder;
/// let mut builder = CallGraphBuilder::new();
/// for line in "VM Entry Points\n└── entry a.B.main():void id=0 \n".lines() {
///     builder.push_line(line)?;
/// }
/// let graph = builder.finish()?;
/// assert_eq!(graph.entry_points.len(), 1);
/// # Ok::<(), pointsto::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct CallGraphBuilder {
    graph: CallGraph,
    stack: Vec<Frame>,
    /// Line of each method's definition, by index in `methods` (for duplicate errors).
    defined_at: Vec<u64>,
    /// Index in `methods` of each invoke's caller.
    callers: Vec<usize>,
    /// Ids defined so far.
    defined: IdSet,
    /// Ids referenced before their definition, with the first reference's line and column.
    pending: HashMap<u64, (u64, u64), IdState>,
    style: StyleTracker,
    trailing: Option<TrailingSpaces>,
    seen_direct: bool,
    seen_virtual: bool,
    seen_override: bool,
    seen_header: bool,
    line: u64,
    /// An entry whose parsing reason may continue on the next lines.
    open_reason: bool,
    /// Empty lines seen after the last content line.
    empty_lines: u64,
}

impl CallGraphBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next line (with or without its `\n`/`\r\n`).
    pub fn push_line(&mut self, line: &str) -> Result<()> {
        let (text, ending) = if let Some(text) = line.strip_suffix("\r\n") {
            (text, LineEnding::CrLf)
        } else if let Some(text) = line.strip_suffix('\n') {
            (text, LineEnding::Lf)
        } else {
            (line, LineEnding::Lf)
        };
        let number = self.line + 1;
        self.push(number, text.as_bytes(), Some(ending))
    }

    /// A builder with room for the invokes of a report of `len` bytes (about one invoke per
    /// 150 bytes in real reports; a hint, not a bound).
    pub(crate) fn for_report_of(len: usize) -> Self {
        let mut builder = Self::new();
        builder.graph.invokes.reserve(len / 256);
        builder.callers.reserve(len / 256);
        builder
    }

    pub(crate) fn push(
        &mut self,
        number: u64,
        text: &[u8],
        ending: Option<LineEnding>,
    ) -> Result<()> {
        self.line = number;
        let parsed = txt::parse_line_bytes(number, text)?;
        let marker = match &parsed {
            CallTreeLine::Node(node) => Some(node.marker),
            _ => None,
        };
        self.style.line(text.is_empty(), ending, marker);
        if !self.seen_header {
            return match parsed {
                CallTreeLine::Header => {
                    self.seen_header = true;
                    Ok(())
                }
                _ => Err(Error::Syntax {
                    line: number,
                    column: 1,
                    expected: "the header `VM Entry Points`",
                    found: quote(&String::from_utf8_lossy(text)),
                }),
            };
        }
        if matches!(parsed, CallTreeLine::Empty) {
            self.empty_lines += 1;
            self.open_reason = false;
            return Ok(());
        }
        if self.empty_lines > 0 {
            return Err(Error::Syntax {
                line: number,
                column: 1,
                expected: "nothing after the report's closing empty line",
                found: quote(&String::from_utf8_lossy(text)),
            });
        }
        match parsed {
            CallTreeLine::Header => Err(Error::Syntax {
                line: number,
                column: 1,
                expected: "a tree line",
                found: quote(&String::from_utf8_lossy(text)),
            }),
            CallTreeLine::Continuation(more) => self.continuation(number, more),
            CallTreeLine::Node(node) => {
                self.open_reason = false;
                let body_column =
                    (node.indent.len() + crate::cursor::marker_str(node.marker).len()) as u64 + 1;
                self.node(
                    (number, text, body_column),
                    node.depth,
                    node.indent.len(),
                    node.kind,
                    node.trailing_space,
                )
            }
            CallTreeLine::Empty => Ok(()),
        }
    }

    fn continuation(&mut self, number: u64, more: &str) -> Result<()> {
        let entry = self
            .graph
            .entry_points
            .last_mut()
            .filter(|_| self.open_reason);
        let Some(entry) = entry else {
            return Err(Error::Syntax {
                line: number,
                column: 1,
                expected: "a tree line (`├── `, `└── `, `│   `, `    ` prefix)",
                found: quote(more),
            });
        };
        let reason = entry.reason.get_or_insert_with(String::new);
        if entry.trailing_space {
            reason.push(' ');
        }
        reason.push('\n');
        match more.strip_suffix(' ') {
            Some(more) => {
                reason.push_str(more);
                entry.trailing_space = true;
            }
            None => {
                reason.push_str(more);
                entry.trailing_space = false;
            }
        }
        Ok(())
    }

    /// Adds a method; returns its index in `methods`.
    fn define(&mut self, number: u64, column: u64, id: u64, signature: &str) -> Result<usize> {
        let entry = match self.graph.methods.entry(id) {
            indexmap::map::Entry::Occupied(occupied) => {
                let first = self
                    .defined_at
                    .get(occupied.index())
                    .copied()
                    .unwrap_or_default();
                return Err(Error::DuplicateId {
                    line: number,
                    column,
                    id,
                    first,
                });
            }
            indexmap::map::Entry::Vacant(vacant) => vacant,
        };
        let index = entry.index();
        entry.insert(Method {
            id,
            signature: signature.to_owned(),
            invokes: 0..0,
            csv: None,
        });
        self.defined_at.push(number);
        self.defined.insert(id);
        if !self.pending.is_empty() {
            self.pending.remove(&id);
        }
        Ok(index)
    }

    fn reference(&mut self, number: u64, column: u64, id: u64) {
        if !self.defined.contains(id) {
            self.pending.entry(id).or_insert((number, column));
        }
    }

    fn note_trailing(&mut self, kind: &NodeKind<'_>, trailing: bool) {
        let spaces = self.trailing.get_or_insert_with(TrailingSpaces::default);
        let (seen, slot) = match kind {
            NodeKind::Entry { .. } => return,
            NodeKind::DirectCall { .. } => (&mut self.seen_direct, &mut spaces.direct),
            NodeKind::VirtualCall { .. } | NodeKind::InterfaceCall { .. } => {
                (&mut self.seen_virtual, &mut spaces.virtual_call)
            }
            NodeKind::OverriddenBy { .. } | NodeKind::ImplementedBy { .. } => {
                (&mut self.seen_override, &mut spaces.override_line)
            }
        };
        if !*seen {
            *seen = true;
            *slot = trailing;
        }
    }

    /// Adds a tree line; `at` is its number, its text and the column after its tree prefix.
    fn node(
        &mut self,
        at: (u64, &[u8], u64),
        depth: usize,
        indent_len: usize,
        kind: NodeKind<'_>,
        trailing_space: bool,
    ) -> Result<()> {
        let (number, text, body_column) = at;
        if depth > self.stack.len() {
            return Err(Error::Depth {
                line: number,
                column: indent_len as u64 + 1,
                max: self.stack.len() as u64,
                found: depth as u64,
            });
        }
        self.stack.truncate(depth);
        let parent = self.stack.last().copied();
        self.note_trailing(&kind, trailing_space);
        let nesting = |expected: &'static str, kind: &NodeKind<'_>| Error::Nesting {
            line: number,
            column: body_column,
            expected,
            found: quote(kind.method()),
        };
        let frame = match (kind, parent) {
            (NodeKind::Entry { method, id, reason }, None) => {
                let index = self.define(number, column_after(text, method), id, method)?;
                self.graph.entry_points.push(EntryPoint {
                    method: id,
                    reason: reason.map(str::to_owned),
                    trailing_space,
                });
                self.open_reason = reason.is_some();
                Frame::Method(id, index)
            }
            (kind @ NodeKind::Entry { .. }, Some(_)) => {
                return Err(nesting("an invoke (`entry` lines are at depth 0)", &kind));
            }
            (kind, None) => return Err(nesting("an `entry` line at depth 0", &kind)),
            (
                NodeKind::DirectCall {
                    method,
                    target,
                    bci,
                },
                Some(Frame::Method(caller, at)),
            ) => {
                let frame = self.callee(number, text, method, target)?;
                self.add_invoke(
                    at,
                    Invoke {
                        id: None,
                        caller,
                        bci: Some(bci),
                        kind: InvokeKind::Direct,
                        target: DeclaredTarget::Method(target.id()),
                        callees: Callees::one(Callee {
                            method: target.id(),
                            expanded_here: matches!(target, IdTag::Id(_)),
                        }),
                    },
                );
                frame
            }
            (NodeKind::VirtualCall { method, bci }, Some(Frame::Method(caller, at))) => {
                let index = self.add_invoke(at, dispatch(caller, bci, InvokeKind::Virtual, method));
                Frame::Dispatch(index, InvokeKind::Virtual)
            }
            (NodeKind::InterfaceCall { method, bci }, Some(Frame::Method(caller, at))) => {
                let index =
                    self.add_invoke(at, dispatch(caller, bci, InvokeKind::Interface, method));
                Frame::Dispatch(index, InvokeKind::Interface)
            }
            (kind, Some(Frame::Method(..))) => {
                return Err(nesting(
                    "`directly calls`, `virtually calls` or `interfacially calls`",
                    &kind,
                ));
            }
            (
                NodeKind::OverriddenBy { method, target },
                Some(Frame::Dispatch(index, InvokeKind::Virtual)),
            )
            | (
                NodeKind::ImplementedBy { method, target },
                Some(Frame::Dispatch(index, InvokeKind::Interface)),
            ) => {
                let frame = self.callee(number, text, method, target)?;
                if let Some(invoke) = self.graph.invokes.get_mut(index) {
                    invoke.callees.push(Callee {
                        method: target.id(),
                        expanded_here: matches!(target, IdTag::Id(_)),
                    });
                }
                frame
            }
            (kind, Some(Frame::Dispatch(_, InvokeKind::Interface))) => {
                return Err(nesting("`is implemented by`", &kind));
            }
            (kind, Some(Frame::Dispatch(..))) => return Err(nesting("`is overridden by`", &kind)),
            (kind, Some(Frame::Leaf)) => {
                return Err(nesting("no child (an `id-ref=` line is a leaf)", &kind));
            }
        };
        self.stack.push(frame);
        Ok(())
    }

    /// The frame of a callee line; `method` is borrowed from the line's `text`.
    fn callee(&mut self, number: u64, text: &[u8], method: &str, target: IdTag) -> Result<Frame> {
        let column = column_after(text, method);
        match target {
            IdTag::Id(id) => Ok(Frame::Method(id, self.define(number, column, id, method)?)),
            IdTag::IdRef(id) => {
                self.reference(number, column, id);
                Ok(Frame::Leaf)
            }
        }
    }

    /// Appends an invoke of the method at index `at` in `methods`.
    fn add_invoke(&mut self, at: usize, invoke: Invoke) -> usize {
        let index = self.graph.invokes.len();
        self.callers.push(at);
        self.graph.invokes.push(invoke);
        index
    }

    /// Ends the report: resolves every `id-ref=` and returns the graph.
    pub fn finish(mut self) -> Result<CallGraph> {
        if !self.seen_header {
            return Err(Error::Truncated {
                line: self.line + 1,
                column: 1,
                expected: "the header `VM Entry Points`",
            });
        }
        if let Some((&id, &(line, column))) = self.pending.iter().min_by_key(|(_, at)| **at) {
            return Err(Error::UnresolvedId { line, column, id });
        }
        self.graph.group_invokes(&self.callers);
        self.graph.txt = Some(TxtLayout {
            style: self.style.finish(),
            trailing_spaces: self.trailing.unwrap_or_default(),
        });
        Ok(self.graph)
    }
}

impl CallGraph {
    /// Reads a whole call tree TXT report (every version; UTF-8, LF or CRLF).
    ///
    /// `id-ref=` lines may come before their `id=` line: ids are resolved after the pass.
    pub fn parse_txt(bytes: &[u8]) -> Result<Self> {
        let mut builder = CallGraphBuilder::for_report_of(bytes.len());
        for line in ByteLines::new(bytes) {
            if let Some(error) = crate::cursor::cut_off(&line) {
                return Err(error);
            }
            builder.push(line.number, line.bytes, line.ending)?;
        }
        builder.finish()
    }
}
