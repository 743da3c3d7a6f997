//! The `er-summary` contract: on every fixture the totals equal gprofng's own reports
//! (header, `-heap`, `-functions`, `-iostat`, `-exp_list`, `d*` packet counts).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{CASES, data, run_example};
use serde_json::Value;

fn text(case: &str, file: &str) -> Option<String> {
    std::fs::read_to_string(data().join(case).join(file)).ok()
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let rest = &s[s
        .find(start)
        .unwrap_or_else(|| panic!("`{start}` not in {s}"))
        + start.len()..];
    &rest[..rest.find(end).unwrap()]
}

/// `<Total>` line of a functions/heap report: its numbers.
fn total_line(s: &str) -> Vec<f64> {
    let line = s
        .lines()
        .find(|l| l.trim_end().ends_with("<Total>"))
        .unwrap();
    line.split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

#[test]
fn every_fixture_matches_gprofng_reports() {
    for case in CASES {
        let dir = data().join(case).join("test.1.er");
        let out = run_example("er-summary", &[dir.to_str().unwrap()]);
        let s: Value = serde_json::from_str(&out).unwrap();
        let full = text(case, "header.txt").unwrap();
        // The founder's section only (descendants follow under their own `Experiment:` lines).
        let header = full.split("\nExperiment: ").next().unwrap().to_owned();

        // Header facts.
        let ended: f64 = between(&header, "Experiment Ended: ", "\n")
            .trim()
            .parse()
            .unwrap();
        assert!(
            (s["duration_s"].as_f64().unwrap() - ended).abs() < 1e-9,
            "{case}: duration"
        );
        let pid: u64 = between(&header, "Process pid ", ",").parse().unwrap();
        assert_eq!(s["pid"].as_u64().unwrap(), pid, "{case}: pid");
        assert_eq!(
            s["command"].as_str().unwrap(),
            between(&header, "(64-bit): '", "'\n"),
            "{case}: command"
        );
        assert_eq!(
            s["host"].as_str().unwrap(),
            between(&header, "Host `", "'"),
            "{case}"
        );
        assert_eq!(
            s["arch"].as_str().unwrap(),
            between(&header, "architecture `", "'"),
            "{case}"
        );
        assert_eq!(
            s["collector"].as_str().unwrap(),
            between(&header, "Collector version: `", "'"),
            "{case}"
        );
        assert_eq!(
            s["version"].as_str().unwrap(),
            between(&header, "experiment version ", " ("),
            "{case}"
        );
        let warnings = header.matches("*** Collector Warning").count();
        assert_eq!(
            s["warnings"].as_array().unwrap().len(),
            warnings,
            "{case}: warnings"
        );
        assert!(header.contains("No errors"));
        assert_eq!(s["errors"].as_array().unwrap().len(), 0, "{case}: errors");
        assert_eq!(s["incomplete"], Value::Bool(false), "{case}");
        assert_eq!(s["bad_packets"].as_u64().unwrap(), 0, "{case}");

        // Packets per kind = the founder's `Total … Packets: N Experiment: test.1.er` lines.
        for (file, kind) in [
            ("dprofile.txt", "clock"),
            ("dheap.txt", "heap"),
            ("dsync.txt", "sync"),
            ("diotrace.txt", "io"),
        ] {
            let Some(t) = text(case, file) else { continue };
            let n: u64 = t
                .lines()
                .filter(|l| {
                    l.starts_with("Total ") && l.trim_end().ends_with("Experiment:  test.1.er")
                })
                .map(|l| {
                    between(l, "Packets:", "Experiment")
                        .trim()
                        .parse::<u64>()
                        .unwrap()
                })
                .sum();
            assert_eq!(
                s["data"][kind].as_u64().unwrap_or(0),
                n,
                "{case}: {kind} packets"
            );
        }

        // Heap: `-heap` <Total>.
        if let Some(h) = text(case, "heap.txt") {
            let alloc = between(&h, "<Total>\nInstances = ", "\n");
            let leak = between(&h, "Bytes Allocated", "Bytes Leaked = ");
            let nums = |s: &str| -> Vec<u64> {
                s.split(|c: char| !c.is_ascii_digit())
                    .filter_map(|w| w.parse().ok())
                    .collect()
            };
            let a = nums(alloc);
            assert_eq!(s["heap"]["allocations"].as_u64().unwrap(), a[0], "{case}");
            assert_eq!(
                s["heap"]["bytes_allocated"].as_u64().unwrap(),
                a[1],
                "{case}"
            );
            let leaks: u64 = nums(leak).last().copied().unwrap();
            let bytes: u64 = between(&h, "Bytes Leaked = ", "\n").trim().parse().unwrap();
            assert_eq!(s["heap"]["leaks"].as_u64().unwrap(), leaks, "{case}");
            assert_eq!(s["heap"]["bytes_leaked"].as_u64().unwrap(), bytes, "{case}");
        }

        let functions = text(case, "functions.txt").unwrap_or_default();
        // Sync: `-functions` <Total> wait seconds and count.
        if case == "sync_all" {
            let t = total_line(&functions);
            assert_eq!(s["sync"]["events"].as_u64().unwrap(), t[1] as u64);
            let ms = (s["sync"]["wait_ns"].as_u64().unwrap() as f64 / 1e6).round() / 1e3;
            assert!((ms - t[0]).abs() < 1e-9, "{ms} vs {}", t[0]);
        }
        // I/O: `-iostat` read + write bytes.
        if let Some(io) = text(case, "iostat.txt") {
            let bytes: u64 = io
                .lines()
                .filter(|l| l.starts_with("Total bytes"))
                .map(|l| l.split_whitespace().last().unwrap().parse::<u64>().unwrap())
                .sum();
            assert_eq!(s["io"]["bytes"].as_u64().unwrap(), bytes, "{case}");
        }
        // Clock: `-functions` <Total> CPU seconds = ticks × ptimer (single-experiment cases).
        if matches!(case, "clock_basic" | "dynfunc_api") {
            let ticks: u64 = s["clock"]["ticks_by_thread"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum();
            let secs = ((ticks * 10_007) as f64 / 1e3).round() / 1e3;
            assert!(
                (secs - total_line(&functions)[0]).abs() < 1e-9,
                "{case}: {secs}"
            );
        }

        // Descendants with data = `-exp_list` minus the founder, in the same order.
        let listed: Vec<String> = text(case, "exp_list.txt")
            .unwrap()
            .lines()
            .filter_map(|l| {
                l.split_whitespace()
                    .last()?
                    .strip_prefix("test.1.er/")
                    .map(str::to_owned)
            })
            .collect();
        let ours: Vec<String> = s["descendants"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["has_data"].as_bool().unwrap())
            .map(|d| d["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ours, listed, "{case}: descendants");
    }
}
