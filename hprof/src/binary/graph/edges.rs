//! References between objects: the outgoing references of each node under
//! an [`EdgePolicy`], as `u32` node indices in compressed sparse rows (in [scratch
//! storage](super::scratch)), and the reverse index built on demand.

use super::super::error::Result;
use super::classes::ClassNumbers;
use super::objects::ObjectIndex;
pub use super::references::Via;
use super::references::for_each_reference;
use super::retained::{Shallow, shallow_size};
use super::scratch::{self, Array, Scratch};
use super::{EdgePolicy, NodeIndex};

/// Row starts of compressed sparse rows: `u32` while the edges fit, `u64` beyond.
#[derive(Debug)]
pub(crate) enum Starts {
    /// At most `u32::MAX` edges.
    Narrow(Array<u32>),
    /// More.
    Wide(Array<u64>),
}

impl Starts {
    /// `len` zeroed starts wide enough for positions up to `max`.
    fn new(s: &dyn Scratch, len: usize, max: u64) -> Result<Starts> {
        Ok(if u32::try_from(max).is_ok() {
            Starts::Narrow(scratch::u32s(s, len, "reference row starts")?)
        } else {
            Starts::Wide(scratch::u64s(s, len, "reference row starts")?)
        })
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

    /// Sets start `i` (`x` fits: the width was chosen for it).
    #[inline(always)]
    fn set(&mut self, i: usize, x: u64) {
        match self {
            Starts::Narrow(v) => {
                if let Some(s) = v.get_mut(i) {
                    *s = x as u32;
                }
            }
            Starts::Wide(v) => {
                if let Some(s) = v.get_mut(i) {
                    *s = x;
                }
            }
        }
    }
}

/// Row starts as a slice.
#[derive(Debug, Clone, Copy)]
pub(crate) enum StartsView<'e> {
    Narrow(&'e [u32]),
    Wide(&'e [u64]),
}

/// [`Edges`] as plain slices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'e> {
    starts: StartsView<'e>,
    pub(crate) targets: &'e [u32],
    weak: Option<&'e [u64]>,
}

impl<'e> View<'e> {
    /// Prefetches the start of row `v` (see [`super::prefetch`]).
    #[inline(always)]
    pub(crate) fn prefetch_start(&self, v: u32) {
        match self.starts {
            StartsView::Narrow(s) => super::prefetch::prefetch(s, v as usize),
            StartsView::Wide(s) => super::prefetch::prefetch(s, v as usize),
        }
    }

    /// Where row `v`'s targets are in the target array.
    #[inline(always)]
    pub(crate) fn range(&self, v: u32) -> (u64, u64) {
        let v = v as usize;
        let (a, b) = match self.starts {
            StartsView::Narrow(s) => (
                s.get(v).map(|&x| u64::from(x)),
                s.get(v + 1).map(|&x| u64::from(x)),
            ),
            StartsView::Wide(s) => (s.get(v).copied(), s.get(v + 1).copied()),
        };
        match (a, b) {
            (Some(a), Some(b)) => (a, b),
            _ => (0, 0),
        }
    }

    /// Where row `v`'s targets start in the target array (`v` up to the number of rows: the
    /// end of the last).
    #[inline(always)]
    pub(crate) fn start(&self, v: usize) -> u64 {
        match self.starts {
            StartsView::Narrow(s) => s.get(v).map_or(0, |&x| u64::from(x)),
            StartsView::Wide(s) => s.get(v).copied().unwrap_or(0),
        }
    }

    /// The targets of row `v`.
    #[inline(always)]
    pub(crate) fn row(&self, v: u32) -> &'e [u32] {
        let (a, b) = self.range(v);
        self.targets.get(a as usize..b as usize).unwrap_or_default()
    }

    /// Whether the edge at position `at` of the target array is weak.
    #[inline(always)]
    pub(crate) fn is_weak(&self, at: u64) -> bool {
        self.weak.is_some_and(|w| {
            w.get((at / 64) as usize)
                .is_some_and(|word| word >> (at % 64) & 1 == 1)
        })
    }
}

