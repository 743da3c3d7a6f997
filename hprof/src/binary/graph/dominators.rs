//! The dominator tree: immediate dominators from the super-root by the
//! semi-NCA algorithm (Georgiadis; Lengauer–Tarjan's semidominators with path compression,
//! then nearest common ancestors), iterative throughout (no recursion, whatever the depth),
//! over `u32` arrays in depth-first order. The semidominator forest is linked simply (each
//! vertex to its DFS parent) below 2^26 reached rows and by Lengauer–Tarjan's balanced
//! linking from there on, where depth-first paths millions long would make simple linking's
//! O(m log n) evaluation the whole run. The predecessor lists leave out the references to the
//! rows the entry refers to (but the entry's own): their semidominator is the entry whatever
//! else refers to them.

use std::ops::Range;

use super::super::error::Result;
use super::bits;
use super::edges::{Edges, View};
use super::prefetch::prefetch;
use super::scratch::{self, Array, IN_MEMORY, Scratch};
use super::{NONE, join_all};

/// Positions in the predecessor lists: `u32` while the edges fit, else `u64`.
trait Pos: Copy + Default + Send + Sync {
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

/// The predecessor lists of the run of DFS numbers `first..first + starts.len()`: where each
/// number's list starts (a position in the whole, `at` that of the run's first entry) and
/// the run's entries, the last number's list ending where they end.
struct Lists<'a, P> {
    first: usize,
    at: usize,
    starts: &'a [P],
    preds: &'a [u32],
}

impl<P: Pos> Lists<'_, P> {
    /// Where the list of the run's `i`-th number lies in the run's entries.
    #[inline(always)]
    fn range(&self, i: usize) -> Range<usize> {
        let local = |p: Option<&P>| p.map(|p| p.at().saturating_sub(self.at));
        let a = local(self.starts.get(i)).unwrap_or(0);
        let b = local(self.starts.get(i + 1)).unwrap_or(self.preds.len());
        a..b
    }

    /// The run's DFS numbers with their lists, the highest first.
    fn down(&self) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        (0..self.starts.len()).rev().map(move |i| {
            let d = (self.first + i) as u32;
            (d, self.preds.get(self.range(i)).unwrap_or_default())
        })
    }
}

/// The runs of predecessor lists of DFS numbers `0..n`, each run after the one above it: the
/// semidominators take them as they come, while buckets below are still being sorted.
type Runs<'r, 'a, P> = &'r mut dyn Iterator<Item = Lists<'a, P>>;

/// Semidominators (in DFS numbers, into `semi[1..n]`) by Lengauer–Tarjan's balanced link
/// and path-compressed eval: O(m α(m, n)). Numbers are shifted by one inside: 0 is the
/// forest's sentinel (best 0, size 0). Everything read or written at random (the forest, its
/// children and sizes) is heap memory; `semi` is written once, in order. `runs` hands the
/// predecessor lists down from the highest numbers.
fn semidominators_balanced<P: Pos>(
    n: usize,
    parent: &[u32],
    runs: Runs<'_, '_, P>,
    semi: &mut [u32],
) {
    // Before a vertex is processed its `best` is its own number, as `semi(label(v))` is.
    let mut forest: Vec<Forest> = (0..=n as u32)
        .map(|v| Forest {
            ancestor: 0,
            best: v,
        })
        .collect();
    let mut child = vec![0u32; n + 1];
    let mut size = vec![1u32; n + 1];
    set(&mut size, 0, 0);
    let (child, size): (&mut [u32], &mut [u32]) = (&mut child, &mut size);
    let mut path: Vec<u32> = Vec::new();
    for lists in runs {
        let preds = lists.preds;
        // Look-ahead: the run's predecessor entries from `far` on have had their vertex's
        // forest entry prefetched, those from `near` on also their ancestor's, so that the
        // evaluations a few vertices later find them in the caches (the misses overlap
        // instead of waiting one by one: on graphs this large the forest is far past the
        // caches).
        let (mut near, mut far) = (preds.len(), preds.len());
        for i in (0..lists.starts.len()).rev() {
            let d = (lists.first + i) as u32;
            if d == 0 {
                continue;
            }
            let w = d + 1;
            let range = lists.range(i);
            let a = range.start;
            let stop = a.saturating_sub(AHEAD);
            while far > stop {
                far -= 1;
                let v = preds.get(far).map_or(0, |&v| v.wrapping_add(1));
                prefetch(&forest, v as usize);
            }
            let stop = a.saturating_sub(AHEAD / 2);
            while near > stop {
                near -= 1;
                let v = preds.get(near).map_or(0, |&v| v.wrapping_add(1));
                prefetch(&forest, at(&forest, v).ancestor as usize);
            }
            let mut sw = w;
            for &v in preds.get(range).unwrap_or_default() {
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
            set(semi, d, sw.wrapping_sub(1));
            if let Some(f) = forest.get_mut(w as usize) {
                f.best = sw;
            }
            let p = g(parent, d).wrapping_add(1);
            link(p, w, &mut forest, child, size);
        }
    }
}

/// Semidominators (in DFS numbers, into `semi[1..n]`) with simple linking (the DFS parent)
/// and path-compressed eval: O(m log n), and the fewest memory accesses when depth-first
/// paths are short. `runs` hands the predecessor lists down from the highest numbers.
fn semidominators_simple<P: Pos>(
    n: usize,
    parent: &[u32],
    runs: Runs<'_, '_, P>,
    semi: &mut [u32],
) {
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
    for lists in runs {
        for (w, preds) in lists.down().filter(|&(w, _)| w != 0) {
            let mut sw = w;
            for &v in preds {
                // EVAL(v), as the semidominator of its label.
                let e = if at(&forest, v).ancestor == NONE {
                    v
                } else {
                    compress(v, &mut forest, NONE, &mut path);
                    at(&forest, v).best
                };
                sw = sw.min(e);
            }
            set(semi, w, sw);
            if let Some(f) = forest.get_mut(w as usize) {
                *f = Forest {
                    ancestor: g(parent, w),
                    best: sw,
                };
            }
        }
    }
}

/// Depth-first search from the entry numbered in `num` (iterative, so any depth), following
/// the edges not weak if `skip_weak`, each row reached numbered in `num`. With `LOOK`, when a
/// row is first reached the row starts of its first [`LOOK_TARGETS`] targets (and their bits
/// of the bitmap) are prefetched, and at the next row reached, the first targets of those
/// rows not reached meanwhile: the misses of the search's next steps overlap instead of
/// waiting one by one.
fn depth_first<const LOOK: bool>(
    rows_view: View<'_>,
    targets: &[u32],
    skip_weak: bool,
    num: &mut Numbering<'_>,
) {
    let Some(entry) = num.entry() else {
        return;
    };
    // (row, its DFS number, position of its next target)
    let mut stack: Vec<(u32, u32, u64)> = vec![(entry, 0, rows_view.range(entry).0)];
    // With `LOOK`: the first targets of the last row reached, whose row starts were asked for.
    let mut pending = [0u32; LOOK_TARGETS as usize];
    let mut asked = 0usize;
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
        if num.is_seen(w) || (skip_weak && rows_view.is_weak(pos)) {
            continue;
        }
        let number = num.reach(w, i);
        let (a, b) = rows_view.range(w);
        if LOOK {
            // The rows asked for at the last row reached have had a step to arrive: the
            // first targets of those not reached meanwhile are asked for now. Then this
            // row's first targets: their row starts and their bits of `seen`.
            for &t in pending.get(..asked).unwrap_or_default() {
                if !num.is_seen(t) {
                    prefetch(targets, rows_view.range(t).0 as usize);
                }
            }
            asked = 0;
            for &t in targets
                .get(a as usize..b.min(a + LOOK_TARGETS) as usize)
                .unwrap_or_default()
            {
                rows_view.prefetch_start(t);
                num.prefetch_seen(t);
                if let Some(slot) = pending.get_mut(asked) {
                    *slot = t;
                    asked += 1;
                }
            }
        }
        stack.push((w, number, a));
    }
}

