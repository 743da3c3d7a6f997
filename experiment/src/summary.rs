//! Totals over an experiment's packets, computed the way gprofng's reports compute them
//! (`-heap`/`-leaks` `<Total>`, sync wait, I/O bytes, clock ticks per thread).

use crate::descendants::{self, Step};
use crate::error::Result;
use crate::experiment::Experiment;
use crate::log::{CollectorMessage, Severity};
use crate::packets::{HeapPacket, HeapType, IoType, TypedPacket};
use crate::source::Source;
use std::collections::{BTreeMap, HashMap};

/// Heap totals: allocations paired with frees in time order (gprofng's heap map).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapSummary {
    /// Allocation events (malloc, realloc, mmap).
    pub allocations: u64,
    /// Bytes they requested.
    pub bytes_allocated: u64,
    /// Allocations never freed (or unmapped) before the end.
    pub leaks: u64,
    /// Bytes still allocated at the end.
    pub bytes_leaked: u64,
}

/// Pairs allocations with frees like gprofng: events are taken in time order; malloc, realloc
/// and mmap allocate at `HVADDR`; free (and realloc's old `HOVADDR`) releases the allocation at
/// that address; munmap releases the overlapped part of earlier mmaps.
pub fn heap_summary(packets: &[HeapPacket]) -> HeapSummary {
    let mut s = HeapSummary::default();
    for (p, leaked) in packets.iter().zip(heap_leaks(packets)) {
        if matches!(
            p.htype,
            HeapType::Malloc | HeapType::Realloc | HeapType::Mmap
        ) {
            s.allocations += 1;
            s.bytes_allocated = s.bytes_allocated.wrapping_add(p.size);
        }
        if leaked > 0 {
            s.leaks += 1;
            s.bytes_leaked = s.bytes_leaked.wrapping_add(leaked);
        }
    }
    s
}

/// The bytes each packet of `packets` leaves allocated at the end (0 for frees, unmaps and
/// allocations released later), pairing events like [`heap_summary`]; index for index.
pub fn heap_leaks(packets: &[HeapPacket]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..packets.len()).collect();
    order.sort_by_key(|&i| packets.get(i).map_or(0, |p| p.common.tstamp));
    let mut leaked: Vec<u64> = vec![0; packets.len()];
    let mut live: HashMap<u64, usize> = HashMap::new();
    let mut chunks = Chunks::new();
    for i in order {
        let Some(p) = packets.get(i) else { continue };
        match p.htype {
            HeapType::Malloc | HeapType::Realloc => {
                if p.htype == HeapType::Realloc && p.ovaddr != 0 {
                    if let Some(j) = live.remove(&p.ovaddr) {
                        if let Some(l) = leaked.get_mut(j) {
                            *l = 0;
                        }
                    }
                }
                if p.vaddr != 0 {
                    // Allocated again without a free in between: the first stays leaked.
                    live.insert(p.vaddr, i);
                    if let Some(l) = leaked.get_mut(i) {
                        *l = p.size;
                    }
                }
            }
            HeapType::Free => {
                if p.vaddr != 0 {
                    if let Some(j) = live.remove(&p.vaddr) {
                        if let Some(l) = leaked.get_mut(j) {
                            *l = 0;
                        }
                    }
                }
            }
            HeapType::Mmap => {
                let end = p.vaddr.saturating_add(p.size);
                // A new mapping replaces whatever was mapped there.
                unmap(&mut chunks, &mut leaked, p.vaddr, end);
                map_chunk(&mut chunks, p.vaddr, end, i);
                if let Some(l) = leaked.get_mut(i) {
                    *l = p.size;
                }
            }
            HeapType::Munmap => {
                unmap(
                    &mut chunks,
                    &mut leaked,
                    p.vaddr,
                    p.vaddr.saturating_add(p.size),
                );
            }
            HeapType::Other(_) => {}
        }
    }
    leaked
}

