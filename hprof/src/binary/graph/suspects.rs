//! Leak suspects as Eclipse MAT's Leak Suspects report defines them: single objects, and
//! classes whose instances together, retaining at least a share of the reachable heap (10% by
//! default), each with its accumulation point (walking down the dominator tree while one child
//! retains most of its parent: the collection whose elements hold the memory), the shortest
//! path from a GC root, and the classes that retain the most inside the accumulation point.

#[cfg(doc)]
use super::EdgePolicy;
use super::NONE;
use std::collections::{HashMap, HashSet};

use super::super::error::Result;
use super::super::heap_dump::SubRecord;
use super::super::types::Id;
use super::edges::Via;
use super::scratch::{self, Array, IN_MEMORY, Scratch};
use super::{Graph, NodeIndex, paths};

/// What to report ([`Graph::leak_suspects`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuspectOptions {
    /// The least share of the reachable heap a suspect retains (MAT: 10%).
    pub threshold: f64,
    /// The accumulation point is reached by walking down while one child retains at least
    /// this share of its parent (MAT: 80%).
    pub accumulation: f64,
    /// How many classes to list inside each accumulation point.
    pub top_classes: usize,
}

impl Default for SuspectOptions {
    fn default() -> Self {
        SuspectOptions {
            threshold: 0.10,
            accumulation: 0.80,
            top_classes: 10,
        }
    }
}

/// Whether a suspect is one object or all instances of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum SuspectKind {
    /// One object retains the share.
    Object,
    /// The instances of a class do, together.
    Class,
}

/// One node of a report, with its class.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NamedNode {
    /// The node.
    pub node: NodeIndex,
    /// Its object id.
    pub id: Id,
    /// How a person names it ([`ObjectIndex::display_name`](super::ObjectIndex::display_name)).
    pub class_name: String,
    /// Its retained size.
    pub retained: u64,
}

/// One step of a suspect's path: an object, its name, and the reference to the next step.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NamedStep {
    /// The node.
    pub node: NodeIndex,
    /// Its object id.
    pub id: Id,
    /// How a person names it (`class com.example.Cache` for a class object).
    pub class_name: String,
    /// How it references the next step (`None` for the last): a field, a static field of a
    /// class, an array element.
    pub via: Option<Via>,
}

/// The class loader that defined a class, named where the dump has several classes of the
/// class's name (the same class defined by several loaders).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NamedLoader {
    /// The loader object's id (0: the boot loader).
    pub id: Id,
    /// Its class (`<bootstrap>` for the boot loader, `<unknown>` when the dump has no object
    /// of that id).
    pub class_name: String,
}

/// One class retaining memory inside an accumulation point.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TopClass {
    /// The class name.
    pub class_name: String,
    /// The loader that defined it, when the dump has several classes of this name.
    pub loader: Option<NamedLoader>,
    /// Its instances' retained bytes there, each counted once.
    pub retained: u64,
}

/// One leak suspect.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Suspect {
    /// An object or a class.
    pub kind: SuspectKind,
    /// The object's class, or the class.
    pub class_name: String,
    /// The loader that defined that class (for a class object, the class it stands for),
    /// when the dump has several classes of that name: each is a suspect of its own.
    pub loader: Option<NamedLoader>,
    /// The object (for a class: its instance that retains the most).
    pub object: NamedNode,
    /// What the suspect retains (a class: its instances together, each counted once).
    pub retained: u64,
    /// `retained` over the reachable bytes.
    pub share: f64,
    /// Where the memory accumulates, walking down from `object`.
    pub accumulation_point: NamedNode,
    /// A shortest path from a GC root to the accumulation point (root first), with the field
    /// of each step.
    pub path: Vec<NamedStep>,
    /// The classes retaining the most inside the accumulation point (itself excluded), each
    /// instance counted once (not inside another instance of its class), largest first.
    pub top_classes: Vec<TopClass>,
}

