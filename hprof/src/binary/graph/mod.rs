//! The heap as a graph: an object index, references both ways, GC roots, shortest
//! paths from the roots, the dominator tree, retained sizes and unreachable objects — over the
//! bytes of a whole dump the caller holds (e.g. a memory map), in compact `u32` arrays.
//!
//! # Semantics
//!
//! * **Nodes**: every `INSTANCE_DUMP`, `OBJ_ARRAY_DUMP`, `PRIM_ARRAY_DUMP` (and Android
//!   `PRIMITIVE_ARRAY_NODATA`) and `CLASS_DUMP`, by id. A duplicate id keeps its first
//!   sub-record in file order; the others are counted in [`Warnings::duplicate_ids`].
//! * **Edges** ([`EdgePolicy::Recorded`], the default) go only to nonzero ids that name a node
//!   (others are counted in [`Warnings::dangling_references`]): instance → every object-typed
//!   field value, inherited fields included, and → its class; object array → every element
//!   and → its array class; class → superclass, class loader, signers, protection domain,
//!   object-typed static values and object-typed constant-pool values. Primitive arrays have
//!   none. An instance whose class has no `CLASS_DUMP` keeps only its class edge
//!   ([`Warnings::unknown_classes`]).
//! * **Roots**: every node named by a GC-root sub-record (0xFF, 0x01–0x08, Android
//!   0x89–0x8E); a virtual super-root points at all of them. Not roots: Android's 0x90
//!   `ROOT_UNREACHABLE`, the second id of a JNI global root, id 0.
//! * **Shallow size** ([`Shallow::Recorded`], the default): instance = its field bytes as
//!   recorded; object array = length × id size; primitive array = length × element size
//!   (`PRIMITIVE_ARRAY_NODATA` too); class = 0. [`Shallow::Ahat`] gives ahat's sizes and
//!   [`Shallow::Custom`] any function of the caller's.
//! * **Dominators**: immediate dominators as usual, the super-root being the entry
//!   (semi-NCA, iterative). **Retained size** of a node = its shallow size + the retained
//!   sizes of the nodes it immediately dominates; retained count likewise in objects.
//!   Nodes outside the tree have no dominator and retain nothing.
//! * **Reachable** = reached from the super-root over every edge; the others are
//!   [unreachable](Graph::unreachable) (listed, not hidden).
//! * **Class retained size** ([`Graph::class_retained`]): the sum of the retained sizes of
//!   the class's instances that are not dominated by another instance of the same class.
//! * [`EdgePolicy::Ahat`] reproduces Android ahat: no instance → class or array → class edge;
//!   a class references only its static values; the `referent` field of an instance whose
//!   nearest `java.lang.ref` superclass is `WeakReference`, `FinalizerReference`, `Finalizer`
//!   or `PhantomReference` is a weak edge: followed for reachability and paths, not for
//!   dominators (soft referents are followed like strong references). With [`Shallow::Ahat`]
//!   the retained sizes equal ahat's (checked on the dumps in `tests/data/binary`).
//!
//! # Memory
//!
//! For a dump of `N` objects and `R` references between them, the graph holds in heap memory
//! about **21 bytes per object** once built: the ids (the low 32 bits of each, 4 bytes, plus a
//! lookup table of one `u32` per four ids), the immediate dominators (4), the retained sizes
//! (8) and retained counts (4) — plus the classes, names and GC roots, which grow with the
//! classes and roots, not with the objects. While it builds, the transient per-object arrays
//! stay within the same 21 bytes (the ids as `u64` while they are sorted, with their offsets
//! while they come ascending, 21 bytes in all, or 16 while the halves sorted on two threads
//! are merged; the depth-first numbers and parents and one bit telling each object reached,
//! 13; the semidominator forest, 13, and past 2^26 objects its children and sizes, 21), plus
//! 16 bytes per level of the deepest depth-first path.
//! These arrays are read at random: an allocator that backs large blocks with huge pages
//! (the examples' asks Linux for transparent huge pages) saves TLB misses on them, and past
//! 2^26 objects the passes over them ask the caches a few steps ahead for what they will read
//! (x86-64 prefetch instructions: the crate's one `unsafe` block, which cannot fault).
//!
//! Everything else lives in the [scratch storage](scratch) of [`Options::scratch`]: the file
//! offset of each object's sub-record (8 bytes per object, kept), the references (4 bytes per
//! reference plus a row start of 4 per object; 8 once there are more than 2^32 references),
//! the shallow size of each object (4, found while its sub-record is decoded for its
//! references, so that retained sizes need not read the dump again), the predecessor lists
//! (4 per reference and per object, at most: a GC root's list holds only the super-root's
//! reference) and the depth-first order (4 per object). Past 2^26
//! objects the depth-first search reads each object from a record of 8 bytes (where its
//! references start, and the first of them): the row starts themselves when they are 8 bytes
//! wide (rewritten in place, and back after the search), else an array of their own for the
//! search's time (`28·N + 4·R` of scratch then, within the peak below). Past 2^26
//! objects the depth-first parents (which become the immediate dominators) and the
//! semidominators go there too as soon as the search is done (4 bytes each), while
//! the semidominator forest's children and sizes (8) stay in the heap: what is written
//! in order goes to the scratch, what is written at random stays in the heap, since scratch
//! pages written at random are written out again and again once the scratch outgrows the
//! memory. The few scratch arrays written in many places at once are named in
//! [`WRITTEN_SCATTERED`]: a caller's file-backed scratch should back them with small pages. At its
//! peak, when both directions exist, the scratch holds about `24·N + 8·R` bytes. Past 2^26 objects
//! the predecessor lists are built by buckets of targets, with each entry's target (its low bits, 4
//! bytes) beside it until each bucket is sorted: `24·N + 12·R` then, and `28·N + 8·R` while the
//! semidominators are computed. Shortest paths add 8 per object and the reverse index `4·N + 4·R`
//! when first asked for; the class of every object, kept when [`Options::classes`] asks for it, 4;
//! the per-class answers ([`Graph::class_retained`], [`Graph::leak_suspects`]) the dominator tree's
//! children lists (8) while they run, and the suspects' paths 4 more. With [`Options::threads`]
//! above 1, each thread but the first decodes its stretch of objects into references of its own (4
//! bytes each) that are appended to the first's once all are done: up to `4·R` more for that
//! moment, below the peak above. Past 2^26 objects the threads also share the predecessor lists:
//! each numbers and deals the references of a stretch of objects; the references and the
//! depth-first numbers are then freed, and the buckets are sorted in heap buffers of 16 bytes
//! per entry of the largest a thread meets (65 to 128 buckets in all, so about `0.5·R` bytes
//! for two threads, at most 3 bytes per object below 6 references an object, while the other
//! arrays hold 5): those too large for the buffers first (in place), then, while the
//! semidominators are computed on one thread from the highest DFS numbers down, the others
//! on the other threads, from the top down, each handed on as it is sorted. One thread's
//! buffers then live beside the semidominator forest (at 600 M objects the peak stayed where
//! it was: the forest's children are written over the semidominators' run, and the sort
//! ends halfway through it). The scratch is heap memory by default ([`InMemory`]); a
//! caller whose dump does not fit hands in its own, e.g. memory-mapped files the kernel may page
//! out (the `dominators` example's `--scratch DIR`). The dump itself is read where the caller
//! holds it (a memory map is paged like a file).
//!
//! So `N` objects and `R` references need about `21·N` bytes of memory and `24·N + 8·R` of
//! scratch (past 2^26 objects the larger of `24·N + 12·R` and `28·N + 8·R`): a billion objects with
//! two references each, 21 GB of memory and 48 GB of scratch files. Node indices are `u32`: up to
//! [`objects::MAX_NODES`] (2^32 − 2) objects; more is
//! [`Error::TooManyObjects`](super::Error::TooManyObjects). Reference counts, offsets and retained
//! sizes are 64-bit.
//!
//! # Example
//!
//! The objects retaining the most memory, each with the chain of references that keeps it
//! alive, and the classes retaining the most. A real dump's bytes come from `std::fs::read`
//! or a memory map (the `dominators` example maps it); this one is a cache of known shape.
//!
//! ```
//! use hprof::binary::graph::{Graph, Options};
//! use hprof::binary::write::HeapBuilder;
//! use hprof::binary::{BasicType, GcRoot, Id, IdSize, Value};
//!
//! // A class `Cache` whose static field `INSTANCE` holds a cache of three 1000-byte items.
//! let mut heap = HeapBuilder::new(IdSize::Eight);
//! heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
//!     .class_with_statics(Id(0x20), "com.example.Cache", Id(0x10),
//!         &[("items", BasicType::Object)], &[("INSTANCE", Value::Object(Id(0x100)))])
//!     .class(Id(0x30), "[Ljava.lang.Object;", Id(0x10), &[])
//!     .class(Id(0x40), "com.example.Item", Id(0x10), &[("payload", BasicType::Object)])
//!     .instance(Id(0x100), Id(0x20), &[Value::Object(Id(0x200))])
//!     .object_array(Id(0x200), Id(0x30), &[Id(0x300), Id(0x301), Id(0x302)]);
//! for k in 0..3 {
//!     heap.instance(Id(0x300 + k), Id(0x40), &[Value::Object(Id(0x400 + k))])
//!         .primitive_array(Id(0x400 + k), BasicType::Byte, &[0; 1000]);
//! }
//! heap.root(GcRoot::StickyClass { object_id: Id(0x20) });
//! let data = heap.build()?;
//!
//! let graph = Graph::build(&data, Options::default())?;
//! let summary = graph.summary();
//! assert_eq!(summary.objects, 12);
//! assert_eq!((summary.reachable, summary.unreachable), (12, 0));
//!
//! // The top retainers, largest first: the class, whose static field holds the cache; then
//! // the cache; then its array.
//! let top = graph.top_retained(3);
//! let index = graph.index();
//! let names: Vec<String> = top.iter().map(|r| index.display_name(r.node)).collect();
//! assert_eq!(names, ["class com.example.Cache", "com.example.Cache", "java.lang.Object[]"]);
//! assert_eq!(top[1].retained, 8 + (24 + 3 * (8 + 1000)));
//!
//! // Why the array is alive: a shortest chain of references from a GC root, with fields.
//! let path = graph.path_steps(top[2].node).expect("reachable");
//! let chain: Vec<String> = path.iter()
//!     .map(|s| match &s.via {
//!         Some(via) => format!("{} {via}", index.display_name(s.node)),
//!         None => index.display_name(s.node),
//!     })
//!     .collect();
//! assert_eq!(chain, ["class com.example.Cache static INSTANCE", "com.example.Cache .items",
//!     "java.lang.Object[]"]);
//!
//! // Retained size per class (an instance dominated by another of its class counts once).
//! let by_class = graph.class_retained();
//! let item = by_class.iter().find(|c| c.class_name == "com.example.Item").expect("a row");
//! assert_eq!((item.instances, item.retained), (3, 3 * (8 + 1000)));
//!
//! // Who references an object (the reverse index is built on demand).
//! let reverse = graph.reverse_index();
//! assert!(reverse.targets(top[2].node).any(|p| p == top[1].node));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bits;
pub mod classes;
pub mod dominators;
pub mod edges;
mod ids;
pub mod objects;
mod options;
pub mod paths;
pub(crate) mod prefetch;
mod references;
pub mod retained;
pub mod roots;
pub mod scratch;
pub mod strings;
mod sub_records;
pub mod suspects;
#[cfg(test)]
mod tests;

