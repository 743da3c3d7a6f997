//! The `calltree` example as a person runs it: its manners, its counts on real reports
//! (checked against the graph model), and exit 1 on reports cut off mid-line.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use pointsto::call_tree::{CallGraph, InvokeKind};
use testkit::cli::{Example, Inputs, assert_error_names, expect};

const REPORT: &str = "tests/data/generated/call_tree_hello_20240918_120000.txt";

fn tool() -> Example {
    Example::new("pointsto", "calltree")
}

#[test]
fn manners() {
    tool().check_manners(&Inputs {
        good: &[REPORT],
        foreign: "tests/data/generated/object_tree_sample_20240918_120000.txt",
        big_output: &[REPORT],
    });
}

#[test]
fn counts_match_the_graph_model() {
    for report in [
        REPORT,
        "tests/data/generated/call_tree_hello_20251101_000001.txt",
        "tests/data/generated/call_tree_hello-crlf_20220615_080000.txt",
        "tests/data/generated/call_tree_mangled_20250320_235959.txt",
    ] {
        let out = tool().run(&[report]);
        expect(&out, 0, "calltree", report);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let graph = CallGraph::parse_txt(&std::fs::read(report).unwrap()).unwrap();
        assert_eq!(json["entry_points"], graph.entry_points.len(), "{report}");
        assert_eq!(json["methods"], graph.methods.len(), "{report}");
        let direct = graph
            .invokes
            .iter()
            .filter(|i| i.kind == InvokeKind::Direct)
            .count();
        assert_eq!(json["direct_calls"], direct, "{report}");
        let virtual_calls = graph
            .invokes
            .iter()
            .filter(|i| i.kind == InvokeKind::Virtual)
            .count();
        assert_eq!(json["virtual_calls"], virtual_calls, "{report}");
        assert_eq!(
            json["overrides"],
            graph.override_edges().count(),
            "{report}"
        );
    }
    // The real fragment quoted in oracle/graal#3166.
    let out = tool().run(&["tests/data/EXCERPT_oracle-graal-issue-3166_call_tree_fragment.txt"]);
    expect(&out, 0, "calltree", "the #3166 fragment");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["entry_points"], 1);
    assert_eq!(json["direct_calls"], 2);
}

#[test]
fn cut_off_reports_exit_1_with_the_position() {
    let bytes = std::fs::read(REPORT).unwrap();
    let dir = testkit::TempDir::new("calltree-cli");
    let reason = bytes.windows(11).position(|w| w == b"(Main.java:").unwrap() + 11;
    for (name, cut, position) in [
        ("v.txt", 1, "1:2: "),
        ("reason.txt", reason, "2:"),
        ("header-only.txt", 16, "2:1: expected a tree line"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let path = path.to_str().unwrap();
        let out = tool().run(&[path]);
        expect(&out, 1, "calltree", name);
        assert_error_names(&out, path, "calltree");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(&format!("error: {path}: {position}")),
            "{name}: {err}"
        );
        assert!(out.stdout.is_empty(), "{name}");
    }
}