/// [`heap_leaks`] one event at a time, for heap events that come in time order (a heap trace
/// streamed from a file written in time order): memory grows with the allocations still live,
/// not with the events. Each allocation carries a tag (its stack).
#[derive(Debug)]
pub(crate) struct LeakTracker<T> {
    /// Live `malloc` blocks: address → (allocation id, tag, bytes). One map for the common
    /// malloc–free pair: one insert and one remove per block.
    live: crate::hash::IntMap<u64, (usize, T, u64)>,
    /// Other allocations that may still leak: id → (tag, bytes still allocated): blocks
    /// allocated again at their address without a free in between (no free can reach them
    /// any more) and `mmap` mappings (their chunks in `chunks`).
    allocs: crate::hash::IntMap<usize, (T, u64)>,
    chunks: Chunks,
    next: usize,
}

impl<T: Copy> LeakTracker<T> {
    pub(crate) fn new() -> Self {
        LeakTracker {
            live: crate::hash::IntMap::default(),
            allocs: crate::hash::IntMap::default(),
            chunks: Chunks::new(),
            next: 0,
        }
    }

    /// Takes the next event (in time order) of an allocation tagged `tag`.
    #[inline]
    pub(crate) fn push(&mut self, p: &HeapPacket, tag: T) {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        match p.htype {
            HeapType::Malloc | HeapType::Realloc => {
                if p.htype == HeapType::Realloc && p.ovaddr != 0 {
                    self.live.remove(&p.ovaddr);
                }
                if p.vaddr != 0 {
                    // Allocated again without a free in between: the first stays leaked.
                    if let Some((j, t, bytes)) = self.live.insert(p.vaddr, (id, tag, p.size)) {
                        if bytes > 0 {
                            self.allocs.insert(j, (t, bytes));
                        }
                    }
                }
            }
            HeapType::Free => {
                if p.vaddr != 0 {
                    self.live.remove(&p.vaddr);
                }
            }
            HeapType::Mmap => {
                let end = p.vaddr.saturating_add(p.size);
                self.unmap(p.vaddr, end);
                map_chunk(&mut self.chunks, p.vaddr, end, id);
                if p.size > 0 {
                    self.allocs.insert(id, (tag, p.size));
                }
            }
            HeapType::Munmap => self.unmap(p.vaddr, p.vaddr.saturating_add(p.size)),
            HeapType::Other(_) => {}
        }
    }

    fn unmap(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let hit: Vec<(u64, u64, usize)> = self
            .chunks
            .range(..end)
            .rev()
            .take_while(|(_, (b, _))| *b > start)
            .map(|(&a, &(b, i))| (a, b, i))
            .collect();
        for (a, b, i) in hit {
            self.chunks.remove(&a);
            let (lo, hi) = (a.max(start), b.min(end));
            if let Some((_, l)) = self.allocs.get_mut(&i) {
                *l = l.saturating_sub(hi - lo);
                if *l == 0 {
                    self.allocs.remove(&i);
                }
            }
            map_chunk(&mut self.chunks, a, lo, i);
            map_chunk(&mut self.chunks, hi, b, i);
        }
    }

    /// The allocations left allocated at the end: (tag, bytes), in allocation order.
    pub(crate) fn leaks(self) -> Vec<(T, u64)> {
        let mut left: Vec<(usize, (T, u64))> = self
            .live
            .into_values()
            .filter(|&(_, _, bytes)| bytes > 0)
            .map(|(id, tag, bytes)| (id, (tag, bytes)))
            .chain(self.allocs)
            .collect();
        left.sort_unstable_by_key(|(id, _)| *id);
        left.into_iter().map(|(_, v)| v).collect()
    }
}

/// Mapped chunks by start address: `start -> (end, allocation index)`. Chunks never overlap (a
/// new mapping first unmaps its range) and are never empty, so starts and ends both ascend.
type Chunks = BTreeMap<u64, (u64, usize)>;

