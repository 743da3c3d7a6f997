//! Function profiles and folded stacks: per function, the exclusive and inclusive metrics
//! gprofng's `-functions` shows by default for each data kind, with its `<Total>` row and its
//! order; and `frame;frame;frame value` lines for flame-graph tools (gprofng
//! `DbeView::get_hist_data`, `MetricList` defaults per data type).
//!
//! A function's exclusive value is what packets whose stack ends in it carry; its inclusive
//! value what packets whose stack contains it carry, counted once per packet however often the
//! function recurs in the stack. `<Total>` is the sum over all packets (also those without a
//! stack).

use crate::experiment::Experiment;
use crate::packets::{
    ClockPacket, DataKind, HeapPacket, HeapType, HwcPacket, IoPacket, IoType, SyncPacket,
};
use crate::source::Source;
use crate::stacks::{
    FrameKind, FunctionId, NO_JAVA_CALLSTACK, NativeLines, StackId, Symbolizer, TOTAL,
};
use crate::summary::{LeakTracker, heap_leaks};
use std::collections::HashMap;

/// A metric gprofng computes per packet (names as gprofng's metric list spells them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Metric {
    /// `totalcpu`: CPU time of clock profiling ticks.
    TotalCpu,
    /// `heapleakbytes`: bytes allocated and never freed.
    HeapLeakBytes,
    /// `heapleakcnt`: allocations never freed.
    HeapLeakCnt,
    /// `heapallocbytes`: bytes allocated.
    HeapAllocBytes,
    /// `heapalloccnt`: allocations.
    HeapAllocCnt,
    /// `sync`: synchronization wait time.
    Sync,
    /// `syncn`: synchronization waits.
    SyncN,
    /// `ioreadtime`.
    IoReadTime,
    /// `iowritetime`.
    IoWriteTime,
    /// `ioothertime` (open, close, other I/O).
    IoOtherTime,
    /// `ioerrortime` (failed operations).
    IoErrorTime,
    /// `ioreadbytes`.
    IoReadBytes,
    /// `iowritebytes`.
    IoWriteBytes,
    /// `ioreadcnt`.
    IoReadCnt,
    /// `iowritecnt`.
    IoWriteCnt,
    /// `ioothercnt`.
    IoOtherCnt,
    /// `ioerrorcnt`.
    IoErrorCnt,
    /// Events of the hardware counter whose log.xml `<profile name="hwcounter">` has this
    /// `tag` (the sum of the packets' `HWCINT`); gprofng names the metric after the
    /// counter's `hwcname` (`cycles`, `insts`): see [`FunctionTable::key`]. Tags from 0 to
    /// [`MAX_HWC_TAGS`]` - 1` are counted.
    Hwc(u8),
}

/// Number of fixed [`Metric`]s.
const FIXED: usize = 17;
/// Hardware counters (tags) a profile counts.
pub const MAX_HWC_TAGS: usize = 16;
/// Number of [`Metric`]s.
const METRICS: usize = FIXED + MAX_HWC_TAGS;

impl Metric {
    /// Every metric but the hardware counters', in index order.
    pub const ALL: [Metric; FIXED] = [
        Metric::TotalCpu,
        Metric::HeapLeakBytes,
        Metric::HeapLeakCnt,
        Metric::HeapAllocBytes,
        Metric::HeapAllocCnt,
        Metric::Sync,
        Metric::SyncN,
        Metric::IoReadTime,
        Metric::IoWriteTime,
        Metric::IoOtherTime,
        Metric::IoErrorTime,
        Metric::IoReadBytes,
        Metric::IoWriteBytes,
        Metric::IoReadCnt,
        Metric::IoWriteCnt,
        Metric::IoOtherCnt,
        Metric::IoErrorCnt,
    ];