/// [`depth_first`] on graphs past the caches, reading each row from its search record (where
/// its targets start, and the first of them: [`Records`](super::edges::Records)) and the rest
/// of its targets from `view`: the same numbers, parents and order. A row reached follows its
/// first target at once, whose record and bit of the bitmap are asked for as soon as its
/// referrer's record arrives, so that a step down a path waits for about one miss. At the
/// step after, the records and bits of the row's next [`LOOK_TARGETS`] targets are asked for
/// too (their line of targets asked for at the row itself).
fn depth_first_by_records(
    records: &[u64],
    view: View<'_>,
    skip_weak: bool,
    num: &mut Numbering<'_>,
) {
    let Some(entry) = num.entry() else {
        return;
    };
    let targets = view.targets;
    // A row's targets `start..end` and its first target (NONE when it has none).
    let record = |v: u32| {
        let r = records.get(v as usize).copied().unwrap_or(0);
        let end = records.get(v as usize + 1).map_or(r as u32, |&x| x as u32);
        (r as u32, end, (r >> 32) as u32)
    };
    // (DFS number, position of the next target, end of the row's targets), for the rows
    // with targets left; `next`: the first target of the row just reached, and its position.
    let mut stack: Vec<(u32, u32, u32)> = Vec::new();
    let mut next = None;
    let (a, b, first) = record(entry);
    if a < b {
        stack.push((0, a + 1, b));
        next = Some((first, a));
    }
    // The positions of the next targets of the last row reached, whose line was asked for.
    let mut pending = 0..0u32;
    while let Some(top) = stack.last_mut() {
        // The step after a row is reached (following its first target, whose bit is being
        // fetched meanwhile): the records and bits of its next targets.
        if !pending.is_empty() {
            for &t in targets
                .get(pending.start as usize..pending.end as usize)
                .unwrap_or_default()
            {
                prefetch(records, t as usize);
                num.prefetch_seen(t);
            }
            pending = 0..0;
        }
        let (w, pos) = match next.take() {
            Some(x) => x,
            None => {
                if top.1 >= top.2 {
                    stack.pop();
                    continue;
                }
                let pos = top.1;
                top.1 += 1;
                match targets.get(pos as usize) {
                    Some(&w) => (w, pos),
                    None => continue,
                }
            }
        };
        let i = top.0;
        if num.is_seen(w) || (skip_weak && view.is_weak(u64::from(pos))) {
            continue;
        }
        let number = num.reach(w, i);
        let (a, b, first) = record(w);
        if a < b {
            prefetch(records, first as usize);
            num.prefetch_seen(first);
            if a + 1 < b {
                prefetch(targets, a as usize + 1);
                pending = a + 1..b.min(a.saturating_add(1 + LOOK_TARGETS as u32));
            }
            stack.push((number, a + 1, b));
            next = Some((first, a));
        }
    }
}

/// What a depth-first search gives, as it goes: the preorder number of each row reached
/// (`pre`, by row; NONE where not reached), the row of each number (`order`), the DFS-tree
/// parent of each number (`parent`), and how many rows were reached. Whether a row was
/// reached is asked of a bitmap, one bit a row, which stays in the caches far better than
/// `pre`, written once per row and read only afterwards, in row order, by [`number_targets`].
struct Numbering<'a> {
    pre: &'a mut [u32],
    order: &'a mut [u32],
    parent: &'a mut Vec<u32>,
    seen: Vec<u64>,
    n: usize,
}

impl<'a> Numbering<'a> {
    /// `entry` numbered 0 (nothing reached when it is not a row of `pre`).
    fn new(
        entry: u32,
        pre: &'a mut [u32],
        order: &'a mut [u32],
        parent: &'a mut Vec<u32>,
    ) -> Numbering<'a> {
        let rows = pre.len();
        let mut num = Numbering {
            pre,
            order,
            parent,
            seen: vec![0u64; rows.div_ceil(64)],
            n: 0,
        };
        if (entry as usize) < rows {
            bits::set(&mut num.seen, entry);
            set(num.pre, entry, 0);
            set(num.order, 0, entry);
            num.parent.push(NONE);
            num.n = 1;
        }
        num
    }

    /// The entry, if it is a row.
    fn entry(&self) -> Option<u32> {
        (self.n > 0).then(|| g(self.order, 0))
    }

    /// Whether row `w` was reached; rows past the last (dangling references) count as
    /// reached: never followed.
    #[inline(always)]
    fn is_seen(&self, w: u32) -> bool {
        (w as usize) >= self.pre.len() || bits::is_set(&self.seen, w)
    }

    /// Asks the caches for row `w`'s bit.
    #[inline(always)]
    fn prefetch_seen(&self, w: u32) {
        prefetch(&self.seen, w as usize / 64);
    }

    /// Numbers row `w`, reached from the row numbered `from`; returns its number.
    #[inline(always)]
    fn reach(&mut self, w: u32, from: u32) -> u32 {
        bits::set(&mut self.seen, w);
        let number = self.n as u32;
        set(self.pre, w, number);
        self.parent.push(from);
        set(self.order, number, w);
        self.n += 1;
        number
    }
}

