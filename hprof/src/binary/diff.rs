//! What changed between two dumps, class by class: instances, shallow bytes and (from the
//! graphs) retained bytes, classes present in only one dump, totals and GC roots per kind.
//!
//! Classes are matched by name (`java.lang.String`, `int[]`, `java.lang.Object[]`: arrays by
//! element type), so dumps of different JVMs, and JDK and Android dumps, compare.
//!
//! **Class loaders.** Where either dump has several `CLASS_DUMP`s of one name (the same class
//! defined by several class loaders: plugins, application servers, a reloaded web app), the
//! classes of that name are kept apart in both dumps, each row naming its
//! [`DefiningLoader`]. The dumps give loaders only as object ids, which differ from dump to
//! dump, so a loader is matched by what can be compared: the class of the loader object
//! (`<bootstrap>` for the boot loader, id 0) and, among the loaders of that class defining
//! the name, its rank in ascending object id (`#0`, `#1`, …). Two `URLClassLoader`s that
//! each define `com.example.Plugin` are matched first with first, second with second; a
//! name defined once in each dump is one row without a loader, whatever loaded it (so an
//! application's classes still match across JVMs whose application loaders differ). A
//! streaming [`Census`] learns a loader's class from the loader object's `INSTANCE_DUMP`
//! after the `CLASS_DUMP` naming it (HotSpot writes every class first); a loader object seen
//! before is `<unknown>`.
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
//! use hprof::binary::{BasicType, GcRoot, Id, IdSize, Value};
//!
//! let dump = |items: u64| {
//!     let mut heap = HeapBuilder::new(IdSize::Eight);
//!     heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
//!         .class(Id(0x20), "Item", Id(0x10), &[("payload", BasicType::Object)]);
//!     for k in 0..items {
//!         heap.instance(Id(0x100 + k), Id(0x20), &[Value::Object(Id::NULL)])
//!             .root(GcRoot::StickyClass { object_id: Id(0x100 + k) });
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

use std::collections::{BTreeMap, HashMap, HashSet};

use super::error::{Result, Salvaged};
use super::graph::Graph;
use super::hash::IdMap;
use super::heap_dump::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord};
use super::histogram::Histogram;
use super::incremental::{Decoder, Event, Visit};
use super::types::Id;

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

/// The class loader that defined a class, for classes of one name defined by several
/// loaders (see the [module documentation](self)).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DefiningLoader {
    /// The class of the loader object (`jdk.internal.loader.ClassLoaders$AppClassLoader`);
    /// `<bootstrap>` for the boot loader (id 0), `<unknown>` when the dump does not say.
    pub loader_class: String,
    /// The loader's rank, from 0, among the loaders of that class defining a class of this
    /// name, in ascending object id.
    pub ordinal: u32,
}

/// `LOADER_CLASS#ORDINAL`.
impl std::fmt::Display for DefiningLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}", self.loader_class, self.ordinal)
    }
}

/// One class (or the totals) in the baseline and the current dump.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassDelta {
    /// The class name, as the histogram spells it.
    pub class_name: String,
    /// The loader that defined the class, when a dump has several classes of this name
    /// (`None` otherwise, for primitive arrays, and for the totals).
    pub loader: Option<DefiningLoader>,
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

/// One dump's objects per class and root sub-records per kind, in one streaming pass
/// (a [`Histogram`] plus root counts and each class's loader); memory bounded by the number
/// of classes.
#[derive(Debug, Clone, Default)]
pub struct Census {
    /// The class histogram.
    pub histogram: Histogram,
    /// Root sub-records per kind.
    pub roots: BTreeMap<&'static str, u64>,
    /// Whether the file header was read.
    header_seen: bool,
    /// Per `CLASS_DUMP`: its class loader's object id.
    class_loaders: IdMap<Id>,
    /// Per loader object id a `CLASS_DUMP` names: the loader object's class, once seen.
    loader_classes: IdMap<Option<Id>>,
    /// One bit per [`loader_bit`] of the loader ids: most objects are told apart from the
    /// loaders by one bit test (empty until a loader is named).
    loader_filter: Vec<u64>,
}

/// Bits of [`Census::loader_filter`].
const LOADER_FILTER_BITS: u64 = 1 << 16;