    /// gprofng's name (`totalcpu`, `heapleakbytes`, …).
    pub fn name(self) -> &'static str {
        match self {
            Metric::TotalCpu => "totalcpu",
            Metric::HeapLeakBytes => "heapleakbytes",
            Metric::HeapLeakCnt => "heapleakcnt",
            Metric::HeapAllocBytes => "heapallocbytes",
            Metric::HeapAllocCnt => "heapalloccnt",
            Metric::Sync => "sync",
            Metric::SyncN => "syncn",
            Metric::IoReadTime => "ioreadtime",
            Metric::IoWriteTime => "iowritetime",
            Metric::IoOtherTime => "ioothertime",
            Metric::IoErrorTime => "ioerrortime",
            Metric::IoReadBytes => "ioreadbytes",
            Metric::IoWriteBytes => "iowritebytes",
            Metric::IoReadCnt => "ioreadcnt",
            Metric::IoWriteCnt => "iowritecnt",
            Metric::IoOtherCnt => "ioothercnt",
            Metric::IoErrorCnt => "ioerrorcnt",
            Metric::Hwc(_) => "hwc",
        }
    }

    /// The fixed metric named `name` by gprofng (hardware counters are named by the
    /// experiment: [`FunctionTable::metric`]).
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The metric gprofng names `name`: a fixed one, or one of the hardware counters
    /// `hwc` (tag, `hwcname`) by its name.
    fn named(name: &str, hwc: &[(u8, String)]) -> Option<Metric> {
        Metric::from_name(name).or_else(|| {
            hwc.iter()
                .find(|(_, n)| n == name)
                .map(|(t, _)| Metric::Hwc(*t))
        })
    }

    /// True for times (kept in nanoseconds, shown by gprofng in seconds).
    pub fn is_time(self) -> bool {
        matches!(
            self,
            Metric::TotalCpu
                | Metric::Sync
                | Metric::IoReadTime
                | Metric::IoWriteTime
                | Metric::IoOtherTime
                | Metric::IoErrorTime
        )
    }

    /// The data kind the metric belongs to.
    pub fn kind(self) -> DataKind {
        match self {
            Metric::TotalCpu => DataKind::Clock,
            Metric::HeapLeakBytes
            | Metric::HeapLeakCnt
            | Metric::HeapAllocBytes
            | Metric::HeapAllocCnt => DataKind::Heap,
            Metric::Sync | Metric::SyncN => DataKind::Sync,
            Metric::Hwc(_) => DataKind::Hwc,
            _ => DataKind::Io,
        }
    }

    fn index(self) -> usize {
        match self {
            Metric::Hwc(tag) => FIXED + usize::from(tag).min(MAX_HWC_TAGS - 1),
            m => Metric::ALL.iter().position(|&x| x == m).unwrap_or(0),
        }
    }
}

/// A metric's subtype, as gprofng calls it (`BaseMetric::SubType`): which packets a function's
/// value counts. (The third, attributed, is the value of a call: [`CallersCallees`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Subtype {
    /// `e.`: packets whose stack ends in the function.
    Exclusive,
    /// `i.`: packets whose stack contains the function.
    Inclusive,
}

/// One column of gprofng's function list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Column {
    /// Exclusive or inclusive.
    pub subtype: Subtype,
    /// The metric.
    pub metric: Metric,
}

impl Column {
    /// gprofng's key: `e.totalcpu`, `i.heapleakbytes`, … (`e.hwc<tag>` for a hardware
    /// counter, whose gprofng name [`FunctionTable::key`] gives).
    pub fn key(self) -> String {
        let f = match self.subtype {
            Subtype::Exclusive => "e",
            Subtype::Inclusive => "i",
        };
        match self.metric {
            Metric::Hwc(tag) => format!("{f}.hwc{tag}"),
            m => format!("{f}.{}", m.name()),
        }
    }

    const fn incl(metric: Metric) -> Column {
        Column {
            subtype: Subtype::Inclusive,
            metric,
        }
    }
}

/// The columns gprofng's `-functions` shows by default for data kind `kind`, in its order
/// (hardware counters: [`hwc_columns`]).
pub fn default_columns(kind: DataKind) -> Vec<Column> {
    match kind {
        DataKind::Clock => vec![
            Column {
                subtype: Subtype::Exclusive,
                metric: Metric::TotalCpu,
            },
            Column::incl(Metric::TotalCpu),
        ],
        DataKind::Heap => vec![
            Column::incl(Metric::HeapLeakBytes),
            Column::incl(Metric::HeapLeakCnt),
            Column::incl(Metric::HeapAllocBytes),
            Column::incl(Metric::HeapAllocCnt),
        ],
        DataKind::Sync => vec![Column::incl(Metric::Sync), Column::incl(Metric::SyncN)],
        DataKind::Io => vec![
            Column::incl(Metric::IoReadTime),
            Column::incl(Metric::IoWriteTime),
            Column::incl(Metric::IoOtherTime),
            Column::incl(Metric::IoErrorTime),
        ],
        _ => Vec::new(),
    }
}

/// The columns of hardware counters with tags `tags`: exclusive and inclusive events of each,
/// in tag order.
pub fn hwc_columns(tags: &[u8]) -> Vec<Column> {
    tags.iter()
        .flat_map(|&t| {
            [
                Column {
                    subtype: Subtype::Exclusive,
                    metric: Metric::Hwc(t),
                },
                Column::incl(Metric::Hwc(t)),
            ]
        })
        .collect()
}