use super::error::Result;
use super::types::Id;
use classes::ClassNumbers;
pub use classes::NodeClasses;
use dominators::{DominatorTree, WeakEdges};
use edges::PerNode;
pub use edges::{Edges, Via};
pub use objects::{Lookup, NodeKind, ObjectIndex};
pub use options::{EdgePolicy, Options, Warnings};
pub use paths::PathStep;
pub use retained::{ClassRetained, Shallow};
pub use roots::{MissingRoots, RootEntry, RootGroup};
pub use scratch::{Array, IN_MEMORY, InMemory, Scratch, ScratchArray, WRITTEN_SCATTERED};
pub use strings::DuplicateString;
pub use suspects::{
    NamedLoader, NamedNode, NamedStep, Suspect, SuspectKind, SuspectOptions, TopClass,
};

/// A node: an index into the sorted ids of an [`ObjectIndex`].
pub type NodeIndex = u32;

/// Waits for every thread of `handles`, in order, passing a panic on.
pub(crate) fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
        .collect()
}

/// "No node" in arrays of [`NodeIndex`] (and of other `u32` numbers, such as class numbers).
pub(crate) const NONE: NodeIndex = u32::MAX;

/// The first line of the `dominators` example: counts over the whole graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Summary {
    /// Nodes.
    pub objects: u64,
    /// Nodes reached from the super-root (over every edge).
    pub reachable: u64,
    /// `objects − reachable`.
    pub unreachable: u64,
    /// Distinct root nodes.
    pub roots: u64,
    /// Shallow sizes summed over reachable nodes.
    pub reachable_bytes: u64,
}