/// What [`number_targets`] numbers targets by: each row's DFS number (`pre`), the rows the
/// entry refers to (`roots`, a bit each, see [`entry_targets`]), the entry, and whether weak
/// edges are left out.
#[derive(Clone, Copy)]
struct NumberBy<'a> {
    pre: &'a [u32],
    roots: &'a [u64],
    entry: u32,
    skip_weak: bool,
}

/// The rows the entry refers to (over the edges the search followed), a bit each in `bits`
/// (cleared first). Their predecessor lists keep only the entry's edge: the entry, numbered
/// 0, is the least semidominator there is, so it is theirs whatever else refers to them, and
/// their immediate dominator. On a heap dump these are the GC roots, the system classes among
/// them, to which their instances refer: at 600 M synthetic objects, 544 M of the 2.21 G
/// references between reached rows, none of which is then dealt, sorted or evaluated.
fn entry_targets(view: View<'_>, entry: u32, skip_weak: bool, mut bits: Vec<u64>) -> Vec<u64> {
    bits.fill(0);
    let (first, _) = view.range(entry);
    for (pos, &t) in (first..).zip(view.row(entry)) {
        if !(skip_weak && view.is_weak(pos)) {
            bits::set(&mut bits, t);
        }
    }
    bits
}

/// Rewrites every target of a reached row of `stretch` to its DFS number (NONE: a weak edge
/// left out, a dangling one, or one from any row but the entry to a row the entry refers
/// to), so that the predecessor passes read them front to back with no lookup, and calls
/// `count(w)` for each edge left between reached rows. `targets` holds the stretch's
/// targets, from its first row's start on. Rows the search did not reach keep theirs,
/// unread. With `AHEAD_BY` above 0 the DFS number (and bit of `by.roots`) that many edges
/// ahead is prefetched.
fn number_targets<const AHEAD_BY: usize>(
    rows_view: View<'_>,
    stretch: Range<usize>,
    targets: &mut [u32],
    by: NumberBy<'_>,
    mut count: impl FnMut(u32),
) {
    let NumberBy {
        pre,
        roots,
        entry,
        skip_weak,
    } = by;
    let rows = pre.len();
    let base = rows_view.start(stretch.start) as usize;
    let number = |targets: &[u32], pos: usize, from_entry: bool| {
        let t = targets.get(pos.wrapping_sub(base)).copied().unwrap_or(NONE);
        if (t as usize) < rows
            && !(skip_weak && rows_view.is_weak(pos as u64))
            && (from_entry || !bits::is_set(roots, t))
        {
            g(pre, t)
        } else {
            NONE
        }
    };
    let mut next = 0usize;
    for v in stretch {
        let i = pre.get(v).copied().unwrap_or(NONE);
        let (a, b) = rows_view.range(v as u32);
        if AHEAD_BY > 0 {
            let stop = (b as usize)
                .wrapping_sub(base)
                .saturating_add(AHEAD_BY)
                .min(targets.len());
            while next < stop {
                let t = targets.get(next).copied().unwrap_or(NONE) as usize;
                prefetch(pre, t);
                prefetch(roots, t / 64);
                next += 1;
            }
        }
        if i == NONE {
            continue;
        }
        let from_entry = v == entry as usize;
        for pos in a as usize..b as usize {
            let w = number(targets, pos, from_entry);
            if let Some(slot) = targets.get_mut(pos.wrapping_sub(base)) {
                *slot = w;
            }
            if w != NONE {
                count(w);
            }
        }
    }
}

/// Rows `0..rows` cut into at most `k` stretches of about equal edges: their bounds, from 0
/// to `rows`.
fn cut_rows(view: View<'_>, rows: usize, k: usize) -> Vec<usize> {
    let total = view.start(rows);
    let mut cuts = vec![0usize];
    for t in 1..k.max(1) as u64 {
        let want = total / k as u64 * t + total % k as u64 * t / k as u64;
        let (mut lo, mut hi) = (cuts.last().copied().unwrap_or(0), rows);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if view.start(mid) < want {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        cuts.push(lo);
    }
    cuts.push(rows);
    cuts
}

/// [`number_targets`] over the stretches of rows between `cuts`, a thread each, counting the
/// edges into each of `buckets` buckets of `2^bits` DFS numbers: per stretch, per bucket.
fn number_on_threads(
    view: View<'_>,
    targets: &mut [u32],
    by: NumberBy<'_>,
    cuts: &[usize],
    (bits, buckets): (u32, usize),
) -> Vec<Vec<usize>> {
    std::thread::scope(|scope| {
        let mut rest = targets;
        let mut handles = Vec::new();
        for pair in cuts.windows(2) {
            let (a, b) = (
                pair.first().copied().unwrap_or(0),
                pair.get(1).copied().unwrap_or(0),
            );
            let len = view.start(b).saturating_sub(view.start(a)) as usize;
            let len = len.min(rest.len());
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            handles.push(scope.spawn(move || {
                let mut counts = vec![0usize; buckets];
                number_targets::<AHEAD>(view, a..b, mine, by, |w| {
                    if let Some(c) = counts.get_mut((w >> bits) as usize) {
                        *c += 1;
                    }
                });
                counts
            }));
        }
        join_all(handles)
    })
}

/// One stretch's share of a bucket in [`deal_to_buckets`]: the places of its entries and of
/// their targets' low bits, and how many it has dealt.
struct Share<'a> {
    preds: &'a mut [u32],
    lows: &'a mut [u32],
    dealt: usize,
}

/// Deals every edge of the rows of `stretch` to its target's bucket: the entry to the
/// bucket's next place, its target's low bits to the same place of `lows`.
fn deal(view: View<'_>, pre: &[u32], stretch: Range<usize>, bits: u32, shares: &mut [Share<'_>]) {
    let mask = (1u32 << bits) - 1;
    each_pred(view, pre, stretch, |w, i| {
        if let Some(sh) = shares.get_mut((w >> bits) as usize) {
            let k = sh.dealt;
            sh.dealt += 1;
            if let (Some(p), Some(l)) = (sh.preds.get_mut(k), sh.lows.get_mut(k)) {
                *p = i;
                *l = w & mask;
            }
        }
    });
}

