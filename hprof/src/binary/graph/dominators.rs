//! The dominator tree: immediate dominators from the super-root by the
//! semi-NCA algorithm (Georgiadis; Lengauer–Tarjan's semidominators with path compression,
//! then nearest common ancestors), iterative throughout (no recursion, whatever the depth),
//! over `u32` arrays in depth-first order. The semidominator forest is linked simply (each
//! vertex to its DFS parent) below 2^26 reached rows and by Lengauer–Tarjan's balanced
//! linking from there on, where depth-first paths millions long would make simple linking's
//! O(m log n) evaluation the whole run.

use super::super::error::Result;
use super::NONE;
use super::bits;
use super::edges::{Edges, View};
use super::scratch::{self, Array, Scratch};

/// Positions in the predecessor lists: `u32` while the edges fit, else `u64`.
trait Pos: Copy + Default {
    fn at(self) -> usize;
    fn inc(&mut self);
    fn of(x: usize) -> Self;
    fn alloc(s: &dyn Scratch, len: usize) -> Result<Array<Self>>;
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
    fn of(x: usize) -> Self {
        x as u32
    }
    fn alloc(s: &dyn Scratch, len: usize) -> Result<Array<Self>> {
        scratch::u32s(s, len, "predecessor row starts")
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
    fn of(x: usize) -> Self {
        x as u64
    }
    fn alloc(s: &dyn Scratch, len: usize) -> Result<Array<Self>> {
        scratch::u64s(s, len, "predecessor row starts")
    }
}

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

/// One vertex of the semidominator forest: its forest ancestor and the least semidominator
/// on the (compressed) forest path up from it, Lengauer–Tarjan's `semi(label(v))`. The
/// algorithm only ever compares semidominators, so the label itself is not kept; keeping the
/// two side by side makes a step of a path one memory access instead of five (`ancestor`,
/// `label`, `semi` of the label, for the vertex and its ancestor) — the difference that
/// decides the run on graphs too large for the caches.
#[derive(Debug, Clone, Copy)]
struct Forest {
    ancestor: u32,
    best: u32,
}

#[inline(always)]
fn at(f: &[Forest], i: u32) -> Forest {
    f.get(i as usize).copied().unwrap_or(Forest {
        ancestor: NONE,
        best: NONE,
    })
}

/// Compresses the forest path above `v` (Lengauer–Tarjan's `COMPRESS`, iteratively): the
/// path up to the vertex whose ancestor is a root, then from the top down each takes its
/// ancestor's `best` if smaller and skips to that ancestor's ancestor. `root` tells a root.
#[inline]
fn compress(v: u32, forest: &mut [Forest], root: u32, path: &mut Vec<u32>) {
    path.clear();
    let mut x = v;
    loop {
        let ax = at(forest, x).ancestor;
        if ax == root || at(forest, ax).ancestor == root {
            break;
        }
        path.push(x);
        x = ax;
    }
    for &y in path.iter().rev() {
        let fy = at(forest, y);
        let fa = at(forest, fy.ancestor);
        if let Some(slot) = forest.get_mut(y as usize) {
            slot.best = fy.best.min(fa.best);
            slot.ancestor = fa.ancestor;
        }
    }
}

/// Lengauer–Tarjan's balanced `LINK(v, w)` (numbers shifted by one, 0 the sentinel, whose
/// `best` is 0 and size 0).
#[inline]
fn link(v: u32, w: u32, forest: &mut [Forest], child: &mut [u32], size: &mut [u32]) {
    let mut s = w;
    let lw = at(forest, w).best;
    while lw < at(forest, g(child, s)).best {
        let cs = g(child, s);
        let ccs = g(child, cs);
        if u64::from(g(size, s)) + u64::from(g(size, ccs)) >= 2 * u64::from(g(size, cs)) {
            if let Some(f) = forest.get_mut(cs as usize) {
                f.ancestor = s;
            }
            set(child, s, ccs);
        } else {
            let ss = g(size, s);
            set(size, cs, ss);
            if let Some(f) = forest.get_mut(s as usize) {
                f.ancestor = cs;
            }
            s = cs;
        }
    }
    if let Some(f) = forest.get_mut(s as usize) {
        f.best = lw;
    }
    let (sv, sw) = (u64::from(g(size, v)), u64::from(g(size, w)));
    set(size, v, (sv + sw).min(u64::from(u32::MAX)) as u32);
    if sv + sw < 2 * sw {
        let cv = g(child, v);
        set(child, v, s);
        s = cv;
    }
    while s != 0 {
        if let Some(f) = forest.get_mut(s as usize) {
            f.ancestor = v;
        }
        s = g(child, s);
    }
}

/// Semidominators (in DFS numbers) by Lengauer–Tarjan's balanced link and path-compressed
/// eval: O(m α(m, n)). Numbers are shifted by one inside: 0 is the forest's sentinel (best 0,
/// size 0); the forest's children and sizes live in `s`.
fn semidominators_balanced<P: Pos>(
    n: usize,
    parent: &[u32],
    pstart: &[P],
    preds: &[u32],
    s: &dyn Scratch,
) -> Result<Vec<u32>> {
    let mut semi: Vec<u32> = (0..=n as u32).collect();
    // Before a vertex is processed its `best` is its own number, as `semi(label(v))` is.
    let mut forest: Vec<Forest> = (0..=n as u32)
        .map(|v| Forest {
            ancestor: 0,
            best: v,
        })
        .collect();
    let mut child_array = scratch::u32s(s, n + 1, "forest children")?;
    let mut size_array = scratch::u32s(s, n + 1, "forest sizes")?;
    let (child, size): (&mut [u32], &mut [u32]) = (&mut child_array, &mut size_array);
    size.fill(1);
    set(size, 0, 0);
    let mut path: Vec<u32> = Vec::new();
    // Look-ahead: the predecessor entries from `far` on have had their vertex's forest entry
    // loaded, those from `near` on also their ancestor's, so that the evaluations a few
    // vertices later find them in the caches (the loads overlap instead of waiting one by
    // one: on graphs this large the forest is far past the caches).
    let (mut near, mut far) = (preds.len(), preds.len());
    let mut touched = 0u32;
    for w in (2..=n as u32).rev() {
        let a = pstart.get(w as usize - 1).copied().unwrap_or_default().at();
        let b = pstart.get(w as usize).copied().unwrap_or_default().at();
        let stop = a.saturating_sub(AHEAD);
        while far > stop {
            far -= 1;
            let v = preds.get(far).map_or(0, |&v| v.wrapping_add(1));
            touched ^= at(&forest, v).ancestor;
        }
        let stop = a.saturating_sub(AHEAD / 2);
        while near > stop {
            near -= 1;
            let v = preds.get(near).map_or(0, |&v| v.wrapping_add(1));
            touched ^= at(&forest, at(&forest, v).ancestor).best;
        }
        let mut sw = w;
        for &v in preds.get(a..b).unwrap_or_default() {
            // EVAL(v + 1), as the semidominator of its label.
            let v = v + 1;
            let fv = at(&forest, v);
            let e = if fv.ancestor == 0 {
                fv.best
            } else {
                compress(v, &mut forest, 0, &mut path);
                let fv = at(&forest, v);
                fv.best.min(at(&forest, fv.ancestor).best)
            };
            sw = sw.min(e);
        }
        set(&mut semi, w, sw);
        if let Some(f) = forest.get_mut(w as usize) {
            f.best = sw;
        }
        let p = g(parent, w - 1).wrapping_add(1);
        link(p, w, &mut forest, child, size);
    }
    std::hint::black_box(touched);
    // Back to DFS numbers.
    semi.remove(0);
    for x in &mut semi {
        *x = x.wrapping_sub(1);
    }
    Ok(semi)
}

/// Semidominators (in DFS numbers) with simple linking (the DFS parent) and path-compressed
/// eval: O(m log n), and the fewest memory accesses when depth-first paths are short.
fn semidominators_simple<P: Pos>(
    n: usize,
    parent: &[u32],
    pstart: &[P],
    preds: &[u32],
) -> Vec<u32> {
    let mut semi: Vec<u32> = (0..n as u32).collect();
    // A vertex is linked to its DFS parent as soon as it is processed, so an unlinked one
    // (ancestor NONE) is one not processed yet, whose semidominator is its own number.
    let mut forest: Vec<Forest> = vec![
        Forest {
            ancestor: NONE,
            best: NONE,
        };
        n
    ];
    let mut path: Vec<u32> = Vec::new();
    for w in (1..n as u32).rev() {
        let a = pstart.get(w as usize).copied().unwrap_or_default().at();
        let b = pstart.get(w as usize + 1).copied().unwrap_or_default().at();
        let mut sw = w;
        for &v in preds.get(a..b).unwrap_or_default() {
            // EVAL(v), as the semidominator of its label.
            let e = if at(&forest, v).ancestor == NONE {
                v
            } else {
                compress(v, &mut forest, NONE, &mut path);
                at(&forest, v).best
            };
            sw = sw.min(e);
        }
        set(&mut semi, w, sw);
        if let Some(f) = forest.get_mut(w as usize) {
            *f = Forest {
                ancestor: g(parent, w),
                best: sw,
            };
        }
    }
    semi
}

/// Depth-first search from `entry` (iterative, so any depth), following the edges not weak
/// if `skip_weak`: preorder numbers into `pre` (by row, NONE where not reached) and `order`
/// (by number), the DFS-tree parent of each number into `parent`. Returns how many rows were
/// reached. Whether a row was reached is asked of a bitmap, one bit a row, which stays in the
/// caches far better than `pre`, written once per row and read only afterwards, in row
/// order, by [`number_targets`]. With `LOOK`, when a row is first reached the row start and
/// first target of each of its first [`LOOK_TARGETS`] targets not yet reached are loaded at once, so that
/// the misses of the search's next steps overlap.
fn depth_first<const LOOK: bool>(
    rows_view: View<'_>,
    targets: &[u32],
    entry: u32,
    skip_weak: bool,
    pre: &mut [u32],
    order: &mut [u32],
    parent: &mut Vec<u32>,
) -> usize {
    let rows = pre.len();
    if (entry as usize) >= rows {
        return 0;
    }
    let mut seen = vec![0u64; rows.div_ceil(64)];
    // Rows past the last (dangling references) count as reached: never followed.
    let is_seen = |seen: &[u64], w: u32| (w as usize) >= rows || bits::is_set(seen, w);
    bits::set(&mut seen, entry);
    set(pre, entry, 0);
    set(order, 0, entry);
    let mut n = 1usize;
    parent.push(NONE);
    // (row, its DFS number, position of its next target)
    let mut stack: Vec<(u32, u32, u64)> = vec![(entry, 0, rows_view.range(entry).0)];
    let mut touched = 0u32;
    while let Some(&mut (v, i, ref mut at)) = stack.last_mut() {
        let (_, end) = rows_view.range(v);
        if *at >= end {
            stack.pop();
            continue;
        }
        let pos = *at;
        *at += 1;
        let Some(&w) = targets.get(pos as usize) else {
            continue;
        };
        if is_seen(&seen, w) || (skip_weak && rows_view.is_weak(pos)) {
            continue;
        }
        bits::set(&mut seen, w);
        let number = n as u32;
        set(pre, w, number);
        parent.push(i);
        set(order, number, w);
        n += 1;
        let (a, b) = rows_view.range(w);
        if LOOK {
            for &t in targets
                .get(a as usize..b.min(a + LOOK_TARGETS) as usize)
                .unwrap_or_default()
            {
                if !is_seen(&seen, t) {
                    let ta = rows_view.range(t).0;
                    touched ^= targets.get(ta as usize).copied().unwrap_or(0);
                }
            }
        }
        stack.push((w, number, a));
    }
    std::hint::black_box(touched);
    n
}

/// Rewrites every target of a reached row to its DFS number (NONE: a weak edge left out, or
/// a dangling one), so that the predecessor passes read them front to back with no lookup,
/// and counts each reached row's predecessors into `pstart[w + 1]`. Rows the search did not
/// reach keep theirs, unread. With `AHEAD_BY` above 0 the number and counter a few edges
/// ahead are loaded early.
fn number_targets<const AHEAD_BY: usize, P: Pos>(
    rows_view: View<'_>,
    targets: &mut [u32],
    skip_weak: bool,
    pre: &[u32],
    pstart: &mut [P],
) {
    let rows = pre.len();
    let number = |targets: &[u32], pos: usize| {
        let t = targets.get(pos).copied().unwrap_or(NONE);
        if (t as usize) < rows && !(skip_weak && rows_view.is_weak(pos as u64)) {
            g(pre, t)
        } else {
            NONE
        }
    };
    let (mut near, mut far) = (0usize, 0usize);
    let mut touched = 0u64;
    for (v, &i) in pre.iter().enumerate() {
        let (a, b) = rows_view.range(v as u32);
        if AHEAD_BY > 0 {
            let stop = (b as usize).saturating_add(2 * AHEAD_BY).min(targets.len());
            while far < stop {
                let t = targets.get(far).copied().unwrap_or(NONE);
                touched ^= u64::from(g(pre, t));
                far += 1;
            }
            let stop = (b as usize).saturating_add(AHEAD_BY).min(targets.len());
            while near < stop {
                let t = targets.get(near).copied().unwrap_or(NONE);
                touched ^= load(pstart, g(pre, t));
                near += 1;
            }
        }
        if i == NONE {
            continue;
        }
        for pos in a as usize..b as usize {
            let w = number(targets, pos);
            if let Some(slot) = targets.get_mut(pos) {
                *slot = w;
            }
            if let Some(c) = pstart.get_mut(w as usize + 1) {
                c.inc();
            }
        }
    }
    std::hint::black_box(touched);
}

/// Calls `f(state, w, i)` for every edge between reached rows, `w` the target's DFS number
/// and `i` the source's: rows in their own order, so the target array is read front to back
/// (a row's DFS number from `pre`); which order a predecessor list gets does not matter.
/// With `AHEAD_BY` above 0, `touch(state, w)` is called that many edges before `f` sees the
/// edge, to load what `f` will update: the loads then overlap instead of waiting one by one.
#[inline(always)]
fn each_pred<const AHEAD_BY: usize, T: ?Sized>(
    view: View<'_>,
    pre: &[u32],
    state: &mut T,
    touch: impl Fn(&T, u32) -> u64,
    mut f: impl FnMut(&mut T, u32, u32),
) {
    let targets = view.targets;
    let mut next = 0usize;
    let mut touched = 0u64;
    for (v, &i) in pre.iter().enumerate() {
        if AHEAD_BY > 0 {
            let (_, b) = view.range(v as u32);
            let stop = (b as usize).saturating_add(AHEAD_BY).min(targets.len());
            while next < stop {
                let w = targets.get(next).copied().unwrap_or(NONE);
                if w != NONE {
                    touched ^= touch(state, w);
                }
                next += 1;
            }
        }
        if i == NONE {
            continue;
        }
        let (a, b) = view.range(v as u32);
        for &w in targets.get(a as usize..b as usize).unwrap_or_default() {
            if w != NONE {
                f(state, w, i);
            }
        }
    }
    std::hint::black_box(touched);
}

/// Reads the counter of row `w` (to bring it into the caches; 0 when out of bounds).
#[inline(always)]
fn load<P: Pos>(pstart: &[P], w: u32) -> u64 {
    pstart.get(w as usize + 1).map_or(0, |x| x.at() as u64)
}

/// How many of a newly reached row's targets the search loads ahead (with `LOOK`).
const LOOK_TARGETS: u64 = 8;

/// How many predecessor entries (or edges) ahead the passes over graphs past the caches load
/// what they will update.
const AHEAD: usize = 16;

/// How the semidominator forest links its trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Linking {
    /// Each vertex to its DFS parent.
    Simple,
    /// Lengauer–Tarjan's balanced linking.
    Balanced,
}