/// One node with its retained size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Retained {
    /// The node.
    pub node: NodeIndex,
    /// Its id.
    pub id: Id,
    /// Its shallow size.
    pub shallow: u64,
    /// Its retained size.
    pub retained: u64,
    /// Objects it retains (itself included).
    pub retained_objects: u64,
    /// Its immediate dominator's id (`None`: the super-root).
    pub dominator: Option<Id>,
}

/// The heap as a graph: the index, immediate dominators, retained sizes and counts (21 bytes
/// per object in heap memory once built, plus 8 in the scratch storage; see the [memory
/// model](self#memory)), and — from the first path asked for — one shortest-path parent per
/// node (4 more, in the scratch storage).
#[derive(Debug)]
pub struct Graph<'a, 'f> {
    index: ObjectIndex<'a>,
    options: Options<'f>,
    roots: Vec<NodeIndex>,
    /// One shortest-path parent per node, computed on the first path asked for.
    bfs_parent: std::sync::OnceLock<Array<u32>>,
    /// Reachability over every edge, when it differs from the dominator tree's (ahat policy:
    /// weak referents); one bit per node.
    reached: Option<Vec<u64>>,
    reachable: usize,
    idom: Vec<u32>,
    retained: Vec<u64>,
    retained_count: Vec<u32>,
    /// The class number of every node, when [`Options::classes`] kept them.
    classes: Option<(ClassNumbers, Array<u32>)>,
}