/// The predecessor entries of a graph past the caches dealt to buckets of `2^bits` DFS
/// numbers ([`deal_to_buckets`]), not yet sorted ([`Dealt::sort`]): where each bucket starts
/// in `preds` and in `lows` alike (then the end), each entry's source there and its
/// target's low bits here.
struct Dealt {
    starts: Vec<usize>,
    preds: Array<u32>,
    lows: Array<u32>,
}

/// The first half of building the predecessor lists of a graph past the caches by buckets of
/// `2^bits` DFS numbers, rather than with a counter and a cursor per vertex, both touched at
/// random for every edge (in scratch files larger than the memory, pages written at random
/// are written out again and again). The edges are dealt to their target's bucket, each
/// bucket's region of `preds` filled front to back with the target's low bits at the same
/// place of `lows`: 65 to 128 runs of each a thread ([`bucket_bits`]), so that file-backed
/// scratch can give them huge pages (one fault and one write-protection for 512 small
/// pages). The stretches of rows between `cuts` are dealt on a thread each, `counts[t][b]`
/// edges of stretch `t` to bucket `b` (each stretch's entries after those of the stretches
/// before it, as one thread would place them); `pre` and `view` are the numbered edges,
/// which the second half ([`Dealt::sort`]) no longer needs: the caller frees them first.
fn deal_to_buckets(
    view: View<'_>,
    pre: &[u32],
    (n, bits): (usize, u32),
    cuts: &[usize],
    counts: &[Vec<usize>],
    s: &dyn Scratch,
) -> Result<Dealt> {
    let buckets = n.div_ceil(1 << bits);
    let of = |t: usize, b: usize| counts.get(t).and_then(|c| c.get(b)).copied().unwrap_or(0);
    let mut starts = Vec::with_capacity(buckets + 1);
    let mut at = 0usize;
    for b in 0..buckets {
        starts.push(at);
        at += (0..counts.len()).map(|t| of(t, b)).sum::<usize>();
    }
    starts.push(at);
    let mut preds_array = scratch::u32s(s, at, "predecessors by bucket")?;
    let mut lows_array = scratch::u32s(s, at, "predecessor targets")?;
    {
        // Each stretch's share of each bucket, the regions cut in stretch order.
        let mut shares: Vec<Vec<Share<'_>>> = counts.iter().map(|_| Vec::new()).collect();
        let (mut preds_rest, mut lows_rest): (&mut [u32], &mut [u32]) =
            (&mut preds_array, &mut lows_array);
        for b in 0..buckets {
            for (t, mine) in shares.iter_mut().enumerate() {
                let c = of(t, b).min(preds_rest.len()).min(lows_rest.len());
                let (p, rest) = std::mem::take(&mut preds_rest).split_at_mut(c);
                preds_rest = rest;
                let (l, rest) = std::mem::take(&mut lows_rest).split_at_mut(c);
                lows_rest = rest;
                mine.push(Share {
                    preds: p,
                    lows: l,
                    dealt: 0,
                });
            }
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .into_iter()
                .zip(cuts.windows(2))
                .map(|(mut mine, pair)| {
                    let (a, b) = (
                        pair.first().copied().unwrap_or(0),
                        pair.get(1).copied().unwrap_or(0),
                    );
                    scope.spawn(move || deal(view, pre, a..b, bits, &mut mine))
                })
                .collect();
            join_all(handles)
        });
    }
    Ok(Dealt {
        starts,
        preds: preds_array,
        lows: lows_array,
    })
}

impl Dealt {
    /// The second half: each bucket sorted by its entries' targets in heap buffers and its
    /// region of `preds` written back front to back ([`sort_buckets_down`], on `threads - 1`
    /// threads beside the caller's, or on the caller's as it asks for them), and the lists of
    /// the `n` DFS numbers handed to `consume` a bucket at a time, the highest first, as
    /// they are sorted.
    fn sort_down<P: Pos, R>(
        self,
        (n, bits): (usize, u32),
        threads: usize,
        s: &dyn Scratch,
        consume: impl FnOnce(Runs<'_, '_, P>) -> R,
    ) -> Result<R> {
        let Dealt {
            starts,
            mut preds,
            mut lows,
        } = self;
        let mut pstart = P::alloc(s, n)?;
        // Buckets up to twice the average size go through the buffers.
        let buckets = starts.len().saturating_sub(1);
        let total = starts.last().copied().unwrap_or(0);
        let buffered = SORT_BUFFER.max(total / buckets.max(1) * 2);
        Ok(sort_buckets_down(
            &starts,
            bits,
            (&mut preds, &mut lows, &mut pstart),
            buffered,
            threads,
            consume,
        ))
    }
}

/// Up to how many entries a bucket is sorted through buffers at least (two passes, each
/// entry read once and written once a pass, to a few thousand places in turn; up to twice
/// the average bucket if more); a larger one (targets that millions of objects refer to) is
/// sorted in place.
const SORT_BUFFER: usize = 1 << 22;