/// Per-packet metric values of every stack, accumulated over an experiment's packets.
#[derive(Debug)]
pub struct StackProfile<'e, S> {
    /// The symbolizer that named the stacks (its functions and frames).
    pub symbols: Symbolizer<'e, S>,
    /// Raw values (ns for times) per stack id.
    values: Vec<[u64; METRICS]>,
    /// Totals over all packets.
    total: [u64; METRICS],
    /// The data kinds seen, in gprofng's column order.
    kinds: Vec<DataKind>,
    /// The hardware counters log.xml names: (tag, `hwcname`), by tag.
    hwc: Vec<(u8, String)>,
    /// Packets that could not be decoded (also counted in the experiment's truncations), and
    /// hardware counter packets whose tag is [`MAX_HWC_TAGS`] or more.
    pub bad_packets: u64,
}

/// One row of a function list.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Row {
    /// gprofng's name (`<Total>` for the first row).
    pub name: String,
    /// Raw values per column (times in ns, counts and bytes as they are).
    pub values: Vec<u64>,
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

/// The order gprofng lists data kinds' columns in when several were recorded.
const KIND_ORDER: [DataKind; 5] = [
    DataKind::Heap,
    DataKind::Sync,
    DataKind::Io,
    DataKind::Clock,
    DataKind::Hwc,
];

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

    /// Per function (by gprofng's name), the exclusive and inclusive values of every metric,
    /// and the totals: what [`FunctionTable::rows`] lists. Tables of several experiments
    /// (a founder and its descendants) [merge](FunctionTable::merge) like gprofng merges them.
    pub fn function_table(&self) -> FunctionTable {
        self.table_by(|f| f.function, |&f| self.function_key(f), Calls::Listed)
    }

    /// [`StackProfile::function_table`] as gprofng's callers–callees view counts: for a Java
    /// experiment, by the Java frames of each stack only.
    pub(crate) fn calls_table(&self) -> FunctionTable {
        self.table_by(
            |f| f.function,
            |&f| self.function_key(f),
            Calls::ListedJavaFrames,
        )
    }

    /// Per group of frames (`group` of each frame; a group counts once per stack), the
    /// exclusive (the leaf frame's group) and inclusive values, listed under `name` of the
    /// group; with callers and callees of each function for [`Calls::Listed`].
    pub(crate) fn table_by<K: Copy + Eq + std::hash::Hash + Ord>(
        &self,
        group: impl Fn(&crate::stacks::Frame) -> K,
        name: impl Fn(&K) -> String,
        calls: Calls,
    ) -> FunctionTable {
        let mut table = FunctionTable {
            total: self.total,
            kinds: self.kinds.clone(),
            hwc: self.hwc.clone(),
            ..FunctionTable::default()
        };
        let mut excl: HashMap<K, [u64; METRICS]> = HashMap::new();
        let mut incl: HashMap<K, [u64; METRICS]> = HashMap::new();
        let mut distinct: Vec<K> = Vec::new();
        let mut keys: HashMap<FunctionId, String> = HashMap::new();
        let mut path: Vec<FunctionId> = Vec::new();
        let java_only = calls == Calls::ListedJavaFrames && self.symbols.is_java();
        let mut java_frames: Vec<crate::stacks::Frame> = Vec::new();
        for (i, v) in self.values.iter().enumerate() {
            // Stacks only frees and unmaps used carry no metric: gprofng lists none of their
            // functions.
            if v.iter().all(|&x| x == 0) {
                continue;
            }
            let mut frames = self
                .symbols
                .frames(StackId(u32::try_from(i).unwrap_or(u32::MAX)));
            if java_only {
                java_frames.clear();
                java_frames.extend(
                    frames
                        .iter()
                        .filter(|f| f.kind != crate::stacks::FrameKind::Jni),
                );
                frames = &java_frames;
            }
            if let Some(leaf) = frames.last() {
                add_into(excl.entry(group(leaf)).or_insert([0; METRICS]), v);
            }
            distinct.clear();
            distinct.extend(frames.iter().map(&group));
            distinct.sort_unstable();
            distinct.dedup();
            for &f in &distinct {
                add_into(incl.entry(f).or_insert([0; METRICS]), v);
            }
            if calls != Calls::Skipped {
                path.clear();
                path.extend(frames.iter().map(|f| f.function));
                for &f in &path {
                    keys.entry(f).or_insert_with(|| self.function_key(f));
                }
                self.add_calls(&mut table, &path, &keys, v);
            }
        }
        for (f, i) in incl {
            let e = excl.get(&f).copied().unwrap_or([0; METRICS]);
            let slot = table
                .functions
                .entry(name(&f))
                .or_insert(([0; METRICS], [0; METRICS]));
            add_into(&mut slot.0, &e);
            add_into(&mut slot.1, &i);
        }
        table
    }

    /// The key a function is listed under: its name, plus the signature of a Java method
    /// (see `Function::signature`), `\0`-separated.
    pub(crate) fn function_key(&self, f: FunctionId) -> String {
        self.symbols
            .function(f)
            .map(|x| match &x.signature {
                Some(sig) => format!("{}\0{sig}", x.name),
                None => x.name.clone(),
            })
            .unwrap_or_default()
    }

    /// gprofng's callers and callees of one stack (`path` root first) carrying `v`: each
    /// function's innermost occurrence gets `v` on the edge from its caller (`<Total>` for the
    /// root) and on the edge to its callee; its outer occurrences list their edges with
    /// nothing attributed (so the attributed callers add up to the inclusive value, however
    /// deep the recursion).
    fn add_calls(
        &self,
        table: &mut FunctionTable,
        path: &[FunctionId],
        keys: &HashMap<FunctionId, String>,
        v: &[u64; METRICS],
    ) {
        let zero = [0u64; METRICS];
        let key = |at: usize| -> &str {
            path.get(at)
                .and_then(|f| keys.get(f))
                .map_or("", String::as_str)
        };
        match path.first() {
            Some(_) => add_edge(&mut table.callees, TOTAL, key(0), v),
            None => return,
        }
        for (at, f) in path.iter().enumerate() {
            let innermost = !path.get(at + 1..).unwrap_or_default().contains(f);
            let value = if innermost { v } else { &zero };
            let caller = match at.checked_sub(1) {
                Some(c) => key(c),
                None => TOTAL,
            };
            add_edge(&mut table.callers, key(at), caller, value);
            if at + 1 < path.len() {
                add_edge(&mut table.callees, key(at), key(at + 1), value);
            }
        }
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

/// Whether [`StackProfile::table_by`] lists callers and callees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Calls {
    /// With callers and callees of each function.
    Listed,
    /// With callers and callees, a Java experiment's stacks by their Java frames only: gprofng's
    /// callers–callees view of a Java experiment leaves out the native frames spliced under a
    /// `<Java native method>` (its function list keeps them).
    ListedJavaFrames,
    /// Without.
    Skipped,
}