impl Graph<'_, '_> {
    /// The leak suspects, largest first: objects retaining at least `threshold` of the
    /// reachable bytes (the topmost of a chain of such objects: one below another is the same
    /// leak), then classes whose instances outside those objects together do (each instance
    /// counted once: not inside another instance of its class), MAT's two views. Classes are
    /// told apart by class object, so one name defined by several class loaders gives one
    /// suspect per class, each naming its [loader](Suspect::loader). A graph built with
    /// [`NodeClasses::Keep`](super::NodeClasses::Keep) answers without decoding the objects
    /// again.
    pub fn leak_suspects(&self, options: SuspectOptions) -> Vec<Suspect> {
        let total = self.summary().reachable_bytes;
        if total == 0 {
            return Vec::new();
        }
        let threshold = ((options.threshold * total as f64).ceil() as u64).max(1);
        let tree = Children::new(&self.idom, self.options.scratch);
        let (numbers, of_node) = self.node_classes();
        let keys = ClassKeys {
            of_node: &of_node,
            classes: numbers.len(),
        };
        let mut search = paths::Search::new(self.index.len(), &self.roots, self.options.scratch);
        let shared = self.shared_class_names();
        let keys = (&keys, &shared);
        let mut out = Vec::new();
        let mut objects: Vec<NodeIndex> = (0..self.index.len() as NodeIndex)
            .filter(|&v| self.retained_size(v) >= threshold)
            .collect();
        objects.sort_by_key(|&v| (std::cmp::Reverse(self.retained_size(v)), v));
        let mut taken: Vec<NodeIndex> = Vec::new();
        for v in objects {
            if taken.iter().any(|&t| self.dominates(t, v)) {
                continue;
            }
            taken.push(v);
            let retained = self.retained_size(v);
            out.push(self.suspect(
                SuspectKind::Object,
                v,
                retained,
                total,
                (&tree, keys, &mut search),
                options,
            ));
        }
        let mut classes: Vec<ClassTotal> = self
            .class_totals(self.index.len() as NodeIndex, &tree, keys.0, &taken)
            .into_iter()
            .filter(|c| c.retained >= threshold)
            .collect();
        classes.sort_by_key(|c| (std::cmp::Reverse(c.retained), c.top));
        for c in classes {
            let mut s = self.suspect(
                SuspectKind::Class,
                c.top,
                c.retained,
                total,
                (&tree, keys, &mut search),
                options,
            );
            s.class_name = self.index.class_name_of(c.top);
            s.loader = self.defining_loader(&shared, self.index.class_id_of(c.top));
            out.push(s);
        }
        out
    }

    /// Per class, inside `from`'s dominator subtree (`from` excluded) and outside the
    /// subtrees of `skip`: the retained bytes of the instances not inside another instance of
    /// their class, and the instance retaining the most (classes with no such instance left
    /// out).
    fn class_totals(
        &self,
        from: NodeIndex,
        tree: &Children,
        keys: &ClassKeys<'_>,
        skip: &[NodeIndex],
    ) -> Vec<ClassTotal> {
        let mut totals: Vec<ClassTotal> = vec![ClassTotal::default(); keys.classes];
        // Instances of each class on the path from `from` to the node being visited.
        let mut active: Vec<u32> = vec![0; keys.classes];
        // The nodes skipped retain at least this much (a cheap test before the list's).
        let floor = skip.iter().map(|&t| self.retained_size(t)).min();
        // (node, next child, end of its children) of each node on the path.
        let tree = tree.view();
        let (a, b) = tree.range(from);
        let mut stack: Vec<(NodeIndex, usize, usize)> = vec![(from, a, b)];
        while let Some(top) = stack.last_mut() {
            let Some(&c) = tree.children.get(top.1).filter(|_| top.1 < top.2) else {
                let v = top.0;
                stack.pop();
                if let Some(count) = keys.of(v).and_then(|k| active.get_mut(k)) {
                    *count = count.saturating_sub(1);
                }
                continue;
            };
            top.1 += 1;
            let retained = self.retained_size(c);
            if floor.is_some_and(|f| retained >= f) && skip.contains(&c) {
                continue;
            }
            let Some(k) = keys.of(c) else {
                continue;
            };
            let (a, b) = tree.range(c);
            if let (Some(count), Some(t)) = (active.get_mut(k), totals.get_mut(k)) {
                if *count == 0 {
                    t.retained = t.retained.saturating_add(retained);
                }
                if t.instances == 0
                    || retained > t.top_retained
                    || (retained == t.top_retained && c < t.top)
                {
                    (t.top, t.top_retained) = (c, retained);
                }
                t.instances += 1;
                // A leaf has nothing below it to count as inside it.
                if a < b {
                    *count += 1;
                }
            }
            if a < b {
                stack.push((c, a, b));
            }
        }
        totals.retain(|t| t.instances > 0);
        totals
    }

