//! Shortest reference paths from the GC roots: a breadth-first search from
//! the super-root keeps one parent per node; the field name or array index of each step is
//! found on demand by decoding the parent's sub-record again.

use super::super::error::Result;
use super::super::types::Id;
use super::EdgePolicy;
use super::bits;
use super::edges::{Edges, Via};
use super::objects::ObjectIndex;
use super::references::for_each_reference;
use super::scratch::{self, Array, Scratch};
use super::{NONE, NodeIndex};

/// Marks a root node in the parent array (its parent is the super-root).
pub(crate) const SUPER: u32 = u32::MAX - 1;

/// Breadth-first search over every edge (weak ones too) from the super-root row `n`:
/// per node its parent on one shortest path ([`SUPER`] for roots, [`NONE`] unreached),
/// and the number of nodes reached; the parents and the queue in `s`.
pub(crate) fn bfs(edges: &Edges, n: usize, s: &dyn Scratch) -> Result<(Array<u32>, usize)> {
    let mut parent_array = scratch::u32s(s, n, "shortest-path parents")?;
    let mut queue_array = scratch::u32s(s, n, "breadth-first queue")?;
    let (parent, queue): (&mut [u32], &mut [u32]) = (&mut parent_array, &mut queue_array);
    parent.fill(NONE);
    let edges = edges.view();
    let mut tail = 0usize;
    for &r in edges.row(n as u32) {
        if let Some(p) = parent.get_mut(r as usize) {
            if *p == NONE {
                *p = SUPER;
                if let Some(q) = queue.get_mut(tail) {
                    *q = r;
                    tail += 1;
                }
            }
        }
    }
    let mut head = 0;
    while head < tail {
        let Some(&v) = queue.get(head) else { break };
        head += 1;
        for &w in edges.row(v) {
            if let Some(p) = parent.get_mut(w as usize) {
                if *p == NONE {
                    *p = v;
                    if let Some(q) = queue.get_mut(tail) {
                        *q = w;
                        tail += 1;
                    }
                }
            }
        }
    }
    Ok((parent_array, tail))
}

/// Marks every node reached from the super-root row `n` over every edge (weak ones too):
/// one bit per node.
pub(crate) fn mark(edges: &Edges, n: usize) -> Vec<u64> {
    let edges = edges.view();
    let mut bits = vec![0u64; n.div_ceil(64)];
    let mut stack: Vec<u32> = vec![n as u32];
    while let Some(v) = stack.pop() {
        for &w in edges.row(v) {
            if (w as usize) < bits.len() * 64 && !bits::is_set(&bits, w) {
                bits::set(&mut bits, w);
                stack.push(w);
            }
        }
    }
    bits
}

/// One step of a path: the node, and the reference that leads to the next node.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PathStep {
    /// The node.
    pub node: NodeIndex,
    /// Its object id.
    pub id: Id,
    /// How it references the next node of the path (`None` for the last).
    pub via: Option<Via>,
}

/// The nodes of a shortest path from a root to `node` (root first), from the parent array.
pub(crate) fn path(parent: &[u32], node: NodeIndex) -> Option<Vec<NodeIndex>> {
    let mut p = *parent.get(node as usize)?;
    if p == NONE {
        return None;
    }
    let mut out = vec![node];
    // A parent chain is a BFS tree: at most `parent.len()` steps.
    while p != SUPER && out.len() <= parent.len() {
        out.push(p);
        p = parent.get(p as usize).copied().unwrap_or(NONE);
        if p == NONE {
            return None;
        }
    }
    out.reverse();
    Some(out)
}

/// The steps of `nodes` with the reference of each (re-decoding each parent).
pub(crate) fn steps(
    ix: &ObjectIndex<'_>,
    policy: EdgePolicy,
    nodes: &[NodeIndex],
) -> Vec<PathStep> {
    let mut out = Vec::with_capacity(nodes.len());
    for (k, &v) in nodes.iter().enumerate() {
        let id = ix.id(v).unwrap_or_default();
        let via = nodes.get(k + 1).and_then(|&next| {
            let target = ix.id(next)?;
            let mut found = None;
            for_each_reference::<true>(ix, v, policy, |t, _, via| {
                if t == target && found.is_none() {
                    found = Some(via);
                }
            });
            found
        });
        out.push(PathStep { node: v, id, via });
    }
    out
}

