//! Heap diff, leak suspects and duplicate strings on the dumps of `tests/data/leak` (a program
//! that leaks a known structure, see its README) and on every other real dump.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use hprof::binary::diff::{Census, HeapDiff};
use hprof::binary::graph::{Graph, NodeClasses, Options, SuspectKind, SuspectOptions, Via};
use hprof::binary::histogram::Histogram;
use hprof::binary::write::HeapBuilder;
use hprof::binary::{BasicType, GcRoot, Id, IdSize, Value};

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const REAL: [&str; 6] = [
    "binary/ahat_test-dump-base_art-host-2025.hprof",
    "binary/haha_sun_jdk5_64bit.hprof",
    "binary/heapgen_jdk17.hprof",
    "binary/hprof-slurp_hprof-32.hprof",
    "leak/baseline.hprof",
    "leak/current.hprof",
];

fn class<'d>(diff: &'d HeapDiff, name: &str) -> &'d hprof::binary::diff::ClassDelta {
    diff.classes
        .iter()
        .find(|c| c.class_name == name)
        .unwrap_or_else(|| panic!("no row for {name}"))
}

#[test]
fn the_diff_shows_exactly_what_the_program_added() {
    let (a, b) = (read("leak/baseline.hprof"), read("leak/current.hprof"));
    let censuses = HeapDiff::of_censuses(
        &Census::salvage(&a).unwrap().into_result().unwrap(),
        &Census::salvage(&b).unwrap().into_result().unwrap(),
    );
    let (ga, gb) = (
        Graph::build(&a, Options::default()).unwrap(),
        Graph::build(&b, Options::default()).unwrap(),
    );
    let graphs = HeapDiff::of_graphs(&ga, &gb);
    for diff in [&censuses, &graphs] {
        // 2,000 entries: their nodes, their keys, their keys' Latin-1 bytes and their values.
        let node = class(diff, "java.util.HashMap$Node");
        assert_eq!(
            (node.delta_instances(), node.delta_shallow()),
            (2000, 2000 * 28)
        );
        let string = class(diff, "java.lang.String");
        assert_eq!(
            (string.delta_instances(), string.delta_shallow()),
            (2000, 2000 * 14)
        );
        let bytes = class(diff, "byte[]");
        assert_eq!(
            (bytes.delta_instances(), bytes.delta_shallow()),
            (4000, 2000 * 512 + 2000 * 8)
        );
        // The table doubled: 2,048 more 8-byte slots.
        let table = class(diff, "java.util.HashMap$Node[]");
        assert_eq!(
            (table.delta_instances(), table.delta_shallow()),
            (0, 2048 * 8)
        );
    }
    // The graphs see retained sizes: the map's table retains what was added.
    let table = class(&graphs, "java.util.HashMap$Node[]");
    assert!(table.delta_retained().unwrap() >= 2000 * (28 + 14 + 512 + 8));
    assert!(
        censuses
            .classes
            .iter()
            .all(|c| c.delta_retained().is_none())
    );
    // Largest growth first: by retained bytes with graphs, by shallow bytes without.
    assert_eq!(censuses.classes[0].class_name, "byte[]");
    let growth: Vec<i64> = graphs
        .classes
        .iter()
        .map(|c| c.delta_retained().unwrap())
        .collect();
    assert!(growth.windows(2).all(|w| w[0] >= w[1]));
    // Totals are the sums; roots per kind are counted in both dumps.
    let sum: i64 = censuses
        .classes
        .iter()
        .map(hprof::binary::diff::ClassDelta::delta_shallow)
        .sum();
    assert_eq!(censuses.total.delta_shallow(), sum);
    assert!(
        graphs
            .roots
            .iter()
            .any(|r| r.kind == "sticky class" && r.baseline > 600)
    );
    assert_eq!(censuses.roots, graphs.roots);
}

