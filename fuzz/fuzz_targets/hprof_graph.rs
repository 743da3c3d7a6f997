//! `hprof` heap graph: the input (after one byte choosing the id size, the edge policy and the
//! mode) is the body of one `HEAP_DUMP_SEGMENT` wrapped in a header and two name records, or
//! (mode bit 4) every record after the header, so the object index's record walk is fuzzed too. Indexing and building the graph
//! never panic; the answers keep their invariants (reachable + unreachable = objects, the top
//! list sorted, paths ending at their node, retained ≥ shallow, leak suspects within the
//! reachable bytes with paths to their accumulation points); duplicate strings never panic.
//! Bit 3 of the first byte lets unreferenced objects stand in for missing roots.
#![no_main]

use hprof::binary::graph::{
    EdgePolicy, Graph, MissingRoots, NodeClasses, Options, Shallow, SuspectOptions,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let mut file = b"JAVA PROFILE 1.0.2\0".to_vec();
    file.extend_from_slice(&(if first & 1 == 0 { 4u32 } else { 8 }).to_be_bytes());
    file.extend_from_slice(&0u64.to_be_bytes());
    // The java.lang.Class and int[] names, so ahat's sizes have something to find.
    let id = |x: u32, out: &mut Vec<u8>| {
        if first & 1 == 0 {
            out.extend_from_slice(&x.to_be_bytes());
        } else {
            out.extend_from_slice(&u64::from(x).to_be_bytes());
        }
    };
    for (sid, name) in [(1u32, &b"java/lang/Class"[..]), (2, b"[I")] {
        let mut rec = Vec::new();
        id(sid, &mut rec);
        rec.extend_from_slice(name);
        file.push(0x01);
        file.extend_from_slice(&0u32.to_be_bytes());
        file.extend_from_slice(&(rec.len() as u32).to_be_bytes());
        file.extend_from_slice(&rec);
    }
    if first & 4 == 0 {
        file.push(0x1c);
        file.extend_from_slice(&0u32.to_be_bytes());
        file.extend_from_slice(&(body.len() as u32).to_be_bytes());
    }
    file.extend_from_slice(body);
    let mut options = if first & 2 == 0 {
        Options::default()
    } else {
        Options {
            policy: EdgePolicy::Ahat,
            shallow: Shallow::Ahat,
            ..Options::default()
        }
    };
    if first & 8 != 0 {
        options.missing_roots = MissingRoots::Unreferenced;
    }
    if first & 16 != 0 {
        options.classes = NodeClasses::Keep;
    }
    let graph = Graph::build(&file, options).expect("the header is valid");
    let s = graph.summary();
    assert_eq!(s.objects, s.reachable + s.unreachable);
    let top = graph.top_retained(50);
    for w in top.windows(2) {
        assert!(
            w[0].retained > w[1].retained || (w[0].retained == w[1].retained && w[0].id < w[1].id)
        );
    }
    for r in &top {
        assert!(r.retained >= r.shallow);
        if let Some(p) = graph.path(r.node) {
            assert_eq!(p.last(), Some(&r.node));
        }
        let _ = graph.path_steps(r.node);
        let _ = graph.references(r.node);
    }
    let _ = graph.class_retained();
    for suspect in graph.leak_suspects(SuspectOptions {
        threshold: 0.05,
        ..SuspectOptions::default()
    }) {
        assert!(suspect.retained <= s.reachable_bytes);
        assert_eq!(
            suspect.path.last().map(|p| p.node),
            graph
                .path(suspect.accumulation_point.node)
                .and_then(|p| p.last().copied())
        );
    }
    let _ = graph.index().duplicate_strings(10);
    let _ = graph.root_groups();
    let _ = graph.reverse_index();
    assert_eq!(graph.unreachable().count() as u64, s.unreachable);
});