/// Where an object id falls in [`Census::loader_filter`].
#[inline(always)]
fn loader_bit(id: Id) -> u64 {
    (id.0 >> 3) % LOADER_FILTER_BITS
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

impl Census {
    /// Notes a class's loader.
    fn class_dump(&mut self, class_id: Id, loader_id: Id) {
        self.class_loaders.insert(class_id, loader_id);
        if !loader_id.is_null() && !self.loader_classes.contains_key(&loader_id) {
            self.loader_classes.insert(loader_id, None);
            if self.loader_filter.is_empty() {
                self.loader_filter = vec![0; (LOADER_FILTER_BITS / 64) as usize];
            }
            let bit = loader_bit(loader_id);
            if let Some(w) = self.loader_filter.get_mut((bit / 64) as usize) {
                *w |= 1 << (bit % 64);
            }
        }
    }

    /// The class of a loader object, named as a [`DefiningLoader`] names it.
    fn loader_class(&self, loader_id: Id) -> String {
        if loader_id.is_null() {
            return BOOTSTRAP.to_owned();
        }
        match self.loader_classes.get(&loader_id) {
            Some(Some(class_id)) => self.histogram.names().java_name(*class_id),
            _ => UNKNOWN_LOADER.to_owned(),
        }
    }

    /// The census as one side of a diff.
    fn side(&self) -> Side {
        let names = self.histogram.names();
        let defined = self
            .class_loaders
            .iter()
            .map(|(&class_id, &loader)| Defined {
                class_id,
                name: names.java_name(class_id),
                loader,
                loader_class: self.loader_class(loader),
            })
            .collect();
        let mut rows: Vec<Row> = self
            .histogram
            .class_counts()
            .map(|(id, instances, shallow)| Row {
                class_id: Some(id),
                name: names.java_name(id),
                instances,
                shallow,
                retained: None,
            })
            .collect();
        rows.extend(
            self.histogram
                .primitive_counts()
                .map(|(name, instances, shallow)| Row {
                    class_id: None,
                    name,
                    instances,
                    shallow,
                    retained: None,
                }),
        );
        Side { defined, rows }
    }
}

impl<'a> Visit<'a> for Census {
    fn event(&mut self, event: Event<'a>) {
        match &event {
            Event::SubRecord(_, SubRecord::Root(root)) => {
                *self.roots.entry(root.kind_name()).or_insert(0) += 1;
            }
            Event::SubRecord(_, SubRecord::ClassDump(c)) => {
                self.class_dump(c.class_id, c.class_loader_id);
            }
            Event::Header(_) => self.header_seen = true,
            _ => {}
        }
        self.histogram.add_event(&event);
    }

    #[inline]
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        let bit = loader_bit(dump.object_id);
        if self
            .loader_filter
            .get((bit / 64) as usize)
            .is_some_and(|w| w >> (bit % 64) & 1 == 1)
        {
            if let Some(slot) = self.loader_classes.get_mut(&dump.object_id) {
                *slot = Some(dump.class_id);
            }
        }
        self.histogram.instance_dump(at, dump);
    }

    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.histogram.object_array_dump(at, dump);
    }

    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.histogram.primitive_array_dump(at, dump);
    }
}

/// The boot loader's [`DefiningLoader::loader_class`].
const BOOTSTRAP: &str = "<bootstrap>";
/// A loader whose class the dump does not give.
const UNKNOWN_LOADER: &str = "<unknown>";

/// A class a dump defines (`CLASS_DUMP`).
struct Defined {
    class_id: Id,
    name: String,
    loader: Id,
    loader_class: String,
}

/// A class's objects in one dump (`class_id`: `None` for rows with no class object).
struct Row {
    class_id: Option<Id>,
    name: String,
    instances: u64,
    shallow: u64,
    retained: Option<u64>,
}

/// One dump, as the diff compares it.
struct Side {
    defined: Vec<Defined>,
    rows: Vec<Row>,
}

impl Side {
    /// The classes of a graph's dominator tree and every class it defines.
    fn of_graph(graph: &Graph<'_, '_>) -> Side {
        let ix = graph.index();
        let mut loader_classes: HashMap<Id, String> = HashMap::new();
        let defined = ix
            .classes
            .iter()
            .map(|(&class_id, info)| {
                let loader = info.dump.class_loader_id;
                let loader_class = loader_classes
                    .entry(loader)
                    .or_insert_with(|| match loader {
                        Id::NULL => BOOTSTRAP.to_owned(),
                        _ => ix
                            .node(loader)
                            .map_or_else(|| UNKNOWN_LOADER.to_owned(), |v| ix.class_name_of(v)),
                    })
                    .clone();
                Defined {
                    class_id,
                    name: ix
                        .class_name(class_id)
                        .unwrap_or_else(|| format!("<unknown class 0x{class_id:x}>")),
                    loader,
                    loader_class,
                }
            })
            .collect();
        let rows = graph
            .class_retained()
            .into_iter()
            .map(|r| Row {
                class_id: r.class_id,
                name: r.class_name,
                instances: r.instances,
                shallow: r.shallow,
                retained: Some(r.retained),
            })
            .collect();
        Side { defined, rows }
    }
}

