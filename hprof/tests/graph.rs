//! The heap graph on the real dumps of `tests/data/binary` (recorded policy): the dominator
//! tree against its definition, retained sizes, paths, roots, class retained sizes; and
//! damaged input (cut short, dangling references, duplicate ids, unknown classes).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashSet;

use hprof::binary::graph::{Graph, NodeIndex, Options, Shallow};
use hprof::binary::histogram::Histogram;
use hprof::binary::{GcRoot, Id};

const DUMPS: [&str; 4] = [
    "ahat_test-dump-base_art-host-2025",
    "haha_sun_jdk5_64bit",
    "heapgen_jdk17",
    "hprof-slurp_hprof-32",
];

fn dump(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/binary/{name}.hprof",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// One object's answers: its references (in order), dominator, retained size and count.
type Answers = (Vec<NodeIndex>, Option<Option<NodeIndex>>, u64, u64);

/// Every answer of a graph, object by object.
fn answers(g: &Graph<'_, '_>) -> Vec<Answers> {
    let edges = g.edges();
    (0..g.index().len() as NodeIndex)
        .map(|v| {
            (
                edges.targets(v).collect(),
                g.dominator(v),
                g.retained_size(v),
                g.retained_objects(v),
            )
        })
        .collect()
}

#[test]
fn references_decoded_on_several_threads_give_the_same_graph() {
    // Stretches have at least 1,024 objects: the larger dumps are split in 7.
    let mut split = 0;
    for name in DUMPS {
        let data = dump(name);
        for base in [Options::default(), Options::ahat()] {
            let one = Graph::build(&data, base).unwrap();
            split += usize::from(one.index().len() >= 7 * 1024);
            let want = answers(&one);
            for threads in [2, 3, 7] {
                let options = Options { threads, ..base };
                let many = Graph::build(&data, options).unwrap();
                assert_eq!(many.summary(), one.summary(), "{name}, {threads} threads");
                assert_eq!(many.warnings(), one.warnings(), "{name}, {threads} threads");
                assert!(answers(&many) == want, "{name}, {threads} threads");
            }
        }
    }
    assert!(split >= 4, "only {split} graphs were split in 7");
}

#[test]
fn dumps_cut_or_damaged_give_the_same_graph_on_several_threads() {
    // 556 heap-dump segments: every thread gets some, and the damage lands in one of them.
    let data = dump("ahat_test-dump-base_art-host-2025");
    let mut damaged = Vec::new();
    for k in 1..6 {
        damaged.push(data[..data.len() * k / 6].to_vec());
        let mut smudged = data.clone();
        let at = data.len() * k / 6;
        smudged[at..at + 32].fill(0xff);
        damaged.push(smudged.clone());
        // Damage in two threads' shares: the first in file order is the one reported.
        let at = data.len() * (k + 6) / 12;
        smudged[at..at + 32].fill(0xff);
        damaged.push(smudged);
    }
    // Damage, then the file cut further on: the damage is what is reported.
    let mut smudged = data.clone();
    let at = data.len() / 3;
    smudged[at..at + 32].fill(0xff);
    let first = Graph::build(&smudged, Options::default()).unwrap();
    let reported = first.warnings().stopped_at.clone();
    assert!(reported.is_some());
    let cut = Graph::build(&smudged[..data.len() * 2 / 3], Options::default()).unwrap();
    assert_eq!(cut.warnings().stopped_at, reported);
    damaged.push(smudged[..data.len() * 2 / 3].to_vec());
    // The JDK dump's two segments swapped: the ids ascend in each but not across them.
    damaged.push(testkit::hprof::segments_swapped(&dump("heapgen_jdk17")).unwrap());
    for (k, bytes) in damaged.iter().enumerate() {
        let Ok(one) = Graph::build(bytes, Options::default()) else {
            continue;
        };
        let want = answers(&one);
        for threads in [2, 5] {
            let many = Graph::build(
                bytes,
                Options {
                    threads,
                    ..Options::default()
                },
            )
            .unwrap();
            assert_eq!(
                many.warnings(),
                one.warnings(),
                "copy {k}, {threads} threads"
            );
            assert!(answers(&many) == want, "copy {k}, {threads} threads");
        }
    }
}

#[test]
fn counts_agree_with_the_histogram_and_the_root_records() {
    for name in DUMPS {
        let data = dump(name);
        let graph = Graph::build(&data, Options::default()).unwrap();
        let ix = graph.index();
        assert!(graph.warnings().stopped_at.is_none(), "{name}");
        assert_eq!(graph.warnings().duplicate_ids, 0, "{name}");
        let s = graph.summary();
        let hist = Histogram::parse(&data).unwrap();
        let classes = (0..ix.len() as u32)
            .filter(|&v| ix.class_name_of(v) == "java.lang.Class" && ix.class_id_of(v).is_none())
            .count() as u64;
        assert_eq!(s.objects, hist.total_instances() + classes, "{name}");
        assert_eq!(s.objects, s.reachable + s.unreachable, "{name}");
        assert_eq!(graph.unreachable().count() as u64, s.unreachable, "{name}");
        let roots: HashSet<Id> = ix
            .gc_roots()
            .iter()
            .filter(|r| !matches!(r, GcRoot::Unreachable { .. }))
            .map(GcRoot::object_id)
            .filter(|&id| ix.node(id).is_some())
            .collect();
        assert_eq!(s.roots, roots.len() as u64, "{name}");
        // Recorded policy: everything reachable is in the tree, and the super-root's children
        // retain all of it.
        let top: u64 = (0..ix.len() as NodeIndex)
            .filter(|&v| graph.dominator(v) == Some(None))
            .map(|v| graph.retained_size(v))
            .sum();
        assert_eq!(top, s.reachable_bytes, "{name}");
        let in_tree = (0..ix.len() as NodeIndex)
            .filter(|&v| graph.in_dominator_tree(v))
            .count() as u64;
        assert_eq!(in_tree, s.reachable, "{name}");
        // Root groups cover every root sub-record.
        let groups = graph.root_groups();
        let n: usize = groups.iter().map(|g| g.roots.len()).sum();
        assert_eq!(n, ix.gc_roots().len(), "{name}");
    }
}

#[test]
fn dominators_match_the_definition_on_a_real_dump() {
    let data = dump("heapgen_jdk17");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let ix = graph.index();
    let n = ix.len();
    let edges = graph.edges();
    let reach = |removed: Option<NodeIndex>| {
        let mut seen = vec![false; n];
        let mut stack: Vec<NodeIndex> = graph
            .roots()
            .iter()
            .copied()
            .filter(|&r| Some(r) != removed)
            .collect();
        for &r in &stack {
            seen[r as usize] = true;
        }
        while let Some(v) = stack.pop() {
            for w in edges.targets(v) {
                if !seen[w as usize] && Some(w) != removed {
                    seen[w as usize] = true;
                    stack.push(w);
                }
            }
        }
        seen
    };
    let all = reach(None);
    assert_eq!(
        all.iter().filter(|s| **s).count() as u64,
        graph.summary().reachable
    );
    // The dominated set of x: nodes whose dominator chain passes through x.
    let dominated_by = |x: NodeIndex| -> Vec<NodeIndex> {
        (0..n as NodeIndex)
            .filter(|&y| {
                let mut d = Some(y);
                while let Some(v) = d {
                    if v == x {
                        return true;
                    }
                    d = graph.dominator(v).flatten();
                }
                false
            })
            .collect()
    };
    let mut sample: Vec<NodeIndex> = graph.top_retained(25).iter().map(|r| r.node).collect();
    sample.extend(
        (0..n as NodeIndex)
            .filter(|&v| all[v as usize])
            .step_by(997),
    );
    for x in sample {
        let without = reach(Some(x));
        let lost: Vec<NodeIndex> = (0..n as NodeIndex)
            .filter(|&y| all[y as usize] && !without[y as usize])
            .collect();
        assert_eq!(lost, dominated_by(x), "node {x}");
        let bytes: u64 = lost.iter().map(|&y| graph.shallow_size(y)).sum();
        assert_eq!(graph.retained_size(x), bytes, "node {x}");
        assert_eq!(graph.retained_objects(x), lost.len() as u64, "node {x}");
    }
}

#[test]
fn paths_are_shortest_reference_chains_with_names() {
    for name in DUMPS {
        let data = dump(name);
        let graph = Graph::build(&data, Options::default()).unwrap();
        let ix = graph.index();
        let reverse = graph.reverse_index();
        let roots: HashSet<NodeIndex> = graph.roots().iter().copied().collect();
        for r in graph.top_retained(40) {
            let steps = graph.path_steps(r.node).unwrap();
            assert!(roots.contains(&steps[0].node), "{name}");
            assert_eq!(steps.last().unwrap().node, r.node);
            for pair in steps.windows(2) {
                let via = pair[0].via.clone().expect("a named step");
                assert!(
                    graph
                        .references(pair[0].node)
                        .contains(&(pair[1].node, via)),
                    "{name}"
                );
            }
            // Shortest: no referrer has a path shorter by two or more.
            for p in reverse.targets(r.node) {
                if (p as usize) < ix.len() && graph.is_reachable(p) {
                    assert!(graph.path(p).unwrap().len() + 1 >= steps.len(), "{name}");
                }
            }
        }
        for v in graph.unreachable().take(20) {
            assert!(graph.path(v).is_none());
            assert_eq!(graph.retained_size(v), 0);
            assert_eq!(graph.dominator(v), None);
        }
    }
    // Field names on the JDK dump: ConcurrentHashMap → its table.
    let data = dump("heapgen_jdk17");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let steps = graph
        .path_steps(graph.node(Id(4_250_515_200)).unwrap())
        .unwrap();
    assert_eq!(steps[1].via.as_ref().unwrap().to_string(), ".table");
}

#[test]
fn roots_name_their_threads_and_frames() {
    let data = dump("heapgen_jdk17");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let groups = graph.root_groups();
    let frames = groups.iter().find(|g| g.kind == "Java frame").unwrap();
    assert!(!frames.roots.is_empty());
    assert!(frames.roots.iter().all(|r| r.thread_serial.is_some()));
    assert!(
        frames
            .roots
            .iter()
            .any(|r| r.thread_object.is_some() && r.frame_id.is_some())
    );
    assert!(groups.windows(2).all(|w| w[0].tag < w[1].tag));
}

#[test]
fn class_retained_sizes_count_each_object_once() {
    for name in DUMPS {
        let data = dump(name);
        let graph = Graph::build(&data, Options::default()).unwrap();
        let ix = graph.index();
        let rows = graph.class_retained();
        let total: u64 = rows.iter().map(|r| r.retained).sum();
        assert!(total <= graph.summary().reachable_bytes * 64, "{name}");
        // Brute force the rule: instances with no instance of their class above them.
        let class_of = |v: NodeIndex| ix.class_name_of(v);
        let mut want: std::collections::HashMap<String, u64> = Default::default();
        for v in 0..ix.len() as NodeIndex {
            if !graph.in_dominator_tree(v) {
                continue;
            }
            let c = class_of(v);
            let mut d = graph.dominator(v).flatten();
            let mut nested = false;
            while let Some(u) = d {
                if class_of(u) == c && ix.class_id_of(u) == ix.class_id_of(v) {
                    nested = true;
                    break;
                }
                d = graph.dominator(u).flatten();
            }
            if !nested {
                *want.entry(c).or_default() += graph.retained_size(v);
            }
        }
        let mut got: std::collections::HashMap<String, u64> = Default::default();
        for r in &rows {
            *got.entry(r.class_name.clone()).or_default() += r.retained;
        }
        assert_eq!(got, want, "{name}");
        assert!(rows.windows(2).all(|w| w[0].retained >= w[1].retained));
    }
}

/// The graph of `data` with shallow sizes from `rule`, the other options the defaults.
fn with_shallow_rule<'a, 'f>(
    data: &'a [u8],
    rule: &'f (dyn Fn(&hprof::binary::graph::ObjectIndex<'_>, NodeIndex) -> u64 + Sync),
) -> Graph<'a, 'f> {
    Graph::build(
        data,
        Options {
            shallow: Shallow::Custom(rule),
            ..Options::default()
        },
    )
    .unwrap()
}

