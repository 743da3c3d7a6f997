//! The function table: per function, the exclusive and inclusive values of every metric and
//! the values attributed to its calls, over one experiment or several merged as gprofng merges
//! them; its rows in gprofng's order.

use super::metrics::{
    Column, KIND_ORDER, METRICS, Metric, Subtype, add_into, default_columns, hwc_columns,
};
use super::stack_profile::StackProfile;
use crate::packets::DataKind;
use crate::source::Source;
use crate::stacks::{Frame, FrameKind, FunctionId, StackId, TOTAL};
use std::collections::HashMap;

/// One row of a function list.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Row {
    /// gprofng's name (`<Total>` for the first row).
    pub name: String,
    /// Raw values per column (times in ns, counts and bytes as they are).
    pub values: Vec<u64>,
}

impl<S: Source> StackProfile<'_, S> {
    /// Per function (by gprofng's name), the exclusive and inclusive values of every metric,
    /// and the totals: what [`FunctionTable::rows`] lists. Tables of several experiments
    /// (a founder and its descendants) [merge](FunctionTable::merge) like gprofng merges them.
    pub fn function_table(&self) -> FunctionTable {
        self.table_by(|f| f.function, |&f| self.function_key(f), Calls::Listed)
    }

    /// [`StackProfile::function_table`] as gprofng's callers–callees view counts: for a Java
    /// experiment, by the Java frames of each stack only.
    pub(crate) fn calls_table(&self) -> FunctionTable {
        self.table_by(
            |f| f.function,
            |&f| self.function_key(f),
            Calls::ListedJavaFrames,
        )
    }

    /// Per group of frames (`group` of each frame; a group counts once per stack), the
    /// exclusive (the leaf frame's group) and inclusive values, listed under `name` of the
    /// group; with callers and callees of each function for [`Calls::Listed`].
    pub(crate) fn table_by<K: Copy + Eq + std::hash::Hash + Ord>(
        &self,
        group: impl Fn(&Frame) -> K,
        name: impl Fn(&K) -> String,
        calls: Calls,
    ) -> FunctionTable {
        let mut table = FunctionTable {
            total: self.total,
            kinds: self.kinds.clone(),
            hwc: self.hwc.clone(),
            ..FunctionTable::default()
        };
        let mut excl: HashMap<K, [u64; METRICS]> = HashMap::new();
        let mut incl: HashMap<K, [u64; METRICS]> = HashMap::new();
        let mut distinct: Vec<K> = Vec::new();
        let mut keys: HashMap<FunctionId, String> = HashMap::new();
        let mut path: Vec<FunctionId> = Vec::new();
        let java_only = calls == Calls::ListedJavaFrames && self.symbols.is_java();
        let mut java_frames: Vec<Frame> = Vec::new();
        for (i, v) in self.values.iter().enumerate() {
            // Stacks only frees and unmaps used carry no metric: gprofng lists none of their
            // functions.
            if v.iter().all(|&x| x == 0) {
                continue;
            }
            let mut frames = self
                .symbols
                .frames(StackId(u32::try_from(i).unwrap_or(u32::MAX)));
            if java_only {
                java_frames.clear();
                java_frames.extend(frames.iter().filter(|f| f.kind != FrameKind::Jni));
                frames = &java_frames;
            }
            if let Some(leaf) = frames.last() {
                add_into(excl.entry(group(leaf)).or_insert([0; METRICS]), v);
            }
            distinct.clear();
            distinct.extend(frames.iter().map(&group));
            distinct.sort_unstable();
            distinct.dedup();
            for &f in &distinct {
                add_into(incl.entry(f).or_insert([0; METRICS]), v);
            }
            if calls != Calls::Skipped {
                path.clear();
                path.extend(frames.iter().map(|f| f.function));
                for &f in &path {
                    keys.entry(f).or_insert_with(|| self.function_key(f));
                }
                self.add_calls(&mut table, &path, &keys, v);
            }
        }
        for (f, i) in incl {
            let e = excl.get(&f).copied().unwrap_or([0; METRICS]);
            let slot = table
                .functions
                .entry(name(&f))
                .or_insert(([0; METRICS], [0; METRICS]));
            add_into(&mut slot.0, &e);
            add_into(&mut slot.1, &i);
        }
        table
    }

    /// The key a function is listed under: its name, plus the signature of a Java method
    /// (see `Function::signature`), `\0`-separated.
    pub(crate) fn function_key(&self, f: FunctionId) -> String {
        self.symbols
            .function(f)
            .map(|x| match &x.signature {
                Some(sig) => format!("{}\0{sig}", x.name),
                None => x.name.clone(),
            })
            .unwrap_or_default()
    }

    /// gprofng's callers and callees of one stack (`path` root first) carrying `v`: each
    /// function's innermost occurrence gets `v` on the edge from its caller (`<Total>` for the
    /// root) and on the edge to its callee; its outer occurrences list their edges with
    /// nothing attributed (so the attributed callers add up to the inclusive value, however
    /// deep the recursion).
    fn add_calls(
        &self,
        table: &mut FunctionTable,
        path: &[FunctionId],
        keys: &HashMap<FunctionId, String>,
        v: &[u64; METRICS],
    ) {
        let zero = [0u64; METRICS];
        let key = |at: usize| -> &str {
            path.get(at)
                .and_then(|f| keys.get(f))
                .map_or("", String::as_str)
        };
        match path.first() {
            Some(_) => add_edge(&mut table.callees, TOTAL, key(0), v),
            None => return,
        }
        for (at, f) in path.iter().enumerate() {
            let innermost = !path.get(at + 1..).unwrap_or_default().contains(f);
            let value = if innermost { v } else { &zero };
            let caller = match at.checked_sub(1) {
                Some(c) => key(c),
                None => TOTAL,
            };
            add_edge(&mut table.callers, key(at), caller, value);
            if at + 1 < path.len() {
                add_edge(&mut table.callees, key(at), key(at + 1), value);
            }
        }
    }
}