impl<'a, 'f> Graph<'a, 'f> {
    /// Indexes `data` (a whole dump), finds every edge, roots, shortest paths, dominators and
    /// retained sizes.
    ///
    /// # Errors
    /// When `data` is not an HPROF dump at all (header errors), holds more than
    /// [`objects::MAX_NODES`] objects, or the scratch storage fails; damage further in is
    /// reported in [`Graph::warnings`].
    pub fn build(data: &'a [u8], options: Options<'f>) -> Result<Graph<'a, 'f>> {
        Graph::build_with_progress(data, options, &mut |_| {})
    }

    /// As [`Graph::build`], calling `progress` with the name of each phase as it starts.
    ///
    /// # Errors
    /// As [`Graph::build`].
    pub fn build_with_progress(
        data: &'a [u8],
        options: Options<'f>,
        progress: &mut dyn FnMut(&'static str),
    ) -> Result<Graph<'a, 'f>> {
        progress("index");
        let index =
            ObjectIndex::build_limited(data, options.scratch, objects::MAX_NODES, options.threads)?;
        Graph::from_index(index, options, progress)
    }

    /// Builds the graph over an index already made.
    ///
    /// # Errors
    /// When the scratch storage fails.
    pub fn from_index(
        mut index: ObjectIndex<'a>,
        options: Options<'f>,
        progress: &mut dyn FnMut(&'static str),
    ) -> Result<Graph<'a, 'f>> {
        let n = index.len();
        let s = options.scratch;
        let (mut roots, dangling_roots) = roots::root_nodes(&index);
        progress("references");
        let mut warnings = std::mem::take(&mut index.warnings);
        warnings.dangling_roots = dangling_roots;
        warnings.roots_missing = roots.is_empty() && n > 0;
        let mut classes = match options.classes {
            NodeClasses::Keep => Some((ClassNumbers::new(&index), scratch::u32s(s, n, "classes")?)),
            NodeClasses::Decode => None,
        };
        let kept = classes
            .as_mut()
            .map(|(numbers, of)| (&*numbers, &mut ***of));
        // Shallow sizes are found while each sub-record is at hand, on every thread, so that
        // retained sizes need not read the dump once more.
        let mut sizes = scratch::u32s(s, n, "shallow sizes")?;
        let threads = options.threads;
        let mut edges = Edges::build(
            &index,
            options.policy,
            &roots,
            &mut warnings,
            s,
            PerNode {
                classes: kept,
                sizes: Some((options.shallow, &mut sizes)),
            },
            threads,
        )?;
        if warnings.roots_missing && options.missing_roots != MissingRoots::Nothing {
            roots = roots::stand_in_roots(&index, &edges, options.missing_roots);
            drop(edges);
            let w = &mut Warnings::default();
            let none = PerNode::default();
            edges = Edges::build(&index, options.policy, &roots, w, s, none, threads)?;
        }
        index.warnings = warnings;
        let weak = options.policy == EdgePolicy::Ahat;
        let reached = weak.then(|| {
            progress("reachability");
            paths::mark(&edges, n)
        });
        progress("dominators");
        let dom = DominatorTree::compute_threaded(
            edges,
            n as u32,
            if weak {
                WeakEdges::Skip
            } else {
                WeakEdges::Follow
            },
            s,
            threads,
        )?;
        let reachable = match &reached {
            Some(bits) => bits.iter().map(|w| w.count_ones() as usize).sum(),
            None => dom.reached().saturating_sub(1),
        };
        progress("retained sizes");
        let (retained, retained_count) =
            retained::accumulate(&index, options.shallow, &sizes, &dom);
        drop(sizes);
        let idom = dom.idom;
        Ok(Graph {
            index,
            options,
            roots,
            bfs_parent: std::sync::OnceLock::new(),
            reached,
            reachable,
            idom,
            retained,
            retained_count,
            classes,
        })
    }

    /// The class numbering and the class number of every node of the dominator tree: kept
    /// from the build, or found now by decoding each.
    pub(crate) fn node_classes(
        &self,
    ) -> (
        std::borrow::Cow<'_, ClassNumbers>,
        std::borrow::Cow<'_, [u32]>,
    ) {
        use std::borrow::Cow;
        match &self.classes {
            Some((numbers, of)) => (Cow::Borrowed(numbers), Cow::Borrowed(&***of)),
            None => {
                let numbers = ClassNumbers::new(&self.index);
                let of = numbers.decode_all(&self.index, |v| self.in_dominator_tree(v));
                (Cow::Owned(numbers), Cow::Owned(of))
            }
        }
    }

    /// The object index.
    pub fn index(&self) -> &ObjectIndex<'a> {
        &self.index
    }

    /// The options the graph was built with.
    pub fn options(&self) -> Options<'f> {
        self.options
    }

