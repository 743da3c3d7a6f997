//! The `calltree-diff` example as a person runs it: its manners, and its answer on two real
//! reports (checked against the library's diff) and on a TXT report against a CSV one.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use pointsto::call_tree::CallGraph;
use pointsto::diff::CallTreeDiff;
use testkit::cli::{Example, Inputs, expect};

const A: &str = "tests/data/generated/call_tree_hello_20240918_120000.txt";
const B: &str = "tests/data/generated/call_tree_hello_20251101_000001.txt";

fn tool() -> Example {
    Example::new("pointsto", "calltree-diff")
}

#[test]
fn manners() {
    tool().check_manners(&Inputs {
        good: &[A, B],
        foreign: "tests/data/generated/object_tree_sample_20240918_120000.txt",
        big_output: &[A, B],
    });
    // One report is not enough.
    expect(&tool().run(&[A]), 2, "calltree-diff", "one argument");
}

#[test]
fn diff_matches_the_library() {
    let out = tool().run(&[A, B]);
    expect(&out, 0, "calltree-diff", "two reports");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a = CallGraph::parse_txt(&std::fs::read(A).unwrap()).unwrap();
    let b = CallGraph::parse_txt(&std::fs::read(B).unwrap()).unwrap();
    let diff = CallTreeDiff::new(&a, &b);
    assert_eq!(
        json["methods"]["only_in_a"],
        serde_json::json!(diff.methods_only_in_a)
    );
    assert_eq!(
        json["methods"]["only_in_b"],
        serde_json::json!(diff.methods_only_in_b)
    );
    assert_eq!(json["edges"]["only_in_a"], diff.edges_only_in_a.len());
    assert!(!diff.methods_only_in_a.is_empty());
    // The same report against itself differs in nothing.
    let out = tool().run(&[A, A]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["methods"]["only_in_a"], serde_json::json!([]));
    assert_eq!(json["edges"]["only_in_b"], 0);
}

#[test]
fn reads_csv_reports_by_any_of_their_files() {
    let dir = std::fs::read_dir("tests/data/generated/csv-25").unwrap();
    let csv = dir
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("call_tree_methods"))
        .unwrap();
    let csv = csv.to_str().unwrap();
    let out = tool().run(&[csv, csv]);
    expect(&out, 0, "calltree-diff", csv);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["methods"]["only_in_b"], serde_json::json!([]));
}
