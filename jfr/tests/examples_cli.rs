//! The jfr examples as a person runs them: their manners (`--help`, `--version`, exit 2 on a
//! bad flag, `error: PATH: reason` and exit 1 on a missing, empty or foreign file, quiet on a
//! closed pipe), their answers on real recordings, and exit 3 with `warning: PATH: partial: …`
//! and every event before the cut on a recording cut mid-chunk.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use testkit::TempDir;
use testkit::cli::{Example, Inputs, expect};

const PACKAGE: &str = "jfr-format";
const CPU: &str = "tests/data/cpu-default.jfr";
const CHUNKS: &str = "tests/data/alloc-chunks.jfr";
const FOREIGN: &str = "../hprof/tests/data/binary/heapgen_jdk17.hprof";

fn example(name: &'static str) -> Example {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        let exe = std::env::current_exe().unwrap();
        let release = exe
            .parent()
            .and_then(std::path::Path::parent)
            .and_then(std::path::Path::file_name)
            .is_some_and(|n| n == "release");
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.args(["build", "-q", "-p", PACKAGE, "--examples"]);
        if release {
            cmd.arg("--release");
        }
        assert!(cmd.status().unwrap().success(), "building the examples");
    });
    Example::new(PACKAGE, name)
}

/// The first `len` bytes of `path`, written to a scratch file: its directory (removed when
/// dropped) and its path.
fn cut_copy(path: &str, len: usize, name: &str) -> (TempDir, String) {
    let data = std::fs::read(path).unwrap();
    let dir = TempDir::new("jfr-cli");
    let p = dir.join(name);
    std::fs::write(&p, &data[..len]).unwrap();
    let p = p.to_str().unwrap().to_owned();
    (dir, p)
}

#[test]
fn manners() {
    example("jfr-print").check_manners(&Inputs {
        good: &[CPU],
        foreign: FOREIGN,
        big_output: &[CPU],
    });
    example("jfr-summary").check_manners(&Inputs {
        good: &[CPU],
        foreign: FOREIGN,
        big_output: &[CPU],
    });
    let folded = ["--event", "jdk.ExecutionSample", CPU];
    example("jfr-folded").check_manners(&Inputs {
        good: &folded,
        foreign: FOREIGN,
        big_output: &folded,
    });
}

#[test]
fn summary_counts_every_event() {
    let out = example("jfr-summary").run(&[CHUNKS]);
    expect(&out, 0, "jfr-summary", CHUNKS);
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let find = |t: &str| {
        rows.iter()
            .find(|r| r["type"] == t)
            .unwrap_or_else(|| panic!("{t} missing"))
    };
    assert_eq!(find("jdk.GCPhaseParallel")["count"], 24280);
    assert_eq!(find("jdk.GCPhaseParallel")["bytes"], 632_378);
    assert_eq!(find("jdk.Metadata")["count"], 2);
}

#[test]
fn print_filters_and_cuts_stacks() {
    let out = example("jfr-print").run(&["--events", "ExecutionSample", CPU]);
    expect(&out, 0, "jfr-print", CPU);
    let text = String::from_utf8(out.stdout).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 115);
    for e in &events {
        assert_eq!(e["type"], "jdk.ExecutionSample");
        let frames = e["values"]["stackTrace"]["frames"].as_array().unwrap();
        assert!(!frames.is_empty() && frames.len() <= 5);
        let kind = frames[0]["type"].as_str().unwrap();
        assert!(
            ["Interpreted", "JIT compiled", "Inlined", "Native"].contains(&kind),
            "{kind}"
        );
    }
}

#[test]
fn folded_weights() {
    let out = example("jfr-folded").run(&["--event", "ExecutionSample", CPU]);
    expect(&out, 0, "jfr-folded", CPU);
    let text = String::from_utf8(out.stdout).unwrap();
    let total: i64 = text
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(total, 115);
    assert!(
        text.lines().any(|l| l.starts_with("Cpu.main;Cpu.primes ")),
        "{text}"
    );
}

#[test]
fn cut_recordings_are_partial() {
    let len = std::fs::metadata(CHUNKS).unwrap().len() as usize;
    // In the second chunk: the first is printed whole, the second up to the cut.
    let (_dir, cut) = cut_copy(CHUNKS, len - 100_000, "cut.jfr");
    for (name, args) in [
        ("jfr-print", vec![cut.as_str()]),
        ("jfr-summary", vec![cut.as_str()]),
        (
            "jfr-folded",
            vec!["--event", "jdk.ObjectAllocationSample", cut.as_str()],
        ),
    ] {
        let out = example(name).run(&args);
        expect(&out, 3, name, "a cut recording");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("warning: {cut}: partial: truncated")),
            "{name}: {err}"
        );
        assert!(!out.stdout.is_empty(), "{name} printed nothing");
    }
    let whole = example("jfr-print").run(&[CHUNKS]);
    let cut_out = example("jfr-print").run(&[cut.as_str()]);
    let (whole, cut_out) = (
        String::from_utf8(whole.stdout).unwrap(),
        String::from_utf8(cut_out.stdout).unwrap(),
    );
    let (w, c) = (whole.lines().count(), cut_out.lines().count());
    assert!(c > 50_000 && c < w, "{c} of {w} events");
    // Inside the first chunk's header: nothing to print, an error.
    let (_dir, tiny) = cut_copy(CHUNKS, 40, "tiny.jfr");
    let out = example("jfr-summary").run(&[tiny.as_str()]);
    expect(&out, 1, "jfr-summary", "a cut header");
}