    /// Problems met while building.
    pub fn warnings(&self) -> &Warnings {
        self.index.warnings()
    }

    /// The node with this id.
    pub fn node(&self, id: Id) -> Option<NodeIndex> {
        self.index.node(id)
    }

    /// The distinct root nodes, ascending (the stand-ins of [`Options::missing_roots`] when
    /// the dump has none).
    pub fn roots(&self) -> &[NodeIndex] {
        &self.roots
    }

    /// Every GC-root sub-record grouped by kind, with threads and frames resolved.
    pub fn root_groups(&self) -> Vec<RootGroup> {
        roots::group_roots(&self.index)
    }

    /// The shallow size of `node` under the graph's [`Shallow`] rule.
    pub fn shallow_size(&self, node: NodeIndex) -> u64 {
        retained::shallow_size(&self.index, self.options.shallow, node)
    }

    /// Whether `node` is reached from the roots (over every edge).
    pub fn is_reachable(&self, node: NodeIndex) -> bool {
        match &self.reached {
            Some(reached) => bits::is_set(reached, node),
            None => self.in_dominator_tree(node),
        }
    }

    /// The unreachable nodes, ascending.
    pub fn unreachable(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        (0..self.index.len() as NodeIndex).filter(|&v| !self.is_reachable(v))
    }

