//! The `iprof-stats` example's contract: its JSON keys, `--top`, gzip and xz input, its manners
//! as a tool (testkit::cli), and the exit code and `error: PATH: line:column` message on
//! malformed input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] fns

use std::process::{Command, Output};
use std::sync::Once;

use testkit::cli::Example;

/// The example, built once per test run with this test's features (a binary left by a build
/// with other features would answer for them).
fn tool() -> Example {
    static BUILD: Once = Once::new();
    BUILD.call_once(|| {
        let features: Vec<&str> = [
            ("serde", cfg!(feature = "serde")),
            ("gzip", cfg!(feature = "gzip")),
            ("xz", cfg!(feature = "xz")),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "-q", "-p", "iprof", "--example", "iprof-stats"])
            .args(["--no-default-features", "--features", &features.join(",")]);
        let profile_dir = std::env::current_exe().unwrap();
        if profile_dir.to_string_lossy().contains("/release/") {
            cmd.arg("--release");
        }
        assert!(cmd.status().unwrap().success(), "building iprof-stats");
    });
    Example::new("iprof", "iprof-stats")
}

fn run(args: &[&str]) -> Output {
    tool().run(args)
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
    let dir = testkit::TempDir::new("iprof-stats-test");
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
}

/// The manners every example keeps: `--help`, `--version`, exit 2 on a bad flag, `error: PATH:
/// reason` and exit 1 on a missing, empty or foreign file, quiet on a closed pipe.
#[test]
fn behaves_like_a_tool() {
    let tool = tool();
    tool.check_manners(&testkit::cli::Inputs {
        good: &["tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof"],
        foreign: "../hprof/tests/data/binary/hprof-slurp_hprof-32.hprof",
        big_output: &[
            "--top",
            "1000",
            "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof",
        ],
    });
    // Another format that is text: the error gives line:column.
    let out = tool.run(&["../callctx/tests/data/contexts-v0.4.0.txt"]);
    testkit::cli::expect(&out, 1, "iprof-stats", "a text file of another format");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: ../callctx/tests/data/contexts-v0.4.0.txt: 1:1: expected '{'"),
        "{err}"
    );
    // A usage error: a missing value, a second file, a bad number.
    for args in [&["--top"][..], &["a", "b"], &["--top", "x", "a"], &[]] {
        let out = tool.run(args);
        testkit::cli::expect(&out, 2, "iprof-stats", &format!("{args:?}"));
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage: iprof-stats"));
        assert!(out.stdout.is_empty());
    }
}

#[test]
#[cfg(feature = "xz")]
fn stats_of_xz_input_and_of_a_bomb() {
    let out = run(&["tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof.xz"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "0.2.0");
    assert_eq!(v["callCountProfiles"], 10);
    // 64 MiB of zeros decompress within the limit, and are not JSON.
    let out = run(&["tests/data/zeros-64MiB.handmade.xz"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: tests/data/zeros-64MiB.handmade.xz: 1:1: not a JSON profile"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// A cut-off compressed file: the error names the file and the offset in the compressed data.
#[test]
#[cfg(feature = "gzip")]
fn truncated_gzip_names_file_and_offset() {
    let dir = testkit::TempDir::new("iprof-stats-gz");
    let gz = std::fs::read(
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof.gz",
    )
    .unwrap();
    let path = dir.join("cut.iprof.gz");
    std::fs::write(&path, &gz[..gz.len() / 2]).unwrap();
    let out = run(&[path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "error: {}: byte {} of the gzip data: truncated deflate data",
        path.display(),
        gz.len() / 2
    );
    assert!(err.starts_with(&expected), "{err}");
    assert!(out.stdout.is_empty());
}