#[test]
fn a_census_counts_what_the_histogram_counts() {
    for path in REAL {
        let data = read(path);
        let census = Census::salvage(&data).unwrap();
        let histogram = Histogram::salvage(&data).unwrap();
        assert_eq!(census.error, histogram.error, "{path}");
        assert_eq!(
            census.value.histogram.rows(),
            histogram.value.rows(),
            "{path}"
        );
        // A dump compared with itself: no change anywhere.
        let same = HeapDiff::of_censuses(&census.value, &census.value);
        assert!(
            same.classes
                .iter()
                .all(|c| c.delta_instances() == 0 && c.delta_shallow() == 0)
        );
    }
    // Across JVMs (an Android dump against a JDK one): every class on one side or the other.
    let art = Census::salvage(&read(REAL[0])).unwrap().value;
    let jdk = Census::salvage(&read(REAL[2])).unwrap().value;
    let diff = HeapDiff::of_censuses(&art, &jdk);
    assert_eq!(
        diff.total.current.unwrap().instances,
        jdk.histogram.total_instances()
    );
    assert!(diff.classes.iter().any(|c| c.baseline.is_none()));
    assert!(diff.classes.iter().any(|c| c.current.is_none()));
}

#[test]
fn the_top_suspect_is_the_leaking_map_reached_from_its_static_field() {
    let data = read("leak/current.hprof");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let suspects = graph.leak_suspects(SuspectOptions::default());
    let top = &suspects[0];
    assert_eq!(top.kind, SuspectKind::Object);
    assert_eq!(top.class_name, "class LeakDemo");
    // Its retained size is its `dominators` row's.
    assert_eq!(top.retained, graph.retained_size(top.object.node));
    assert!(top.share > 0.5 && top.share <= 1.0);
    // The memory accumulates in the map's table, reached through the static field.
    assert_eq!(
        top.accumulation_point.class_name,
        "java.util.HashMap$Node[]"
    );
    let steps: Vec<(&str, Option<&Via>)> = top
        .path
        .iter()
        .map(|s| (s.class_name.as_str(), s.via.as_ref()))
        .collect();
    let n = steps.len();
    assert_eq!(
        steps[n - 3..],
        [
            ("class LeakDemo", Some(&Via::StaticField("CACHE".into()))),
            ("java.util.HashMap", Some(&Via::Field("table".into()))),
            ("java.util.HashMap$Node[]", None),
        ]
    );
    assert_eq!(top.top_classes[0].class_name, "java.util.HashMap$Node");
    assert!(
        top.top_classes
            .iter()
            .any(|t| t.class_name == "byte[]" && t.retained >= 3000 * 512)
    );
    // One loader per class name in this dump: no row names a loader.
    assert!(suspects.iter().all(|s| s.loader.is_none()));
    assert!(top.top_classes.iter().all(|t| t.loader.is_none()));
    // One leak, one suspect: the classes along it are inside the object suspect.
    assert_eq!(suspects.len(), 1);
    // A lower threshold finds more; no object suspect retains more than the top one.
    let more = graph.leak_suspects(SuspectOptions {
        threshold: 0.01,
        ..SuspectOptions::default()
    });
    assert!(more.len() > 1);
    assert!(
        more.iter()
            .filter(|s| s.kind == SuspectKind::Object)
            .all(|s| s.retained <= top.retained)
    );
}

#[test]
fn duplicate_strings_are_the_programs() {
    let data = read("leak/current.hprof");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let dups = graph.index().duplicate_strings(2);
    // 300 + the interned literal; each extra copy is a String (14 bytes of fields) with its
    // own Latin-1 byte[] (12 and 17 bytes).
    assert_eq!(dups.len(), 2);
    assert_eq!(
        (dups[0].text.as_str(), dups[0].count),
        ("duplicate-me", 301)
    );
    assert_eq!(dups[0].wasted_bytes, 300 * (14 + 12));
    assert_eq!(
        (dups[1].text.as_str(), dups[1].count),
        ("another duplicate", 41)
    );
    assert_eq!(dups[1].wasted_bytes, 40 * (14 + 17));
}