/// Sorts each bucket's region of `preds` by the low bits at the same place of `lows` (both
/// permuted alike: through buffers up to `buffered` entries, else in place), writes the start
/// of each target's list into `pstart` (one per DFS number), and hands each bucket's lists to
/// `consume`, the highest bucket first. With `threads` above 1, `threads - 1` threads sort
/// the buckets from the top down while the caller's thread consumes them (the
/// semidominators then wait only for the first bucket, not for the whole sort); with 1, each
/// bucket is sorted when `consume` asks for it. Either way the buckets sorted in place (a
/// target millions of objects refer to) are sorted before `consume` starts, the caller's
/// thread meanwhile sorting buckets from the top: in place, a bucket is written at random
/// for a long while, and in file-backed scratch short of memory once the semidominators held
/// theirs that was 120 s and 637 GB of pages dirtied for one bucket at 600 M objects.
/// `starts` holds where each bucket starts, then the end.
fn sort_buckets_down<P: Pos, R>(
    starts: &[usize],
    bits: u32,
    (preds, lows, pstart): (&mut [u32], &mut [u32], &mut [P]),
    buffered: usize,
    threads: usize,
    consume: impl FnOnce(Runs<'_, '_, P>) -> R,
) -> R {
    let n = pstart.len();
    let width = 1usize << bits;
    // Every bucket's share of the arrays, the lowest first (taken last).
    let mut queue: Vec<Bucket<'_, P>> = Vec::with_capacity(starts.len());
    let (mut preds_rest, mut lows_rest, mut pstart_rest) = (preds, lows, pstart);
    for (b, pair) in starts.windows(2).enumerate() {
        let (at, following) = (
            pair.first().copied().unwrap_or(0),
            pair.get(1).copied().unwrap_or(0),
        );
        let len = following
            .saturating_sub(at)
            .min(preds_rest.len())
            .min(lows_rest.len());
        let (mine, rest) = std::mem::take(&mut preds_rest).split_at_mut(len);
        preds_rest = rest;
        let (my_lows, rest) = std::mem::take(&mut lows_rest).split_at_mut(len);
        lows_rest = rest;
        let first = b << bits;
        let keys = width.min(n.saturating_sub(first)).min(pstart_rest.len());
        let (my_starts, rest) = std::mem::take(&mut pstart_rest).split_at_mut(keys);
        pstart_rest = rest;
        queue.push(Bucket {
            first,
            at,
            preds: mine,
            lows: my_lows,
            starts: my_starts,
        });
    }
    let buckets = queue.len();
    let (in_place, through_buffers): (Vec<_>, Vec<_>) =
        queue.into_iter().partition(|b| b.preds.len() > buffered);
    let sorting = Sorting {
        in_place_left: std::sync::atomic::AtomicUsize::new(in_place.len()),
        in_place: std::sync::Mutex::new(in_place),
        through_buffers: std::sync::Mutex::new(through_buffers),
        bits,
        buffered,
    };
    // The buckets sorted, by number, until they are handed on.
    let mut early: Vec<Option<Lists<'_, P>>> = (0..buckets).map(|_| None).collect();
    let mut next = buckets;
    if threads < 2 {
        let mut buffers = Buffers::default();
        while let Some(done) = sorting.take_in_place(&mut buffers) {
            keep(&mut early, done);
        }
        let mut runs = std::iter::from_fn(|| {
            let b = next.checked_sub(1)?;
            next = b;
            match early.get_mut(b).and_then(Option::take) {
                Some(lists) => Some(lists),
                None => sorting
                    .take_through_buffers(&mut buffers)
                    .map(|(_, lists)| lists),
            }
        });
        return consume(&mut runs);
    }
    let (sorted, arrivals) = std::sync::mpsc::channel::<(usize, Lists<'_, P>)>();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|_| {
                let (sorting, sorted) = (&sorting, sorted.clone());
                scope.spawn(move || {
                    let mut buffers = Buffers::default();
                    while let Some(done) = sorting
                        .take_in_place(&mut buffers)
                        .or_else(|| sorting.take_through_buffers(&mut buffers))
                    {
                        if sorted.send(done).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        drop(sorted);
        // Until the buckets sorted in place are done, this thread sorts from the top too.
        let mut buffers = Buffers::default();
        while sorting
            .in_place_left
            .load(std::sync::atomic::Ordering::Acquire)
            > 0
        {
            match sorting.take_through_buffers(&mut buffers) {
                Some(done) => keep(&mut early, done),
                None => match arrivals.recv() {
                    Ok(done) => keep(&mut early, done),
                    Err(_) => break,
                },
            }
        }
        drop(buffers);
        // Then the buckets in order, from the top down, whichever thread sorted each.
        let mut runs = std::iter::from_fn(|| {
            let b = next.checked_sub(1)?;
            loop {
                if let Some(lists) = early.get_mut(b).and_then(Option::take) {
                    next = b;
                    return Some(lists);
                }
                keep(&mut early, arrivals.recv().ok()?);
            }
        });
        let r = consume(&mut runs);
        // Sorters still at work (when `consume` stopped early) stop at their next bucket.
        drop(arrivals);
        join_all(handles);
        r
    })
}

/// Keeps bucket `b`'s lists until they are handed on.
fn keep<'a, P>(early: &mut [Option<Lists<'a, P>>], (b, lists): (usize, Lists<'a, P>)) {
    if let Some(slot) = early.get_mut(b) {
        *slot = Some(lists);
    }
}

/// The buckets of [`sort_buckets_down`] left to sort: those sorted in place (taken first) and
/// those sorted through buffers, each taken from the top down, and how many of the first are
/// not sorted yet.
struct Sorting<'a, P> {
    in_place: std::sync::Mutex<Vec<Bucket<'a, P>>>,
    in_place_left: std::sync::atomic::AtomicUsize,
    through_buffers: std::sync::Mutex<Vec<Bucket<'a, P>>>,
    bits: u32,
    buffered: usize,
}

impl<'a, P: Pos> Sorting<'a, P> {
    /// Sorts the next bucket to sort in place, if any: its number and lists.
    fn take_in_place(&self, buffers: &mut Buffers) -> Option<(usize, Lists<'a, P>)> {
        let bucket = self.in_place.lock().ok()?.pop()?;
        let done = self.sort(bucket, buffers);
        self.in_place_left
            .fetch_sub(1, std::sync::atomic::Ordering::Release);
        Some(done)
    }

    /// Sorts the highest bucket left to sort through buffers, if any: its number and lists.
    fn take_through_buffers(&self, buffers: &mut Buffers) -> Option<(usize, Lists<'a, P>)> {
        let bucket = self.through_buffers.lock().ok()?.pop()?;
        Some(self.sort(bucket, buffers))
    }

    /// Sorts `bucket`: its number and lists.
    fn sort(&self, bucket: Bucket<'a, P>, buffers: &mut Buffers) -> (usize, Lists<'a, P>) {
        let b = bucket.first >> self.bits;
        (b, bucket.sort(buffers, self.bits, self.buffered))
    }
}

/// One bucket of [`sort_buckets_down`]: its first DFS number, where its entries start in the
/// whole, its entries and their targets' low bits, and the list starts of its DFS numbers
/// to write.
struct Bucket<'a, P> {
    first: usize,
    at: usize,
    preds: &'a mut [u32],
    lows: &'a mut [u32],
    starts: &'a mut [P],
}