/// Whether [`StackProfile::table_by`] lists callers and callees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Calls {
    /// With callers and callees of each function.
    Listed,
    /// With callers and callees, a Java experiment's stacks by their Java frames only: gprofng's
    /// callers–callees view of a Java experiment leaves out the native frames spliced under a
    /// `<Java native method>` (its function list keeps them).
    ListedJavaFrames,
    /// Without.
    Skipped,
}

/// Per-function values of one or more experiments (see [`StackProfile::function_table`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionTable {
    /// Name (`name\0signature` for Java methods) → (exclusive, inclusive) raw values per
    /// metric.
    pub(super) functions: HashMap<String, ([u64; METRICS], [u64; METRICS])>,
    pub(super) total: [u64; METRICS],
    kinds: Vec<DataKind>,
    /// Hardware counters: (tag, `hwcname`), by tag.
    hwc: Vec<(u8, String)>,
    /// Function key → caller key → attributed values (gprofng's callers).
    pub(super) callers: HashMap<String, HashMap<String, [u64; METRICS]>>,
    /// Function key → callee key → attributed values (gprofng's callees).
    pub(super) callees: HashMap<String, HashMap<String, [u64; METRICS]>>,
}

impl Default for FunctionTable {
    fn default() -> Self {
        FunctionTable {
            functions: HashMap::new(),
            total: [0; METRICS],
            kinds: Vec::new(),
            hwc: Vec::new(),
            callers: HashMap::new(),
            callees: HashMap::new(),
        }
    }
}

/// A function's exclusive and inclusive values per metric.
pub(super) type ExclIncl = ([u64; METRICS], [u64; METRICS]);

/// Adds `v` to the edge `from` → `to` of `edges`.
fn add_edge(
    edges: &mut HashMap<String, HashMap<String, [u64; METRICS]>>,
    from: &str,
    to: &str,
    v: &[u64; METRICS],
) {
    let inner = match edges.get_mut(from) {
        Some(i) => i,
        None => edges.entry(from.to_owned()).or_default(),
    };
    match inner.get_mut(to) {
        Some(acc) => add_into(acc, v),
        None => {
            inner.insert(to.to_owned(), *v);
        }
    }
}

fn merge_edges(
    into: &mut HashMap<String, HashMap<String, [u64; METRICS]>>,
    from: HashMap<String, HashMap<String, [u64; METRICS]>>,
) {
    for (f, inner) in from {
        for (g, v) in inner {
            add_edge(into, &f, &g, &v);
        }
    }
}