#[test]
fn every_real_dump_gives_consistent_answers() {
    for path in REAL {
        let data = read(path);
        let graph = Graph::build(&data, Options::default()).unwrap();
        let total = graph.summary().reachable_bytes;
        for s in graph.leak_suspects(SuspectOptions::default()) {
            assert!(
                s.retained <= total && s.share > 0.0 && s.share <= 1.0,
                "{path}"
            );
            assert!(s.retained >= total / 10, "{path}");
            assert!(
                graph.retained_size(s.accumulation_point.node)
                    <= graph.retained_size(s.object.node)
            );
            if s.kind == SuspectKind::Object {
                assert_eq!(s.retained, graph.retained_size(s.object.node), "{path}");
            }
            let last = s.path.last().map(|p| p.node);
            assert_eq!(last, Some(s.accumulation_point.node), "{path}");
        }
        for d in graph.index().duplicate_strings(50) {
            assert!(d.count >= 2 && d.wasted_bytes > 0, "{path}");
        }
        // Android and JDK 5–17 strings decode: every dump has duplicated strings.
        assert!(!graph.index().duplicate_strings(1).is_empty(), "{path}");
    }
}

/// Keeping each object's class from the build changes no answer, and the suspects' paths
/// (searched along the dominator chain) are shortest paths: as long as the breadth-first
/// search's, each step a reference of the one before.
#[test]
fn kept_classes_and_dominator_chain_paths_give_the_same_answers() {
    for path in REAL {
        let data = read(path);
        for base in [Options::default(), Options::ahat()] {
            let kept = Options {
                classes: NodeClasses::Keep,
                ..base
            };
            let decoded = Graph::build(&data, base).unwrap();
            let graph = Graph::build(&data, kept).unwrap();
            assert_eq!(graph.class_retained(), decoded.class_retained(), "{path}");
            let low = SuspectOptions {
                threshold: 0.01,
                ..SuspectOptions::default()
            };
            let suspects = graph.leak_suspects(low);
            let before = decoded.leak_suspects(low);
            assert!(!suspects.is_empty(), "{path}");
            assert_eq!(suspects.len(), before.len(), "{path}");
            for (s, b) in suspects.iter().zip(&before) {
                assert_eq!(
                    (
                        &s.class_name,
                        s.retained,
                        &s.accumulation_point,
                        &s.top_classes
                    ),
                    (
                        &b.class_name,
                        b.retained,
                        &b.accumulation_point,
                        &b.top_classes
                    ),
                    "{path}"
                );
                let point = s.accumulation_point.node;
                let bfs = graph.path(point).unwrap();
                assert_eq!(s.path.len(), bfs.len(), "{path}: not a shortest path");
                assert!(graph.roots().contains(&s.path[0].node), "{path}");
                for pair in s.path.windows(2) {
                    let refs = graph.references(pair[0].node);
                    assert!(
                        refs.iter()
                            .any(|(t, via)| *t == pair[1].node && Some(via) == pair[0].via.as_ref()),
                        "{path}: {:?} does not reference the next step",
                        pair[0]
                    );
                }
            }
        }
    }
}

/// One plugin class defined by two loaders of the same class in both dumps (ids differ
/// between the dumps), and a class defined once in each dump by different loaders.
fn plugin_dump(loaders: [u64; 2], classes: [u64; 2], counts: [u64; 2], single_by: u64) -> Vec<u8> {
    // Classes first, then objects, as HotSpot writes them.
    let mut heap = HeapBuilder::new(IdSize::Eight);
    heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
        .class(Id(0x11), "java.lang.ClassLoader", Id(0x10), &[])
        .class(Id(0x12), "com.example.PluginLoader", Id(0x11), &[]);
    for k in 0..2 {
        heap.class_loaded_by(
            Id(classes[k]),
            "com.example.Plugin",
            Id(0x10),
            Id(loaders[k]),
            &[("n", BasicType::Int)],
        );
        heap.root(GcRoot::StickyClass {
            object_id: Id(classes[k]),
        });
    }
    heap.class_loaded_by(
        Id(0x70),
        "com.example.Single",
        Id(0x10),
        Id(single_by),
        &[("n", BasicType::Int)],
    );
    for &l in &loaders {
        heap.instance(Id(l), Id(0x12), &[]);
        heap.root(GcRoot::JniGlobal {
            object_id: Id(l),
            jni_global_ref_id: Id(l),
        });
    }
    let mut next = 0x1000;
    for k in 0..2 {
        for _ in 0..counts[k] {
            heap.instance(Id(next), Id(classes[k]), &[Value::Int(1)]);
            heap.root(GcRoot::StickyClass {
                object_id: Id(next),
            });
            next += 1;
        }
    }
    heap.instance(Id(next), Id(0x70), &[Value::Int(1)]);
    heap.root(GcRoot::StickyClass {
        object_id: Id(next),
    });
    heap.build().unwrap()
}

