//! Collecting a profile: every packet's metric values charged to its named stack (gprofng
//! `DbeView::get_hist_data` over the experiment's data files), and folded stacks for
//! flame-graph tools.

use super::metrics::{KIND_ORDER, MAX_HWC_TAGS, METRICS, Metric};
use crate::experiment::Experiment;
use crate::packets::{
    ClockPacket, DataKind, HeapPacket, HeapType, HwcPacket, IoPacket, IoType, SyncPacket,
};
use crate::source::Source;
use crate::stacks::{StackId, Symbolizer, TOTAL};
use crate::summary::{LeakTracker, heap_leaks};
use std::collections::HashMap;

/// Per-packet metric values of every stack, accumulated over an experiment's packets.
#[derive(Debug)]
pub struct StackProfile<'e, S> {
    /// The symbolizer that named the stacks (its functions and frames).
    pub symbols: Symbolizer<'e, S>,
    /// Raw values (ns for times) per stack id.
    pub(super) values: Vec<[u64; METRICS]>,
    /// Totals over all packets.
    pub(super) total: [u64; METRICS],
    /// The data kinds seen, in gprofng's column order.
    pub(super) kinds: Vec<DataKind>,
    /// The hardware counters log.xml names: (tag, `hwcname`), by tag.
    pub(super) hwc: Vec<(u8, String)>,
    /// Packets that could not be decoded (also counted in the experiment's truncations), and
    /// hardware counter packets whose tag is [`MAX_HWC_TAGS`] or more.
    pub bad_packets: u64,
}

/// What one packet charges to its stack.
enum Event {
    /// Clock ticks.
    Clock(u64),
    Heap(HeapPacket),
    /// Counter tag and events.
    Hwc(u32, u64),
    /// Wait time.
    Sync(u64),
    /// Type, time and bytes.
    Io(IoType, u64, u64),
}

impl<'e, S: Source> StackProfile<'e, S> {
    /// [`StackProfile::collect`] with stacks named from the experiment's `archives/` and the
    /// load objects its source finds ([`Source::load_object`]): every data kind for `None`.
    ///
    /// Folded stacks for a flame graph (`frames root first;… value`), from the tiny experiment
    /// the crate carries (`src/demo/`, the program `demo.c` beside it):
    ///
    /// ```
    /// use experiment::{Experiment, MemorySource, packets::DataKind};
    /// use experiment::profile::{Metric, StackProfile};
    /// # let source = MemorySource::new()
    /// #     .with("log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/log.xml"))[..])
    /// #     .with("map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/map.xml"))[..])
    /// #     .with("data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/data.frameinfo"))[..])
    /// #     .with("profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/profile"))[..])
    /// #     .with("archives/demo_4xbbvtFYDL2", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/archives/demo_4xbbvtFYDL2"))[..]);
    /// let exp = Experiment::open(source)?;
    /// let profile = StackProfile::read(&exp, Some(DataKind::Clock))?;
    /// let folded = profile.folded(Metric::TotalCpu); // nanoseconds per distinct stack
    /// let work_leaf = folded.iter().find(|(stack, _)| stack.ends_with(";main;work;leaf")).unwrap();
    /// assert_eq!(work_leaf.1, 820_574_000);
    /// # Ok::<(), experiment::Error>(())
    /// ```
    pub fn read(exp: &'e Experiment<S>, only: Option<DataKind>) -> crate::Result<Self> {
        StackProfile::collect(exp, Symbolizer::new(exp), only)
    }