impl FunctionTable {
    /// Adds `other` (another experiment of the same run): functions of the same name add up,
    /// as do the totals.
    pub fn merge(&mut self, other: FunctionTable) {
        for (name, (e, i)) in other.functions {
            let slot = self
                .functions
                .entry(name)
                .or_insert(([0; METRICS], [0; METRICS]));
            add_into(&mut slot.0, &e);
            add_into(&mut slot.1, &i);
        }
        merge_edges(&mut self.callers, other.callers);
        merge_edges(&mut self.callees, other.callees);
        add_into(&mut self.total, &other.total);
        for c in other.hwc {
            if !self.hwc.iter().any(|(t, _)| *t == c.0) {
                self.hwc.push(c);
            }
        }
        self.hwc.sort();
        for k in other.kinds {
            if !self.kinds.contains(&k) {
                self.kinds.push(k);
            }
        }
        self.kinds = KIND_ORDER
            .into_iter()
            .filter(|k| self.kinds.contains(k))
            .collect();
    }

    /// The data kinds, in gprofng's column order.
    pub fn kinds(&self) -> &[DataKind] {
        &self.kinds
    }

    /// gprofng's default columns for the kinds of this table (each hardware counter's
    /// exclusive and inclusive events for [`DataKind::Hwc`]).
    pub fn default_columns(&self) -> Vec<Column> {
        let tags: Vec<u8> = self.hwc.iter().map(|(t, _)| *t).collect();
        self.kinds
            .iter()
            .flat_map(|&k| match k {
                DataKind::Hwc => hwc_columns(&tags),
                k => default_columns(k),
            })
            .collect()
    }

    /// gprofng's key of `column`: [`Column::key`], with a hardware counter named after its
    /// `hwcname` in log.xml (`e.cycles`, `i.insts`).
    pub fn key(&self, column: Column) -> String {
        match column.metric {
            Metric::Hwc(tag) => match self.hwc.iter().find(|(t, _)| *t == tag) {
                Some((_, name)) => {
                    let f = match column.subtype {
                        Subtype::Exclusive => "e",
                        Subtype::Inclusive => "i",
                    };
                    format!("{f}.{name}")
                }
                None => column.key(),
            },
            _ => column.key(),
        }
    }

    /// The metric gprofng names `name`: a fixed one, or a hardware counter of this table by
    /// its `hwcname`.
    pub fn metric(&self, name: &str) -> Option<Metric> {
        Metric::named(name, &self.hwc)
    }

    /// The column gprofng sorts by default: exclusive CPU time when there is clock data, else
    /// the first column.
    pub fn sort_column(columns: &[Column]) -> Option<Column> {
        columns
            .iter()
            .copied()
            .find(|c| c.metric == Metric::TotalCpu && c.subtype == Subtype::Exclusive)
            .or_else(|| columns.first().copied())
    }

    /// The total of `metric` over all packets.
    pub fn total(&self, metric: Metric) -> u64 {
        self.total.get(metric.index()).copied().unwrap_or(0)
    }

    /// The function list: `<Total>` first, then every function of every stack, sorted by
    /// `sort` (largest first), ties by name (byte order), as gprofng lists them.
    pub fn rows(&self, columns: &[Column], sort: Option<Column>) -> Vec<Row> {
        self.keyed_rows(columns, sort)
            .into_iter()
            .map(|(_, row)| row)
            .collect()
    }

    /// [`FunctionTable::rows`] with each row's key (`<Total>` for the first).
    pub(crate) fn keyed_rows(
        &self,
        columns: &[Column],
        sort: Option<Column>,
    ) -> Vec<(String, Row)> {
        let pick = |v: Option<&([u64; METRICS], [u64; METRICS])>, c: &Column| -> u64 {
            let i = c.metric.index();
            let row = match (v, c.subtype) {
                (None, _) => &self.total,
                (Some(v), Subtype::Exclusive) => &v.0,
                (Some(v), Subtype::Inclusive) => &v.1,
            };
            row.get(i).copied().unwrap_or(0)
        };
        let mut rows: Vec<(u64, String, Row)> = self
            .functions
            .iter()
            .map(|(key, v)| {
                let values = columns.iter().map(|c| pick(Some(v), c)).collect();
                let sort_value = sort.map_or(0, |c| pick(Some(v), &c));
                let name = key.split('\0').next().unwrap_or_default().to_owned();
                (sort_value, key.clone(), Row { name, values })
            })
            .collect();
        // Ties by name, then (names printed alike) by key, so the order does not depend on
        // hashing.
        rows.sort_by(|(va, ka, a), (vb, kb, b)| {
            vb.cmp(va)
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| ka.cmp(kb))
        });
        let total = Row {
            name: TOTAL.to_owned(),
            values: columns.iter().map(|c| pick(None, c)).collect(),
        };
        std::iter::once((TOTAL.to_owned(), total))
            .chain(rows.into_iter().map(|(_, k, r)| (k, r)))
            .collect()
    }
}
