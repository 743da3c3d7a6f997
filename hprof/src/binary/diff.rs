//! What changed between two dumps, class by class: instances, shallow bytes and (from the
//! graphs) retained bytes, classes present in only one dump, totals and GC roots per kind.
//!
//! Classes are matched by name (`java.lang.String`, `int[]`, `java.lang.Object[]`: arrays by
//! element type), so dumps of different JVMs, and JDK and Android dumps, compare. Classes of one
//! name loaded by several class loaders are summed under that name, as
//! [`Histogram::rows`](super::Histogram::rows) does: the dumps give loaders only as object
//! ids, which differ from dump to dump.
//!
//! Android ahat's `--baseline` comparison counts the same way for classes: by name, over
//! reachable objects, with retained sizes (give both graphs `Options::ahat()` for ahat's
//! sizes). It also pairs individual objects and allocation sites of the two dumps, which this
//! module does not: it answers "which classes grew", not "which objects are new".
//!
//! Two ways to count:
//! - [`HeapDiff::of_censuses`]: one streaming pass per dump ([`Census`]), every object
//!   counted, bounded memory whatever the dump's size; no retained sizes;
//! - [`HeapDiff::of_graphs`]: the objects in each graph's dominator tree (reachable ones, as
//!   ahat's baseline comparison and Eclipse MAT's histograms count them), with each class's
//!   retained size ([`Graph::class_retained`]).
//!
//! ```
//! use hprof::binary::diff::{Census, HeapDiff};
//! use hprof::binary::write::HeapBuilder;
//! use hprof::binary::{BasicType, GcRoot, IdSize, Value};
//!
//! let dump = |items: u64| {
//!     let mut heap = HeapBuilder::new(IdSize::Eight);
//!     heap.class(0x10, "java.lang.Object", 0, &[])
//!         .class(0x20, "Item", 0x10, &[("payload", BasicType::Object)]);
//!     for k in 0..items {
//!         heap.instance(0x100 + k, 0x20, &[Value::Object(0)])
//!             .root(GcRoot::StickyClass { object_id: 0x100 + k });
//!     }
//!     heap.build()
//! };
//! let (before, after) = (dump(2)?, dump(5)?);
//! let diff = HeapDiff::of_censuses(
//!     &Census::salvage(&before)?.value,
//!     &Census::salvage(&after)?.value,
//! );
//! let item = &diff.classes[0];
//! assert_eq!(item.class_name, "Item");
//! assert_eq!((item.delta_instances(), item.delta_shallow()), (3, 3 * 8));
//! assert_eq!(diff.total.delta_instances(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap};

use super::error::{Result, Salvaged};
use super::graph::Graph;
use super::heap_dump::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord};
use super::histogram::Histogram;
use super::incremental::{Decoder, Event, Visit};

/// A class's objects in one dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassCount {
    /// Objects.
    pub instances: u64,
    /// Their shallow bytes.
    pub shallow: u64,
    /// Their class's retained bytes (`None` without graphs).
    pub retained: Option<u64>,
}

/// One class (or the totals) in the baseline and the current dump.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassDelta {
    /// The class name, as the histogram spells it.
    pub class_name: String,
    /// Its objects in the baseline (`None`: the class has no object there).
    pub baseline: Option<ClassCount>,
    /// Its objects in the current dump (`None`: the class has no object there).
    pub current: Option<ClassCount>,
}

fn delta(a: u64, b: u64) -> i64 {
    let d = i128::from(b) - i128::from(a);
    i64::try_from(d).unwrap_or(if d < 0 { i64::MIN } else { i64::MAX })
}

impl ClassDelta {
    fn side(c: Option<ClassCount>) -> ClassCount {
        c.unwrap_or_default()
    }

    /// Current instances − baseline instances.
    pub fn delta_instances(&self) -> i64 {
        delta(
            Self::side(self.baseline).instances,
            Self::side(self.current).instances,
        )
    }