#[test]
fn a_custom_shallow_size_counts_objects() {
    let data = dump("haha_sun_jdk5_64bit");
    let one = |_: &hprof::binary::graph::ObjectIndex<'_>, _: NodeIndex| 1;
    let graph = with_shallow_rule(&data, &one);
    for v in 0..graph.index().len() as NodeIndex {
        assert_eq!(graph.retained_size(v), graph.retained_objects(v));
    }
}

#[test]
fn shallow_sizes_past_four_gigabytes_are_counted_whole() {
    // The graph keeps each shallow size in 32 bits while it builds; the rule is asked again
    // for one that does not fit, or that equals the mark saying so.
    let data = dump("haha_sun_jdk5_64bit");
    for size in [
        5_000_000_000u64,
        u64::from(u32::MAX),
        u64::from(u32::MAX) - 1,
    ] {
        let rule = move |_: &hprof::binary::graph::ObjectIndex<'_>, _: NodeIndex| size;
        let graph = with_shallow_rule(&data, &rule);
        for v in 0..graph.index().len() as NodeIndex {
            assert_eq!(
                graph.retained_size(v),
                size * graph.retained_objects(v),
                "node {v}, size {size}"
            );
        }
    }
}

#[test]
fn cut_short_dumps_answer_over_what_is_there() {
    let data = dump("hprof-slurp_hprof-32");
    let full = Graph::build(&data, Options::default()).unwrap().summary();
    let mut cuts: Vec<usize> = (0..40).map(|k| data.len() * k / 40).collect();
    cuts.extend([19, 30, 31, 32, data.len() - 1]);
    for cut in cuts {
        match Graph::build(&data[..cut], Options::default()) {
            Ok(graph) => {
                let s = graph.summary();
                assert!(s.objects <= full.objects);
                // (A cut on a record boundary leaves a well-formed, shorter dump.)
                if cut == data.len() - 1 {
                    assert!(graph.warnings().stopped_at.is_some(), "cut at {cut}");
                }
                let _ = graph.top_retained(5);
                let _ = graph.class_retained();
            }
            Err(_) => assert!(cut < 31, "cut at {cut}"),
        }
    }
}