/// Per-function values of one or more experiments (see [`StackProfile::function_table`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionTable {
    /// Name (`name\0signature` for Java methods) → (exclusive, inclusive) raw values per
    /// metric.
    functions: HashMap<String, ([u64; METRICS], [u64; METRICS])>,
    total: [u64; METRICS],
    kinds: Vec<DataKind>,
    /// Hardware counters: (tag, `hwcname`), by tag.
    hwc: Vec<(u8, String)>,
    /// Function key → caller key → attributed values (gprofng's callers).
    callers: HashMap<String, HashMap<String, [u64; METRICS]>>,
    /// Function key → callee key → attributed values (gprofng's callees).
    callees: HashMap<String, HashMap<String, [u64; METRICS]>>,
}

impl Default for FunctionTable {
    fn default() -> Self {
        FunctionTable {
            functions: HashMap::new(),
            total: [0; METRICS],
            kinds: Vec::new(),
            hwc: Vec::new(),
            callers: HashMap::new(),
            callees: HashMap::new(),
        }
    }
}

/// A function's exclusive and inclusive values per metric.
type ExclIncl = ([u64; METRICS], [u64; METRICS]);

/// Adds `v` to the edge `from` → `to` of `edges`.
fn add_edge(
    edges: &mut HashMap<String, HashMap<String, [u64; METRICS]>>,
    from: &str,
    to: &str,
    v: &[u64; METRICS],
) {
    let inner = match edges.get_mut(from) {
        Some(i) => i,
        None => edges.entry(from.to_owned()).or_default(),
    };
    match inner.get_mut(to) {
        Some(acc) => add_into(acc, v),
        None => {
            inner.insert(to.to_owned(), *v);
        }
    }
}

fn merge_edges(
    into: &mut HashMap<String, HashMap<String, [u64; METRICS]>>,
    from: HashMap<String, HashMap<String, [u64; METRICS]>>,
) {
    for (f, inner) in from {
        for (g, v) in inner {
            add_edge(into, &f, &g, &v);
        }
    }
}

impl FunctionTable {
    /// Adds `other` (another experiment of the same run): functions of the same name add up,
    /// as do the totals.
    pub fn merge(&mut self, other: FunctionTable) {
        for (name, (e, i)) in other.functions {
            let slot = self
                .functions
                .entry(name)
                .or_insert(([0; METRICS], [0; METRICS]));
            add_into(&mut slot.0, &e);
            add_into(&mut slot.1, &i);
        }
        merge_edges(&mut self.callers, other.callers);
        merge_edges(&mut self.callees, other.callees);
        add_into(&mut self.total, &other.total);
        for c in other.hwc {
            if !self.hwc.iter().any(|(t, _)| *t == c.0) {
                self.hwc.push(c);
            }
        }
        self.hwc.sort();
        for k in other.kinds {
            if !self.kinds.contains(&k) {
                self.kinds.push(k);
            }
        }
        self.kinds = KIND_ORDER
            .into_iter()
            .filter(|k| self.kinds.contains(k))
            .collect();
    }