/// The references of `v` that name nodes, into `next`.
fn expand(ix: &ObjectIndex<'_>, policy: EdgePolicy, v: NodeIndex, next: &mut Vec<NodeIndex>) {
    next.clear();
    for_each_reference::<false>(ix, v, policy, |id, _, _| {
        if let Some(w) = ix.node(id) {
            next.push(w);
        }
    });
}

/// Shortest paths found by breadth-first searches that decode each node's references from
/// the dump as they go and stop at their target: one from the roots, resumed from where it
/// stopped for each new target (so its parents are those of [`bfs`]), and short ones between
/// two nodes. All of them together visit at most `budget` nodes.
pub(crate) struct Search {
    /// Nodes the searches may still visit (past it, the search of every node is cheaper).
    pub(crate) budget: usize,
    /// The search from the roots: parents ([`SUPER`], [`NONE`]) and its queue.
    parent: Array<u32>,
    queue: std::collections::VecDeque<NodeIndex>,
    next: Vec<NodeIndex>,
}

impl Search {
    /// A search over `n` nodes from `roots` (ascending), its parents in `s` (in heap memory
    /// if that fails).
    pub(crate) fn new(n: usize, roots: &[NodeIndex], s: &dyn Scratch) -> Search {
        let mut parent = scratch::u32s(s, n, "shortest-path parents")
            .or_else(|_| scratch::u32s(&scratch::IN_MEMORY, n, "shortest-path parents"))
            .unwrap_or_else(|_| Box::new(Vec::new().into_boxed_slice()));
        parent.fill(NONE);
        for &r in roots {
            if let Some(p) = parent.get_mut(r as usize) {
                *p = SUPER;
            }
        }
        Search {
            budget: (n / 8).max(1 << 16),
            parent,
            queue: roots.iter().copied().collect(),
            next: Vec::new(),
        }
    }

    /// The references of `v` that name nodes, into `self.next`.
    fn expand(&mut self, ix: &ObjectIndex<'_>, policy: EdgePolicy, v: NodeIndex) {
        expand(ix, policy, v, &mut self.next);
    }

    /// A shortest path from a root to `target` (`None`: unreachable, or over budget).
    pub(crate) fn reach_from_roots(
        &mut self,
        ix: &ObjectIndex<'_>,
        policy: EdgePolicy,
        target: NodeIndex,
    ) -> Option<Vec<NodeIndex>> {
        let Search {
            budget,
            parent,
            queue,
            next,
        } = self;
        let parent: &mut [u32] = parent;
        while *parent.get(target as usize)? == NONE {
            let v = queue.pop_front()?;
            expand(ix, policy, v, next);
            for &w in next.iter() {
                if let Some(p) = parent.get_mut(w as usize) {
                    if *p == NONE {
                        *budget = budget.checked_sub(1)?;
                        *p = v;
                        queue.push_back(w);
                    }
                }
            }
        }
        path(parent, target)
    }

    /// A shortest path from `from` to `to` (`None`: not reached, or over budget).
    pub(crate) fn between(
        &mut self,
        ix: &ObjectIndex<'_>,
        policy: EdgePolicy,
        from: NodeIndex,
        to: NodeIndex,
    ) -> Option<Vec<NodeIndex>> {
        use std::collections::{HashMap, VecDeque};
        if from == to {
            return Some(vec![to]);
        }
        let mut parent: HashMap<NodeIndex, NodeIndex> = HashMap::from([(from, NONE)]);
        let mut queue: VecDeque<NodeIndex> = VecDeque::from([from]);
        while let Some(v) = queue.pop_front() {
            self.expand(ix, policy, v);
            for k in 0..self.next.len() {
                let Some(&w) = self.next.get(k) else { break };
                if parent.contains_key(&w) {
                    continue;
                }
                self.budget = self.budget.checked_sub(1)?;
                parent.insert(w, v);
                if w == to {
                    let mut out = vec![w];
                    let mut p = v;
                    while p != NONE && out.len() <= parent.len() {
                        out.push(p);
                        p = parent.get(&p).copied().unwrap_or(NONE);
                    }
                    out.reverse();
                    return Some(out);
                }
                queue.push_back(w);
            }
        }
        None
    }
}