    /// The shortest-path parents (a breadth-first search over every edge from the
    /// super-root), computed once, on the first call, in the scratch storage (in heap memory
    /// if that fails).
    fn parents(&self) -> &[u32] {
        self.bfs_parent.get_or_init(|| {
            let edges = self.edges();
            let n = self.index.len();
            match paths::bfs(&edges, n, self.options.scratch) {
                Ok((parent, _)) => parent,
                Err(_) => paths::bfs(&edges, n, &IN_MEMORY)
                    .map(|(parent, _)| parent)
                    .unwrap_or_else(|_| Box::new(Vec::new().into_boxed_slice())),
            }
        })
    }

    /// The counts of the first line of the `dominators` example.
    pub fn summary(&self) -> Summary {
        let objects = self.index.len() as u64;
        let reachable = self.reachable as u64;
        let reachable_bytes = match &self.reached {
            // Reachable is the dominator tree: the super-root retains exactly its bytes.
            None => self.retained.get(self.index.len()).copied().unwrap_or(0),
            Some(_) => (0..self.index.len() as NodeIndex)
                .filter(|&v| self.is_reachable(v))
                .map(|v| self.shallow_size(v))
                .sum(),
        };
        Summary {
            objects,
            reachable,
            unreachable: objects - reachable,
            roots: self.roots.len() as u64,
            reachable_bytes,
        }
    }

    /// Whether `node` is in the dominator tree (reached over the edges that dominate).
    pub fn in_dominator_tree(&self, node: NodeIndex) -> bool {
        self.idom.get(node as usize).is_some_and(|&d| d != NONE)
    }

    /// The immediate dominator of `node`: `Some(None)` for the super-root, `None` when
    /// `node` is outside the dominator tree.
    pub fn dominator(&self, node: NodeIndex) -> Option<Option<NodeIndex>> {
        let d = *self.idom.get(node as usize)?;
        if d == NONE {
            None
        } else if d as usize == self.index.len() {
            Some(None)
        } else {
            Some(Some(d))
        }
    }

    /// The retained size of `node` (0 outside the dominator tree).
    pub fn retained_size(&self, node: NodeIndex) -> u64 {
        self.retained.get(node as usize).copied().unwrap_or(0)
    }

    /// The number of objects `node` retains, itself included (0 outside the tree).
    pub fn retained_objects(&self, node: NodeIndex) -> u64 {
        self.retained_count
            .get(node as usize)
            .map_or(0, |&c| u64::from(c))
    }