/// Adds `start..end` as a chunk of allocation `i` (empty ranges are not kept: they can never
/// overlap an unmapped range).
fn map_chunk(chunks: &mut Chunks, start: u64, end: u64, i: usize) {
    if start < end {
        chunks.insert(start, (end, i));
    }
}

/// Releases `start..end`: each overlapped chunk's allocation loses the overlapped bytes and the
/// chunk keeps only its parts outside the range. Only the chunks overlapping the range are
/// visited.
fn unmap(chunks: &mut Chunks, leaked: &mut [u64], start: u64, end: u64) {
    if start >= end {
        return;
    }
    // Chunks starting before `end`, latest first, while they still reach past `start`.
    let hit: Vec<(u64, u64, usize)> = chunks
        .range(..end)
        .rev()
        .take_while(|(_, (b, _))| *b > start)
        .map(|(&a, &(b, i))| (a, b, i))
        .collect();
    for (a, b, i) in hit {
        chunks.remove(&a);
        let (lo, hi) = (a.max(start), b.min(end));
        if let Some(l) = leaked.get_mut(i) {
            *l = l.saturating_sub(hi - lo);
        }
        map_chunk(chunks, a, lo, i);
        map_chunk(chunks, hi, b, i);
    }
}

/// Synchronization totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SyncSummary {
    /// Sync events.
    pub events: u64,
    /// Total wait (`TSTAMP − SRQST`) in ns.
    pub wait_ns: u64,
}

/// I/O totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct IoSummary {
    /// I/O events.
    pub events: u64,
    /// Bytes read and written (successful reads and writes; errors record -1).
    pub bytes: u64,
}

/// Clock totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClockSummary {
    /// Profiling ticks (`NTICK`) per thread (gprofng's small thread ids).
    pub ticks_by_thread: BTreeMap<u32, u64>,
}

/// A descendant as listed in a summary.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DescendantSummary {
    /// Directory name.
    pub name: String,
    /// Fork/exec/clone steps.
    pub lineage: Vec<Step>,
    /// False when gprofng leaves it out (empty frame info).
    pub has_data: bool,
}

/// One experiment in numbers.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Summary {
    /// Experiment version.
    pub version: String,
    /// Collector version.
    pub collector: String,
    /// Host name.
    pub host: String,
    /// Architecture.
    pub arch: String,
    /// Target command line.
    pub command: String,
    /// Process id.
    pub pid: u64,
    /// Duration in seconds (latest log event, like gprofng's "Experiment Ended").
    pub duration_s: f64,
    /// Packets per data kind.
    pub data: BTreeMap<String, u64>,
    /// Heap totals.
    pub heap: HeapSummary,
    /// Sync totals.
    pub sync: SyncSummary,
    /// I/O totals.
    pub io: IoSummary,
    /// Clock totals.
    pub clock: ClockSummary,
    /// Collector warnings.
    pub warnings: Vec<CollectorMessage>,
    /// Collector errors.
    pub errors: Vec<CollectorMessage>,
    /// The experiment was not closed normally, or a file of it was cut short (see
    /// `truncations`).
    pub incomplete: bool,
    /// Where reading stopped short, one statement per file ([`Experiment::truncations`]):
    /// the file, the byte offset and what was missing.
    pub truncations: Vec<String>,
    /// Every reason the experiment is partial, `FILE: why` ([`Experiment::partial`]): a
    /// collector stopped before the program ended, a file cut or damaged. Empty when complete.
    pub partial: Vec<String>,
    /// Descendant experiments in gprofng's order.
    pub descendants: Vec<DescendantSummary>,
    /// Packets that could not be read (bad tsize, cut at the end, bad field offsets).
    pub bad_packets: u64,
}