#[test]
fn a_record_cut_short_stops_the_graph_where_the_index_stops() {
    // A cut inside the first record (a UTF8 string): the graph's index and `Index::salvage`
    // walk the records the same way, so they stop with the same error.
    let data = dump("hprof-slurp_hprof-32");
    for cut in [31 + 9 + 1, 31 + 9 + 3] {
        let graph = Graph::build(&data[..cut], Options::default()).unwrap();
        let salvaged = hprof::binary::Index::salvage(&data[..cut]).unwrap();
        let stopped = graph.warnings().stopped_at.clone();
        assert!(
            matches!(stopped, Some(hprof::binary::Error::PastEnd { .. })),
            "cut at {cut}: {stopped:?}"
        );
        assert_eq!(stopped, salvaged.error, "cut at {cut}");
    }
}

/// A hand-made dump (id size 4): header, then one HEAP_DUMP_SEGMENT of `body`.
fn hand_made(body: &[u8]) -> Vec<u8> {
    let mut d = b"JAVA PROFILE 1.0.2\0".to_vec();
    d.extend_from_slice(&4u32.to_be_bytes());
    d.extend_from_slice(&0u64.to_be_bytes());
    d.push(0x1c);
    d.extend_from_slice(&0u32.to_be_bytes());
    d.extend_from_slice(&(body.len() as u32).to_be_bytes());
    d.extend_from_slice(body);
    // HEAP_DUMP_END closes the segment (a dump without it is cut short).
    d.push(0x2c);
    d.extend_from_slice(&[0; 8]);
    d
}