#[test]
fn classes_of_one_name_from_several_loaders_are_kept_apart() {
    // Baseline: loader 0x500 defines 0x30 (2 instances), 0x501 defines 0x31 (1).
    let baseline = plugin_dump([0x500, 0x501], [0x30, 0x31], [2, 1], 0x500);
    // Current: other ids; the first loader by id (0x600) still has 2, the second 4; the
    // lone class is now defined by the second loader.
    let current = plugin_dump([0x600, 0x601], [0x40, 0x41], [2, 4], 0x601);
    let censuses = HeapDiff::of_censuses(
        &Census::salvage(&baseline).unwrap().value,
        &Census::salvage(&current).unwrap().value,
    );
    let (a, b) = (
        Graph::build(&baseline, Options::default()).unwrap(),
        Graph::build(&current, Options::default()).unwrap(),
    );
    let graphs = HeapDiff::of_graphs(&a, &b);
    for diff in [&censuses, &graphs] {
        let rows: Vec<(Option<String>, i64, u64, u64)> = diff
            .classes
            .iter()
            .filter(|c| c.class_name == "com.example.Plugin")
            .map(|c| {
                (
                    c.loader.as_ref().map(ToString::to_string),
                    c.delta_instances(),
                    c.baseline.map_or(0, |s| s.instances),
                    c.current.map_or(0, |s| s.instances),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (Some("com.example.PluginLoader#1".to_owned()), 3, 1, 4),
                (Some("com.example.PluginLoader#0".to_owned()), 0, 2, 2),
            ]
        );
        // Defined once in each dump: one row, whatever loader defined it.
        let single = class(diff, "com.example.Single");
        assert_eq!(
            (single.loader.as_ref(), single.delta_instances()),
            (None, 0)
        );
        assert_eq!(diff.total.delta_instances(), 3);
    }
    // The plain histogram still sums the name.
    let plugin = Histogram::parse(&current)
        .unwrap()
        .rows()
        .into_iter()
        .find(|r| r.class_name == "com.example.Plugin")
        .unwrap();
    assert_eq!(plugin.instances, 6);
    // Leak suspects and class rows keep them apart too, each naming its loader.
    let rows: Vec<_> = b
        .class_retained()
        .into_iter()
        .filter(|r| r.class_name == "com.example.Plugin")
        .map(|r| (r.class_id, r.instances))
        .collect();
    assert_eq!(rows.len(), 2);
    assert!(rows.contains(&(Some(Id(0x40)), 2)) && rows.contains(&(Some(Id(0x41)), 4)));
    let suspects = b.leak_suspects(SuspectOptions {
        threshold: 0.0,
        ..SuspectOptions::default()
    });
    // Every instance is a root of its own: each an object suspect, naming its loader.
    let mut plugins: Vec<(Id, String)> = suspects
        .iter()
        .filter(|s| s.kind == SuspectKind::Object && s.class_name == "com.example.Plugin")
        .map(|s| {
            let l = s.loader.as_ref().expect("a shared name names its loader");
            (l.id, l.class_name.clone())
        })
        .collect();
    plugins.sort();
    let loader = "com.example.PluginLoader".to_owned();
    assert_eq!(
        plugins,
        [
            vec![(Id(0x600), loader.clone()); 2],
            vec![(Id(0x601), loader.clone()); 4]
        ]
        .concat()
    );
    let single = suspects
        .iter()
        .find(|s| s.class_name == "com.example.Single")
        .unwrap();
    assert_eq!(single.loader, None);
}