    /// The data kinds, in gprofng's column order.
    pub fn kinds(&self) -> &[DataKind] {
        &self.kinds
    }

    /// gprofng's default columns for the kinds of this table (each hardware counter's
    /// exclusive and inclusive events for [`DataKind::Hwc`]).
    pub fn default_columns(&self) -> Vec<Column> {
        let tags: Vec<u8> = self.hwc.iter().map(|(t, _)| *t).collect();
        self.kinds
            .iter()
            .flat_map(|&k| match k {
                DataKind::Hwc => hwc_columns(&tags),
                k => default_columns(k),
            })
            .collect()
    }

    /// gprofng's key of `column`: [`Column::key`], with a hardware counter named after its
    /// `hwcname` in log.xml (`e.cycles`, `i.insts`).
    pub fn key(&self, column: Column) -> String {
        match column.metric {
            Metric::Hwc(tag) => match self.hwc.iter().find(|(t, _)| *t == tag) {
                Some((_, name)) => {
                    let f = match column.subtype {
                        Subtype::Exclusive => "e",
                        Subtype::Inclusive => "i",
                    };
                    format!("{f}.{name}")
                }
                None => column.key(),
            },
            _ => column.key(),
        }
    }

    /// The metric gprofng names `name`: a fixed one, or a hardware counter of this table by
    /// its `hwcname`.
    pub fn metric(&self, name: &str) -> Option<Metric> {
        Metric::named(name, &self.hwc)
    }

    /// The column gprofng sorts by default: exclusive CPU time when there is clock data, else
    /// the first column.
    pub fn sort_column(columns: &[Column]) -> Option<Column> {
        columns
            .iter()
            .copied()
            .find(|c| c.metric == Metric::TotalCpu && c.subtype == Subtype::Exclusive)
            .or_else(|| columns.first().copied())
    }

    /// The total of `metric` over all packets.
    pub fn total(&self, metric: Metric) -> u64 {
        self.total.get(metric.index()).copied().unwrap_or(0)
    }

    /// The function list: `<Total>` first, then every function of every stack, sorted by
    /// `sort` (largest first), ties by name (byte order), as gprofng lists them.
    pub fn rows(&self, columns: &[Column], sort: Option<Column>) -> Vec<Row> {
        self.keyed_rows(columns, sort)
            .into_iter()
            .map(|(_, row)| row)
            .collect()
    }

    /// [`FunctionTable::rows`] with each row's key (`<Total>` for the first).
    pub(crate) fn keyed_rows(
        &self,
        columns: &[Column],
        sort: Option<Column>,
    ) -> Vec<(String, Row)> {
        let pick = |v: Option<&([u64; METRICS], [u64; METRICS])>, c: &Column| -> u64 {
            let i = c.metric.index();
            let row = match (v, c.subtype) {
                (None, _) => &self.total,
                (Some(v), Subtype::Exclusive) => &v.0,
                (Some(v), Subtype::Inclusive) => &v.1,
            };
            row.get(i).copied().unwrap_or(0)
        };
        let mut rows: Vec<(u64, String, Row)> = self
            .functions
            .iter()
            .map(|(key, v)| {
                let values = columns.iter().map(|c| pick(Some(v), c)).collect();
                let sort_value = sort.map_or(0, |c| pick(Some(v), &c));
                let name = key.split('\0').next().unwrap_or_default().to_owned();
                (sort_value, key.clone(), Row { name, values })
            })
            .collect();
        // Ties by name, then (names printed alike) by key, so the order does not depend on
        // hashing.
        rows.sort_by(|(va, ka, a), (vb, kb, b)| {
            vb.cmp(va)
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| ka.cmp(kb))
        });
        let total = Row {
            name: TOTAL.to_owned(),
            values: columns.iter().map(|c| pick(None, c)).collect(),
        };
        std::iter::once((TOTAL.to_owned(), total))
            .chain(rows.into_iter().map(|(_, k, r)| (k, r)))
            .collect()
    }
}

/// Events gprofng counts as allocations.
fn is_allocation(t: HeapType) -> bool {
    matches!(t, HeapType::Malloc | HeapType::Realloc | HeapType::Mmap)
}

fn add_into(acc: &mut [u64; METRICS], v: &[u64; METRICS]) {
    for (a, b) in acc.iter_mut().zip(v) {
        *a = a.wrapping_add(*b);
    }
}

