//! Writers: call tree TXT from a [`CallGraph`] and object tree TXT from an [`ObjectTree`],
//! byte for byte as the printers write them (`iprof-pointsto.md` §2.3 and §2.6), in the layout
//! recorded when the report was read (or the current format's defaults).

use std::collections::HashSet;

use crate::call_tree::txt::{self, BciList, IdTag, NodeKind};
use crate::call_tree::{CallGraph, DeclaredTarget, IdState, InvokeKind, TxtLayout};
use crate::cursor::{self, TextStyle};
use crate::error::{Error, Result};
use crate::object_tree::{self, ObjectTree};

/// One pending line of the call tree walk.
#[derive(Debug, Clone, Copy)]
enum Item {
    Entry(usize),
    Invoke(usize),
    /// A direct invoke's n-th callee (CSV graphs may have several).
    Direct(usize, usize),
    Dispatched(usize, usize),
}

/// Writes a call graph as a call tree TXT report.
///
/// A graph read from TXT comes back byte for byte; other graphs are written in the current
/// layout ([`TxtLayout::default`]).
///
/// ```
/// use pointsto::call_tree::CallGraph;
/// let text = "VM Entry Points\n└── entry a.B.main():void id=0, parsing reason:  root method \n    └── virtually calls a.B.run():void @bci=3\n\n";
/// let graph = CallGraph::parse_txt(text.as_bytes())?;
/// assert_eq!(pointsto::write::call_tree_txt(&graph)?, text);
/// # Ok::<(), pointsto::Error>(())
/// ```
pub fn call_tree_txt(graph: &CallGraph) -> Result<String> {
    let layout: TxtLayout = graph.txt.unwrap_or_default();
    let style = layout.style;
    let eol = style.line_ending.as_str();
    let mut out = String::with_capacity(64 * (graph.invokes.len() + graph.methods.len() + 1));
    out.push_str(txt::HEADER);
    out.push_str(eol);
    let mut path: Vec<bool> = Vec::new();
    let mut expanded: HashSet<u64, IdState> = HashSet::default();
    // A graph read from TXT says where each method is expanded; for others, the printer's
    // rule: where breadth-first search from the roots first reaches it.
    let sites = if graph.txt.is_some() {
        HashSet::new()
    } else {
        breadth_first_sites(graph)
    };
    let expands_here = |index: usize, n: usize, expanded_here: bool| {
        if graph.txt.is_some() {
            expanded_here
        } else {
            sites.contains(&(index, n))
        }
    };
    // (depth, last, item), popped from the end.
    let mut work: Vec<(usize, bool, Item)> = Vec::new();
    let entries = graph.entry_points.len();
    for index in (0..entries).rev() {
        work.push((0, index + 1 == entries, Item::Entry(index)));
    }
    let signature = |id: u64| -> Result<&str> {
        graph
            .methods
            .get(&id)
            .map(|m| m.signature.as_str())
            .ok_or(Error::UnresolvedId {
                line: 0,
                column: 0,
                id,
            })
    };
    while let Some((depth, last, item)) = work.pop() {
        path.truncate(depth);
        cursor::write_indent(&mut out, style.charset, &path);
        cursor::write_marker(&mut out, style.charset, last);
        // The method whose invokes become this line's children, if any.
        let mut expand: Option<u64> = None;
        let mut dispatch_children: Option<usize> = None;
        match item {
            Item::Entry(index) => {
                let Some(entry) = graph.entry_points.get(index) else {
                    continue;
                };
                let method = signature(entry.method)?;
                let kind = NodeKind::Entry {
                    method,
                    id: entry.method,
                    reason: entry.reason.as_deref().filter(|r| !r.contains('\n')),
                };
                match entry.reason.as_deref().filter(|r| r.contains('\n')) {
                    None => txt::write_node_body(&mut out, &kind, entry.trailing_space),
                    Some(reason) => {
                        txt::write_node_body(
                            &mut out,
                            &NodeKind::Entry {
                                method,
                                id: entry.method,
                                reason: Some(""),
                            },
                            false,
                        );
                        for (i, part) in reason.split('\n').enumerate() {
                            if i > 0 {
                                out.push_str(eol);
                            }
                            out.push_str(part);
                        }
                        if entry.trailing_space {
                            out.push(' ');
                        }
                    }
                }
                // An entry point listed again (legacy CSV entry files may repeat one) is not
                // expanded again: each listing would copy the method's whole subtree.
                if !expanded.contains(&entry.method) {
                    expand = Some(entry.method);
                }
            }
            Item::Invoke(index) | Item::Direct(index, _) | Item::Dispatched(index, _) => {
                let Some(invoke) = graph.invokes.get(index) else {
                    continue;
                };
                let bci = invoke.bci.clone().unwrap_or(BciList::single(0));
                match item {
                    Item::Direct(_, n) | Item::Dispatched(_, n) => {
                        let Some(callee) = graph.callee(invoke, n) else {
                            continue;
                        };
                        let here = expands_here(index, n, callee.expanded_here)
                            && !expanded.contains(&callee.method);
                        let target = if here {
                            IdTag::Id(callee.method)
                        } else {
                            IdTag::IdRef(callee.method)
                        };
                        let method = signature(callee.method)?;
                        let (kind, trailing_space) = match item {
                            Item::Direct(..) => (
                                NodeKind::DirectCall {
                                    method,
                                    target,
                                    bci,
                                },
                                layout.trailing_spaces.direct,
                            ),
                            _ if invoke.kind == InvokeKind::Interface => (
                                NodeKind::ImplementedBy { method, target },
                                layout.trailing_spaces.override_line,
                            ),
                            _ => (
                                NodeKind::OverriddenBy { method, target },
                                layout.trailing_spaces.override_line,
                            ),
                        };
                        txt::write_node_body(&mut out, &kind, trailing_space);
                        if here {
                            expanded.insert(callee.method);
                            expand = Some(callee.method);
                        }
                    }
                    _ => {
                        let method = match &invoke.target {
                            DeclaredTarget::Signature(signature) => signature.as_str(),
                            DeclaredTarget::Method(id) => signature(*id)?,
                        };
                        let kind = if invoke.kind == InvokeKind::Interface {
                            NodeKind::InterfaceCall { method, bci }
                        } else {
                            NodeKind::VirtualCall { method, bci }
                        };
                        txt::write_node_body(&mut out, &kind, layout.trailing_spaces.virtual_call);
                        dispatch_children = Some(index);
                    }
                }
            }
        }
        out.push_str(eol);
        let before = work.len();
        if let Some(id) = expand {
            expanded.insert(id);
            if let Some(method) = graph.methods.get(&id) {
                for index in method.invokes.clone().rev() {
                    let Some(invoke) = graph.invokes.get(index) else {
                        continue;
                    };
                    if invoke.kind == InvokeKind::Direct {
                        for n in (0..graph.callee_count(invoke)).rev() {
                            work.push((depth + 1, false, Item::Direct(index, n)));
                        }
                    } else {
                        work.push((depth + 1, false, Item::Invoke(index)));
                    }
                }
            }
        }
        if let Some(index) = dispatch_children {
            let count = graph
                .invokes
                .get(index)
                .map_or(0, |i| graph.callee_count(i));
            for n in (0..count).rev() {
                work.push((depth + 1, false, Item::Dispatched(index, n)));
            }
        }
        if work.len() > before {
            // The first child pushed (the last printed) carries `└── `.
            if let Some(first) = work.get_mut(before) {
                first.1 = true;
            }
            path.push(last);
        }
    }
    finish(&mut out, &style);
    Ok(out)
}

