//! Shortest reference paths from the GC roots: a breadth-first search from
//! the super-root keeps one parent per node; the field name or array index of each step is
//! found on demand by decoding the parent's sub-record again.

use super::EdgePolicy;
use super::NodeIndex;
use super::dominators::NONE;
use super::edges::{Edges, Via, WEAK, for_each_reference};
use super::index::ObjectIndex;

/// Marks a root node in the parent array (its parent is the super-root).
pub(crate) const SUPER: u32 = u32::MAX - 1;

/// Breadth-first search over every edge (weak ones too) from the super-root row `n`:
/// per node its parent on one shortest path ([`SUPER`] for roots, [`NONE`] unreached),
/// and the number of nodes reached.
pub(crate) fn bfs(edges: &Edges, n: usize) -> (Vec<u32>, usize) {
    let mut parent = vec![NONE; n];
    let mut queue: Vec<u32> = Vec::new();
    for &t in edges.row(n as u32) {
        let r = t & !WEAK;
        if let Some(p) = parent.get_mut(r as usize) {
            if *p == NONE {
                *p = SUPER;
                queue.push(r);
            }
        }
    }
    let mut head = 0;
    while let Some(&v) = queue.get(head) {
        head += 1;
        for &t in edges.row(v) {
            let w = t & !WEAK;
            if let Some(p) = parent.get_mut(w as usize) {
                if *p == NONE {
                    *p = v;
                    queue.push(w);
                }
            }
        }
    }
    let reached = queue.len();
    (parent, reached)
}

/// Marks every node reached from the super-root row `n` over every edge (weak ones too):
/// one bit per node.
pub(crate) fn mark(edges: &Edges, n: usize) -> Vec<u64> {
    let mut bits = vec![0u64; n.div_ceil(64)];
    let mut stack: Vec<u32> = vec![n as u32];
    while let Some(v) = stack.pop() {
        for &t in edges.row(v) {
            let w = t & !WEAK;
            if let Some(word) = bits.get_mut(w as usize / 64) {
                let bit = 1u64 << (w % 64);
                if *word & bit == 0 {
                    *word |= bit;
                    stack.push(w);
                }
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
    pub id: u64,
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
        let id = ix.id(v).unwrap_or(0);
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