fn u4(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_be_bytes());
}

#[test]
fn dangling_references_duplicates_and_unknown_classes_are_counted() {
    let mut b = Vec::new();
    // Roots: 10, and 99 which names nothing; ROOT_UNREACHABLE 13 is no root.
    b.push(0xff);
    u4(&mut b, 10);
    b.push(0xff);
    u4(&mut b, 99);
    b.push(0x90);
    u4(&mut b, 13);
    // Object[] 10 = {11, 12, 77 (dangling), 0}, array class 0.
    b.push(0x22);
    u4(&mut b, 10);
    u4(&mut b, 0);
    u4(&mut b, 4);
    u4(&mut b, 0);
    for e in [11, 12, 77, 0] {
        u4(&mut b, e);
    }
    // Instance 11 of class 500, which has no CLASS_DUMP.
    b.push(0x21);
    u4(&mut b, 11);
    u4(&mut b, 0);
    u4(&mut b, 500);
    u4(&mut b, 4);
    u4(&mut b, 12);
    // int[2] 12, twice (the second is ignored), and int[1] 13, unreachable.
    for (id, n) in [(12, 2), (12, 5), (13, 1)] {
        b.push(0x23);
        u4(&mut b, id);
        u4(&mut b, 0);
        u4(&mut b, n);
        b.push(10);
        for _ in 0..n {
            u4(&mut b, 7);
        }
    }
    let data = hand_made(&b);
    let graph = Graph::build(&data, Options::default()).unwrap();
    let w = graph.warnings();
    assert_eq!(w.duplicate_ids, 1);
    assert_eq!(w.dangling_roots, 1);
    assert_eq!(w.unknown_classes, 1);
    // 77 from the array, class 500 from the instance.
    assert_eq!(w.dangling_references, 2);
    assert!(w.stopped_at.is_none());
    let s = graph.summary();
    assert_eq!(
        (s.objects, s.reachable, s.unreachable, s.roots),
        (4, 3, 1, 1)
    );
    // 16 (Object[4]) + 4 (instance bytes) + 8 (int[2], the first record) = 28.
    assert_eq!(s.reachable_bytes, 28);
    let top = graph.top_retained(10);
    assert_eq!(top[0].id, Id(10));
    assert_eq!((top[0].retained, top[0].retained_objects), (28, 3));
    assert_eq!(graph.path(graph.node(Id(12)).unwrap()).unwrap().len(), 2);
    assert_eq!(
        graph.unreachable().collect::<Vec<_>>(),
        [graph.node(Id(13)).unwrap()]
    );
}

