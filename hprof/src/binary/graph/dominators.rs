//! The dominator tree: immediate dominators from the super-root by the
//! semi-NCA algorithm (Georgiadis; Lengauer–Tarjan's semidominators with path compression,
//! then nearest common ancestors), iterative throughout (no recursion, whatever the depth),
//! over `u32` arrays in depth-first order.

use super::edges::{Edges, WEAK};

/// Positions in the predecessor lists: `u32` while the edges fit, else `u64`.
trait Pos: Copy + Default {
    fn at(self) -> usize;
    fn inc(&mut self);
    fn plus(self, other: Self) -> Self;
}

impl Pos for u32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn inc(&mut self) {
        *self = self.wrapping_add(1);
    }
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

impl Pos for u64 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn inc(&mut self) {
        *self = self.wrapping_add(1);
    }
    #[inline(always)]
    fn plus(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

/// "No node" in `u32` arrays.
pub(crate) const NONE: u32 = u32::MAX;

#[inline(always)]
fn g(v: &[u32], i: u32) -> u32 {
    v.get(i as usize).copied().unwrap_or(NONE)
}

#[inline(always)]
fn set(v: &mut [u32], i: u32, x: u32) {
    if let Some(s) = v.get_mut(i as usize) {
        *s = x;
    }
}

/// Immediate dominators of a graph in compressed sparse rows.
#[derive(Debug, Clone, Default)]
pub struct DominatorTree {
    /// Per row: its immediate dominator's row, [`NONE`] for the entry and for rows the entry
    /// does not reach.
    pub(crate) idom: Vec<u32>,
    /// The rows the entry reaches, in depth-first preorder (the entry first): every row comes
    /// after its immediate dominator.
    pub(crate) preorder: Vec<u32>,
}

/// Whether the dominator tree follows the edges flagged weak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeakEdges {
    /// Every edge dominates (the default policy).
    Follow,
    /// Edges flagged weak are left out (ahat's policy: weak referents).
    Skip,
}

impl DominatorTree {
    /// Computes immediate dominators of every row reachable from `entry`, following the
    /// edges of `edges` as `weak` says. `edges` is freed as soon as the predecessor lists are
    /// built.
    pub fn compute(edges: Edges, entry: u32, weak: WeakEdges) -> DominatorTree {
        if u32::try_from(edges.len()).is_ok() {
            Self::compute_with::<u32>(edges, entry, weak)
        } else {
            Self::compute_with::<u64>(edges, entry, weak)
        }
    }

    fn compute_with<P: Pos>(edges: Edges, entry: u32, weak: WeakEdges) -> DominatorTree {
        let rows = edges.rows();
        let skip_weak = weak == WeakEdges::Skip;
        let follow = |t: u32| !(skip_weak && t & WEAK != 0);
        // 1. Depth-first search: preorder numbers, the DFS-tree parent of each.
        let mut pre = vec![NONE; rows];
        let mut order: Vec<u32> = Vec::with_capacity(rows);
        let mut parent: Vec<u32> = Vec::with_capacity(rows);
        if (entry as usize) < rows {
            set(&mut pre, entry, 0);
            order.push(entry);
            parent.push(NONE);
            let mut stack: Vec<(u32, u32)> = vec![(entry, 0)];
            while let Some(&mut (v, ref mut pos)) = stack.last_mut() {
                let row = edges.row(v);
                match row.get(*pos as usize) {
                    Some(&t) => {
                        *pos += 1;
                        let w = t & !WEAK;
                        if follow(t) && g(&pre, w) == NONE && (w as usize) < rows {
                            set(&mut pre, w, order.len() as u32);
                            parent.push(g(&pre, v));
                            order.push(w);
                            stack.push((w, 0));
                        }
                    }
                    None => {
                        stack.pop();
                    }
                }
            }
        }
        let n = order.len();
        // 2. Predecessors in DFS numbering (only edges between reached rows).
        let mut pstart = vec![P::default(); n + 1];
        for &v in &order {
            for &t in edges.row(v) {
                if follow(t) {
                    let w = g(&pre, t & !WEAK);
                    if let Some(c) = pstart.get_mut(w as usize + 1) {
                        c.inc();
                    }
                }
            }
        }
        for i in 1..pstart.len() {
            let prev = pstart.get(i - 1).copied().unwrap_or_default();
            if let Some(c) = pstart.get_mut(i) {
                *c = c.plus(prev);
            }
        }
        let total = pstart.last().copied().unwrap_or_default().at();
        let mut preds = vec![0u32; total];
        // Fill with pstart[w] as the cursor of row w (it ends at the start of row w + 1),
        // then shift the starts back by one row.
        for (i, &v) in order.iter().enumerate() {
            for &t in edges.row(v) {
                if follow(t) {
                    let w = g(&pre, t & !WEAK);
                    if let Some(f) = pstart.get_mut(w as usize) {
                        if let Some(slot) = preds.get_mut(f.at()) {
                            *slot = i as u32;
                        }
                        f.inc();
                    }
                }
            }
        }
        pstart.pop();
        pstart.insert(0, P::default());
        drop(pre);
        drop(edges);
        // 3. Semidominators, in reverse preorder, with path-compressed evaluation.
        let mut semi: Vec<u32> = (0..n as u32).collect();
        let mut label: Vec<u32> = (0..n as u32).collect();
        let mut ancestor = vec![NONE; n];
        let mut path: Vec<u32> = Vec::new();
        for w in (1..n as u32).rev() {
            let a = pstart.get(w as usize).copied().unwrap_or_default().at();
            let b = pstart.get(w as usize + 1).copied().unwrap_or_default().at();
            let mut s = g(&semi, w);
            for &v in preds.get(a..b).unwrap_or_default() {
                // eval(v)
                let u = if g(&ancestor, v) == NONE {
                    v
                } else {
                    path.clear();
                    let mut x = v;
                    while g(&ancestor, g(&ancestor, x)) != NONE {
                        path.push(x);
                        x = g(&ancestor, x);
                    }
                    for &y in path.iter().rev() {
                        let ay = g(&ancestor, y);
                        if g(&semi, g(&label, ay)) < g(&semi, g(&label, y)) {
                            let l = g(&label, ay);
                            set(&mut label, y, l);
                        }
                        let aay = g(&ancestor, ay);
                        set(&mut ancestor, y, aay);
                    }
                    g(&label, v)
                };
                s = s.min(g(&semi, u));
            }
            set(&mut semi, w, s);
            set(&mut ancestor, w, g(&parent, w));
        }
        drop(ancestor);
        drop(label);
        drop(preds);
        drop(pstart);
        // 4. Immediate dominators: the nearest ancestor of the DFS parent numbered at most
        //    the semidominator (parent becomes idom in place).
        let mut idom = parent;
        for w in 1..n as u32 {
            let s = g(&semi, w);
            let mut d = g(&idom, w);
            while d != NONE && d > s {
                d = g(&idom, d);
            }
            set(&mut idom, w, d);
        }
        drop(semi);
        let mut idom_rows = vec![NONE; rows];
        for (w, &v) in order.iter().enumerate().skip(1) {
            let d = g(&idom, w as u32);
            set(&mut idom_rows, v, g(&order, d));
        }
        DominatorTree {
            idom: idom_rows,
            preorder: order,
        }
    }

    /// The immediate dominator of row `v` (`None` for the entry and unreached rows).
    pub fn idom(&self, v: u32) -> Option<u32> {
        Some(g(&self.idom, v)).filter(|&d| d != NONE)
    }

    /// Number of rows reached from the entry (the entry included).
    pub fn reached(&self) -> usize {
        self.preorder.len()
    }
}
