//! GC roots: the root sub-records of `hprof.md` §1.5 (JDK 0xFF, 0x01–0x08;
//! Android 0x89–0x8E, 0x90), grouped by kind, with the thread and frame they name.

use std::collections::HashMap;

use super::super::heap_dump::GcRoot;
use super::super::types::{Id, StackTraceSerial, ThreadSerial};
use super::NodeIndex;
use super::bits::{is_set, set};
use super::edges::Edges;
use super::objects::{NodeKind, ObjectIndex};

/// Whether a root sub-record makes its object a graph root: every kind except Android's
/// `ROOT_UNREACHABLE` (0x90); id 0 and ids naming no node are dropped by the caller.
pub fn is_graph_root(root: &GcRoot) -> bool {
    !matches!(root, GcRoot::Unreachable { .. })
}

/// One GC-root sub-record with what it names resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RootEntry {
    /// The sub-record.
    pub root: GcRoot,
    /// The rooted object's node, when the id names one.
    pub node: Option<NodeIndex>,
    /// The thread serial, for kinds that name one.
    pub thread_serial: Option<ThreadSerial>,
    /// The thread object (from the `ROOT_THREAD_OBJECT` with that serial).
    pub thread_object: Option<Id>,
    /// The frame number, for kinds that name one (-1: none).
    pub frame_number: Option<i32>,
    /// The frame id (from the thread's stack trace at that frame number).
    pub frame_id: Option<Id>,
}

/// The root sub-records of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RootGroup {
    /// The sub-record tag (0x01 … 0x08, 0x89 … 0x90, 0xFF).
    pub tag: u8,
    /// Its name ([`GcRoot::kind_name`]).
    pub kind: &'static str,
    /// Its sub-records, in file order.
    pub roots: Vec<RootEntry>,
}

/// Groups every root sub-record of `ix` by kind (in tag order), resolving threads and frames.
pub fn group_roots(ix: &ObjectIndex<'_>) -> Vec<RootGroup> {
    // thread serial → (thread object, stack trace serial)
    let mut threads: HashMap<ThreadSerial, (Id, StackTraceSerial)> = HashMap::new();
    for r in ix.gc_roots() {
        if let GcRoot::ThreadObject {
            object_id,
            thread_serial,
            stack_trace_serial,
        } = *r
        {
            threads
                .entry(thread_serial)
                .or_insert((object_id, stack_trace_serial));
        }
    }
    let mut groups: Vec<RootGroup> = Vec::new();
    for r in ix.gc_roots() {
        let (thread_serial, frame_number) = match *r {
            GcRoot::JniLocal {
                thread_serial,
                frame_number,
                ..
            }
            | GcRoot::JavaFrame {
                thread_serial,
                frame_number,
                ..
            } => (Some(thread_serial), Some(frame_number)),
            GcRoot::NativeStack { thread_serial, .. }
            | GcRoot::ThreadBlock { thread_serial, .. }
            | GcRoot::ThreadObject { thread_serial, .. }
            | GcRoot::JniMonitor { thread_serial, .. } => (Some(thread_serial), None),
            _ => (None, None),
        };
        let thread = thread_serial.and_then(|s| threads.get(&s).copied());
        let frame_id = match (thread, frame_number) {
            (Some((_, trace)), Some(k)) if k >= 0 => {
                ix.trace(trace).and_then(|t| t.frame_ids.get(k as usize))
            }
            _ => None,
        };
        let entry = RootEntry {
            root: *r,
            node: ix.node(r.object_id()),
            thread_serial,
            thread_object: thread.map(|t| t.0).filter(|id| !id.is_null()),
            frame_number,
            frame_id,
        };
        match groups.iter_mut().find(|g| g.tag == r.tag()) {
            Some(g) => g.roots.push(entry),
            None => groups.push(RootGroup {
                tag: r.tag(),
                kind: r.kind_name(),
                roots: vec![entry],
            }),
        }
    }
    groups.sort_by_key(|g| g.tag);
    groups
}

/// The distinct root nodes, ascending, and how many root sub-records named no node.
pub(crate) fn root_nodes(ix: &ObjectIndex<'_>) -> (Vec<NodeIndex>, u64) {
    let mut nodes = Vec::new();
    let mut dangling = 0;
    for r in ix.gc_roots().iter().filter(|r| is_graph_root(r)) {
        let id = r.object_id();
        if id.is_null() {
            continue;
        }
        match ix.node(id) {
            Some(n) => nodes.push(n),
            None => dangling += 1,
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    (nodes, dangling)
}

/// What stands in for the GC roots of a dump that has objects but no root naming one — a
/// HotSpot dump cut before its root records, which it writes after the objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum MissingRoots {
    /// No roots: nothing is reachable, every object is listed as unreachable.
    #[default]
    Nothing,
    /// The class objects of the boot loader (class loader id 0), which HotSpot would have
    /// named as `ROOT_STICKY_CLASS`: their static fields hold much of an application's state.
    SystemClasses,
    /// The boot loader's classes, then every object that no other object references, then
    /// (for what still stands apart, such as a cycle) its smallest-id object: every object is
    /// then in the dominator tree, as Eclipse MAT's "keep unreachable objects" does.
    Unreferenced,
}

/// The stand-in roots chosen by `rule` for a dump without roots, ascending. `edges` are the
/// graph's edges (their super-root row is ignored).
pub(crate) fn stand_in_roots(
    ix: &ObjectIndex<'_>,
    edges: &Edges,
    rule: MissingRoots,
) -> Vec<NodeIndex> {
    let n = ix.len();
    let mut roots: Vec<NodeIndex> = match rule {
        MissingRoots::Nothing => return Vec::new(),
        MissingRoots::SystemClasses | MissingRoots::Unreferenced => (0..n as NodeIndex)
            .filter(|&v| {
                ix.kind(v) == Some(NodeKind::Class)
                    && ix
                        .id(v)
                        .and_then(|id| ix.class_dump(id))
                        .is_some_and(|c| c.class_loader_id.is_null())
            })
            .collect(),
    };
    if rule == MissingRoots::Unreferenced {
        let mut referenced = vec![0u64; n.div_ceil(64)];
        for v in 0..n as u32 {
            for &t in edges.row(v) {
                let w = t;
                if w != v {
                    set(&mut referenced, w);
                }
            }
        }
        let mut reached = vec![0u64; n.div_ceil(64)];
        let mut stack: Vec<u32> = Vec::new();
        let visit = |start: u32, reached: &mut Vec<u64>, stack: &mut Vec<u32>| {
            if is_set(reached, start) {
                return;
            }
            set(reached, start);
            stack.push(start);
            while let Some(v) = stack.pop() {
                for &t in edges.row(v) {
                    let w = t;
                    if (w as usize) < n && !is_set(reached, w) {
                        set(reached, w);
                        stack.push(w);
                    }
                }
            }
        };
        for &r in &roots {
            visit(r, &mut reached, &mut stack);
        }
        for v in 0..n as u32 {
            if !is_set(&referenced, v) && !is_set(&reached, v) {
                roots.push(v);
                visit(v, &mut reached, &mut stack);
            }
        }
        for v in 0..n as u32 {
            if !is_set(&reached, v) {
                roots.push(v);
                visit(v, &mut reached, &mut stack);
            }
        }
        roots.sort_unstable();
    }
    roots
}