impl<'a, P: Pos> Bucket<'a, P> {
    /// Sorts the bucket by its entries' low bits, through `buffers` up to `buffered` entries,
    /// else in place, writes where each of its DFS numbers' lists starts, and returns them.
    fn sort(self, buffers: &mut Buffers, bits: u32, buffered: usize) -> Lists<'a, P> {
        let Bucket {
            first,
            at,
            preds,
            lows,
            starts,
        } = self;
        let sorted: &[u32] = if preds.len() <= buffered {
            radix_sort(lows, preds, buffers, bits)
        } else {
            sort_in_place(lows, preds, 1usize << bits);
            lows
        };
        // Each number's list starts where the sorted low bits first reach it.
        let mut j = 0usize;
        for (key, p) in starts.iter_mut().enumerate() {
            while sorted.get(j).is_some_and(|&l| (l as usize) < key) {
                j += 1;
            }
            *p = P::of(at + j);
        }
        Lists {
            first,
            at,
            starts,
            preds,
        }
    }
}

/// The heap buffers of [`radix_sort`], kept from one bucket to the next: keys and values
/// after the first pass, then after the second.
#[derive(Default)]
struct Buffers {
    keys: Vec<u32>,
    values: Vec<u32>,
    sorted: Vec<u32>,
    sorted_values: Vec<u32>,
}

/// Sorts `values` by the keys beside them (each below `2^bits`), stably, and returns the
/// keys in that order: a counting sort by the low half of the bits, then by the high half,
/// both in heap buffers, then the values copied back front to back (so that `keys`, in
/// scratch storage, is only read, and `values` written in order: a page of file-backed
/// scratch is written whole at once, not over the whole sort). Each pass reads in order and
/// writes to at most 2^12 places in turn, for `bits` up to 24.
fn radix_sort<'b>(
    keys: &[u32],
    values: &mut [u32],
    buffers: &'b mut Buffers,
    bits: u32,
) -> &'b [u32] {
    let len = keys.len().min(values.len());
    let low_bits = bits.div_ceil(2);
    let low_mask = (1u32 << low_bits) - 1;
    let mut low_counts = vec![0usize; 1 << low_bits];
    let mut high_counts = vec![0usize; 1 << (bits - low_bits)];
    for &k in keys.iter() {
        if let Some(c) = low_counts.get_mut((k & low_mask) as usize) {
            *c += 1;
        }
        if let Some(c) = high_counts.get_mut((k >> low_bits) as usize) {
            *c += 1;
        }
    }
    counts_to_starts(&mut low_counts);
    counts_to_starts(&mut high_counts);
    let Buffers {
        keys: key_buffer,
        values: value_buffer,
        sorted,
        sorted_values,
    } = buffers;
    for buffer in [
        &mut *key_buffer,
        &mut *value_buffer,
        &mut *sorted,
        &mut *sorted_values,
    ] {
        if buffer.len() < len {
            buffer.resize(len, 0);
        }
    }
    for (&k, &v) in keys.iter().zip(values.iter()) {
        if let Some(c) = low_counts.get_mut((k & low_mask) as usize) {
            if let (Some(ks), Some(vs)) = (key_buffer.get_mut(*c), value_buffer.get_mut(*c)) {
                *ks = k;
                *vs = v;
            }
            *c += 1;
        }
    }
    let buffered = key_buffer.iter().zip(value_buffer.iter()).take(len);
    for (&k, &v) in buffered {
        if let Some(c) = high_counts.get_mut((k >> low_bits) as usize) {
            if let (Some(ks), Some(vs)) = (sorted.get_mut(*c), sorted_values.get_mut(*c)) {
                *ks = k;
                *vs = v;
            }
            *c += 1;
        }
    }
    for (slot, &v) in values.iter_mut().zip(sorted_values.iter()) {
        *slot = v;
    }
    sorted.get(..len).unwrap_or_default()
}

/// Turns counts into where each run starts (the sum of the counts before it); returns the
/// total.
fn counts_to_starts(counts: &mut [usize]) -> usize {
    let mut sum = 0usize;
    for c in counts.iter_mut() {
        let k = *c;
        *c = sum;
        sum += k;
    }
    sum
}

/// Sorts `keys` (each below `width`) and `values` alike by key, in place: each entry moved
/// once, to the first free place of its key (American flag sort).
fn sort_in_place(keys: &mut [u32], values: &mut [u32], width: usize) {
    // Per key: its first free place, then where its run ends.
    let mut next = vec![0usize; width];
    for &k in keys.iter() {
        if let Some(c) = next.get_mut(k as usize) {
            *c += 1;
        }
    }
    let total = counts_to_starts(&mut next);
    let end: Vec<usize> = next.iter().skip(1).copied().chain([total]).collect();
    for (k, &e) in end.iter().enumerate() {
        while let Some(&j) = next.get(k).filter(|&&j| j < e) {
            // Carry the entry at j to its key's first free place, and the one found there
            // on, until one of key k comes back to j.
            let mut entry = values.get(j).copied().unwrap_or(0);
            let mut key = keys.get(j).copied().unwrap_or(0);
            while key as usize != k {
                let (Some(t), Some(&te)) = (next.get_mut(key as usize), end.get(key as usize))
                else {
                    break;
                };
                if *t >= te {
                    break;
                }
                let place = *t;
                *t += 1;
                if let (Some(v), Some(kk)) = (values.get_mut(place), keys.get_mut(place)) {
                    std::mem::swap(v, &mut entry);
                    std::mem::swap(kk, &mut key);
                }
            }
            if let (Some(v), Some(kk)) = (values.get_mut(j), keys.get_mut(j)) {
                *v = entry;
                *kk = key;
            }
            if let Some(c) = next.get_mut(k) {
                *c += 1;
            }
        }
    }
}

/// Calls `f(w, i)` for every edge between reached rows of `stretch`, `w` the target's DFS
/// number and `i` the source's: rows in their own order, so the target array is read front
/// to back (a row's DFS number from `pre`); which order a predecessor list gets does not
/// matter.
#[inline(always)]
fn each_pred(view: View<'_>, pre: &[u32], stretch: Range<usize>, mut f: impl FnMut(u32, u32)) {
    for v in stretch {
        let i = pre.get(v).copied().unwrap_or(NONE);
        if i == NONE {
            continue;
        }
        let (a, b) = view.range(v as u32);
        for &w in view.targets.get(a as usize..b as usize).unwrap_or_default() {
            if w != NONE {
                f(w, i);
            }
        }
    }
}

/// How many of a newly reached row's targets the search prefetches (with `LOOK`).
const LOOK_TARGETS: u64 = 8;

