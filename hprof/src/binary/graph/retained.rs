//! Shallow and retained sizes: shallow sizes under a [`Shallow`] rule,
//! retained sizes and counts accumulated bottom-up along the dominator tree, and the retained
//! size of every class.

use super::super::heap_dump::SubRecord;
use super::super::types::{Id, IdSize};
use super::NONE;
use super::dominators::{DominatorTree, FAR_FROM};
use super::edges::SIZE_ASK_AGAIN;
use super::objects::ObjectIndex;
use super::prefetch::prefetch;
use super::suspects::Children;
use super::{Graph, NodeIndex};

/// How the shallow size of a node is counted.
#[derive(Clone, Copy, Default)]
#[non_exhaustive]
pub enum Shallow<'f> {
    /// The recorded size: an instance's field bytes as recorded; an object array's length ×
    /// id size; a primitive array's length × element size (`PRIMITIVE_ARRAY_NODATA` too);
    /// a class object 0.
    #[default]
    Recorded,
    /// ahat's sizes: an instance's class `instance_size` (from its `CLASS_DUMP`); an array's
    /// array-class `instance_size` plus length × element size (id size for object arrays); a
    /// class object the `instance_size` of `java.lang.Class` plus its static field sizes.
    Ahat,
    /// The caller's function of the index and the node.
    Custom(&'f (dyn Fn(&ObjectIndex<'_>, NodeIndex) -> u64 + Sync)),
}

impl std::fmt::Debug for Shallow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Shallow::Recorded => "Recorded",
            Shallow::Ahat => "Ahat",
            Shallow::Custom(_) => "Custom",
        })
    }
}

/// The recorded shallow size of `node` (see [`Shallow::Recorded`]).
pub fn recorded_size(ix: &ObjectIndex<'_>, node: NodeIndex) -> u64 {
    match ix.sub_record(node) {
        Ok(SubRecord::InstanceDump(i)) => i.data.len() as u64,
        Ok(SubRecord::ObjectArrayDump(a)) => a.elements.bytes().len() as u64,
        Ok(SubRecord::PrimitiveArrayDump(a)) => a.data.len() as u64,
        Ok(SubRecord::PrimitiveArrayNoData(a)) => {
            u64::from(a.length) * a.element_type.size(IdSize::Four) as u64
        }
        _ => 0,
    }
}

/// ahat's shallow size of `node` (see [`Shallow::Ahat`]).
pub fn ahat_size(ix: &ObjectIndex<'_>, node: NodeIndex) -> u64 {
    let id_size = ix.id_size();
    let instance_size = |class_id| {
        ix.class_dump(class_id)
            .map_or(0, |c| u64::from(c.instance_size))
    };
    let special = |name: &str| ix.special.get(name).map_or(0, |&c| instance_size(c));
    match ix.sub_record(node) {
        Ok(SubRecord::InstanceDump(i)) => instance_size(i.class_id),
        Ok(SubRecord::ObjectArrayDump(a)) => {
            instance_size(a.array_class_id) + a.elements.bytes().len() as u64
        }
        Ok(SubRecord::PrimitiveArrayDump(a)) => {
            special(&format!("{}[]", a.element_type.java_name())) + a.data.len() as u64
        }
        Ok(SubRecord::PrimitiveArrayNoData(a)) => {
            special(&format!("{}[]", a.element_type.java_name()))
                + u64::from(a.length) * a.element_type.size(IdSize::Four) as u64
        }
        Ok(SubRecord::ClassDump(c)) => {
            let statics: u64 = c
                .static_fields()
                .map(|s| s.value.basic_type().size(id_size) as u64)
                .sum();
            special("java.lang.Class") + statics
        }
        _ => 0,
    }
}

/// The shallow size of `node` under `rule`.
pub fn shallow_size(ix: &ObjectIndex<'_>, rule: Shallow<'_>, node: NodeIndex) -> u64 {
    match rule {
        Shallow::Recorded => recorded_size(ix, node),
        Shallow::Ahat => ahat_size(ix, node),
        Shallow::Custom(f) => f(ix, node),
    }
}

/// Retained sizes and counts of every row of `dom` (nodes, then the super-root at `n`):
/// own shallow size plus the retained sizes of the rows it immediately dominates; 0 outside
/// the tree. `sizes` holds each node's shallow size under `rule` as [`Edges::build`] found
/// it (`rule` is asked again where it says [`SIZE_ASK_AGAIN`]).
///
/// [`Edges::build`]: super::edges::Edges::build
pub(crate) fn accumulate(
    ix: &ObjectIndex<'_>,
    rule: Shallow<'_>,
    sizes: &[u32],
    dom: &DominatorTree,
) -> (Vec<u64>, Vec<u32>) {
    let far = dom.idom.len() >= FAR_FROM;
    let shallow = |v: NodeIndex| match sizes.get(v as usize) {
        Some(&s) if s != SIZE_ASK_AGAIN => u64::from(s),
        _ => shallow_size(ix, rule, v),
    };
    accumulate_with(dom, ix.len(), shallow, far)
}

/// [`accumulate`] with shallow sizes from `shallow` (rows `0..n`; the others weigh 0),
/// prefetching a few rows early if `far` (see [`FAR_FROM`]).
pub(crate) fn accumulate_with(
    dom: &DominatorTree,
    n: usize,
    shallow: impl Fn(NodeIndex) -> u64,
    far: bool,
) -> (Vec<u64>, Vec<u32>) {
    let rows = dom.idom.len();
    let mut size = vec![0u64; rows];
    let mut count = vec![0u32; rows];
    for v in 0..n.min(rows) {
        if dom.idom.get(v).is_some_and(|&d| d != NONE) {
            if let Some(s) = size.get_mut(v) {
                *s = shallow(v as NodeIndex);
            }
            if let Some(c) = count.get_mut(v) {
                *c = 1;
            }
        }
    }
    if far {
        add_up::<16>(dom, &mut size, &mut count);
    } else {
        add_up::<0>(dom, &mut size, &mut count);
    }
    (size, count)
}

