//! Leak suspects as Eclipse MAT's Leak Suspects report defines them: single objects, and
//! classes whose instances together, retaining at least a share of the reachable heap (10% by
//! default), each with its accumulation point (walking down the dominator tree while one child
//! retains most of its parent: the collection whose elements hold the memory), the shortest
//! path from a GC root, and the classes that retain the most inside the accumulation point.

use std::collections::HashMap;

use super::dominators::NONE;
use super::paths::PathStep;
use super::{Graph, NodeIndex};

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
    pub id: u64,
    /// How a person names it ([`ObjectIndex::display_name`](super::ObjectIndex::display_name)).
    pub class_name: String,
    /// Its retained size.
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
    /// The object (for a class: its instance that retains the most).
    pub object: NamedNode,
    /// What the suspect retains (a class: its instances together, each counted once).
    pub retained: u64,
    /// `retained` over the reachable bytes.
    pub share: f64,
    /// Where the memory accumulates, walking down from `object`.
    pub accumulation_point: NamedNode,
    /// A shortest path from a GC root to `object` (root first), with the field of each step.
    pub path: Vec<PathStep>,
    /// The classes retaining the most inside the accumulation point (itself excluded), each
    /// instance counted once (not inside another instance of its class), largest first.
    pub top_classes: Vec<(String, u64)>,
}

impl Graph<'_, '_> {
    /// The leak suspects, largest first: objects retaining at least `threshold` of the
    /// reachable bytes, then classes whose instances do (a class whose top instance is already
    /// an object suspect is still listed: MAT reports both views).
    pub fn leak_suspects(&self, options: SuspectOptions) -> Vec<Suspect> {
        let total = self.summary().reachable_bytes;
        if total == 0 {
            return Vec::new();
        }
        let threshold = (options.threshold * total as f64).ceil() as u64;
        let tree = Children::new(&self.idom);
        let mut out = Vec::new();
        // Objects, largest first; only the topmost of a chain of suspects (an object under a
        // suspect retains less but may still pass the threshold: it is the same leak).
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
            out.push(self.suspect(SuspectKind::Object, v, self.retained_size(v), total, &tree, options));
        }
        for class in self.class_retained() {
            if class.retained < threshold {
                continue;
            }
            // The class's instance that retains the most.
            let of_class = |v: NodeIndex| match class.class_id {
                Some(id) => self.index.class_id_of(v) == Some(id),
                None => self.index.class_name_of(v) == class.class_name,
            };
            let Some(top) = (0..self.index.len() as NodeIndex)
                .filter(|&v| self.in_dominator_tree(v) && of_class(v))
                .max_by_key(|&v| (self.retained_size(v), std::cmp::Reverse(v)))
            else {
                continue;
            };
            let mut s = self.suspect(SuspectKind::Class, top, class.retained, total, &tree, options);
            s.class_name = class.class_name;
            out.push(s);
        }
        out
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
            id: self.index.id(v).unwrap_or(0),
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
        tree: &Children,
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
        Suspect {
            kind,
            class_name: self.index.display_name(v),
            object: self.named(v),
            retained,
            share: retained as f64 / total as f64,
            accumulation_point: self.named(point),
            path: self.path_steps(v).unwrap_or_default(),
            top_classes: self.top_classes_under(point, tree, options.top_classes),
        }
    }

    /// Retained size per class inside `point`'s dominator subtree (`point` excluded), each
    /// instance counted once, largest first, then by name.
    fn top_classes_under(&self, point: NodeIndex, tree: &Children, n: usize) -> Vec<(String, u64)> {
        let mut retained: HashMap<String, u64> = HashMap::new();
        // Classes on the path from `point` to the node being visited (counted once: an instance
        // under another of its class is already in that one's retained size).
        let mut active: HashMap<String, u32> = HashMap::new();
        let mut stack: Vec<(NodeIndex, usize, Option<String>)> = vec![(point, 0, None)];
        while let Some((v, pos, _)) = stack.last().cloned() {
            let children = tree.of(v);
            if let Some(&c) = children.get(pos) {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                let name = self.index.class_name_of(c);
                let count = active.entry(name.clone()).or_insert(0);
                if *count == 0 {
                    *retained.entry(name.clone()).or_insert(0) += self.retained_size(c);
                }
                *count += 1;
                stack.push((c, 0, Some(name)));
            } else {
                if let Some((_, _, Some(name))) = stack.pop() {
                    if let Some(count) = active.get_mut(&name) {
                        *count = count.saturating_sub(1);
                    }
                }
                if stack.last().is_none() {
                    break;
                }
            }
        }
        let mut rows: Vec<(String, u64)> = retained.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        rows.truncate(n);
        rows
    }
}

/// The dominator tree's children lists (row `n`: the super-root's).
struct Children {
    starts: Vec<u32>,
    children: Vec<NodeIndex>,
}

impl Children {
    /// The children lists of the immediate dominators `idom` (one row per node, the
    /// super-root's last).
    fn new(idom: &[u32]) -> Children {
        let mut starts = vec![0u32; idom.len() + 1];
        for &d in idom {
            if d != NONE {
                if let Some(c) = starts.get_mut(d as usize + 1) {
                    *c += 1;
                }
            }
        }
        for i in 1..starts.len() {
            let p = starts.get(i - 1).copied().unwrap_or(0);
            if let Some(c) = starts.get_mut(i) {
                *c += p;
            }
        }
        let mut children = vec![0; starts.last().copied().unwrap_or(0) as usize];
        let mut fill = starts.clone();
        for (v, &d) in idom.iter().enumerate() {
            if d == NONE {
                continue;
            }
            if let Some(f) = fill.get_mut(d as usize) {
                if let Some(s) = children.get_mut(*f as usize) {
                    *s = v as NodeIndex;
                }
                *f += 1;
            }
        }
        Children { starts, children }
    }

    /// The nodes `v` immediately dominates.
    fn of(&self, v: NodeIndex) -> &[NodeIndex] {
        let a = self.starts.get(v as usize).copied().unwrap_or(0) as usize;
        let b = self.starts.get(v as usize + 1).copied().unwrap_or(0) as usize;
        self.children.get(a..b).unwrap_or_default()
    }
}
