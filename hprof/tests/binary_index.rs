//! The one-pass index on real dumps: class layouts (checked against every instance's field
//! data), field decoding, `java.lang.String` contents, GC roots, thread stacks.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;

use hprof::binary::index::Index;
use hprof::binary::{SubRecord, Value};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/binary")
            .join(name),
    )
    .unwrap()
}

const BUNDLED: [&str; 4] = [
    "hprof-slurp_hprof-32.hprof",
    "haha_sun_jdk5_64bit.hprof",
    "heapgen_jdk17.hprof",
    "ahat_test-dump-base_art-host-2025.hprof",
];

#[test]
fn every_instance_matches_its_class_layout() {
    for name in BUNDLED {
        let data = read(name);
        let ix = Index::build(&data).unwrap();
        let mut cache = ix.layout_cache();
        let mut checked = 0;
        for s in ix.sub_records() {
            if let SubRecord::InstanceDump(i) = s.unwrap() {
                let layout = ix.layout(i.class_id).unwrap();
                assert_eq!(cache.layout(i.class_id).unwrap(), &layout);
                assert_eq!(
                    cache.instance_fields(&i).unwrap(),
                    ix.instance_fields(&i).unwrap()
                );
                assert_eq!(
                    layout.size,
                    i.data.len(),
                    "{name}: instance 0x{:x}",
                    i.object_id
                );
                let fields = ix.instance_fields(&i).unwrap();
                assert_eq!(fields.len(), layout.fields.len());
                checked += 1;
            }
        }
        assert!(checked > 500, "{name}: {checked}");
        // One layout per class of instances, each built once.
        assert!(cache.len() < checked, "{name}: {} layouts", cache.len());
    }
}

#[test]
fn hashmap_node_layout_jdk17() {
    let data = read("heapgen_jdk17.hprof");
    let ix = Index::build(&data).unwrap();
    let ids = ix.classes_named("java.util.HashMap$Node");
    assert_eq!(ids.len(), 1);
    let layout = ix.layout(ids[0]).unwrap();
    let mut names: Vec<String> = layout
        .fields
        .iter()
        .map(|f| String::from_utf8_lossy(f.name).into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["hash", "key", "next", "value"]);
    // Decode every node: key and value are references, hash an int.
    let mut nodes = 0;
    for s in ix.sub_records() {
        if let SubRecord::InstanceDump(i) = s.unwrap() {
            if i.class_id == ids[0] {
                let fields = ix.instance_fields(&i).unwrap();
                for (name, value) in fields {
                    match name {
                        b"hash" => assert!(matches!(value, Value::Int(_))),
                        _ => assert!(matches!(value, Value::Object(_))),
                    }
                }
                nodes += 1;
            }
        }
    }
    assert_eq!(nodes, 1023); // as the histogram example reports for this dump
}

#[test]
fn java_strings_every_layout() {
    // JDK 17 (byte[] + coder), JDK 5 (char[] + offset/count), the JVMTI agent, ART.
    for (name, expected) in [
        ("heapgen_jdk17.hprof", "java.library.path"),
        ("haha_sun_jdk5_64bit.hprof", "cp819"),
        ("hprof-slurp_hprof-32.hprof", "csASCII"),
        ("ahat_test-dump-base_art-host-2025.hprof", "arm64-v8a"),
    ] {
        let data = read(name);
        let ix = Index::build(&data).unwrap();
        let strings = ix.java_strings().unwrap();
        assert!(strings.len() > 100, "{name}");
        assert!(
            strings.values().any(|s| &**s == expected),
            "{name}: no {expected:?}"
        );
        // Every string is printable text, not garbage from a wrong layout.
        let bad = strings.values().filter(|s| s.contains('\u{FFFD}')).count();
        assert!(
            bad * 100 < strings.len(),
            "{name}: {bad} strings with replacement chars"
        );
    }
}

#[test]
fn roots_and_threads() {
    let data = read("ahat_test-dump-base_art-host-2025.hprof");
    let ix = Index::build(&data).unwrap();
    // Root counts from PROVENANCE.txt.
    assert_eq!(ix.roots().len(), 1106 + 247 + 107 + 62 + 53 + 7 + 7 + 6 + 3);
    assert_eq!(ix.thread_stacks().len(), 7);

    // JDK 17: the main thread's stack ends in HeapGen.main, which called dumpHeap.
    let data = read("heapgen_jdk17.hprof");
    let ix = Index::build(&data).unwrap();
    let main = ix
        .thread_stacks()
        .into_iter()
        .find(|t| t.frames.iter().any(|f| &*f.class_name == "HeapGen"))
        .unwrap();
    let text: Vec<String> = main.frames.iter().map(ToString::to_string).collect();
    assert_eq!(text.last().unwrap(), "HeapGen.main (HeapGen.java:31)");
    assert_eq!(
        text[0],
        "com.sun.management.internal.HotSpotDiagnostic.dumpHeap0 (native method)"
    );

    let data = read("hprof-slurp_hprof-32.hprof");
    let ix = Index::build(&data).unwrap();
    let threads = ix.thread_stacks();
    assert!(threads.len() >= 5);
    let with_frames: Vec<_> = threads.iter().filter(|t| !t.frames.is_empty()).collect();
    assert!(!with_frames.is_empty());
    assert_eq!(
        with_frames[0].frames[0].to_string(),
        "java.lang.Thread.<init> (Thread.java:444)"
    );
}