/// Adds each row's retained size and count to its immediate dominator's, children before
/// parents (reverse preorder). With `AHEAD_BY` above 0, what the steps that many rows ahead
/// will read (the row's dominator, size and count, then the dominator's) is prefetched.
#[inline(always)]
fn add_up<const AHEAD_BY: usize>(dom: &DominatorTree, size: &mut [u64], count: &mut [u32]) {
    let order = dom.preorder();
    let idom = &dom.idom;
    for (k, &v) in order.iter().enumerate().skip(1).rev() {
        if AHEAD_BY > 0 {
            if let Some(&u) = order.get(k.wrapping_sub(AHEAD_BY)) {
                let u = u as usize;
                prefetch(idom, u);
                prefetch(size, u);
                prefetch(count, u);
            }
            if let Some(&u) = order.get(k.wrapping_sub(AHEAD_BY / 2)) {
                let d = idom.get(u as usize).copied().unwrap_or(NONE) as usize;
                prefetch(size, d);
                prefetch(count, d);
            }
        }
        let d = idom.get(v as usize).copied().unwrap_or(NONE) as usize;
        let (s, c) = (
            size.get(v as usize).copied().unwrap_or(0),
            count.get(v as usize).copied().unwrap_or(0),
        );
        if let Some(x) = size.get_mut(d) {
            *x = x.saturating_add(s);
        }
        if let Some(x) = count.get_mut(d) {
            *x = x.saturating_add(c);
        }
    }
}

/// The retained size of one class: its instances' retained sizes, counting only instances not
/// dominated by another instance of the same class (so nothing is counted twice).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassRetained {
    /// The class name (as [`ObjectIndex::class_name_of`] spells it).
    pub class_name: String,
    /// The class object id (`None` for primitive arrays and `java.lang.Class`).
    pub class_id: Option<Id>,
    /// Instances in the dominator tree.
    pub instances: u64,
    /// Their shallow sizes.
    pub shallow: u64,
    /// Retained size of the class.
    pub retained: u64,
}

/// Retained size per class (largest first, then by name), under the rule of
/// [`ClassRetained`]; walks the dominator tree depth-first with a count of the classes on
/// the current branch. A node's shallow size is its retained size less its children's, so
/// nothing is decoded when the graph kept its classes.
pub(crate) fn by_class(graph: &Graph<'_, '_>) -> Vec<ClassRetained> {
    let ix = &graph.index;
    let n = ix.len();
    let (numbers, of_node) = graph.node_classes();
    let tree = Children::new(&graph.idom, graph.options.scratch);
    let tree = tree.view();
    let retained = |v: u32| graph.retained.get(v as usize).copied().unwrap_or(0);
    let mut rows: Vec<(ClassRetained, NodeIndex)> = Vec::new();
    // Class number → row, filled as classes are met.
    let mut row_of = vec![NONE; numbers.len()];
    // Per row: instances of the class on the current branch.
    let mut active: Vec<u32> = Vec::new();
    let key = |v: u32| of_node.get(v as usize).copied().unwrap_or(NONE);
    // Iterative DFS from the super-root (row n): (row, next child, end of its children).
    let (a, b) = tree.range(n as u32);
    let mut stack: Vec<(u32, usize, usize)> = vec![(n as u32, a, b)];
    while let Some(top) = stack.last_mut() {
        let Some(&w) = tree.children.get(top.1).filter(|_| top.1 < top.2) else {
            let v = top.0;
            stack.pop();
            if let Some(act) = row_of
                .get(key(v) as usize)
                .and_then(|&r| active.get_mut(r as usize))
            {
                *act = act.saturating_sub(1);
            }
            continue;
        };
        top.1 += 1;
        let v = top.0;
        let r = retained(w);
        // The parent's shallow size is its retained size less its children's.
        if let Some((parent, _)) = row_of
            .get(key(v) as usize)
            .and_then(|&p| rows.get_mut(p as usize))
        {
            parent.shallow = parent.shallow.wrapping_sub(r);
        }
        let (a, b) = tree.range(w);
        let k = key(w);
        if let Some(slot) = row_of.get_mut(k as usize) {
            if *slot == NONE {
                *slot = rows.len() as u32;
                let row = ClassRetained {
                    class_name: String::new(),
                    class_id: numbers.class_id(k),
                    instances: 0,
                    shallow: 0,
                    retained: 0,
                };
                rows.push((row, w));
                active.push(0);
            }
            if let (Some((c, _)), Some(act)) =
                (rows.get_mut(*slot as usize), active.get_mut(*slot as usize))
            {
                c.instances += 1;
                c.shallow = c.shallow.wrapping_add(r);
                if *act == 0 {
                    c.retained += r;
                }
                // A leaf has nothing below it to count as inside it.
                if a < b {
                    *act += 1;
                }
            }
        }
        if a < b {
            stack.push((w, a, b));
        }
    }
    let mut out: Vec<ClassRetained> = rows
        .into_iter()
        .zip(0u32..)
        .map(|((mut row, example), _)| {
            let k = key(example);
            row.class_name = numbers.name(ix, k, example);
            row
        })
        .collect();
    out.sort_by(|a, b| {
        b.retained
            .cmp(&a.retained)
            .then_with(|| a.class_name.cmp(&b.class_name))
    });
    out
}