    /// Reads every packet of every data file of `exp` whose kind passes `only` (all kinds for
    /// `None`), naming stacks with `symbols`. Packets that cannot be read are counted in
    /// [`StackProfile::bad_packets`] and skipped; where files were cut is in
    /// [`Experiment::truncations`].
    pub fn collect(
        exp: &'e Experiment<S>,
        mut symbols: Symbolizer<'e, S>,
        only: Option<DataKind>,
    ) -> crate::Result<Self> {
        let ptimer_ns = exp
            .log()
            .profile("profile")
            .and_then(|p| p.ptimer)
            .filter(|&us| us > 0)
            .unwrap_or(10_000)
            .saturating_mul(1000);
        let mut values: Vec<[u64; METRICS]> = Vec::new();
        let mut total = [0u64; METRICS];
        // The kinds log.xml says were recorded show their columns even without packets.
        let mut seen: Vec<DataKind> = Vec::new();
        for f in exp.log().data_files() {
            for d in exp.log().descriptors_for_file(&f) {
                let k = DataKind::from_packet_type(d.kind);
                if !seen.contains(&k) && only.is_none_or(|o| o == k) {
                    seen.push(k);
                }
            }
        }
        // Heap events pair up in time order: streamed when the files give them in time order
        // (memory then grows with the live allocations only), else kept and sorted.
        // The first pass assumes the heap events come in time order (streamed: memory grows
        // with the live allocations only); events out of order make a second pass that keeps
        // them all and sorts them.
        let seen_declared = seen.clone();
        let files = exp.log().data_files();
        let mut heap_in_order = only.is_none_or(|k| k == DataKind::Heap);
        let mut tracker: LeakTracker<StackId> = LeakTracker::new();
        let mut heap: Vec<(StackId, HeapPacket)> = Vec::new();
        let mut bad = 0;
        loop {
            let mut last_heap = 0u64;
            let mut out_of_order = false;
            for name in &files {
                if out_of_order {
                    break;
                }
                exp.stream_packets(name, |p| {
                    let Ok(p) = p else {
                        bad += 1;
                        return;
                    };
                    let kind = p.kind();
                    if only.is_some_and(|k| k != kind) || !KIND_ORDER.contains(&kind) {
                        return;
                    }
                    // Each kind decoded straight to its packet (not through the
                    // `TypedPacket` enum, whose size and I/O file name cost on every packet).
                    let (raw, layout, e) = (&p.packet.raw, p.layout, p.packet.endian);
                    let event = match kind {
                        DataKind::Clock => ClockPacket::decode(raw, layout, e).map(|ck| {
                            let ticks: u64 = ck.ticks().map(|(_, n)| u64::from(n)).sum();
                            (ck.common, Event::Clock(ticks))
                        }),
                        DataKind::Heap => {
                            HeapPacket::decode(raw, layout, e).map(|h| (h.common, Event::Heap(h)))
                        }
                        DataKind::Hwc => HwcPacket::decode(raw, layout, e)
                            .map(|h| (h.common, Event::Hwc(h.tag, h.interval))),
                        DataKind::Sync => SyncPacket::decode(raw, layout, e)
                            .map(|y| (y.common, Event::Sync(y.wait_ns()))),
                        DataKind::Io => IoPacket::decode(raw, layout, e).map(|io| {
                            let time = io.common.tstamp.saturating_sub(io.request);
                            (io.common, Event::Io(io.io_type, time, io.nbytes))
                        }),
                        DataKind::Other(_) => return,
                    };
                    let Ok((c, event)) = event else {
                        bad += 1;
                        return;
                    };
                    if !seen.contains(&kind) {
                        seen.push(kind);
                    }
                    let id = symbols.stack(c.frinfo, c.tstamp);
                    let slot = id.0 as usize;
                    if values.len() <= slot {
                        values.resize(slot + 1, [0; METRICS]);
                    }
                    let mut add = |m: Metric, v: u64| {
                        let i = m.index();
                        if let Some(row) = values.get_mut(slot) {
                            if let Some(x) = row.get_mut(i) {
                                *x = x.wrapping_add(v);
                            }
                        }
                        if let Some(x) = total.get_mut(i) {
                            *x = x.wrapping_add(v);
                        }
                    };
                    match event {
                        Event::Clock(ticks) => {
                            add(Metric::TotalCpu, ticks.saturating_mul(ptimer_ns));
                        }
                        Event::Heap(h) if heap_in_order => {
                            out_of_order |= h.common.tstamp < last_heap;
                            last_heap = h.common.tstamp;
                            if out_of_order {
                                return;
                            }
                            if is_allocation(h.htype) {
                                add(Metric::HeapAllocCnt, 1);
                                add(Metric::HeapAllocBytes, h.size);
                            }
                            tracker.push(&h, id);
                        }
                        Event::Heap(h) => heap.push((id, h)),
                        Event::Hwc(tag, interval) => {
                            if let Some(tag) = u8::try_from(tag)
                                .ok()
                                .filter(|&t| usize::from(t) < MAX_HWC_TAGS)
                            {
                                add(Metric::Hwc(tag), interval);
                            } else {
                                bad += 1;
                            }
                        }
                        Event::Sync(wait) => {
                            add(Metric::Sync, wait);
                            add(Metric::SyncN, 1);
                        }
                        Event::Io(io_type, time, nbytes) => {
                            let (t, n, b) = match io_type {
                                IoType::Read => (
                                    Metric::IoReadTime,
                                    Metric::IoReadCnt,
                                    Some(Metric::IoReadBytes),
                                ),
                                IoType::Write => (
                                    Metric::IoWriteTime,
                                    Metric::IoWriteCnt,
                                    Some(Metric::IoWriteBytes),
                                ),
                                IoType::Open | IoType::Close | IoType::OtherIo => {
                                    (Metric::IoOtherTime, Metric::IoOtherCnt, None)
                                }
                                _ => (Metric::IoErrorTime, Metric::IoErrorCnt, None),
                            };
                            add(t, time);
                            add(n, 1);
                            if let Some(b) = b {
                                add(b, nbytes);
                            }
                        }
                    }
                })?;
            }
            if out_of_order && heap_in_order {
                heap_in_order = false;
                values.clear();
                total = [0; METRICS];
                seen = seen_declared.clone();
                tracker = LeakTracker::new();
                heap.clear();
                bad = 0;
                continue;
            }
            break;
        }
        for (id, leaked) in tracker.leaks() {
            for (m, v) in [(Metric::HeapLeakCnt, 1), (Metric::HeapLeakBytes, leaked)] {
                let i = m.index();
                if let Some(x) = values.get_mut(id.0 as usize).and_then(|r| r.get_mut(i)) {
                    *x = x.wrapping_add(v);
                }
                if let Some(x) = total.get_mut(i) {
                    *x = x.wrapping_add(v);
                }
            }
        }
        // Out of time order: every heap event first, then sorted.
        let packets: Vec<HeapPacket> = heap.iter().map(|(_, h)| *h).collect();
        let leaks = heap_leaks(&packets);
        for ((id, h), leaked) in heap.iter().zip(leaks) {
            let slot = id.0 as usize;
            if values.len() <= slot {
                values.resize(slot + 1, [0; METRICS]);
            }
            let mut adds: Vec<(Metric, u64)> = Vec::with_capacity(4);
            if is_allocation(h.htype) {
                adds.push((Metric::HeapAllocCnt, 1));
                adds.push((Metric::HeapAllocBytes, h.size));
                if leaked > 0 {
                    adds.push((Metric::HeapLeakCnt, 1));
                    adds.push((Metric::HeapLeakBytes, leaked));
                }
            }
            for (m, v) in adds {
                let i = m.index();
                if let Some(x) = values.get_mut(slot).and_then(|r| r.get_mut(i)) {
                    *x = x.wrapping_add(v);
                }
                if let Some(x) = total.get_mut(i) {
                    *x = x.wrapping_add(v);
                }
            }
        }
        let kinds = KIND_ORDER
            .into_iter()
            .filter(|k| seen.contains(k) || only == Some(*k))
            .collect();
        // Stacks named but never charged (a kind filtered out) still list their functions.
        values.resize(symbols.stack_count(), [0; METRICS]);
        let mut hwc: Vec<(u8, String)> = exp
            .log()
            .hw_counters()
            .into_iter()
            .filter_map(|c| {
                let tag = u8::try_from(c.tag).ok()?;
                (usize::from(tag) < MAX_HWC_TAGS).then_some((tag, c.name))
            })
            .collect();
        hwc.sort();
        hwc.dedup_by_key(|(t, _)| *t);
        Ok(StackProfile {
            symbols,
            values,
            total,
            kinds,
            hwc,
            bad_packets: bad,
        })
    }