    /// A shortest path from a GC root to `node` (root first). Every path to `node` passes
    /// through each of its dominators in turn, so a shortest path from the roots to the top
    /// one and shortest paths between consecutive ones, joined, make one (the dominator tree
    /// being over every edge, as under [`EdgePolicy::Recorded`]). Each of those searches
    /// stops at its target, and the one from the roots is resumed for the next suspect. When
    /// they would visit more than the search's budget of nodes, or weak edges
    /// ([`EdgePolicy::Ahat`]) are not in the dominator tree, the breadth-first search of every
    /// node ([`Graph::path`]) answers instead.
    fn suspect_path(&self, node: NodeIndex, search: &mut paths::Search) -> Option<Vec<NodeIndex>> {
        if self.reached.is_none() && search.budget > 0 {
            if let Some(path) = self.path_along_dominators(node, search) {
                return Some(path);
            }
            search.budget = 0;
        }
        self.path(node)
    }

    fn path_along_dominators(
        &self,
        node: NodeIndex,
        search: &mut paths::Search,
    ) -> Option<Vec<NodeIndex>> {
        let mut chain = vec![node];
        let mut v = node;
        while let Some(d) = self.dominator(v)? {
            if chain.len() > self.index.len() {
                return None;
            }
            chain.push(d);
            v = d;
        }
        chain.reverse();
        let (ix, policy) = (&self.index, self.options.policy);
        let mut path = search.reach_from_roots(ix, policy, *chain.first()?)?;
        for pair in chain.windows(2) {
            let &[from, to] = pair else { continue };
            let segment = search.between(ix, policy, from, to)?;
            path.extend(segment.into_iter().skip(1));
        }
        Some(path)
    }

    /// Whether `a` dominates `b` (or is `b`).
    fn dominates(&self, a: NodeIndex, b: NodeIndex) -> bool {
        let mut v = b;
        for _ in 0..=self.index.len() {
            if v == a {
                return true;
            }
            match self.dominator(v) {
                Some(Some(d)) => v = d,
                _ => return false,
            }
        }
        false
    }

    fn named(&self, v: NodeIndex) -> NamedNode {
        NamedNode {
            node: v,
            id: self.index.id(v).unwrap_or_default(),
            class_name: self.index.display_name(v),
            retained: self.retained_size(v),
        }
    }

