//! The `hprof-txt` example's contract on the three real fixtures: exact JSON keys and
//! counts (computed independently with grep/awk when the fixtures were added), and `--rewrite`
//! producing a byte-identical copy.

use hprof::ascii::Report;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "../examples/hprof-txt.rs"]
mod hprof_txt;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ascii")
        .join(name)
}

fn expected() -> Vec<(&'static str, Value)> {
    let none = json!({ "total": 0, "rows": 0 });
    let no_heap = json!({ "roots": 0, "classes": 0, "objects": 0, "arrays": 0 });
    vec![
        (
            "SimNet_java.hprof.txt",
            json!({
                "threads_started": 7, "threads_ended": 2, "traces": 97, "frames": 374,
                "cpu_samples": { "total": 227, "rows": 91 }, "cpu_time": none,
                "sites": { "rows": 0 }, "heap_dump": no_heap,
                "monitor_dump": { "threads": 0, "monitors": 0 }, "monitor_time": { "rows": 0 },
                "truncated": false
            }),
        ),
        (
            "jvm-in-action_java.hprof.txt",
            json!({
                "threads_started": 3, "threads_ended": 3, "traces": 46, "frames": 169,
                "cpu_samples": none, "cpu_time": { "total": 11279, "rows": 46 },
                "sites": { "rows": 0 }, "heap_dump": no_heap,
                "monitor_dump": { "threads": 0, "monitors": 0 }, "monitor_time": { "rows": 0 },
                "truncated": false
            }),
        ),
        (
            "optimization_java.hprof.txt",
            json!({
                "threads_started": 3, "threads_ended": 3, "traces": 473, "frames": 1805,
                "cpu_samples": none, "cpu_time": none,
                "sites": { "rows": 596 },
                "heap_dump": { "roots": 1519, "classes": 558, "objects": 3060, "arrays": 2058 },
                "monitor_dump": { "threads": 0, "monitors": 0 }, "monitor_time": { "rows": 0 },
                "truncated": false
            }),
        ),
    ]
}

#[test]
fn summary_matches_independent_counts() {
    for (name, want) in expected() {
        let bytes = std::fs::read(data(name)).unwrap();
        let report = Report::parse(&bytes).unwrap();
        assert_eq!(hprof_txt::summary(&report), want, "{name}");
    }
}

/// Runs the example binary (built first if `cargo test` has not built it).
#[test]
fn example_binary_prints_contract_and_rewrites_identically() {
    // Built from the current sources (testkit reuses a binary that exists, which may be stale).
    let exe = std::env::current_exe().unwrap();
    let release = exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .is_some_and(|n| n == "release");
    let mut cmd = std::process::Command::new(env!("CARGO"));
    cmd.args([
        "build",
        "-q",
        "-p",
        "hprof-format",
        "--example",
        "hprof-txt",
    ]);
    if release {
        cmd.arg("--release");
    }
    assert!(cmd.status().unwrap().success(), "building hprof-txt");
    let bin = testkit::cli::Example::new("hprof-format", "hprof-txt").path();
    let tmp = testkit::TempDir::new("hprof-txt-test");
    for (name, want) in expected() {
        let out_file = tmp.join(name);
        let out = std::process::Command::new(&bin)
            .arg(data(name))
            .arg("--rewrite")
            .arg(&out_file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        let keys: Vec<&String> = got.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 13, "{name}: {keys:?}");
        let mut want = want;
        want["partial"] = json!(false);
        want["problems"] = json!([]);
        assert_eq!(got, want, "{name}");
        assert_eq!(
            std::fs::read(&out_file).unwrap(),
            std::fs::read(data(name)).unwrap(),
            "{name}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