/// gprofng's function list, ready to print (`gprofng display text -functions`): its default
/// columns for the data kinds recorded, in its column order, and the rows in its order.
///
/// ```
/// use experiment::{Experiment, MemorySource, profile::FunctionList};
/// # let source = MemorySource::new()
/// #     .with("log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/log.xml"))[..])
/// #     .with("map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/map.xml"))[..])
/// #     .with("data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/data.frameinfo"))[..])
/// #     .with("profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/profile"))[..])
/// #     .with("archives/demo_4xbbvtFYDL2", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/archives/demo_4xbbvtFYDL2"))[..])
/// #     .with("_f1.er/log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/log.xml"))[..])
/// #     .with("_f1.er/map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/map.xml"))[..])
/// #     .with("_f1.er/data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/data.frameinfo"))[..])
/// #     .with("_f1.er/profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/profile"))[..]);
/// // `source` serves the files of the tiny experiment the crate carries (`src/demo/`: a
/// // program and its forked child; the `fs` feature's `experiment::fs::open` reads one from
/// // a directory).
/// let exp = Experiment::open(source)?;
/// let list = FunctionList::read(&exp, None)?; // the founder and its descendants
/// assert_eq!(list.keys, ["e.totalcpu", "i.totalcpu"]);
/// let names: Vec<&str> = list.rows.iter().map(|r| r.name.as_str()).collect();
/// assert_eq!(names[..3], ["<Total>", "leaf", "other"]);
/// // libc.so.6 is not archived and the source finds no copy: gprofng's placeholder.
/// assert!(names.contains(&"<static>@0x0 (<libc.so.6>) --  no functions found"));
/// // Times in nanoseconds: `leaf` ran 0.820574 s, exclusive and inclusive.
/// assert_eq!(list.rows[1].values, [820_574_000, 820_574_000]);
/// # Ok::<(), experiment::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FunctionList {
    /// The columns, in gprofng's order.
    pub columns: Vec<Column>,
    /// gprofng's key of each column (`e.totalcpu`, `i.heapleakbytes`, `e.cycles`).
    pub keys: Vec<String>,
    /// `<Total>` first, then every function sorted by gprofng's default sort column (largest
    /// first), ties by name; each row's values in column order (times in ns).
    pub rows: Vec<Row>,
}

impl FunctionList {
    /// The function list of `exp` and of its descendant experiments with data, merged as
    /// gprofng merges them: packets of kind `only` (every kind for `None`), stacks named
    /// from the archives (a descendant's from its founder's too) and the load objects the
    /// source finds ([`Source::load_object`]).
    pub fn read<S: Source>(exp: &Experiment<S>, only: Option<DataKind>) -> crate::Result<Self> {
        Ok(function_table_of(exp, only)?.function_list())
    }

    /// The value of column `key` in `row` (`None` when the list has no such column).
    pub fn value(&self, row: &Row, key: &str) -> Option<u64> {
        let at = self.keys.iter().position(|k| k == key)?;
        row.values.get(at).copied()
    }
}

impl FunctionTable {
    /// gprofng's function list of this table: [`FunctionTable::default_columns`], sorted by
    /// [`FunctionTable::sort_column`].
    pub fn function_list(&self) -> FunctionList {
        let columns = self.default_columns();
        let rows = self.rows(&columns, FunctionTable::sort_column(&columns));
        let keys = columns.iter().map(|c| self.key(*c)).collect();
        FunctionList {
            columns,
            keys,
            rows,
        }
    }
}

/// One function of gprofng's callers–callees view: its own (exclusive; for `<Total>` the
/// total) values, and each caller and callee with the values attributed to that call.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CallerCallee {
    /// The function (`<Total>` first).
    pub name: String,
    /// Its values per metric of [`CallersCallees::metrics`] (raw: times in ns).
    pub values: Vec<u64>,
    /// Its callers (`<Total>` for a root function), attributed values largest first.
    pub callers: Vec<Row>,
    /// Its callees, attributed values largest first.
    pub callees: Vec<Row>,
}

/// gprofng's callers–callees view (`gprofng display text -callers-callees`): for every
/// function of the function list, in its order, the callers and callees with attributed
/// metrics. A caller's attributed value is what the packets whose stacks have it call the
/// function carry (the innermost call, for a function that recurses), so a function's
/// callers add up to its inclusive value; a callee's is what its calls from the function
/// carry, so the callees and the function's exclusive value add up to its inclusive value.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CallersCallees {
    /// The metrics, once each, in the order of the function list's columns.
    pub metrics: Vec<Metric>,
    /// gprofng's attributed key of each (`a.totalcpu`, `a.heapleakbytes`, `a.cycles`).
    pub keys: Vec<String>,
    /// Every function, in the function list's order.
    pub functions: Vec<CallerCallee>,
}