    /// The metric gprofng names `name`: a fixed one, or a hardware counter of this experiment
    /// by its `hwcname`.
    pub fn metric(&self, name: &str) -> Option<Metric> {
        Metric::named(name, &self.hwc)
    }

    /// The hardware counters log.xml names, `(tag, hwcname)` by tag.
    pub fn hw_counters(&self) -> &[(u8, String)] {
        &self.hwc
    }

    /// The data kinds the profile has packets of (or was asked for), in gprofng's column order.
    pub fn kinds(&self) -> &[DataKind] {
        &self.kinds
    }

    /// Folded stacks for `metric`: one `(frames root first joined by ';', value)` per distinct
    /// stack with a non-zero value, in first-seen order; a stack without frames is `<Total>`
    /// alone. Values are raw (ns for times).
    pub fn folded(&self, metric: Metric) -> Vec<(String, u64)> {
        let i = metric.index();
        let mut out: Vec<(String, u64)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for (s, v) in self.values.iter().enumerate() {
            let value = v.get(i).copied().unwrap_or(0);
            if value == 0 {
                continue;
            }
            let frames = self
                .symbols
                .frames(StackId(u32::try_from(s).unwrap_or(u32::MAX)));
            let mut line = String::new();
            for f in frames {
                if !line.is_empty() {
                    line.push(';');
                }
                if let Some(func) = self.symbols.function(f.function) {
                    // `;` separates frames: keep it out of names.
                    line.push_str(&func.name.replace(';', ":"));
                }
            }
            if line.is_empty() {
                line.push_str(TOTAL);
            }
            // Distinct stacks can share names (two PCs of one function at the leaf).
            match index.get(&line) {
                Some(&at) => {
                    if let Some(e) = out.get_mut(at) {
                        e.1 = e.1.wrapping_add(value);
                    }
                }
                None => {
                    index.insert(line.clone(), out.len());
                    out.push((line, value));
                }
            }
        }
        out
    }

    /// The total of `metric` over all packets.
    pub fn total(&self, metric: Metric) -> u64 {
        self.total.get(metric.index()).copied().unwrap_or(0)
    }
}

/// Events gprofng counts as allocations.
fn is_allocation(t: HeapType) -> bool {
    matches!(t, HeapType::Malloc | HeapType::Realloc | HeapType::Mmap)
}