    fn suspect(
        &self,
        kind: SuspectKind,
        v: NodeIndex,
        retained: u64,
        total: u64,
        (tree, (keys, shared), search): (
            &Children,
            (&ClassKeys<'_>, &HashSet<Id>),
            &mut paths::Search,
        ),
        options: SuspectOptions,
    ) -> Suspect {
        // Down the dominator tree while one child holds most of its parent.
        let mut point = v;
        for _ in 0..=self.index.len() {
            let best = tree
                .of(point)
                .iter()
                .copied()
                .max_by_key(|&c| (self.retained_size(c), std::cmp::Reverse(c)));
            match best {
                Some(c)
                    if self.retained_size(c) as f64
                        >= options.accumulation * self.retained_size(point) as f64 =>
                {
                    point = c;
                }
                _ => break,
            }
        }
        let class_id = match self.index.sub_record(v) {
            Ok(SubRecord::ClassDump(c)) => Some(c.class_id),
            _ => self.index.class_id_of(v),
        };
        Suspect {
            kind,
            class_name: self.index.display_name(v),
            loader: self.defining_loader(shared, class_id),
            object: self.named(v),
            retained,
            share: retained as f64 / total as f64,
            accumulation_point: self.named(point),
            path: self
                .suspect_path(point, search)
                .map(|nodes| paths::steps(&self.index, self.options.policy, &nodes))
                .unwrap_or_default()
                .into_iter()
                .map(|s| NamedStep {
                    node: s.node,
                    id: s.id,
                    class_name: self.index.display_name(s.node),
                    via: s.via,
                })
                .collect(),
            top_classes: self.top_classes_under(point, tree, (keys, shared), options.top_classes),
        }
    }

    /// Retained size per class inside `point`'s dominator subtree (`point` excluded), each
    /// instance counted once, largest first, then by name.
    fn top_classes_under(
        &self,
        point: NodeIndex,
        tree: &Children,
        (keys, shared): (&ClassKeys<'_>, &HashSet<Id>),
        n: usize,
    ) -> Vec<TopClass> {
        let mut rows: Vec<(TopClass, NodeIndex)> = self
            .class_totals(point, tree, keys, &[])
            .into_iter()
            .map(|t| {
                let row = TopClass {
                    class_name: self.index.class_name_of(t.top),
                    loader: None,
                    retained: t.retained,
                };
                (row, t.top)
            })
            .collect();
        rows.sort_by(|(a, x), (b, y)| {
            b.retained
                .cmp(&a.retained)
                .then_with(|| a.class_name.cmp(&b.class_name))
                .then_with(|| x.cmp(y))
        });
        rows.truncate(n);
        rows.into_iter()
            .map(|(mut row, top)| {
                row.loader = self.defining_loader(shared, self.index.class_id_of(top));
                row
            })
            .collect()
    }

    /// The class ids whose name the dump gives to several `CLASS_DUMP`s.
    fn shared_class_names(&self) -> HashSet<Id> {
        let mut by_name: HashMap<String, Vec<Id>> = HashMap::new();
        for &class_id in self.index.classes.keys() {
            if let Some(name) = self.index.class_name(class_id) {
                by_name.entry(name).or_default().push(class_id);
            }
        }
        by_name
            .into_values()
            .filter(|ids| ids.len() > 1)
            .flatten()
            .collect()
    }

    /// The loader of `class_id` when its name is shared.
    fn defining_loader(&self, shared: &HashSet<Id>, class_id: Option<Id>) -> Option<NamedLoader> {
        let class_id = class_id.filter(|id| shared.contains(id))?;
        let id = self.index.class_dump(class_id)?.class_loader_id;
        let class_name = match id {
            Id::NULL => "<bootstrap>".to_owned(),
            _ => self
                .index
                .node(id)
                .map_or_else(|| "<unknown>".to_owned(), |v| self.index.class_name_of(v)),
        };
        Some(NamedLoader { id, class_name })
    }
}

/// One class's instances in a part of the dominator tree.
#[derive(Debug, Clone, Copy, Default)]
struct ClassTotal {
    instances: u64,
    retained: u64,
    top: NodeIndex,
    top_retained: u64,
}

/// The class number of every node of the dominator tree ([`NONE`] elsewhere).
struct ClassKeys<'k> {
    of_node: &'k [u32],
    classes: usize,
}

impl ClassKeys<'_> {
    /// The class number of `v` (`None` for the super-root and nodes outside the tree).
    fn of(&self, v: NodeIndex) -> Option<usize> {
        self.of_node
            .get(v as usize)
            .filter(|&&k| k != NONE)
            .map(|&k| k as usize)
    }
}

/// [`Children`] as slices.
#[derive(Clone, Copy)]
pub(crate) struct ChildrenView<'c> {
    starts: &'c [u32],
    pub(crate) children: &'c [NodeIndex],
}

impl ChildrenView<'_> {
    /// Where the nodes `v` immediately dominates are in `children`.
    #[inline]
    pub(crate) fn range(&self, v: NodeIndex) -> (usize, usize) {
        let a = self.starts.get(v as usize).copied().unwrap_or(0) as usize;
        let b = self.starts.get(v as usize + 1).copied().unwrap_or(0) as usize;
        (a, b)
    }
}

/// The dominator tree's children lists (row `n`: the super-root's).
pub(crate) struct Children {
    starts: Array<u32>,
    pub(crate) children: Array<NodeIndex>,
}

impl Children {
    /// The children lists of the immediate dominators `idom` (one row per node, the
    /// super-root's last).
    pub(crate) fn new(idom: &[u32], scratch: &dyn Scratch) -> Children {
        Children::new_in(idom, scratch)
            .or_else(|_| Children::new_in(idom, &IN_MEMORY))
            .unwrap_or_else(|_| Children {
                starts: Box::new(Vec::new().into_boxed_slice()),
                children: Box::new(Vec::new().into_boxed_slice()),
            })
    }