impl CallersCallees {
    /// The callers–callees view of `exp` and its descendants with data (like
    /// [`FunctionList::read`]).
    pub fn read<S: Source>(exp: &Experiment<S>, only: Option<DataKind>) -> crate::Result<Self> {
        let mut table = StackProfile::read(exp, only)?.calls_table();
        for d in exp.descendants().into_iter().filter(|d| d.has_data) {
            let child = exp.open_descendant(&d.name)?;
            let symbols = Symbolizer::new(&child).with_founder_archives(exp);
            table.merge(StackProfile::collect(&child, symbols, only)?.calls_table());
        }
        Ok(table.callers_callees())
    }
}

/// The function table of `exp` and its descendants with data, merged.
fn function_table_of<S: Source>(
    exp: &Experiment<S>,
    only: Option<DataKind>,
) -> crate::Result<FunctionTable> {
    let mut table = StackProfile::read(exp, only)?.function_table();
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        let child = exp.open_descendant(&d.name)?;
        let symbols = Symbolizer::new(&child).with_founder_archives(exp);
        table.merge(StackProfile::collect(&child, symbols, only)?.function_table());
    }
    Ok(table)
}

impl FunctionTable {
    /// gprofng's callers–callees view of this table: the metrics of
    /// [`FunctionTable::default_columns`] (each once), functions in the function list's
    /// order, callers and callees sorted by the attributed value of the sort column's metric
    /// (largest first), ties by name.
    pub fn callers_callees(&self) -> CallersCallees {
        let columns = self.default_columns();
        let sort = FunctionTable::sort_column(&columns).map(|c| c.metric.index());
        let mut metrics: Vec<Metric> = Vec::new();
        for c in &columns {
            if !metrics.contains(&c.metric) {
                metrics.push(c.metric);
            }
        }
        let keys = metrics
            .iter()
            .map(|&m| {
                let k = self.key(Column {
                    subtype: Subtype::Exclusive,
                    metric: m,
                });
                format!("a.{}", k.strip_prefix("e.").unwrap_or(&k))
            })
            .collect();
        let pick = |v: &[u64; METRICS]| -> Vec<u64> {
            metrics
                .iter()
                .map(|m| v.get(m.index()).copied().unwrap_or(0))
                .collect()
        };
        let edges = |map: Option<&HashMap<String, [u64; METRICS]>>| -> Vec<Row> {
            let mut rows: Vec<(u64, &String, Row)> = map
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    let key = sort.and_then(|i| v.get(i).copied()).unwrap_or(0);
                    let name = k.split('\0').next().unwrap_or_default().to_owned();
                    (
                        key,
                        k,
                        Row {
                            name,
                            values: pick(v),
                        },
                    )
                })
                .collect();
            rows.sort_by(|(ka, fa, a), (kb, fb, b)| {
                kb.cmp(ka)
                    .then_with(|| a.name.cmp(&b.name))
                    .then_with(|| fa.cmp(fb))
            });
            rows.into_iter().map(|(_, _, r)| r).collect()
        };
        let mut order: Vec<(&String, &ExclIncl)> = self.functions.iter().collect();
        let sort_key = FunctionTable::sort_column(&columns);
        let value_of = |v: &ExclIncl| -> u64 {
            sort_key.map_or(0, |c| {
                let row = match c.subtype {
                    Subtype::Exclusive => &v.0,
                    Subtype::Inclusive => &v.1,
                };
                row.get(c.metric.index()).copied().unwrap_or(0)
            })
        };
        order.sort_by(|(na, va), (nb, vb)| {
            value_of(vb).cmp(&value_of(va)).then_with(|| {
                let a = na.split('\0').next().unwrap_or_default();
                let b = nb.split('\0').next().unwrap_or_default();
                // Java methods of one name (a bridge method and its target): gprofng lists
                // them in the order their class declares them; by signature, descending, gives
                // that order on the recorded case (`NativeLibraries$1.run()`, `()Ljava/lang/
                // String;` before its bridge `()Ljava/lang/Object;`), and any order is better
                // than the hash map's.
                a.cmp(b).then_with(|| nb.cmp(na))
            })
        });
        let mut functions = Vec::with_capacity(order.len() + 1);
        functions.push(CallerCallee {
            name: TOTAL.to_owned(),
            values: pick(&self.total),
            callers: Vec::new(),
            callees: edges(self.callees.get(TOTAL)),
        });
        for (key, v) in order {
            functions.push(CallerCallee {
                name: key.split('\0').next().unwrap_or_default().to_owned(),
                values: pick(&v.0),
                callers: edges(self.callers.get(key.as_str())),
                callees: edges(self.callees.get(key.as_str())),
            });
        }
        CallersCallees {
            metrics,
            keys,
            functions,
        }
    }
}