/// From how many reached rows [`Linking::Balanced`] is used: below, simple linking's shorter
/// code wins (A/B 0.93 against 1.01 on a 23 M-object dump); far above, depth-first paths tens of
/// millions long make its O(m log n) evaluation the whole run (a 200 M-object dump: not done
/// after 12 CPU minutes, against 6 with balanced linking).
const BALANCED_FROM: usize = 1 << 26;

/// From how many rows the graph's passes load what they will read a few steps early, so that
/// the loads overlap instead of waiting one by one. Below, the arrays are near enough to the
/// caches, and a real dump's references near enough to their referrers, that the early loads
/// cost more than they save (the A/B runs are in `benches/README.md`).
pub(crate) const FAR_FROM: usize = 1 << 26;

/// Immediate dominators of a graph in compressed sparse rows.
#[derive(Debug)]
pub struct DominatorTree {
    /// Per row: its immediate dominator's row, [`NONE`] for the entry and for rows the entry
    /// does not reach.
    pub(crate) idom: Vec<u32>,
    /// The rows the entry reaches, in depth-first preorder (the entry first): every row comes
    /// after its immediate dominator. Only the first [`reached`](DominatorTree::reached)
    /// entries count.
    pub(crate) preorder: Array<u32>,
    reached: usize,
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
    /// edges of `edges` as `weak` says, with the depth-first order and the predecessor lists
    /// in `s`. `edges` is freed as soon as the predecessor lists are built.
    ///
    /// # Errors
    /// When `s` fails.
    pub fn compute(
        edges: Edges,
        entry: u32,
        weak: WeakEdges,
        s: &dyn Scratch,
    ) -> Result<DominatorTree> {
        Self::compute_tuned(edges, entry, weak, s, None, None)
    }

