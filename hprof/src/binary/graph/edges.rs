//! References between objects: the outgoing references of each node under
//! an [`EdgePolicy`], as `u32` node indices in compressed sparse rows, and the reverse index
//! built on demand.

use super::super::heap_dump::SubRecord;
use super::super::types::{BasicType, Id, IdList, IdSize};
use super::index::{Lookup, ObjectIndex};
use super::{EdgePolicy, NodeIndex};

/// Flag bit on a stored edge target: a reference ahat does not follow for dominators
/// (the `referent` of a Weak/Finalizer/Phantom reference; ahat policy only).
pub(crate) const WEAK: u32 = 1 << 31;

/// What an outgoing reference goes through.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Via {
    /// An instance field (by name; empty when its `UTF8` record is missing).
    Field(String),
    /// An object-array element.
    Element(u64),
    /// The object's class (instance → class, object array → array class).
    Class,
    /// A class's superclass.
    SuperClass,
    /// A class's class loader.
    ClassLoader,
    /// A class's signers.
    Signers,
    /// A class's protection domain.
    ProtectionDomain,
    /// A static field (by name).
    StaticField(String),
    /// A constant-pool entry (by index).
    ConstantPool(u16),
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Field(n) => write!(f, ".{n}"),
            Via::Element(i) => write!(f, "[{i}]"),
            Via::Class => f.write_str("<class>"),
            Via::SuperClass => f.write_str("<super>"),
            Via::ClassLoader => f.write_str("<classloader>"),
            Via::Signers => f.write_str("<signers>"),
            Via::ProtectionDomain => f.write_str("<protection domain>"),
            Via::StaticField(n) => write!(f, "static {n}"),
            Via::ConstantPool(i) => write!(f, "<constant pool #{i}>"),
        }
    }
}

#[inline(always)]
fn read_id(b: &[u8], id_size: IdSize) -> Id {
    match id_size {
        IdSize::Four => b
            .first_chunk::<4>()
            .map_or(0, |a| Id::from(u32::from_be_bytes(*a))),
        IdSize::Eight => b.first_chunk::<8>().map_or(0, |a| u64::from_be_bytes(*a)),
    }
}

/// Calls `out(target id, weak, via)` for every nonzero object id that node `node` references
/// under `policy` (targets are not resolved: they may name no node). `via` is computed only
/// when `NAMES` is true (otherwise [`Via::Class`] is passed as a placeholder).
/// Returns how many instances had field data shorter than their class layout, and whether the
/// instance's class was unknown.
pub(crate) fn for_each_reference<const NAMES: bool>(
    ix: &ObjectIndex<'_>,
    node: NodeIndex,
    policy: EdgePolicy,
    mut out: impl FnMut(Id, bool, Via),
) -> RefStats {
    let id_size = ix.id_size();
    let mut stats = RefStats::default();
    let Ok(sub) = ix.sub_record(node) else {
        return stats;
    };
    let ahat = policy == EdgePolicy::Ahat;
    match sub {
        SubRecord::InstanceDump(i) => {
            match ix.layout(i.class_id) {
                Some(layout) => {
                    for (k, &(off, weak)) in layout.refs.iter().enumerate() {
                        let Some(b) = i.data.get(off as usize..off as usize + id_size.bytes())
                        else {
                            stats.short_instance = true;
                            break;
                        };
                        let id = read_id(b, id_size);
                        if id != 0 {
                            let via = if NAMES {
                                Via::Field(field_name(ix, i.class_id, k))
                            } else {
                                Via::Class
                            };
                            out(id, ahat && weak, via);
                        }
                    }
                    if (layout.size as usize) > i.data.len() && !layout.refs.is_empty() {
                        stats.short_instance = true;
                    }
                }
                None => stats.unknown_class = true,
            }
            if !ahat && i.class_id != 0 {
                out(i.class_id, false, Via::Class);
            }
        }
        SubRecord::ObjectArrayDump(a) => {
            elements::<NAMES>(a.elements, &mut out);
            if !ahat && a.array_class_id != 0 {
                out(a.array_class_id, false, Via::Class);
            }
        }
        SubRecord::ClassDump(c) => {
            if !ahat {
                for (id, via) in [
                    (c.super_class_id, Via::SuperClass),
                    (c.class_loader_id, Via::ClassLoader),
                    (c.signers_id, Via::Signers),
                    (c.protection_domain_id, Via::ProtectionDomain),
                ] {
                    if id != 0 {
                        out(id, false, via);
                    }
                }
            }
            for s in c.static_fields() {
                if let Some(id) = s.value.as_object().filter(|&id| id != 0) {
                    let via = if NAMES {
                        Via::StaticField(name_of(ix, s.name_id))
                    } else {
                        Via::Class
                    };
                    out(id, false, via);
                }
            }
            if !ahat {
                for e in c.constant_pool() {
                    if let Some(id) = e.value.as_object().filter(|&id| id != 0) {
                        out(id, false, Via::ConstantPool(e.index));
                    }
                }
            }
        }
        _ => {}
    }
    stats
}

fn elements<const NAMES: bool>(list: IdList<'_>, out: &mut impl FnMut(Id, bool, Via)) {
    for (k, id) in list.iter().enumerate() {
        if id != 0 {
            let via = if NAMES {
                Via::Element(k as u64)
            } else {
                Via::Class
            };
            out(id, false, via);
        }
    }
}

