//! Memory of the owned models against the size of their input, on the reports of
//! `tests/data/generated/` (the printers' output, line by line): peak heap (counting allocator,
//! `testkit`) while reading a report and keeping its model. The family's budget is 8× the
//! input.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;
use pointsto::object_tree::ObjectTree;
use testkit::{Budget, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// The family's budget: an owned model takes at most 8× its input at its peak.
const LIMIT: f64 = 8.0;

fn generated() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/generated")
}

/// The file names of `dir` that start with `prefix` and end with `suffix`, sorted.
fn files(dir: &Path, prefix: &str, suffix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(prefix) && n.ends_with(suffix))
        .collect();
    names.sort();
    names
}

#[test]
fn owned_models_fit_in_eight_times_their_input() {
    let dir = generated();
    let mut budget = Budget::default();
    let call_trees = files(&dir, "call_tree_", ".txt");
    assert!(call_trees.len() >= 5, "{call_trees:?}");
    for name in call_trees {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let (graph, peak) = peak_of(|| CallGraph::parse_txt(&bytes).unwrap());
        assert!(!graph.methods.is_empty());
        drop(graph);
        budget.check("pointsto `CallGraph` (TXT)", &name, bytes.len(), peak);
    }
    let object_trees = files(&dir, "object_tree_", ".txt");
    assert!(object_trees.len() >= 4, "{object_trees:?}");
    for name in object_trees {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let (tree, peak) = peak_of(|| ObjectTree::parse(&bytes).unwrap());
        assert!(!tree.nodes.is_empty());
        drop(tree);
        budget.check("pointsto `ObjectTree`", &name, bytes.len(), peak);
    }
    for version in ["csv-21.3", "csv-22.1", "csv-23.0", "csv-25"] {
        let csv_dir = dir.join(version);
        let mut report: HashMap<CsvFile, Vec<u8>> = HashMap::new();
        for name in files(&csv_dir, "", ".csv") {
            let file = CsvFile::ALL
                .into_iter()
                .find(|f| name.contains(&format!("{}_", f.stem())))
                .unwrap();
            report.insert(file, std::fs::read(csv_dir.join(&name)).unwrap());
        }
        let input: usize = report.values().map(Vec::len).sum();
        let (graph, peak) =
            peak_of(|| CallGraph::read_csv(|f| report.get(&f).map(Vec::as_slice)).unwrap());
        assert!(!graph.methods.is_empty());
        drop(graph);
        budget.check(
            "pointsto `CallGraph` (CSV)",
            &format!("{version}/"),
            input,
            peak,
        );
    }
    budget.assert_within(LIMIT);
}
