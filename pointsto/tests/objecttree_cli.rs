//! The `objecttree` example as a person runs it: its manners, its counts on real reports
//! (checked against the tree model), and exit 1 on a report cut off mid-line.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use pointsto::object_tree::{ObjectEntry, ObjectTree};
use testkit::cli::{Example, Inputs, assert_error_names, expect};

const REPORT: &str = "tests/data/generated/object_tree_sample_20240918_120000.txt";

fn tool() -> Example {
    Example::new("pointsto", "objecttree")
}

#[test]
fn manners() {
    tool().check_manners(&Inputs {
        good: &[REPORT],
        foreign: "tests/data/generated/call_tree_hello_20240918_120000.txt",
        big_output: &[REPORT],
    });
}

#[test]
fn counts_match_the_tree_model() {
    for report in [
        REPORT,
        "tests/data/generated/object_tree_hello_20220615_080000.txt",
        "tests/data/generated/object_tree_hello-mangled_20210101_000000.txt",
        "tests/data/generated/object_tree_hello_20250320_235959.txt",
    ] {
        let out = tool().run(&[report]);
        expect(&out, 0, "objecttree", report);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let tree = ObjectTree::parse(&std::fs::read(report).unwrap()).unwrap();
        assert_eq!(json["roots"], tree.roots().count(), "{report}");
        assert_eq!(json["values"], tree.values.len(), "{report}");
        let nulls = tree
            .nodes
            .iter()
            .filter(|n| matches!(n.entry, ObjectEntry::FieldNull { .. }))
            .count();
        assert_eq!(json["null_fields"], nulls, "{report}");
        let depth = tree.nodes.iter().map(|n| n.depth).max().unwrap();
        assert_eq!(json["max_depth"], depth, "{report}");
    }
}

#[test]
fn cut_off_report_exits_1_with_the_position() {
    let bytes = std::fs::read(REPORT).unwrap();
    let cut = bytes
        .windows(15)
        .position(|w| w == b"java.lang.Integ")
        .unwrap()
        + 15;
    let dir = testkit::TempDir::new("objecttree-cli");
    let path = dir.join("cut.txt");
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let path = path.to_str().unwrap();
    let out = tool().run(&[path]);
    expect(&out, 1, "objecttree", "a cut report");
    assert_error_names(&out, path, "objecttree");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("error: {path}: 2:")), "{err}");
    assert!(err.contains("found the end of the input"), "{err}");
}