#[test]
fn hostile_counts_do_not_allocate() {
    // An object array claiming 2^32-1 elements and an instance claiming 4 GB of fields.
    let mut b = Vec::new();
    b.push(0x22);
    u4(&mut b, 1);
    u4(&mut b, 0);
    u4(&mut b, u32::MAX);
    u4(&mut b, 0);
    let data = hand_made(&b);
    let graph = Graph::build(&data, Options::default()).unwrap();
    assert!(graph.warnings().stopped_at.is_some());
    assert_eq!(graph.summary().objects, 0);
    let mut b = Vec::new();
    b.push(0x21);
    u4(&mut b, 1);
    u4(&mut b, 0);
    u4(&mut b, 2);
    u4(&mut b, u32::MAX);
    let data = hand_made(&b);
    let graph = Graph::build(&data, Options::default()).unwrap();
    assert!(graph.warnings().stopped_at.is_some());
}

#[test]
fn not_a_dump_is_an_error() {
    assert!(Graph::build(b"", Options::default()).is_err());
    assert!(Graph::build(b"JAVA PROFILE 9", Options::default()).is_err());
}

#[test]
fn a_graph_without_roots_says_so_and_stand_in_roots_cover_every_object() {
    use hprof::binary::graph::MissingRoots;
    let data = dump("heapgen_jdk17");
    // HotSpot writes the roots after the objects: this cut keeps objects and no root.
    let cut = &data[..2_100_000];
    let graph = Graph::build(cut, Options::default()).unwrap();
    assert!(graph.warnings().roots_missing);
    assert!(graph.warnings().stopped_at.is_some());
    let said = graph.warnings().to_string();
    assert!(
        said.contains("stopped early: ") && said.contains("no GC root"),
        "{said}"
    );
    assert_eq!(graph.summary().reachable, 0);

    let classes = Graph::build(
        cut,
        Options {
            missing_roots: MissingRoots::SystemClasses,
            ..Options::default()
        },
    )
    .unwrap();
    let ix = classes.index();
    assert!(!classes.roots().is_empty());
    for &r in classes.roots() {
        let class_id = ix.id(r).unwrap();
        assert_eq!(ix.class_dump(class_id).unwrap().class_loader_id, Id::NULL);
    }
    let everything = Graph::build(
        cut,
        Options {
            missing_roots: MissingRoots::Unreferenced,
            ..Options::default()
        },
    )
    .unwrap();
    let s = everything.summary();
    assert_eq!((s.unreachable, s.reachable), (0, s.objects));
    assert!(s.reachable > classes.summary().reachable);
    // The stand-ins are a superset of the system classes.
    let stand_ins: HashSet<NodeIndex> = everything.roots().iter().copied().collect();
    assert!(classes.roots().iter().all(|r| stand_ins.contains(r)));
    // A whole dump has roots: the option changes nothing there.
    let whole = Graph::build(
        &data,
        Options {
            missing_roots: MissingRoots::Unreferenced,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!whole.warnings().roots_missing);
    assert_eq!(
        whole.summary(),
        Graph::build(&data, Options::default()).unwrap().summary()
    );
}

#[test]
fn a_cycle_without_roots_gets_one_stand_in() {
    use hprof::binary::graph::MissingRoots;
    use hprof::binary::write::HeapBuilder;
    use hprof::binary::{BasicType, IdSize, Value};
    let mut heap = HeapBuilder::new(IdSize::Eight);
    heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
        .class(Id(0x20), "Ring", Id(0x10), &[("next", BasicType::Object)])
        .instance(Id(0x100), Id(0x20), &[Value::Object(Id(0x101))])
        .instance(Id(0x101), Id(0x20), &[Value::Object(Id(0x102))])
        .instance(Id(0x102), Id(0x20), &[Value::Object(Id(0x100))]);
    let data = heap.build().unwrap();
    let graph = Graph::build(
        &data,
        Options {
            missing_roots: MissingRoots::Unreferenced,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(graph.warnings().roots_missing);
    let ix = graph.index();
    let roots: Vec<Id> = graph.roots().iter().map(|&r| ix.id(r).unwrap()).collect();
    // The boot classes (loader 0) and the ring's smallest id: every node is then reached.
    assert_eq!(roots, [Id(0x10), Id(0x20), Id(0x100)]);
    assert_eq!(graph.summary().unreachable, 0);
    assert_eq!(graph.retained_objects(graph.node(Id(0x100)).unwrap()), 3);
}