/// Where breadth-first search from the roots first reaches each method: (invoke, callee).
fn breadth_first_sites(graph: &CallGraph) -> HashSet<(usize, usize)> {
    let mut visited: HashSet<u64> = graph.entry_points.iter().map(|e| e.method).collect();
    let mut queue: std::collections::VecDeque<u64> =
        graph.entry_points.iter().map(|e| e.method).collect();
    let mut sites = HashSet::new();
    while let Some(id) = queue.pop_front() {
        let Some(method) = graph.methods.get(&id) else {
            continue;
        };
        for index in method.invokes.clone() {
            let Some(invoke) = graph.invokes.get(index) else {
                continue;
            };
            for (n, callee) in graph.callees(invoke).enumerate() {
                if visited.insert(callee.method) {
                    sites.insert((index, n));
                    queue.push_back(callee.method);
                }
            }
        }
    }
    sites
}

/// Appends trailing empty lines and drops the final line break if the report had none.
fn finish(out: &mut String, style: &TextStyle) {
    let eol = style.line_ending.as_str();
    for _ in 0..style.trailing_empty_lines {
        out.push_str(eol);
    }
    if !style.final_line_break && out.ends_with(eol) {
        out.truncate(out.len() - eol.len());
    }
}

/// Writes an object tree as an object tree TXT report, byte for byte as read.
///
/// ```
/// use pointsto::object_tree::ObjectTree;
/// let text = "Heap roots\n└── root a.B.f:java.lang.Object value:\n    └── java.lang.Object id=0 toString=java.lang.Object@1b (no fields)\n\n";
/// let tree = ObjectTree::parse(text.as_bytes())?;
/// assert_eq!(pointsto::write::object_tree_txt(&tree), text);
/// # Ok::<(), pointsto::Error>(())
/// ```
#[must_use]
pub fn object_tree_txt(tree: &ObjectTree) -> String {
    let style = tree.style;
    let eol = style.line_ending.as_str();
    let mut out = String::with_capacity(tree.nodes.len() * 80 + 16);
    out.push_str(object_tree::HEADER);
    out.push_str(eol);
    // `path[d]` = whether the ancestor at depth d was a last child.
    let mut path: Vec<bool> = Vec::new();
    for node in &tree.nodes {
        path.truncate(node.depth);
        while path.len() < node.depth {
            path.push(true);
        }
        cursor::write_indent(&mut out, style.charset, &path);
        cursor::write_marker(&mut out, style.charset, node.last);
        object_tree::txt::write_body(&mut out, &node.entry);
        out.push_str(eol);
        path.push(node.last);
    }
    finish(&mut out, &style);
    out
}

