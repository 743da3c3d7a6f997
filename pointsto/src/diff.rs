//! Reachability diff between two call graphs (TXT or CSV, any version): methods and entry
//! points added or removed, and invoke edges gained or lost. A method is reached when it is an
//! entry point, a callee, or a CSV row that is not only some invoke's declared target. Methods are matched by their
//! method string, since ids differ between builds (`iprof-pointsto.md` §4, "Diffing
//! reachability between builds").

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use crate::call_tree::{CallGraph, DeclaredTarget, InvokeKind};
use crate::signature::MethodSignature;

/// An invoke edge by method strings.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Edge {
    /// The caller.
    pub caller: String,
    /// The callee.
    pub callee: String,
    /// Direct, virtual or interface.
    pub kind: InvokeKind,
}

/// What differs between call graph `a` and call graph `b`; every list is sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CallTreeDiff {
    /// Methods reachable in `a` only.
    pub methods_only_in_a: Vec<String>,
    /// Methods reachable in `b` only.
    pub methods_only_in_b: Vec<String>,
    /// Entry points of `a` only.
    pub entry_points_only_in_a: Vec<String>,
    /// Entry points of `b` only.
    pub entry_points_only_in_b: Vec<String>,
    /// Invoke edges of `a` only.
    pub edges_only_in_a: Vec<Edge>,
    /// Invoke edges of `b` only (the new edges).
    pub edges_only_in_b: Vec<Edge>,
}

struct Sets {
    methods: BTreeSet<String>,
    entry_points: BTreeSet<String>,
    edges: BTreeSet<Edge>,
}

fn sets(graph: &CallGraph, key: &dyn Fn(&str) -> String) -> Sets {
    let name = |id: u64| graph.method(id).map(|m| key(&m.signature));
    // CSV rows that are only ever an invoke's declared target (abstract methods in the 24.1+
    // layout, virtual-method nodes in the legacy one) are not methods the image reaches.
    let mut reached: HashSet<u64> = graph.entry_points.iter().map(|e| e.method).collect();
    reached.extend(
        graph
            .invokes
            .iter()
            .flat_map(|i| graph.callees(i).map(|c| c.method)),
    );
    let only_declared: HashSet<u64> = graph
        .invokes
        .iter()
        .filter_map(|i| match i.target {
            DeclaredTarget::Method(id) if !reached.contains(&id) => Some(id),
            _ => None,
        })
        .collect();
    let methods = graph
        .methods
        .values()
        .filter(|m| !only_declared.contains(&m.id))
        .map(|m| key(&m.signature))
        .collect();
    let entry_points = graph
        .entry_points
        .iter()
        .filter_map(|e| name(e.method))
        .collect();
    let edges = graph
        .invoke_edges()
        .filter_map(|e| {
            Some(Edge {
                caller: name(e.caller)?,
                callee: name(e.callee)?,
                kind: e.kind,
            })
        })
        .collect();
    Sets {
        methods,
        entry_points,
        edges,
    }
}

fn only<T: Ord + Clone>(x: &BTreeSet<T>, y: &BTreeSet<T>) -> Vec<T> {
    x.difference(y).cloned().collect()
}

impl CallTreeDiff {
    /// Compares two graphs by full method strings (loader prefixes included).
    #[must_use]
    pub fn new(a: &CallGraph, b: &CallGraph) -> Self {
        Self::with_key(a, b, &|s| s.to_owned())
    }

    /// Compares two graphs ignoring `<loader>:` prefixes, so that a report from before 24.2
    /// compares with one from after, and TXT with CSV.
    #[must_use]
    pub fn ignoring_loaders(a: &CallGraph, b: &CallGraph) -> Self {
        Self::with_key(a, b, &|s| strip_loader(s).into_owned())
    }

    fn with_key(a: &CallGraph, b: &CallGraph, key: &dyn Fn(&str) -> String) -> Self {
        let (a, b) = (sets(a, key), sets(b, key));
        Self {
            methods_only_in_a: only(&a.methods, &b.methods),
            methods_only_in_b: only(&b.methods, &a.methods),
            entry_points_only_in_a: only(&a.entry_points, &b.entry_points),
            entry_points_only_in_b: only(&b.entry_points, &a.entry_points),
            edges_only_in_a: only(&a.edges, &b.edges),
            edges_only_in_b: only(&b.edges, &a.edges),
        }
    }

    /// Whether the graphs reach the same methods, entry points and edges.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.methods_only_in_a.is_empty()
            && self.methods_only_in_b.is_empty()
            && self.entry_points_only_in_a.is_empty()
            && self.entry_points_only_in_b.is_empty()
            && self.edges_only_in_a.is_empty()
            && self.edges_only_in_b.is_empty()
    }
}

/// A method string without its `<loader>:` prefix.
fn strip_loader(signature: &str) -> Cow<'_, str> {
    match MethodSignature::parse(signature) {
        Some(parsed) if parsed.loader.is_some() => Cow::Owned(parsed.without_loader()),
        _ => Cow::Borrowed(signature),
    }
}