/// The names defined by more than one `CLASS_DUMP` in either side.
fn shared_names(sides: [&Side; 2]) -> HashSet<String> {
    let mut out = HashSet::new();
    for side in sides {
        let mut seen: HashMap<&str, Id> = HashMap::new();
        for d in &side.defined {
            match seen.get(d.name.as_str()) {
                Some(&other) if other != d.class_id => {
                    out.insert(d.name.clone());
                }
                Some(_) => {}
                None => {
                    seen.insert(&d.name, d.class_id);
                }
            }
        }
    }
    out
}

/// The defining loader of each class of a shared name in one side.
fn defining_loaders(side: &Side, shared: &HashSet<String>) -> HashMap<Id, DefiningLoader> {
    let mut groups: HashMap<(&str, &str), Vec<(Id, Id)>> = HashMap::new();
    for d in side.defined.iter().filter(|d| shared.contains(&d.name)) {
        groups
            .entry((&d.name, &d.loader_class))
            .or_default()
            .push((d.loader, d.class_id));
    }
    let mut out = HashMap::new();
    for ((_, loader_class), mut classes) in groups {
        classes.sort_unstable();
        for (ordinal, (_, class_id)) in classes.into_iter().enumerate() {
            let loader = DefiningLoader {
                loader_class: loader_class.to_owned(),
                ordinal: ordinal as u32,
            };
            out.insert(class_id, loader);
        }
    }
    out
}

/// Per class (name and loader): counts of the baseline and of the current dump.
type Sides = HashMap<(String, Option<DefiningLoader>), (Option<ClassCount>, Option<ClassCount>)>;

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
        let roots = root_deltas(&baseline.roots, &current.roots);
        HeapDiff::of_sides([baseline.side(), current.side()], None, roots)
    }

    /// Compares two graphs: the objects of each dominator tree, with retained sizes (each
    /// graph's [`Graph::class_retained`]: build them with
    /// [`NodeClasses::Keep`](super::graph::NodeClasses::Keep) to spare a decoding pass).
    pub fn of_graphs(baseline: &Graph<'_, '_>, current: &Graph<'_, '_>) -> HeapDiff {
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
        let sides = [Side::of_graph(baseline), Side::of_graph(current)];
        HeapDiff::of_sides(sides, Some(reachable), roots)
    }

    fn of_sides(
        sides: [Side; 2],
        reachable: Option<(u64, u64)>,
        roots: Vec<RootDelta>,
    ) -> HeapDiff {
        let shared = shared_names([&sides[0], &sides[1]]);
        let mut by_class: Sides = HashMap::new();
        for (side, is_current) in sides.iter().zip([false, true]) {
            let loaders = defining_loaders(side, &shared);
            for row in &side.rows {
                let loader = row.class_id.and_then(|id| loaders.get(&id)).cloned();
                let e = by_class.entry((row.name.clone(), loader)).or_default();
                let slot = if is_current { &mut e.1 } else { &mut e.0 };
                add(slot, row.instances, row.shallow, row.retained);
            }
        }
        HeapDiff::from_sides(by_class, reachable, roots)
    }

    fn from_sides(sides: Sides, reachable: Option<(u64, u64)>, roots: Vec<RootDelta>) -> HeapDiff {
        let mut classes: Vec<ClassDelta> = sides
            .into_iter()
            .map(|((class_name, loader), (baseline, current))| ClassDelta {
                class_name,
                loader,
                baseline,
                current,
            })
            .collect();
        classes.sort_by(|a, b| {
            b.growth()
                .cmp(&a.growth())
                .then_with(|| a.class_name.cmp(&b.class_name))
                .then_with(|| a.loader.cmp(&b.loader))
        });
        let mut total = ClassDelta {
            class_name: "<total>".to_owned(),
            loader: None,
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
