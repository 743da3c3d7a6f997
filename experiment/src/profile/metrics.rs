//! gprofng's metrics and the function list's columns (gprofng `BaseMetric`, `MetricList`
//! defaults per data type): what a packet counts, exclusive or inclusive, and in which order.

use crate::packets::DataKind;

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
    /// counter's `hwcname` (`cycles`, `insts`): see
    /// [`FunctionTable::key`](super::FunctionTable::key). Tags from 0 to [`MAX_HWC_TAGS`]` - 1`
    /// are counted.
    Hwc(u8),
}

/// Number of fixed [`Metric`]s.
pub(super) const FIXED: usize = 17;
/// Hardware counters (tags) a profile counts.
pub const MAX_HWC_TAGS: usize = 16;
/// Number of [`Metric`]s.
pub(super) const METRICS: usize = FIXED + MAX_HWC_TAGS;

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
    /// experiment: [`FunctionTable::metric`](super::FunctionTable::metric)).
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The metric gprofng names `name`: a fixed one, or one of the hardware counters
    /// `hwc` (tag, `hwcname`) by its name.
    pub(super) fn named(name: &str, hwc: &[(u8, String)]) -> Option<Metric> {
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

    pub(super) fn index(self) -> usize {
        match self {
            Metric::Hwc(tag) => FIXED + usize::from(tag).min(MAX_HWC_TAGS - 1),
            m => Metric::ALL.iter().position(|&x| x == m).unwrap_or(0),
        }
    }
}

/// A metric's subtype, as gprofng calls it (`BaseMetric::SubType`): which packets a function's
/// value counts. (The third, attributed, is the value of a call:
/// [`CallersCallees`](super::CallersCallees).)
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
    /// counter, whose gprofng name [`FunctionTable::key`](super::FunctionTable::key) gives).
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

    pub(super) const fn incl(metric: Metric) -> Column {
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

/// The order gprofng lists data kinds' columns in when several were recorded.
pub(super) const KIND_ORDER: [DataKind; 5] = [
    DataKind::Heap,
    DataKind::Sync,
    DataKind::Io,
    DataKind::Clock,
    DataKind::Hwc,
];

/// Adds `v` to `acc`, metric by metric.
pub(super) fn add_into(acc: &mut [u64; METRICS], v: &[u64; METRICS]) {
    for (a, b) in acc.iter_mut().zip(v) {
        *a = a.wrapping_add(*b);
    }
}