    /// [`DominatorTree::compute`] with the forest's linking and whether to load early (see
    /// [`FAR_FROM`]) chosen (`None`: by size).
    pub(crate) fn compute_tuned(
        edges: Edges,
        entry: u32,
        weak: WeakEdges,
        s: &dyn Scratch,
        linking: Option<Linking>,
        far: Option<bool>,
    ) -> Result<DominatorTree> {
        if u32::try_from(edges.len()).is_ok() {
            Self::compute_with::<u32>(edges, entry, weak, s, linking, far)
        } else {
            Self::compute_with::<u64>(edges, entry, weak, s, linking, far)
        }
    }

    fn compute_with<P: Pos>(
        edges: Edges,
        entry: u32,
        weak: WeakEdges,
        s: &dyn Scratch,
        linking: Option<Linking>,
        far: Option<bool>,
    ) -> Result<DominatorTree> {
        let rows = edges.rows();
        let far = far.unwrap_or(rows >= FAR_FROM);
        let skip_weak = weak == WeakEdges::Skip;
        // 1. Depth-first search: preorder numbers, the DFS-tree parent of each.
        let mut edges = edges;
        let (rows_view, targets) = edges.split_mut();
        let mut pre = vec![NONE; rows];
        let mut order_array = scratch::u32s(s, rows, "depth-first order")?;
        let order: &mut [u32] = &mut order_array;
        let mut parent: Vec<u32> = Vec::new();
        // On graphs past the caches, what the search and the passes after it will read is
        // loaded a few steps early.
        let search = if far {
            depth_first::<true>
        } else {
            depth_first::<false>
        };
        let n = search(
            rows_view,
            targets,
            entry,
            skip_weak,
            &mut pre,
            order,
            &mut parent,
        );
        // 2. Predecessors in DFS numbering (only edges between reached rows): number the
        //    targets and count into pstart[w + 1] (rows in their own order, so the targets
        //    and `pre` are read front to back), turn the counts into starts, fill with
        //    pstart[w + 1] as the cursor of row w (it ends at the start of row w + 1).
        let mut pstart_array = P::alloc(s, n + 1)?;
        let pstart: &mut [P] = &mut pstart_array;
        if far {
            number_targets::<AHEAD, P>(rows_view, targets, skip_weak, &pre, pstart);
        } else {
            number_targets::<0, P>(rows_view, targets, skip_weak, &pre, pstart);
        }
        let view = edges.view();
        let mut sum = 0usize;
        for c in pstart.iter_mut() {
            let k = c.at();
            *c = P::of(sum);
            sum += k;
        }
        let mut preds_array = scratch::u32s(s, sum, "predecessors")?;
        let preds: &mut [u32] = &mut preds_array;
        let fill = |(pstart, preds): &mut (&mut [P], &mut [u32]), w: u32, i: u32| {
            if let Some(f) = pstart.get_mut(w as usize + 1) {
                if let Some(slot) = preds.get_mut(f.at()) {
                    *slot = i;
                }
                f.inc();
            }
        };
        let touch = |(pstart, _): &(&mut [P], &mut [u32]), w: u32| load(pstart, w);
        let state = &mut (&mut *pstart, &mut *preds);
        if far {
            each_pred::<AHEAD, _>(view, &pre, state, touch, fill);
        } else {
            each_pred::<0, _>(view, &pre, state, touch, fill);
        }
        drop(pre);
        drop(edges);
        // 3. Semidominators, in reverse preorder.
        let linking = linking.unwrap_or(if n >= BALANCED_FROM {
            Linking::Balanced
        } else {
            Linking::Simple
        });
        let semi = match linking {
            Linking::Simple => semidominators_simple(n, &parent, pstart, preds),
            Linking::Balanced => semidominators_balanced(n, &parent, pstart, preds, s)?,
        };
        drop(preds_array);
        drop(pstart_array);
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
        let order: &[u32] = &order_array;
        for w in 1..n as u32 {
            let d = g(&idom, w);
            set(&mut idom_rows, g(order, w), g(order, d));
        }
        Ok(DominatorTree {
            idom: idom_rows,
            preorder: order_array,
            reached: n,
        })
    }

    /// The rows the entry reaches, in depth-first preorder (the entry first).
    pub(crate) fn preorder(&self) -> &[u32] {
        self.preorder.get(..self.reached).unwrap_or_default()
    }

    /// The immediate dominator of row `v` (`None` for the entry and unreached rows).
    pub fn idom(&self, v: u32) -> Option<u32> {
        Some(g(&self.idom, v)).filter(|&d| d != NONE)
    }

    /// Number of rows reached from the entry (the entry included).
    pub fn reached(&self) -> usize {
        self.reached
    }
}