/// Which stacks of a heap trace gprofng lists (`-leaks` or `-allocs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum HeapView {
    /// Allocations never freed (`-leaks`).
    Leaks,
    /// Every allocation (`-allocs`).
    Allocations,
}

/// One distinct stack of a heap trace with what it allocated or leaked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeapStack {
    /// How many allocations (or leaks) the stack made.
    pub instances: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The frames, leaf first, as gprofng prints them (`calloc + 0x000000D9`; see
    /// [`Symbolizer::frame_text`]).
    pub frames: Vec<String>,
}

impl<S: Source> StackProfile<'_, S> {
    /// The distinct stacks that allocated (or leaked) memory, with instances and bytes, in
    /// gprofng's order: bytes, largest first, then instances, largest first.
    pub fn heap_stacks(&self, view: HeapView) -> Vec<HeapStack> {
        let (count, bytes) = match view {
            HeapView::Leaks => (Metric::HeapLeakCnt.index(), Metric::HeapLeakBytes.index()),
            HeapView::Allocations => (Metric::HeapAllocCnt.index(), Metric::HeapAllocBytes.index()),
        };
        let mut out: Vec<HeapStack> = Vec::new();
        let mut index: HashMap<Vec<String>, usize> = HashMap::new();
        // gprofng's leaks and allocations of a Java experiment list Java frames only: no
        // native frames spliced under a `<Java native method>` (which its per-packet view
        // shows), and its `<no Java callstack recorded>` reads as a native method.
        let java = self.symbols.is_java();
        for (s, v) in self.values.iter().enumerate() {
            let instances = v.get(count).copied().unwrap_or(0);
            if instances == 0 {
                continue;
            }
            let frames: Vec<String> = self
                .symbols
                .stack_frames(
                    StackId(u32::try_from(s).unwrap_or(u32::MAX)),
                    crate::stacks::Order::LeafFirst,
                )
                .filter(|f| !(java && f.kind == FrameKind::Jni))
                .map(|f| {
                    let text = self.symbols.frame_text(f);
                    if java && text == NO_JAVA_CALLSTACK {
                        format!("{text} <Java native method>")
                    } else {
                        text
                    }
                })
                .collect();
            let b = v.get(bytes).copied().unwrap_or(0);
            // Stacks the symbolizer tells apart that print the same are one.
            match index.get(&frames) {
                Some(&at) => {
                    if let Some(e) = out.get_mut(at) {
                        e.instances = e.instances.wrapping_add(instances);
                        e.bytes = e.bytes.wrapping_add(b);
                    }
                }
                None => {
                    index.insert(frames.clone(), out.len());
                    out.push(HeapStack {
                        instances,
                        bytes: b,
                        frames,
                    });
                }
            }
        }
        sort_heap_stacks(&mut out);
        out
    }
}

fn sort_heap_stacks(stacks: &mut [HeapStack]) {
    stacks.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then_with(|| b.instances.cmp(&a.instances))
    });
}

/// The heap stacks of `exp` and its descendants with data (gprofng's `-leaks` or `-allocs`
/// of the experiment): stacks that print the same add up.
pub fn heap_stacks<S: Source>(
    exp: &Experiment<S>,
    view: HeapView,
) -> crate::Result<Vec<HeapStack>> {
    heap_stacks_with(exp, view, NativeLines::Off)
}

/// [`heap_stacks`] with native frames' source lines from `native`: with
/// `NativeLines::Dwarf` (feature `dwarf`) a frame reads `allocate + 0x00000096, line 97 in
/// "lines.c"`, as gprofng prints the frames of programs whose line tables it reads.
pub fn heap_stacks_with<S: Source>(
    exp: &Experiment<S>,
    view: HeapView,
    native: NativeLines,
) -> crate::Result<Vec<HeapStack>> {
    let symbols = Symbolizer::new(exp).with_lines(native);
    let mut all = StackProfile::collect(exp, symbols, Some(DataKind::Heap))?.heap_stacks(view);
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        let child = exp.open_descendant(&d.name)?;
        let symbols = Symbolizer::new(&child)
            .with_lines(native)
            .with_founder_archives(exp);
        let profile = StackProfile::collect(&child, symbols, Some(DataKind::Heap))?;
        for h in profile.heap_stacks(view) {
            match all.iter_mut().find(|a| a.frames == h.frames) {
                Some(a) => {
                    a.instances = a.instances.wrapping_add(h.instances);
                    a.bytes = a.bytes.wrapping_add(h.bytes);
                }
                None => all.push(h),
            }
        }
    }
    sort_heap_stacks(&mut all);
    Ok(all)
}
