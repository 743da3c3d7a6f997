//! Reachability diff between two call graphs (TXT or CSV, any version): methods and entry
//! points added or removed, and invoke edges gained or lost. A method is reached when it is an
//! entry point, a callee, or a CSV row that is not only some invoke's declared target. Methods are matched by their
//! method string, since ids differ between builds (`iprof-pointsto.md` §4, "Diffing
//! reachability between builds").

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::call_tree::{CallGraph, DeclaredTarget, InvokeKind};
use crate::signature::MethodSignature;

/// An invoke edge by method strings. The strings are shared: every edge of a method holds the
/// same copy of its method string (a method may have as many edges as the report has rows).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Edge {
    /// The caller.
    pub caller: Arc<str>,
    /// The callee.
    pub callee: Arc<str>,
    /// Direct, virtual or interface.
    pub kind: InvokeKind,
}

/// What differs between call graph `a` and call graph `b`; every list is sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

/// A graph's methods, entry points and edges by method string, each string given as its rank
/// among the method strings of both graphs (so sets compare and sort by number, not by
/// string, however long and however shared the strings are).
struct Sets {
    methods: BTreeSet<usize>,
    entry_points: BTreeSet<usize>,
    edges: BTreeSet<(usize, usize, InvokeKind)>,
}

/// The key of every method of `graph`, by id.
fn keys(graph: &CallGraph, key: &dyn Fn(&str) -> String) -> Vec<(u64, Arc<str>)> {
    graph
        .methods
        .values()
        .map(|m| (m.id, Arc::from(key(&m.signature))))
        .collect()
}

fn sets(graph: &CallGraph, ranks: &HashMap<u64, usize>) -> Sets {
    let rank = |id: u64| ranks.get(&id).copied();
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
        .filter_map(|m| rank(m.id))
        .collect();
    let entry_points = graph
        .entry_points
        .iter()
        .filter_map(|e| rank(e.method))
        .collect();
    let edges = graph
        .invoke_edges()
        .filter_map(|e| Some((rank(e.caller)?, rank(e.callee)?, e.kind)))
        .collect();
    Sets {
        methods,
        entry_points,
        edges,
    }
}

fn only<T: Ord + Copy>(x: &BTreeSet<T>, y: &BTreeSet<T>) -> Vec<T> {
    x.difference(y).copied().collect()
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
        let (keys_a, keys_b) = (keys(a, key), keys(b, key));
        // Every distinct key once, sorted: a key's rank orders like the key.
        let mut strings: Vec<Arc<str>> = keys_a
            .iter()
            .chain(&keys_b)
            .map(|(_, k)| k.clone())
            .collect();
        strings.sort_unstable();
        strings.dedup();
        let ranks = |keys: Vec<(u64, Arc<str>)>| -> HashMap<u64, usize> {
            keys.into_iter()
                .filter_map(|(id, k)| Some((id, strings.binary_search(&k).ok()?)))
                .collect()
        };
        let (a, b) = (sets(a, &ranks(keys_a)), sets(b, &ranks(keys_b)));
        let string = |rank: usize| strings.get(rank).cloned().unwrap_or_default();
        let names = |ranks: Vec<usize>| ranks.into_iter().map(|r| string(r).to_string()).collect();
        let edges = |edges: Vec<(usize, usize, InvokeKind)>| {
            edges
                .into_iter()
                .map(|(caller, callee, kind)| Edge {
                    caller: string(caller),
                    callee: string(callee),
                    kind,
                })
                .collect()
        };
        Self {
            methods_only_in_a: names(only(&a.methods, &b.methods)),
            methods_only_in_b: names(only(&b.methods, &a.methods)),
            entry_points_only_in_a: names(only(&a.entry_points, &b.entry_points)),
            entry_points_only_in_b: names(only(&b.entry_points, &a.entry_points)),
            edges_only_in_a: edges(only(&a.edges, &b.edges)),
            edges_only_in_b: edges(only(&b.edges, &a.edges)),
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