/// The three files of a call tree CSV report in the current (24.1+) layout.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CsvReport {
    /// `call_tree_methods_…csv`.
    pub methods: String,
    /// `call_tree_invokes_…csv`.
    pub invokes: String,
    /// `call_tree_targets_…csv`.
    pub targets: String,
}

/// The CSV `Display` column: the holder abbreviated to the matches of `\b[a-zA-Z]|[A-Z]|\.`
/// (`java.lang.String` → `j.l.S`), then `.` and the method name.
#[must_use]
pub fn csv_display(holder: &str, name: &str) -> String {
    let mut out = String::new();
    let mut previous_word = false;
    for c in holder.chars() {
        let word = c.is_ascii_alphanumeric() || c == '_';
        if (c.is_ascii_alphabetic() && !previous_word) || c.is_ascii_uppercase() || c == '.' {
            out.push(c);
        }
        previous_word = word;
    }
    out.push('.');
    out.push_str(name);
    out
}

/// Writes a call graph (from TXT or CSV) as a CSV report in the current layout: loader
/// prefixes are dropped, TXT virtual targets (which have no id) get ids after the largest
/// method id, and columns the graph lacks (`Display`, `Flags`) are derived or left empty.
///
/// ```
/// use pointsto::call_tree::{CallGraph, csv::CsvFile};
/// let text = "VM Entry Points\n└── entry app:a.B.main():void id=0 \n    └── virtually calls a.I.run(int):void @bci=3\n        └── is overridden by app:a.C.run(int):void id=1 \n\n";
/// let csv = pointsto::write::call_tree_csv(&CallGraph::parse_txt(text.as_bytes())?);
/// assert_eq!(csv.invokes, "Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n0,0,3,2,false\n");
/// let graph = CallGraph::read_csv(|f| match f {
///     CsvFile::Methods => Some(csv.methods.as_bytes()),
///     CsvFile::Invokes => Some(csv.invokes.as_bytes()),
///     CsvFile::Targets => Some(csv.targets.as_bytes()),
///     _ => None,
/// })?;
/// assert_eq!(graph.method(2).unwrap().signature, "a.I.run(int):void");
/// # Ok::<(), pointsto::Error>(())
/// ```
#[must_use]
pub fn call_tree_csv(graph: &CallGraph) -> CsvReport {
    use std::fmt::Write as _;
    let entry: HashSet<u64> = graph.entry_points.iter().map(|e| e.method).collect();
    let mut next = graph
        .methods
        .keys()
        .max()
        .map_or(0, |m| m.saturating_add(1));
    let mut declared: indexmap::IndexMap<&str, u64> = indexmap::IndexMap::new();
    for invoke in &graph.invokes {
        if let DeclaredTarget::Signature(signature) = &invoke.target {
            declared.entry(signature.as_str()).or_insert_with(|| {
                next = next.saturating_add(1);
                next - 1
            });
        }
    }
    let mut report = CsvReport {
        methods: String::from("Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n"),
        invokes: String::from("Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n"),
        targets: String::from("InvokeId,TargetId\n"),
    };
    let mut row = |id: u64, signature: &str, csv: Option<&crate::call_tree::CsvMethodInfo>| {
        let parsed = crate::signature::MethodSignature::parse(signature);
        let (name, holder, ret) = parsed.map_or((signature, "", ""), |m| {
            (m.name, m.holder, m.return_type.unwrap_or_default())
        });
        let parameters: Vec<&str> = parsed
            .map(|m| m.parameter_types().collect())
            .unwrap_or_default();
        let parameters = if parameters.is_empty() {
            String::from("empty")
        } else {
            parameters.join(" ")
        };
        let display = csv.map_or_else(|| csv_display(holder, name), |c| c.display.clone());
        let flags = csv.and_then(|c| c.flags.as_deref()).unwrap_or_default();
        let is_entry = entry.contains(&id) || csv.and_then(|c| c.is_entry_point).unwrap_or(false);
        let _ = writeln!(
            report.methods,
            "{id},{name},{holder},{parameters},{ret},{display},{flags},{is_entry}"
        );
    };
    for method in graph.methods.values() {
        row(method.id, &method.signature, method.csv.as_ref());
    }
    for (signature, id) in &declared {
        row(*id, signature, None);
    }
    for (index, invoke) in graph.invokes.iter().enumerate() {
        let id = invoke.id.unwrap_or(index as u64);
        let target = match &invoke.target {
            DeclaredTarget::Method(target) => *target,
            DeclaredTarget::Signature(signature) => declared
                .get(signature.as_str())
                .copied()
                .unwrap_or_default(),
        };
        let bci = invoke.bci.clone().unwrap_or(BciList::single(0));
        let direct = invoke.kind == InvokeKind::Direct;
        let _ = writeln!(
            report.invokes,
            "{id},{},{bci},{target},{direct}",
            invoke.caller
        );
        for callee in graph.callees(invoke) {
            let _ = writeln!(report.targets, "{id},{}", callee.method);
        }
    }
    report
}
