//! The `iprof-stats` example's contract: its JSON keys, `--top`, and the exit code and
//! line:column message on malformed input. `cargo test` builds the example next to the test
//! binaries (`target/<profile>/examples/`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] fns

use std::path::PathBuf;
use std::process::{Command, Output};

fn example() -> PathBuf {
    // target/<profile>/deps/stats_example-… → target/<profile>/examples/iprof-stats
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap();
    dir.join("examples")
        .join(format!("iprof-stats{}", std::env::consts::EXE_SUFFIX))
}

fn run(args: &[&str]) -> Output {
    let exe = example();
    if !exe.exists() {
        // `cargo test --test stats_example` alone does not build examples: build it.
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "iprof", "--example", "iprof-stats"])
            .status()
            .unwrap();
        assert!(status.success());
    }
    Command::new(exe)
        .args(args)
        .output()
        .expect("the iprof-stats example runs")
}

#[test]
fn stats_of_a_real_extract() {
    let out = run(&[
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof",
        "--top",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    for key in [
        "version",
        "types",
        "methods",
        "callCountProfiles",
        "conditionalProfiles",
        "virtualInvokeProfiles",
        "monitorProfiles",
        "samplingProfiles",
        "instanceofProfiles",
        "totalCalls",
        "maxContextDepth",
        "validation",
        "top",
    ] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
    assert_eq!(v["version"], "0.4.0");
    assert_eq!(v["types"], 77);
    assert_eq!(v["callCountProfiles"], 12);
    assert_eq!(v["conditionalProfiles"], 12);
    assert_eq!(v["samplingProfiles"], 2);
    // A real extract: every id resolves, nothing to report.
    let validation = v["validation"].as_object().unwrap();
    assert_eq!(validation.len(), iprof::IssueKind::ALL.len());
    assert!(validation.values().all(|n| n == 0), "{validation:?}");
    let top = v["top"].as_array().unwrap();
    assert_eq!(top.len(), 2);
    assert!(top[0]["calls"].as_i64().unwrap() >= top[1]["calls"].as_i64().unwrap());
    assert!(
        !top[0]["name"].as_str().unwrap().contains("<method"),
        "{}",
        top[0]
    );
}

#[test]
#[cfg(feature = "gzip")]
fn stats_of_gzip_input() {
    let out = run(&["tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof.gz"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "0.2.0");
    assert_eq!(v["callCountProfiles"], 10);
}

#[test]
fn stats_without_top_and_on_stubbed_metadata() {
    let out = run(&["tests/data/stub-metadata_v1.0.0.handmade.iprof"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("top").is_none());
    assert_eq!(v["totalCalls"], 34_303_903_801_140_i64);
    assert_eq!(v["maxContextDepth"], 3);
    assert_eq!(v["validation"]["danglingMethodId"], 7);
}

#[test]
fn malformed_input_fails_with_line_and_column() {
    let dir = std::env::temp_dir().join(format!("iprof-stats-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.iprof");
    std::fs::write(&path, "{\n  \"version\": \"1.0.0\",\n  \"types\": [ {\"id\": 1, \"name\": \"x\"} ]\n  \"methods\": []\n}").unwrap();
    let out = run(&[path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: ")
            && err.contains("bad.iprof: 4:3: expected ',' or '}', found the string \"methods\""),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