fn name_of(ix: &ObjectIndex<'_>, name_id: Id) -> String {
    ix.string(name_id)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

/// The name of the `k`-th object-typed field of the layout of `class_id`.
fn field_name(ix: &ObjectIndex<'_>, class_id: Id, k: usize) -> String {
    let mut seen = 0;
    let mut id = class_id;
    let mut depth = 0;
    while id != 0 && depth <= ix.classes.len() {
        let Some(c) = ix.class_dump(id) else { break };
        for f in c.instance_fields() {
            if f.field_type == BasicType::Object {
                if seen == k {
                    return name_of(ix, f.name_id);
                }
                seen += 1;
            }
        }
        id = c.super_class_id;
        depth += 1;
    }
    String::new()
}

/// Per-node problems met while listing references.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RefStats {
    pub(crate) short_instance: bool,
    pub(crate) unknown_class: bool,
}

/// Row starts of compressed sparse rows: `u32` while the edges fit, `u64` beyond.
#[derive(Debug, Clone)]
pub(crate) enum Starts {
    /// At most `u32::MAX` edges.
    Narrow(Vec<u32>),
    /// More.
    Wide(Vec<u64>),
}

impl Default for Starts {
    fn default() -> Self {
        Starts::Narrow(Vec::new())
    }
}

impl Starts {
    fn with_capacity(n: usize) -> Starts {
        Starts::Narrow(Vec::with_capacity(n))
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<u64> {
        match self {
            Starts::Narrow(v) => v.get(i).map(|&x| u64::from(x)),
            Starts::Wide(v) => v.get(i).copied(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Starts::Narrow(v) => v.len(),
            Starts::Wide(v) => v.len(),
        }
    }

    fn push(&mut self, x: u64) {
        match self {
            Starts::Narrow(v) => match u32::try_from(x) {
                Ok(x) => v.push(x),
                Err(_) => {
                    let mut w: Vec<u64> = Vec::with_capacity(v.capacity());
                    w.extend(v.iter().map(|&x| u64::from(x)));
                    w.push(x);
                    *self = Starts::Wide(w);
                }
            },
            Starts::Wide(v) => v.push(x),
        }
    }
}

/// Outgoing references of every node (plus the super-root, the last row, pointing at every
/// root node), as `u32` node indices in compressed sparse rows.
#[derive(Debug, Clone, Default)]
pub struct Edges {
    /// Row starts: `starts[v]..starts[v + 1]` are `v`'s targets.
    pub(crate) starts: Starts,
    /// Targets; the top bit flags references ahat does not follow for dominators.
    pub(crate) targets: Vec<u32>,
}

impl Edges {
    /// Number of rows (nodes + the super-root).
    pub fn rows(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether there is no edge.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// The raw targets of row `v` (top bit: weak flag).
    #[inline]
    pub(crate) fn row(&self, v: u32) -> &[u32] {
        let (Some(a), Some(b)) = (self.starts.get(v as usize), self.starts.get(v as usize + 1))
        else {
            return &[];
        };
        self.targets.get(a as usize..b as usize).unwrap_or_default()
    }

    /// The targets of node `v` (flags removed).
    pub fn targets(&self, v: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.row(v).iter().map(|t| t & !WEAK)
    }

    /// Builds the outgoing references of every node, then the super-root row from `roots`
    /// (distinct root nodes, ascending). Dangling and unknown references are counted in
    /// `warnings`.
    pub(crate) fn build(
        ix: &ObjectIndex<'_>,
        policy: EdgePolicy,
        roots: &[NodeIndex],
        warnings: &mut super::Warnings,
    ) -> Edges {
        let n = ix.len();
        let mut starts = Starts::with_capacity(n + 2);
        let mut targets: Vec<u32> = Vec::new();
        starts.push(0u64);
        let mut dangling = 0u64;
        let lookup = Lookup::new(ix);
        for v in 0..n as u32 {
            let stats =
                for_each_reference::<false>(ix, v, policy, |id, weak, _| match lookup.node(id) {
                    Some(t) => targets.push(if weak { t | WEAK } else { t }),
                    None => dangling += 1,
                });
            warnings.short_instances += u64::from(stats.short_instance);
            warnings.unknown_classes += u64::from(stats.unknown_class);
            starts.push(targets.len() as u64);
        }
        targets.extend_from_slice(roots);
        starts.push(targets.len() as u64);
        targets.shrink_to_fit();
        warnings.dangling_references = dangling;
        Edges { starts, targets }
    }

    /// Rows from adjacency lists (targets with the [`WEAK`] flag as given).
    #[cfg(test)]
    pub(crate) fn from_rows(rows: &[Vec<u32>]) -> Edges {
        let mut starts = Starts::with_capacity(rows.len() + 1);
        let mut targets = Vec::new();
        starts.push(0);
        for r in rows {
            targets.extend_from_slice(r);
            starts.push(targets.len() as u64);
        }
        Edges { starts, targets }
    }

    /// The reverse rows: for every node, the rows referencing it (the super-root, row `n`,
    /// references the roots; a node referenced several times by one node is listed several
    /// times).
    pub fn reverse(&self) -> Edges {
        let rows = self.rows();
        let mut counts = vec![0u64; rows + 1];
        for &t in &self.targets {
            if let Some(c) = counts.get_mut((t & !WEAK) as usize + 1) {
                *c += 1;
            }
        }
        for i in 1..counts.len() {
            let prev = counts.get(i - 1).copied().unwrap_or(0);
            if let Some(c) = counts.get_mut(i) {
                *c += prev;
            }
        }
        let mut fill: Vec<u64> = counts.clone();
        let mut targets = vec![0u32; self.targets.len()];
        for v in 0..rows as u32 {
            for &t in self.row(v) {
                if let Some(f) = fill.get_mut((t & !WEAK) as usize) {
                    if let Some(slot) = targets.get_mut(*f as usize) {
                        *slot = v | (t & WEAK);
                    }
                    *f += 1;
                }
            }
        }
        let mut starts = Starts::with_capacity(counts.len());
        for c in counts {
            starts.push(c);
        }
        Edges { starts, targets }
    }
}