    /// Current shallow bytes − baseline shallow bytes.
    pub fn delta_shallow(&self) -> i64 {
        delta(
            Self::side(self.baseline).shallow,
            Self::side(self.current).shallow,
        )
    }

    /// Current retained bytes − baseline retained bytes (`None` without graphs).
    pub fn delta_retained(&self) -> Option<i64> {
        let a = self.baseline.map_or(Some(0), |c| c.retained)?;
        let b = self.current.map_or(Some(0), |c| c.retained)?;
        Some(delta(a, b))
    }

    /// The growth the diff sorts by: retained bytes when known, else shallow bytes.
    fn growth(&self) -> (i64, i64, i64) {
        (
            self.delta_retained()
                .unwrap_or_else(|| self.delta_shallow()),
            self.delta_shallow(),
            self.delta_instances(),
        )
    }
}

/// GC-root sub-records of one kind in both dumps.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RootDelta {
    /// The kind ([`GcRoot::kind_name`](super::GcRoot::kind_name): `ROOT_JNI_GLOBAL` …).
    pub kind: &'static str,
    /// Sub-records of that kind in the baseline.
    pub baseline: u64,
    /// In the current dump.
    pub current: u64,
}

/// Two dumps compared class by class.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeapDiff {
    /// Every class with objects in either dump, the largest growth first (retained bytes
    /// when known, else shallow bytes; then instances; then name).
    pub classes: Vec<ClassDelta>,
    /// All objects (`class_name` is `<total>`; retained: the reachable bytes).
    pub total: ClassDelta,
    /// GC-root sub-records per kind, in kind order.
    pub roots: Vec<RootDelta>,
}

/// One dump's objects per class name and root sub-records per kind, in one streaming pass
/// (a [`Histogram`] plus root counts); memory bounded by the number of classes.
#[derive(Debug, Clone, Default)]
pub struct Census {
    /// The class histogram.
    pub histogram: Histogram,
    /// Root sub-records per kind.
    pub roots: BTreeMap<&'static str, u64>,
    /// Whether the file header was read.
    header_seen: bool,
}

impl Census {
    /// Whether the file header was read (a census of an empty or foreign file has not).
    pub fn header_read(&self) -> bool {
        self.header_seen
    }

    /// Counts a whole dump held in memory (e.g. memory-mapped), even if cut off or damaged:
    /// everything before the first error, and that error.
    ///
    /// # Errors
    /// Only when the file header cannot be read.
    pub fn salvage(data: &[u8]) -> Result<Salvaged<Census>> {
        let mut decoder = Decoder::new().input_len(data.len() as u64);
        let mut census = Census::default();
        let error = match decoder.decode_with(data, &mut census) {
            Ok((consumed, _)) => decoder
                .finish(data.get(consumed..).unwrap_or_default())
                .err(),
            Err(e) => Some(e),
        };
        match (census.header_seen, error) {
            (false, Some(e)) => Err(e),
            (_, error) => Ok(Salvaged {
                value: census,
                error,
            }),
        }
    }
}

impl<'a> Visit<'a> for Census {
    fn event(&mut self, event: Event<'a>) {
        match &event {
            Event::SubRecord(_, SubRecord::Root(root)) => {
                *self.roots.entry(root.kind_name()).or_insert(0) += 1;
            }
            Event::Header(_) => self.header_seen = true,
            _ => {}
        }
        self.histogram.add_event(&event);
    }

    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        self.histogram.instance_dump(at, dump);
    }

    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.histogram.object_array_dump(at, dump);
    }

    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.histogram.primitive_array_dump(at, dump);
    }
}

/// Per name: counts of the baseline and of the current dump.
type Sides = HashMap<String, (Option<ClassCount>, Option<ClassCount>)>;