impl Summary {
    /// Summarises `exp` (reads every data file).
    pub fn of<S: Source>(exp: &Experiment<S>) -> Result<Summary> {
        let log = exp.log();
        let mut s = Summary {
            version: log.version.clone(),
            collector: log.collector.clone(),
            host: log.system.hostname.clone(),
            arch: log.system.arch.clone(),
            command: log.process.command.clone().unwrap_or_default(),
            pid: log.process.pid.unwrap_or(0),
            duration_s: log.end() as f64 / 1e9,
            partial: exp.partial().iter().map(ToString::to_string).collect(),
            truncations: exp.truncations()?.iter().map(ToString::to_string).collect(),
            ..Summary::default()
        };
        for m in log.messages().into_iter().chain(
            exp.collect_warnings()
                .map(crate::log::Log::messages)
                .unwrap_or_default(),
        ) {
            match m.severity {
                Severity::Warning => s.warnings.push(m),
                Severity::Error => s.errors.push(m),
                Severity::Comment => {}
            }
        }
        let mut threads = log.thread_tags();
        // Heap events pair up as they stream when they come in time order; else a second
        // pass keeps them all and sorts them.
        let mut tracker: LeakTracker<()> = LeakTracker::new();
        let mut in_order = true;
        let mut last = 0u64;
        let files = log.data_files();
        for name in &files {
            exp.stream_packets(name, |p| {
                let Ok(p) = p else {
                    s.bad_packets += 1;
                    return;
                };
                let Ok(t) = p.typed() else {
                    s.bad_packets += 1;
                    return;
                };
                *s.data.entry(p.kind().name()).or_default() += 1;
                let thread = threads.tag(t.common().thr_id);
                match t {
                    TypedPacket::Clock(c) => {
                        *s.clock.ticks_by_thread.entry(thread).or_default() += u64::from(c.nticks);
                    }
                    TypedPacket::Heap(h) => {
                        if matches!(
                            h.htype,
                            HeapType::Malloc | HeapType::Realloc | HeapType::Mmap
                        ) {
                            s.heap.allocations += 1;
                            s.heap.bytes_allocated = s.heap.bytes_allocated.wrapping_add(h.size);
                        }
                        in_order &= h.common.tstamp >= last;
                        last = h.common.tstamp;
                        if in_order {
                            tracker.push(&h, ());
                        }
                    }
                    TypedPacket::Sync(y) => {
                        s.sync.events += 1;
                        s.sync.wait_ns = s.sync.wait_ns.wrapping_add(y.wait_ns());
                    }
                    TypedPacket::Io(i) => {
                        s.io.events += 1;
                        if matches!(i.io_type, IoType::Read | IoType::Write) {
                            s.io.bytes = s.io.bytes.wrapping_add(i.nbytes);
                        }
                    }
                    TypedPacket::Hwc(_) | TypedPacket::Other { .. } => {}
                }
            })?;
        }
        if in_order {
            for (_, leaked) in tracker.leaks() {
                s.heap.leaks += 1;
                s.heap.bytes_leaked = s.heap.bytes_leaked.wrapping_add(leaked);
            }
        } else {
            let mut heap = Vec::new();
            for name in &files {
                exp.stream_packets(name, |p| {
                    if let Ok(TypedPacket::Heap(h)) = p.and_then(|p| p.typed()) {
                        heap.push(h);
                    }
                })?;
            }
            let paired = heap_summary(&heap);
            s.heap.leaks = paired.leaks;
            s.heap.bytes_leaked = paired.bytes_leaked;
        }
        s.incomplete = !s.partial.is_empty();
        s.descendants = descendants::list(exp.source())
            .into_iter()
            .map(|d| DescendantSummary {
                name: d.name,
                lineage: d.lineage,
                has_data: d.has_data,
            })
            .collect();
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packets::Common;

    fn heap(tstamp: u64, htype: HeapType, vaddr: u64, size: u64) -> HeapPacket {
        HeapPacket {
            common: Common {
                tstamp,
                ..Common::default()
            },
            htype,
            size,
            vaddr,
            ovaddr: 0,
        }
    }

    /// The plain list algorithm (every chunk visited on every unmap), as a reference.
    fn reference(packets: &[HeapPacket]) -> HeapSummary {
        let mut order: Vec<&HeapPacket> = packets.iter().collect();
        order.sort_by_key(|p| p.common.tstamp);
        let mut leaked: Vec<u64> = Vec::new();
        let mut chunks: Vec<(u64, u64, usize)> = Vec::new();
        let mut s = HeapSummary::default();
        let unmap = |chunks: &mut Vec<(u64, u64, usize)>, leaked: &mut Vec<u64>, x: u64, y: u64| {
            let mut kept = Vec::new();
            for &(a, b, i) in chunks.iter() {
                let (lo, hi) = (a.max(x), b.min(y));
                if lo >= hi {
                    kept.push((a, b, i));
                    continue;
                }
                leaked[i] = leaked[i].saturating_sub(hi - lo);
                if a < lo {
                    kept.push((a, lo, i));
                }
                if hi < b {
                    kept.push((hi, b, i));
                }
            }
            *chunks = kept;
        };
        for p in order {
            let end = p.vaddr.saturating_add(p.size);
            match p.htype {
                HeapType::Mmap => {
                    s.allocations += 1;
                    s.bytes_allocated = s.bytes_allocated.wrapping_add(p.size);
                    unmap(&mut chunks, &mut leaked, p.vaddr, end);
                    chunks.push((p.vaddr, end, leaked.len()));
                    leaked.push(p.size);
                }
                HeapType::Munmap => unmap(&mut chunks, &mut leaked, p.vaddr, end),
                _ => unreachable!(),
            }
        }
        for l in leaked.into_iter().filter(|&l| l > 0) {
            s.leaks += 1;
            s.bytes_leaked += l;
        }
        s
    }

    #[test]
    fn fifty_thousand_mmaps() {
        // Every mmap used to rebuild the list of all mapped chunks (quadratic: minutes here).
        let n = 50_000u64;
        let at = |i: u64| 0x10_0000 + i * 0x2000;
        let mut p: Vec<HeapPacket> = (0..n)
            .map(|i| heap(i, HeapType::Mmap, at(i), 0x1000))
            .collect();
        // Unmap every even mapping, and the first half of each mapping ≡ 1 (mod 4).
        for i in (0..n).step_by(2) {
            p.push(heap(n + i, HeapType::Munmap, at(i), 0x1000));
        }
        for i in (1..n).step_by(4) {
            p.push(heap(2 * n + i, HeapType::Munmap, at(i), 0x800));
        }
        // One range over the tail of mapping 3 (0xC00), the rest of 5 (0x800) and the head of
        // 7 (0x400).
        p.push(heap(3 * n, HeapType::Munmap, at(3) + 0x400, 0x8000));
        // A new mapping inside what is left of mapping 9 replaces that part.
        p.push(heap(3 * n + 1, HeapType::Mmap, at(9) + 0x900, 0x80));
        let s = heap_summary(&p);
        let odd = n / 2;
        let quarter = n / 4; // mappings ≡ 1 (mod 4): half left
        assert_eq!(s.allocations, n + 1);
        assert_eq!(s.bytes_allocated, n * 0x1000 + 0x80);
        // The odd mappings but 5, plus the new one.
        assert_eq!(s.leaks, odd - 1 + 1);
        let before = (odd - quarter) * 0x1000 + quarter * 0x800;
        assert_eq!(s.bytes_leaked, before - 0xC00 - 0x800 - 0x400 + 0x80 - 0x80);
    }

    #[test]
    fn overlapping_maps_and_unmaps_match_the_reference() {
        // Pseudo-random mmaps/munmaps over a small address range, so that they overlap a lot.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..50 {
            let p: Vec<HeapPacket> = (0..200)
                .map(|_| {
                    let kind = if next(3) == 0 {
                        HeapType::Munmap
                    } else {
                        HeapType::Mmap
                    };
                    heap(next(1000), kind, next(64) * 16, next(40) * 8)
                })
                .collect();
            assert_eq!(heap_summary(&p), reference(&p), "round {round}");
        }
    }
}
