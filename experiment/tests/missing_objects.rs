//! Load objects found nowhere read as gprofng names them: on cases whose load objects gprofng
//! was kept from finding (tests/data/record-missing.sh: no archives, every recorded path under
//! /nonexistent/), the function list and the leaks equal gprofng's
//! (`<case>/missing-objects/{functions,leaks}.txt`), placeholders and offsets included —
//! `<static>@0x0 (<libc.so.6>) --  no functions found + 0x00027248`,
//! `<static>@0x2d000 (<libgp-collector.so>) --  no functions found + 0x0001D425`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{data, gprofng_stacks, gprofng_text};
use experiment::profile::{FunctionList, HeapView, Metric, heap_stacks};
use experiment::{Experiment, MemorySource};
use std::path::Path;

/// The cases recorded by record-missing.sh.
const CASES: [&str; 5] = ["clock_basic", "heap", "iotrace", "many_threads", "sync_all"];

/// A case's experiment in memory without its `archives/`, through a source that finds no load
/// object (`Source::load_object`'s default).
fn open_without_objects(case: &str) -> Experiment<MemorySource> {
    fn walk(root: &Path, dir: &Path, src: &mut MemorySource) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
            if p.is_dir() {
                if !rel.ends_with("archives") {
                    walk(root, &p, src);
                }
            } else {
                src.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let root = data().join(case).join("test.1.er");
    let mut files = MemorySource::new();
    walk(&root, &root, &mut files);
    Experiment::open(files).unwrap()
}

/// The rows of gprofng's `-functions` text: (name, value tokens without percentages).
fn reference_rows(text: &str, metrics: &[Metric]) -> Vec<(String, Vec<String>)> {
    let tokens: usize = metrics
        .iter()
        .map(|m| if *m == Metric::TotalCpu { 2 } else { 1 })
        .sum();
    let mut rows = Vec::new();
    for line in text.lines() {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() <= tokens || !toks[0].starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let mut values = Vec::new();
        let mut t = toks.iter();
        for m in metrics {
            values.push(t.next().unwrap().to_string());
            if *m == Metric::TotalCpu {
                t.next();
            }
        }
        rows.push((toks[tokens..].join(" "), values));
    }
    rows
}

#[test]
fn function_lists_name_missing_objects_like_gprofng() {
    let mut placeholders = Vec::new();
    for case in CASES {
        let exp = open_without_objects(case);
        let list = FunctionList::read(&exp, None).unwrap();
        let metrics: Vec<Metric> = list.columns.iter().map(|c| c.metric).collect();
        let ours: Vec<(String, Vec<String>)> = list
            .rows
            .iter()
            .map(|r| {
                // gprofng's text squeezes the name's double space when split on white space.
                let name = r.name.split_whitespace().collect::<Vec<_>>().join(" ");
                let values = metrics
                    .iter()
                    .zip(&r.values)
                    .map(|(m, v)| gprofng_text(*m, *v))
                    .collect();
                (name, values)
            })
            .collect();
        let text = std::fs::read_to_string(data().join(case).join("missing-objects/functions.txt"))
            .unwrap();
        let want = reference_rows(&text, &metrics);
        assert!(want.len() >= 3, "{case}: {want:?}");
        assert_eq!(ours, want, "{case}");
        placeholders.extend(
            ours.into_iter()
                .map(|(n, _)| n)
                .filter(|n| n.starts_with('<')),
        );
    }
    // Each way gprofng places its placeholder occurs: at 0 (the PC within the mapping's size
    // from the file's start), at the mapping's size (past it), for a library and the program.
    for name in [
        "<static>@0x0 (<libc.so.6>) -- no functions found",
        "<static>@0x0 (<ld-linux-x86-64.so.2>) -- no functions found",
        "<static>@0x0 (<libgp-iotrace.so>) -- no functions found",
        "<static>@0x1000 (<prog>) -- no functions found",
        "<static>@0x2000 (<libgp-sync.so>) -- no functions found",
        "<static>@0x2d000 (<libgp-collector.so>) -- no functions found",
    ] {
        assert!(placeholders.iter().any(|p| p == name), "{name}");
    }
}

#[test]
fn leaks_give_missing_objects_gprofngs_offsets() {
    let mut compared = 0;
    // The cases with a heap trace (record-missing.sh writes their leaks.txt).
    for case in ["heap", "many_threads"] {
        let text =
            std::fs::read_to_string(data().join(case).join("missing-objects/leaks.txt")).unwrap();
        let exp = open_without_objects(case);
        let ours: Vec<(u64, u64, Vec<String>)> = heap_stacks(&exp, HeapView::Leaks)
            .unwrap()
            .into_iter()
            .map(|s| (s.instances, s.bytes, s.frames))
            .collect();
        let want = gprofng_stacks(&text);
        assert!(!want.is_empty(), "{case}");
        assert_eq!(ours, want, "{case}");
        compared += want.len();
    }
    assert!(compared >= 10, "{compared} leaks compared");
    let heap = std::fs::read_to_string(data().join("heap/missing-objects/leaks.txt")).unwrap();
    assert!(
        heap.contains(
            "<static>@0x2d000 (<libgp-collector.so>) --  no functions found + 0x0001D425"
        )
    );
}