/// Where the depth-first search reads a row from on graphs past the caches
/// ([`Edges::search_records`]): one `u64` per row, its targets' start in the low half and its
/// first target in the high half ([`NONE`](super::NONE) for a row without targets), then the
/// end. One load gives the search both where a row's targets are and the first of them, which
/// it follows at once: a step down a depth-first path waits for one miss, not for the row
/// start and then its targets.
#[derive(Debug)]
pub(crate) enum Records {
    /// The row starts themselves, `u64` wide with the high half free (fewer than 2^32
    /// edges): rewritten in place, and back by [`Edges::restore_starts`].
    InStarts,
    /// An array of their own (the starts are `u32`).
    Own(Array<u64>),
}

/// The low half of a record: the row's start.
const START: u64 = u32::MAX as u64;

/// Turns `slots` (a row's start in the low half of each) into search records, `next` the start
/// of the row after the last.
fn fill_records(slots: &mut [u64], next: u64, targets: &[u32]) {
    for v in 0..slots.len() {
        let a = slots.get(v).map_or(0, |&x| x & START);
        let b = slots.get(v + 1).map_or(next, |&x| x & START);
        let first = if a < b {
            targets.get(a as usize).copied().unwrap_or(super::NONE)
        } else {
            super::NONE
        };
        if let Some(slot) = slots.get_mut(v) {
            *slot = a | u64::from(first) << 32;
        }
    }
}

/// [`fill_records`] over the whole of `slots` (the last the end), in stretches of a thread
/// each.
fn fill_records_on_threads(slots: &mut [u64], targets: &[u32], threads: usize) {
    let chunk = stretch_len(slots.len(), threads);
    let end = slots.last().map_or(0, |&x| x & START);
    // Each stretch ends at the start of the row after it, read before any is rewritten.
    let nexts: Vec<u64> = (1..=slots.len().div_ceil(chunk))
        .map(|k| slots.get(k * chunk).map_or(end, |&x| x & START))
        .collect();
    on_stretches(slots, chunk, |k, stretch| {
        fill_records(stretch, nexts.get(k).copied().unwrap_or(end), targets);
    });
}

/// How long each stretch of `len` slots is, cut for up to `threads` threads.
fn stretch_len(len: usize, threads: usize) -> usize {
    len.div_ceil(threads.clamp(1, MAX_THREADS)).max(1)
}

/// Calls `f(k, stretch)` for the `k`-th stretch of `chunk` slots of `slots`, a thread each.
fn on_stretches(slots: &mut [u64], chunk: usize, f: impl Fn(usize, &mut [u64]) + Sync) {
    let f = &f;
    std::thread::scope(|scope| {
        let handles = slots
            .chunks_mut(chunk)
            .enumerate()
            .map(|(k, stretch)| scope.spawn(move || f(k, stretch)))
            .collect();
        super::join_all(handles);
    });
}

/// Outgoing references of every node (plus the super-root, the last row, pointing at every
/// root node), as `u32` node indices in compressed sparse rows.
#[derive(Debug)]
pub struct Edges {
    /// Row starts: `starts[v]..starts[v + 1]` are `v`'s targets.
    pub(crate) starts: Starts,
    /// Targets (the array may be longer than the edges: it was sized by an upper bound).
    pub(crate) targets: Array<u32>,
    /// Number of edges.
    len: usize,
    /// One bit per edge: references ahat does not follow for dominators (the `referent` of a
    /// Weak/Finalizer/Phantom reference); `None` when there is none (every other policy).
    weak: Option<Array<u64>>,
}