/// How many predecessor entries (or edges) ahead the passes over graphs past the caches
/// prefetch what they will update.
const AHEAD: usize = 32;

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

/// From how many rows the graph's passes prefetch what they will read a few steps early, so
/// that the misses overlap instead of waiting one by one. Below, the arrays are near enough
/// to the caches, and a real dump's references near enough to their referrers, that the early
/// loads cost more than they saved (the A/B runs in `benches/README.md`, measured when they
/// were still plain loads).
pub(crate) const FAR_FROM: usize = 1 << 26;

/// At most this many threads build the predecessor lists.
const MAX_THREADS: usize = 64;

/// log2 of how many DFS numbers a bucket of the predecessor build covers on graphs past the
/// caches ([`deal_to_buckets`]), for `n` reached rows: 65 to 128 buckets (68 at 570 M
/// rows), so that each thread deals to that many runs at once, few enough for huge pages
/// (though the scratch disk is then written 2.7 times the bytes at 600 M objects:
/// `benches/README.md`); a bucket's entries (about 24 M at 570 M rows and 1.66 G references
/// listed, 2.9 a row) are then sorted through heap buffers of 16 bytes an entry, on each
/// thread: at 3 references a row, about 1.5 bytes a row for two threads.
fn bucket_bits(n: usize) -> u32 {
    let log2 = usize::BITS - n.saturating_sub(1).leading_zeros();
    log2.saturating_sub(7)
        .clamp(MIN_BUCKET_BITS, MAX_BUCKET_BITS)
}

/// The fewest DFS numbers a bucket covers: 2^16 (whose counters fit the caches).
const MIN_BUCKET_BITS: u32 = 16;

/// The most DFS numbers a bucket covers (the sort's two passes then write to at most 2^12
/// places each): 2^24, 256 buckets at 2^32 rows.
const MAX_BUCKET_BITS: u32 = 24;