    /// [`Children::new`] in `s`.
    fn new_in(idom: &[u32], s: &dyn Scratch) -> Result<Children> {
        // Counts, summed into the end of each row; then each row is filled backwards from
        // its end (nodes in descending order), which leaves every end at its row's start and
        // the row ascending.
        let mut starts_array = scratch::u32s(s, idom.len() + 1, "dominator tree row starts")?;
        let starts: &mut [u32] = &mut starts_array;
        for &d in idom {
            if let Some(c) = starts.get_mut((d as usize).wrapping_add(1)) {
                *c += 1;
            }
        }
        let mut sum = 0u32;
        for c in starts.iter_mut() {
            sum += *c;
            *c = sum;
        }
        let mut children_array = scratch::u32s(s, sum as usize, "dominator tree children")?;
        let children: &mut [u32] = &mut children_array;
        for (v, &d) in idom.iter().enumerate().rev() {
            if let Some(end) = starts.get_mut((d as usize).wrapping_add(1)) {
                *end -= 1;
                if let Some(s) = children.get_mut(*end as usize) {
                    *s = v as NodeIndex;
                }
            }
        }
        // Row d now starts at starts[d + 1]: shift down by one.
        starts.rotate_left(1);
        if let Some(last) = starts.last_mut() {
            *last = sum;
        }
        Ok(Children {
            starts: starts_array,
            children: children_array,
        })
    }

    /// The lists as plain slices (for walks over many nodes: each use of an [`Array`] goes
    /// through its storage's `deref`).
    pub(crate) fn view(&self) -> ChildrenView<'_> {
        ChildrenView {
            starts: &self.starts,
            children: &self.children,
        }
    }

    /// The nodes `v` immediately dominates.
    pub(crate) fn of(&self, v: NodeIndex) -> &[NodeIndex] {
        let a = self.starts.get(v as usize).copied().unwrap_or(0) as usize;
        let b = self.starts.get(v as usize + 1).copied().unwrap_or(0) as usize;
        self.children.get(a..b).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::super::super::heap_dump::GcRoot;
    use super::super::super::types::{BasicType, Id, IdSize, Value};
    use super::super::super::write::HeapBuilder;
    use super::super::{Graph, NodeIndex, Options, paths};
    use super::IN_MEMORY;

    /// Objects with two references each to later objects, a few of them roots.
    fn tangle(n: u64) -> Vec<u8> {
        let mut heap = HeapBuilder::new(IdSize::Eight);
        heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
            .class(
                Id(0x20),
                "Node",
                Id(0x10),
                &[("a", BasicType::Object), ("b", BasicType::Object)],
            );
        let id = |k: u64| Id(0x1000 + k);
        for k in 0..n {
            let pick = |salt: u64| {
                let r = (k * 2_654_435_761 + salt * 40_503) % 7 + 1;
                if k + r < n { id(k + r) } else { Id::NULL }
            };
            heap.instance(
                id(k),
                Id(0x20),
                &[Value::Object(pick(1)), Value::Object(pick(2))],
            );
            if k % 9 == 0 {
                heap.root(GcRoot::StickyClass { object_id: id(k) });
            }
        }
        heap.build().unwrap()
    }

    #[test]
    fn paths_along_dominators_are_shortest_and_fall_back_past_their_budget() {
        let data = tangle(200);
        for options in [Options::default(), Options::ahat()] {
            let graph = Graph::build(&data, options).unwrap();
            let n = graph.index().len();
            let mut search = paths::Search::new(n, graph.roots(), &IN_MEMORY);
            let mut starved = paths::Search::new(n, graph.roots(), &IN_MEMORY);
            starved.budget = 0;
            for v in 0..n as NodeIndex {
                let bfs = graph.path(v);
                let found = graph.suspect_path(v, &mut search);
                assert_eq!(found.as_ref().map(Vec::len), bfs.as_ref().map(Vec::len));
                if let Some(p) = &found {
                    assert_eq!(p.last(), Some(&v));
                    assert!(graph.roots().contains(&p[0]));
                    for w in p.windows(2) {
                        assert!(graph.references(w[0]).iter().any(|r| r.0 == w[1]));
                    }
                }
                // No budget left: the breadth-first search of every node answers.
                assert_eq!(graph.suspect_path(v, &mut starved), bfs);
            }
        }
    }
}
