//! GC roots: the root sub-records of `hprof.md` §1.5 (JDK 0xFF, 0x01–0x08;
//! Android 0x89–0x8E, 0x90), grouped by kind, with the thread and frame they name.

use std::collections::HashMap;

use super::super::heap_dump::GcRoot;
use super::super::types::Id;
use super::NodeIndex;
use super::index::ObjectIndex;

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
    pub thread_serial: Option<u32>,
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
    let mut threads: HashMap<u32, (Id, u32)> = HashMap::new();
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
            thread_object: thread.map(|t| t.0).filter(|&id| id != 0),
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
        if id == 0 {
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