fn add(slot: &mut Option<ClassCount>, instances: u64, shallow: u64, retained: Option<u64>) {
    let c = slot.get_or_insert(ClassCount {
        retained: retained.map(|_| 0),
        ..ClassCount::default()
    });
    c.instances = c.instances.saturating_add(instances);
    c.shallow = c.shallow.saturating_add(shallow);
    if let (Some(r), Some(add)) = (c.retained.as_mut(), retained) {
        *r = r.saturating_add(add);
    }
}

impl HeapDiff {
    /// Compares two censuses (every object of each dump; no retained sizes).
    pub fn of_censuses(baseline: &Census, current: &Census) -> HeapDiff {
        let mut sides: Sides = HashMap::new();
        for (census, is_current) in [(baseline, false), (current, true)] {
            for row in census.histogram.rows() {
                let e = sides.entry(row.class_name).or_default();
                let slot = if is_current { &mut e.1 } else { &mut e.0 };
                add(slot, row.instances, row.shallow_bytes, None);
            }
        }
        let roots = root_deltas(&baseline.roots, &current.roots);
        HeapDiff::from_sides(sides, None, roots)
    }

    /// Compares two graphs: the objects of each dominator tree, with retained sizes.
    pub fn of_graphs(baseline: &Graph<'_, '_>, current: &Graph<'_, '_>) -> HeapDiff {
        let mut sides: Sides = HashMap::new();
        for (graph, is_current) in [(baseline, false), (current, true)] {
            for row in graph.class_retained() {
                let e = sides.entry(row.class_name).or_default();
                let slot = if is_current { &mut e.1 } else { &mut e.0 };
                add(slot, row.instances, row.shallow, Some(row.retained));
            }
        }
        let count = |graph: &Graph<'_, '_>| {
            let mut roots: BTreeMap<&'static str, u64> = BTreeMap::new();
            for group in graph.root_groups() {
                *roots.entry(group.kind).or_insert(0) += group.roots.len() as u64;
            }
            roots
        };
        let roots = root_deltas(&count(baseline), &count(current));
        let reachable = (
            baseline.summary().reachable_bytes,
            current.summary().reachable_bytes,
        );
        HeapDiff::from_sides(sides, Some(reachable), roots)
    }

    fn from_sides(sides: Sides, reachable: Option<(u64, u64)>, roots: Vec<RootDelta>) -> HeapDiff {
        let mut classes: Vec<ClassDelta> = sides
            .into_iter()
            .map(|(class_name, (baseline, current))| ClassDelta {
                class_name,
                baseline,
                current,
            })
            .collect();
        classes.sort_by(|a, b| {
            b.growth()
                .cmp(&a.growth())
                .then_with(|| a.class_name.cmp(&b.class_name))
        });
        let mut total = ClassDelta {
            class_name: "<total>".to_owned(),
            baseline: None,
            current: None,
        };
        for c in &classes {
            for (from, to) in [
                (c.baseline, &mut total.baseline),
                (c.current, &mut total.current),
            ] {
                if let Some(f) = from {
                    add(to, f.instances, f.shallow, None);
                }
            }
        }
        for c in [&mut total.baseline, &mut total.current] {
            c.get_or_insert_with(ClassCount::default);
        }
        if let Some((a, b)) = reachable {
            if let Some(c) = total.baseline.as_mut() {
                c.retained = Some(a);
            }
            if let Some(c) = total.current.as_mut() {
                c.retained = Some(b);
            }
        }
        HeapDiff {
            classes,
            total,
            roots,
        }
    }
}

fn root_deltas(
    baseline: &BTreeMap<&'static str, u64>,
    current: &BTreeMap<&'static str, u64>,
) -> Vec<RootDelta> {
    let mut kinds: Vec<&'static str> = baseline.keys().chain(current.keys()).copied().collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| RootDelta {
            kind,
            baseline: baseline.get(kind).copied().unwrap_or(0),
            current: current.get(kind).copied().unwrap_or(0),
        })
        .collect()
}