/// The dominator tree's choices by size, each of which a test may force (`None`: by size).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tuning {
    /// How the semidominator forest links (by size: [`BALANCED_FROM`]).
    pub(crate) linking: Option<Linking>,
    /// Whether the passes prefetch and the predecessor lists are built by buckets (by
    /// size: [`FAR_FROM`]).
    pub(crate) far: Option<bool>,
    /// log2 of a bucket's DFS numbers (by size: [`bucket_bits`]), at most
    /// [`MAX_BUCKET_BITS`].
    pub(crate) bucket_bits: Option<u32>,
    /// How many threads build the predecessor lists by buckets (0 counts as 1).
    pub(crate) threads: usize,
}

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
        Self::compute_tuned(edges, entry, weak, s, Tuning::default())
    }

    /// [`DominatorTree::compute`] with up to `threads` threads at once where the work
    /// divides: building the predecessor lists of graphs past the caches (2^26 rows and
    /// more). The tree is the same whatever their number.
    ///
    /// # Errors
    /// When `s` fails.
    pub fn compute_threaded(
        edges: Edges,
        entry: u32,
        weak: WeakEdges,
        s: &dyn Scratch,
        threads: usize,
    ) -> Result<DominatorTree> {
        let tuning = Tuning {
            threads,
            ..Tuning::default()
        };
        Self::compute_tuned(edges, entry, weak, s, tuning)
    }

    /// [`DominatorTree::compute`] with the choices of [`Tuning`] forced.
    pub(crate) fn compute_tuned(
        edges: Edges,
        entry: u32,
        weak: WeakEdges,
        s: &dyn Scratch,
        tuning: Tuning,
    ) -> Result<DominatorTree> {
        if u32::try_from(edges.len()).is_ok() {
            Self::compute_sized::<u32>(edges, entry, weak, s, tuning)
        } else {
            Self::compute_sized::<u64>(edges, entry, weak, s, tuning)
        }
    }

    fn compute_sized<P: Pos>(
        edges: Edges,
        entry: u32,
        weak: WeakEdges,
        s: &dyn Scratch,
        tuning: Tuning,
    ) -> Result<DominatorTree> {
        let rows = edges.rows();
        let far = tuning.far.unwrap_or(rows >= FAR_FROM);
        let skip_weak = weak == WeakEdges::Skip;
        // 1. Depth-first search: preorder numbers, the DFS-tree parent of each.
        let mut edges = edges;
        let mut pre = vec![NONE; rows];
        let mut order_array = scratch::u32s(s, rows, "depth-first order")?;
        let order: &mut [u32] = &mut order_array;
        let mut parent: Vec<u32> = Vec::new();
        // On graphs past the caches, the search reads each row from its record (where its
        // targets start, and the first of them) where the edges allow, and what it and the
        // passes after it will read is prefetched a few steps early.
        let threads = tuning.threads.max(1);
        let records = if far {
            edges.search_records(s, threads)?
        } else {
            None
        };
        let mut num = Numbering::new(entry, &mut pre, order, &mut parent);
        match records {
            Some(records) => {
                depth_first_by_records(edges.records(&records), edges.view(), skip_weak, &mut num);
                edges.restore_starts(records, threads);
            }
            None => {
                let search = if far {
                    depth_first::<true>
                } else {
                    depth_first::<false>
                };
                let view = edges.view();
                search(view, view.targets, skip_weak, &mut num);
            }
        }
        // The search's bitmap, done with, becomes that of the rows the entry refers to.
        let Numbering { n, seen, .. } = num;
        let roots = entry_targets(edges.view(), entry, skip_weak, seen);
        let (rows_view, targets) = edges.split_mut();
        let by = NumberBy {
            pre: &pre,
            roots: &roots,
            entry,
            skip_weak,
        };
        // 3. (made ready first) Semidominators, in reverse preorder. On graphs past the
        //    caches the DFS parents and the semidominators, read and written in order (but for
        //    the parents' chains in step 4), go to the scratch storage, leaving the heap to the
        //    forest, read and written at random. Below, the heap is faster and has room.
        let linking = tuning.linking.unwrap_or(if n >= BALANCED_FROM {
            Linking::Balanced
        } else {
            Linking::Simple
        });
        let (mut idom_array, mut semi_array): (Array<u32>, Array<u32>) = if far {
            let mut stored = scratch::u32s(s, n, "depth-first parents")?;
            for (slot, &p) in stored.iter_mut().zip(&parent) {
                *slot = p;
            }
            drop(parent);
            (stored, scratch::u32s(s, n, "semidominators")?)
        } else {
            (
                Box::new(parent.into_boxed_slice()),
                IN_MEMORY.u32s(n, "semidominators")?,
            )
        };
        let (parent, semi): (&[u32], &mut [u32]) = (&idom_array, &mut semi_array);
        let mut semidominators = |runs: Runs<'_, '_, P>| match linking {
            Linking::Simple => semidominators_simple(n, parent, runs, semi),
            Linking::Balanced => semidominators_balanced(n, parent, runs, semi),
        };
        // 2. Predecessors in DFS numbering (only edges between reached rows): number the
        //    targets (rows in their own order, so the targets and `pre` are read front to
        //    back), then list each edge under its target.
        if far {
            let bits = tuning
                .bucket_bits
                .unwrap_or_else(|| bucket_bits(n))
                .min(MAX_BUCKET_BITS);
            let cuts = cut_rows(rows_view, rows, tuning.threads.clamp(1, MAX_THREADS));
            let buckets = n.div_ceil(1 << bits);
            let counts = number_on_threads(rows_view, targets, by, &cuts, (bits, buckets));
            let dealt = deal_to_buckets(edges.view(), &pre, (n, bits), &cuts, &counts, s)?;
            // Freed before the sort: in scratch files the numbered targets are pages the
            // kernel would otherwise write out, and hold on to, while the buckets are sorted.
            drop(pre);
            drop(edges);
            // The semidominators take each bucket's lists as soon as it is sorted.
            let threads = cuts.len().saturating_sub(1);
            dealt.sort_down::<P, _>((n, bits), threads, s, semidominators)?;
        } else {
            // Count into pstart[w + 1], turn the counts into starts, fill with pstart[w + 1]
            // as the cursor of row w (it ends at the start of row w + 1).
            let mut pstart_array = P::alloc(s, n + 1)?;
            let pstart: &mut [P] = &mut pstart_array;
            number_targets::<0>(rows_view, 0..rows, targets, by, |w| {
                if let Some(c) = pstart.get_mut(w as usize + 1) {
                    c.inc();
                }
            });
            let mut sum = 0usize;
            for c in pstart.iter_mut() {
                let k = c.at();
                *c = P::of(sum);
                sum += k;
            }
            let mut preds_array = scratch::u32s(s, sum, "predecessors")?;
            let preds: &mut [u32] = &mut preds_array;
            each_pred(edges.view(), &pre, 0..rows, |w, i| {
                if let Some(f) = pstart.get_mut(w as usize + 1) {
                    if let Some(slot) = preds.get_mut(f.at()) {
                        *slot = i;
                    }
                    f.inc();
                }
            });
            drop(pre);
            drop(edges);
            let whole = Lists {
                first: 0,
                at: 0,
                starts: pstart_array.get(..n).unwrap_or_default(),
                preds: &preds_array,
            };
            semidominators(&mut std::iter::once(whole));
        }
        // 4. Immediate dominators: the nearest ancestor of the DFS parent numbered at most
        //    the semidominator (parent becomes idom in place).
        let idom: &mut [u32] = &mut idom_array;
        for w in 1..n as u32 {
            let s = g(&semi_array, w);
            let mut d = g(idom, w);
            while d != NONE && d > s {
                d = g(idom, d);
            }
            set(idom, w, d);
        }
        drop(semi_array);
        let mut idom_rows = vec![NONE; rows];
        let order: &[u32] = &order_array;
        for w in 1..n as u32 {
            let d = g(idom, w);
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use proptest::prelude::*;

    use super::sort_buckets_down;

    proptest! {
        /// Both ways of sorting a bucket (through buffers, in place, and both in one sort)
        /// list every entry under its target, in buckets of 1 to 16 targets, on 1 to 4
        /// threads, and hand the lists on a bucket at a time, the highest first, each number
        /// once.
        #[test]
        fn buckets_sort_by_target(bits in 0u32..5, targets in proptest::collection::vec(0u32..40, 0..300)) {
            let n = 40usize;
            let buckets = n.div_ceil(1 << bits);
            // Deal (target, entry) pairs to buckets in the order given, as deal_to_buckets does.
            let mut dealt: Vec<Vec<(u32, u32)>> = vec![Vec::new(); buckets];
            for (i, &w) in targets.iter().enumerate() {
                dealt[(w >> bits) as usize].push((w, i as u32));
            }
            let (mut starts, mut preds, mut lows) = (Vec::new(), Vec::new(), Vec::new());
            for bucket in &dealt {
                starts.push(preds.len());
                lows.extend(bucket.iter().map(|&(w, _)| w & ((1 << bits) - 1)));
                preds.extend(bucket.iter().map(|&(_, i)| i));
            }
            starts.push(preds.len());
            let mut want: Vec<Vec<u32>> = vec![Vec::new(); n];
            for (i, &w) in targets.iter().enumerate() {
                want[w as usize].push(i as u32);
            }
            for (buffered, threads) in [(0, 1), (usize::MAX, 1), (8, 1), (0, 2), (8, 2), (usize::MAX, 3), (8, 4)] {
                let (mut got, mut got_lows, mut pstart) = (preds.clone(), lows.clone(), vec![0u32; n]);
                let handed = sort_buckets_down(&starts, bits, (&mut got, &mut got_lows, &mut pstart), buffered, threads,
                    |runs| runs.map(|lists| {
                        let firsts = (lists.first, lists.first + lists.starts.len());
                        let listed: Vec<(u32, Vec<u32>)> = lists.down().map(|(w, l)| (w, l.to_vec())).collect();
                        (firsts, listed)
                    }).collect::<Vec<_>>());
                // The buckets from the top down, each the numbers just below the one before.
                let mut top = n;
                let mut seen = 0;
                for ((first, end), listed) in &handed {
                    prop_assert_eq!(*end, top);
                    prop_assert_eq!(*first % (1 << bits), 0);
                    prop_assert_eq!(*end, (*first + (1 << bits)).min(n));
                    top = *first;
                    for (k, (w, list)) in listed.iter().enumerate() {
                        prop_assert_eq!(*w as usize, end - 1 - k);
                        let mut list = list.clone();
                        list.sort_unstable();
                        prop_assert_eq!(&list, &want[*w as usize], "target {} buffered {} threads {}", w, buffered, threads);
                        seen += list.len();
                    }
                }
                prop_assert_eq!(top, 0);
                prop_assert_eq!(seen, targets.len());
            }
        }
    }
}