impl Edges {
    /// Number of rows (nodes + the super-root).
    pub fn rows(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no edge.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The arrays as plain slices (for loops over many rows: each use of an [`Array`] goes
    /// through its storage's `deref`).
    #[inline]
    pub(crate) fn view(&self) -> View<'_> {
        View {
            starts: match &self.starts {
                Starts::Narrow(v) => StartsView::Narrow(v),
                Starts::Wide(v) => StartsView::Wide(v),
            },
            targets: &self.targets,
            weak: self.weak.as_ref().map(|w| &***w),
        }
    }

    /// The rows (with the weak flags, without the targets) and the targets to rewrite in
    /// place: for a pass that replaces each target as it reads it.
    pub(crate) fn split_mut(&mut self) -> (View<'_>, &mut [u32]) {
        let view = View {
            starts: match &self.starts {
                Starts::Narrow(v) => StartsView::Narrow(v),
                Starts::Wide(v) => StartsView::Wide(v),
            },
            targets: &[],
            weak: self.weak.as_ref().map(|w| &***w),
        };
        (view, self.targets.get_mut(..self.len).unwrap_or_default())
    }

    /// The targets of row `v`.
    pub(crate) fn row(&self, v: u32) -> &[u32] {
        self.view().row(v)
    }

    /// The targets of node `v`.
    pub fn targets(&self, v: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.row(v).iter().copied()
    }

    /// Builds the outgoing references of every node, then the super-root row from `roots`
    /// (distinct root nodes, ascending), in `scratch`. Dangling and unknown references are
    /// counted in `warnings`. What `per_node` asks for is written on the way. Up to `threads`
    /// threads (the calling one included) decode stretches of rows at once; the result is
    /// the same whatever their number.
    pub(crate) fn build(
        ix: &ObjectIndex<'_>,
        policy: EdgePolicy,
        roots: &[NodeIndex],
        warnings: &mut super::Warnings,
        s: &dyn Scratch,
        per_node: PerNode<'_, '_>,
        threads: usize,
    ) -> Result<Edges> {
        let PerNode { classes, sizes } = per_node;
        let n = ix.len();
        let bound = ix.edge_bound.saturating_add(roots.len() as u64);
        let bound = usize::try_from(bound).unwrap_or(usize::MAX);
        let mut starts = Starts::new(s, n + 2, bound as u64)?;
        let mut targets_array = scratch::u32s(s, bound, "references")?;
        let mut weak = match policy {
            EdgePolicy::Ahat => Some(weak_bits(s, bound)?),
            EdgePolicy::Recorded => None,
        };
        // Stretches of rows, one per thread; the first decodes into the arrays above, each
        // other into arrays of its own (touched only as far as it writes), appended after.
        // A storage that cannot give a thread its arrays leaves it out.
        let wanted = threads
            .clamp(1, MAX_THREADS)
            .min(n / MIN_ROWS_PER_THREAD)
            .max(1);
        let mut own = Vec::with_capacity(wanted - 1);
        for _ in 1..wanted {
            let weak = match weak {
                Some(_) => match weak_bits(s, bound) {
                    Ok(w) => Some(w),
                    Err(_) => break,
                },
                None => None,
            };
            match scratch::u32s(s, bound, "references") {
                Ok(t) => own.push((t, weak)),
                Err(_) => break,
            }
        }
        let stretches = own.len() + 1;
        let cuts: Vec<usize> = (0..=stretches).map(|k| n * k / stretches).collect();
        let decoded = {
            // Split every per-row array at the cuts: each stretch gets its rows' slots.
            let mut ends = match &mut starts {
                Starts::Narrow(v) => Ends::Narrow(v.get_mut(1..).unwrap_or_default()),
                Starts::Wide(v) => Ends::Wide(v.get_mut(1..).unwrap_or_default()),
            };
            let (numbers, mut of_node) = match classes {
                Some((numbers, of_node)) => (Some(numbers), Some(of_node)),
                None => (None, None),
            };
            let (rule, mut size_of_node) = match sizes {
                Some((rule, of_node)) => (Some(rule), Some(of_node)),
                None => (None, None),
            };
            let mut jobs = Vec::with_capacity(stretches);
            let mut first = Some((&mut **targets_array, weak.as_mut().map(|w| &mut ***w)));
            let mut others = own.iter_mut();
            for k in 0..stretches {
                let (a, b) = (
                    cuts.get(k).copied().unwrap_or(n),
                    cuts.get(k + 1).copied().unwrap_or(n),
                );
                let (row_ends, rest) = ends.split_at(b - a);
                ends = rest;
                let row_classes = take_rows(&mut of_node, b - a);
                let row_sizes = take_rows(&mut size_of_node, b - a);
                let (targets, weak): (&mut [u32], Option<&mut [u64]>) = match first.take() {
                    Some(f) => f,
                    None => match others.next() {
                        Some((t, w)) => (&mut ***t, w.as_mut().map(|w| &mut ***w)),
                        None => (&mut [], None),
                    },
                };
                jobs.push(Stretch {
                    rows: a as u32..b as u32,
                    ends: row_ends,
                    targets,
                    weak,
                    classes: numbers.zip(row_classes),
                    sizes: rule.zip(row_sizes),
                });
            }
            let mut jobs = jobs.into_iter();
            let head = jobs.next();
            std::thread::scope(|scope| {
                let handles: Vec<_> = jobs
                    .map(|job| scope.spawn(move || job.decode(ix, policy)))
                    .collect();
                let mut done = vec![head.map_or_else(Decoded::default, |j| j.decode(ix, policy))];
                for h in handles {
                    match h.join() {
                        Ok(d) => done.push(d),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
                done
            })
        };
        // Append each later stretch's references after the ones before it.
        let targets: &mut [u32] = &mut targets_array;
        let mut len = decoded.first().map_or(0, |d| d.len);
        for (k, ((t, w), d)) in own.iter().zip(decoded.iter().skip(1)).enumerate() {
            let (a, b) = (
                cuts.get(k + 1).copied().unwrap_or(n),
                cuts.get(k + 2).copied().unwrap_or(n),
            );
            if let (Some(to), Some(from)) = (targets.get_mut(len..len + d.len), t.get(..d.len)) {
                to.copy_from_slice(from);
            }
            if let Some(w) = w {
                for (i, &word) in w.iter().enumerate().take(d.len.div_ceil(64)) {
                    let mut bits = word;
                    while bits != 0 {
                        let at = i * 64 + bits.trailing_zeros() as usize;
                        mark_weak(&mut weak, len + at);
                        bits &= bits - 1;
                    }
                }
            }
            for v in a..b {
                let end = starts.get(v + 1).unwrap_or(0);
                starts.set(v + 1, end + len as u64);
            }
            len += d.len;
        }
        drop(own);
        for &r in roots {
            if let Some(slot) = targets.get_mut(len) {
                *slot = r;
                len += 1;
            }
        }
        starts.set(n + 1, len as u64);
        for d in &decoded {
            warnings.short_instances += d.short_instances;
            warnings.unknown_classes += d.unknown_classes;
            warnings.dangling_references += d.dangling;
        }
        Ok(Edges {
            starts,
            targets: targets_array,
            len,
            weak,
        })
    }

    /// The depth-first search's [`Records`] of these rows, built on up to `threads` threads:
    /// `None` when there are 2^32 edges or more (a start then needs more than a half).
    ///
    /// # Errors
    /// When `s` fails (an array of their own).
    pub(crate) fn search_records(
        &mut self,
        s: &dyn Scratch,
        threads: usize,
    ) -> Result<Option<Records>> {
        if u32::try_from(self.len).is_err() {
            return Ok(None);
        }
        let targets: &[u32] = &self.targets;
        Ok(Some(match &mut self.starts {
            Starts::Wide(starts) => {
                fill_records_on_threads(starts, targets, threads);
                Records::InStarts
            }
            Starts::Narrow(starts) => {
                let mut own = scratch::u64s(s, starts.len(), "search records")?;
                for (slot, &x) in own.iter_mut().zip(starts.iter()) {
                    *slot = u64::from(x);
                }
                fill_records_on_threads(&mut own, targets, threads);
                Records::Own(own)
            }
        }))
    }

    /// The records of [`Edges::search_records`] (of these edges) as a slice.
    pub(crate) fn records<'a>(&'a self, records: &'a Records) -> &'a [u64] {
        match (records, &self.starts) {
            (Records::Own(own), _) => own,
            (Records::InStarts, Starts::Wide(starts)) => starts,
            (Records::InStarts, Starts::Narrow(_)) => &[],
        }
    }

    /// Puts the row starts back after the search (from [`Records::InStarts`]), on up to
    /// `threads` threads; frees an array of their own.
    pub(crate) fn restore_starts(&mut self, records: Records, threads: usize) {
        if let (Records::InStarts, Starts::Wide(starts)) = (records, &mut self.starts) {
            let chunk = stretch_len(starts.len(), threads);
            on_stretches(starts, chunk, |_, stretch| {
                stretch.iter_mut().for_each(|x| *x &= START);
            });
        }
    }

    /// Rows from adjacency lists; a target with the top bit set is a weak edge (tests).
    #[cfg(test)]
    pub(crate) fn from_rows(rows: &[Vec<u32>]) -> Edges {
        const FLAG: u32 = 1 << 31;
        let s = &scratch::IN_MEMORY;
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut starts = Starts::new(s, rows.len() + 1, total as u64)
            .unwrap_or_else(|_| Starts::Narrow(Box::new(Vec::new().into_boxed_slice())));
        let mut targets = vec![0u32; total];
        let mut weak = weak_bits(s, total).ok();
        let mut len = 0;
        for (v, r) in rows.iter().enumerate() {
            for &t in r {
                if let Some(slot) = targets.get_mut(len) {
                    *slot = t & !FLAG;
                }
                if t & FLAG != 0 {
                    mark_weak(&mut weak, len);
                }
                len += 1;
            }
            starts.set(v + 1, len as u64);
        }
        Edges {
            starts,
            targets: Box::new(targets.into_boxed_slice()),
            len,
            weak,
        }
    }

    /// [`Edges::from_rows`] with `u64` row starts, as past 2^32 edges of bound (tests).
    #[cfg(test)]
    pub(crate) fn from_rows_wide(rows: &[Vec<u32>]) -> Edges {
        let mut edges = Edges::from_rows(rows);
        if let Starts::Narrow(narrow) = &edges.starts {
            let wide: Vec<u64> = narrow.iter().map(|&x| u64::from(x)).collect();
            edges.starts = Starts::Wide(Box::new(wide.into_boxed_slice()));
        }
        edges
    }

    /// The reverse rows: for every node, the rows referencing it (the super-root, row `n`,
    /// references the roots; a node referenced several times by one node is listed several
    /// times), in `s`.
    ///
    /// # Errors
    /// When `s` fails.
    pub fn reverse_in(&self, s: &dyn Scratch) -> Result<Edges> {
        let rows = self.rows();
        let mut starts = Starts::new(s, rows + 1, self.len as u64)?;
        // Count, then turn the counts into starts shifted by one row (the fill cursors).
        for &t in self.targets.get(..self.len).unwrap_or_default() {
            if let Some(c) = starts.get(t as usize + 1) {
                starts.set(t as usize + 1, c + 1);
            }
        }
        let mut sum = 0u64;
        for i in 0..starts.len() {
            let c = starts.get(i).unwrap_or(0);
            starts.set(i, sum);
            sum += c;
        }
        // starts[t + 1] is now the start of row t: the cursor that fills it, ending at the
        // start of row t + 1.
        let mut targets = scratch::u32s(s, self.len, "reverse references")?;
        let view = self.view();
        let mut weak = match self.weak {
            Some(_) => Some(weak_bits(s, self.len)?),
            None => None,
        };
        for v in 0..rows as u32 {
            let (a, b) = view.range(v);
            for at in a..b {
                let Some(&t) = view.targets.get(at as usize) else {
                    continue;
                };
                let Some(f) = starts.get(t as usize + 1) else {
                    continue;
                };
                if let Some(slot) = targets.get_mut(f as usize) {
                    *slot = v;
                }
                if view.is_weak(at) {
                    mark_weak(&mut weak, f as usize);
                }
                starts.set(t as usize + 1, f + 1);
            }
        }
        Ok(Edges {
            starts,
            targets,
            len: self.len,
            weak,
        })
    }

    /// [`Edges::reverse_in`] in heap memory.
    pub fn reverse(&self) -> Edges {
        match self.reverse_in(&scratch::IN_MEMORY) {
            Ok(e) => e,
            Err(_) => Edges::empty(),
        }
    }

    /// No rows.
    pub(crate) fn empty() -> Edges {
        Edges {
            starts: Starts::Narrow(Box::new(Vec::new().into_boxed_slice())),
            targets: Box::new(Vec::new().into_boxed_slice()),
            len: 0,
            weak: None,
        }
    }
}

/// What [`Edges::build`] writes for every node on the way, besides its references.
#[derive(Default)]
pub(crate) struct PerNode<'a, 'f> {
    /// The class number of every node.
    pub(crate) classes: Option<(&'a ClassNumbers, &'a mut [u32])>,
    /// The shallow size of every node under the rule given ([`SIZE_ASK_AGAIN`] for one too
    /// large for a `u32`), so that retained sizes need not read the dump again.
    pub(crate) sizes: Option<(Shallow<'f>, &'a mut [u32])>,
}

/// The first `k` slots of a per-row array (the rest left in `v`), if there is one.
fn take_rows<'e>(v: &mut Option<&'e mut [u32]>, k: usize) -> Option<&'e mut [u32]> {
    let all = v.take()?;
    let (mine, rest) = all.split_at_mut(k.min(all.len()));
    *v = Some(rest);
    Some(mine)
}

/// A shallow size [`Edges::build`] could not keep in a `u32`: ask the rule again.
pub(crate) const SIZE_ASK_AGAIN: u32 = u32::MAX;

/// At most this many threads decode references.
const MAX_THREADS: usize = 64;

/// Fewer rows than this per thread are not worth a thread.
const MIN_ROWS_PER_THREAD: usize = 1024;

/// The row ends (`starts[v + 1]`) of a stretch of rows.
enum Ends<'e> {
    Narrow(&'e mut [u32]),
    Wide(&'e mut [u64]),
}

impl<'e> Ends<'e> {
    /// The first `k` ends, and the rest.
    fn split_at(self, k: usize) -> (Ends<'e>, Ends<'e>) {
        match self {
            Ends::Narrow(v) => {
                let (a, b) = v.split_at_mut(k.min(v.len()));
                (Ends::Narrow(a), Ends::Narrow(b))
            }
            Ends::Wide(v) => {
                let (a, b) = v.split_at_mut(k.min(v.len()));
                (Ends::Wide(a), Ends::Wide(b))
            }
        }
    }

    /// Sets end `i` (`x` fits: the width was chosen for the whole array's bound).
    #[inline(always)]
    fn set(&mut self, i: usize, x: usize) {
        match self {
            Ends::Narrow(v) => {
                if let Some(s) = v.get_mut(i) {
                    *s = x as u32;
                }
            }
            Ends::Wide(v) => {
                if let Some(s) = v.get_mut(i) {
                    *s = x as u64;
                }
            }
        }
    }
}

/// One thread's share of [`Edges::build`]: a stretch of rows, decoded into `targets` from
/// position 0, with the row ends relative to it.
struct Stretch<'e> {
    rows: std::ops::Range<u32>,
    ends: Ends<'e>,
    targets: &'e mut [u32],
    weak: Option<&'e mut [u64]>,
    classes: Option<(&'e ClassNumbers, &'e mut [u32])>,
    sizes: Option<(Shallow<'e>, &'e mut [u32])>,
}

/// What a [`Stretch`] found.
#[derive(Default)]
struct Decoded {
    len: usize,
    dangling: u64,
    short_instances: u64,
    unknown_classes: u64,
}

impl Stretch<'_> {
    fn decode(mut self, ix: &ObjectIndex<'_>, policy: EdgePolicy) -> Decoded {
        let mut d = Decoded::default();
        let first = self.rows.start;
        for v in self.rows.clone() {
            let (targets, weak, len, dangling) = (
                &mut *self.targets,
                &mut self.weak,
                &mut d.len,
                &mut d.dangling,
            );
            let stats =
                for_each_reference::<false>(ix, v, policy, |id, is_weak, _| match ix.node(id) {
                    Some(t) => {
                        if let Some(slot) = targets.get_mut(*len) {
                            *slot = t;
                            if is_weak {
                                if let Some(w) = weak.as_mut().and_then(|b| b.get_mut(*len / 64)) {
                                    *w |= 1 << (*len % 64);
                                }
                            }
                            *len += 1;
                        }
                    }
                    None => *dangling += 1,
                });
            d.short_instances += u64::from(stats.short_instance);
            d.unknown_classes += u64::from(stats.unknown_class);
            let row = (v - first) as usize;
            if let Some((numbers, of_node)) = self.classes.as_mut() {
                if let Some(slot) = of_node.get_mut(row) {
                    *slot = numbers.number(stats.class);
                }
            }
            if let Some((rule, of_node)) = self.sizes.as_mut() {
                if let Some(slot) = of_node.get_mut(row) {
                    *slot = u32::try_from(shallow_size(ix, *rule, v)).unwrap_or(SIZE_ASK_AGAIN);
                }
            }
            self.ends.set(row, d.len);
        }
        d
    }
}

/// A zeroed bit set for `edges` edges.
fn weak_bits(s: &dyn Scratch, edges: usize) -> Result<Array<u64>> {
    scratch::u64s(s, edges.div_ceil(64), "weak reference flags")
}

/// Sets the weak bit of edge `at`.
fn mark_weak(weak: &mut Option<Array<u64>>, at: usize) {
    if let Some(w) = weak.as_mut().and_then(|b| b.get_mut(at / 64)) {
        *w |= 1 << (at % 64);
    }
}