    /// Everything about one node's retained size.
    pub fn retained(&self, node: NodeIndex) -> Retained {
        Retained {
            node,
            id: self.index.id(node).unwrap_or_default(),
            shallow: self.shallow_size(node),
            retained: self.retained_size(node),
            retained_objects: self.retained_objects(node),
            dominator: self
                .dominator(node)
                .flatten()
                .and_then(|d| self.index.id(d)),
        }
    }

    /// The `n` nodes of the dominator tree with the largest retained sizes, largest first,
    /// ties by id ascending.
    pub fn top_retained(&self, n: usize) -> Vec<Retained> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        // Node order is id order, so ties by node are ties by id. The heap keeps the `n`
        // best seen so far, the worst of them on top.
        let key = |v: NodeIndex| (Reverse(self.retained_size(v)), v);
        let mut best: BinaryHeap<(Reverse<u64>, NodeIndex)> = BinaryHeap::new();
        if n == 0 {
            return Vec::new();
        }
        for v in 0..self.index.len() as NodeIndex {
            if !self.in_dominator_tree(v) {
                continue;
            }
            let k = key(v);
            if best.len() < n {
                best.push(k);
            } else if best.peek().is_some_and(|worst| k < *worst) {
                best.pop();
                best.push(k);
            }
        }
        best.into_sorted_vec()
            .into_iter()
            .map(|(_, v)| self.retained(v))
            .collect()
    }

    /// A shortest path of references from a root to `node` (root first, `node` last), or
    /// `None` when `node` is unreachable.
    pub fn path(&self, node: NodeIndex) -> Option<Vec<NodeIndex>> {
        paths::path(self.parents(), node)
    }

    /// [`Graph::path`] with the field name or array index of every step.
    pub fn path_steps(&self, node: NodeIndex) -> Option<Vec<PathStep>> {
        let nodes = self.path(node)?;
        Some(paths::steps(&self.index, self.options.policy, &nodes))
    }

    /// The outgoing references of `node` under the graph's policy, decoded from its
    /// sub-record: `(target node, via)`; ids naming no node are left out.
    pub fn references(&self, node: NodeIndex) -> Vec<(NodeIndex, Via)> {
        let mut out = Vec::new();
        references::for_each_reference::<true>(
            &self.index,
            node,
            self.options.policy,
            |id, _, via| {
                if let Some(t) = self.index.node(id) {
                    out.push((t, via));
                }
            },
        );
        out
    }

    /// The outgoing edges of every node (and the super-root, last row), rebuilt from the dump
    /// in the scratch storage (in heap memory if that fails).
    pub fn edges(&self) -> Edges {
        let mut w = Warnings::default();
        let (ix, policy, roots) = (&self.index, self.options.policy, &self.roots);
        let threads = self.options.threads;
        Edges::build(
            ix,
            policy,
            roots,
            &mut w,
            self.options.scratch,
            PerNode::default(),
            threads,
        )
        .or_else(|_| {
            let none = PerNode::default();
            Edges::build(ix, policy, roots, &mut w, &IN_MEMORY, none, threads)
        })
        .unwrap_or_else(|_| Edges::empty())
    }

    /// The reverse index: for every node, the nodes referencing it (row `n`, the super-root,
    /// is the referrer of the roots), built on demand in the scratch storage (in heap memory
    /// if that fails).
    pub fn reverse_index(&self) -> Edges {
        let edges = self.edges();
        edges
            .reverse_in(self.options.scratch)
            .unwrap_or_else(|_| edges.reverse())
    }

    /// Retained size per class, largest first (see the module documentation for the rule),
    /// one row per class object (one name defined by several class loaders gives several
    /// rows). Without decoding the objects again when the graph was built with
    /// [`NodeClasses::Keep`].
    pub fn class_retained(&self) -> Vec<ClassRetained> {
        retained::by_class(self)
    }
}
