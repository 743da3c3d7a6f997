//! The `er-dump` contract: on every fixture, packets per kind and their tstamp, thread, cpu and
//! frame count equal gprofng's `-dprofile/-dheap/-dsync/-diotrace` dumps.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{CASES, data, run_example};
use std::collections::BTreeMap;

/// (experiment, kind) → sorted (tstamp, thread, cpu, frames).
type Table = BTreeMap<(String, String), Vec<(u64, u64, u64, u64)>>;

/// Per packet of our output: does its Java stack hold a native-method frame (bci −3)?
type NativeMethod = BTreeMap<u64, bool>;

/// Parses a gprofng `-d<kind>` dump: `#  N: TSTAMP, rel (abs) t = T, cpu = C, frames = F`,
/// sections headed by `Total … Packets: N Experiment: test.1.er[/_f1.er]`.
fn parse_dump(text: &str, kind: &str, table: &mut Table) {
    let mut exp = ".".to_owned();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Total ") {
            let name = rest.rsplit("Experiment:").next().unwrap().trim();
            exp = name
                .strip_prefix("test.1.er/")
                .map_or(".".to_owned(), str::to_owned);
            let n: usize = rest
                .split("Packets:")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap();
            table
                .entry((exp.clone(), kind.to_owned()))
                .or_default()
                .reserve(n);
            continue;
        }
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(':') else {
            continue;
        };
        let tstamp: u64 = rest.split(',').next().unwrap().trim().parse().unwrap();
        let num = |key: &str| -> u64 {
            let v = rest.split(key).nth(1).unwrap();
            v.trim_start()
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        table
            .entry((exp.clone(), kind.to_owned()))
            .or_default()
            .push((tstamp, num("t ="), num("cpu ="), num("frames =")));
    }
}

fn reference(case: &str) -> Table {
    let mut table = Table::new();
    for (file, kind) in [
        ("dprofile.txt", "clock"),
        ("dheap.txt", "heap"),
        ("dsync.txt", "sync"),
        ("diotrace.txt", "io"),
    ] {
        if let Ok(text) = std::fs::read_to_string(data().join(case).join(file)) {
            parse_dump(&text, kind, &mut table);
        }
    }
    for v in table.values_mut() {
        v.sort_unstable();
    }
    table.retain(|_, v| !v.is_empty());
    table
}

fn ours(case: &str) -> (Table, NativeMethod) {
    let dir = data().join(case).join("test.1.er");
    let out = run_example(
        "er-dump",
        &[dir.to_str().unwrap(), "--kind", "all", "--descendants"],
    );
    let mut table = Table::new();
    let mut native = NativeMethod::new();
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(java) = v["java"].as_array() {
            let has = java.iter().any(|f| f[1].as_i64() == Some(-3));
            *native.entry(v["tstamp"].as_u64().unwrap()).or_default() |= has;
        }
        let key = (
            v["exp"].as_str().unwrap().to_owned(),
            v["kind"].as_str().unwrap().to_owned(),
        );
        let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {line}"));
        table
            .entry(key)
            .or_default()
            .push((n("tstamp"), n("thread"), n("cpu"), n("frames")));
        assert!(v["fields"].is_object() && v["stack"].is_array());
    }
    for v in table.values_mut() {
        v.sort_unstable();
    }
    (table, native)
}

#[test]
fn every_fixture_matches_gprofng_dumps() {
    let mut checked = 0;
    let mut spliced = 0;
    for case in CASES {
        let want = reference(case);
        let (got, native) = ours(case);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{case}: kinds"
        );
        for (k, w) in &want {
            let g = &got[k];
            assert_eq!(g.len(), w.len(), "{case} {k:?}: packet count");
            for (a, b) in g.iter().zip(w) {
                assert_eq!(
                    (a.0, a.1, a.2),
                    (b.0, b.1, b.2),
                    "{case} {k:?}: (tstamp, thread, cpu)"
                );
                // gprofng's user view splices JNI native frames under `<Java native method>`
                // frames by rules we do not reproduce; every other stack must match exactly.
                if native.get(&a.0).copied().unwrap_or(false) {
                    spliced += usize::from(a.3 != b.3);
                } else {
                    assert_eq!(a.3, b.3, "{case} {k:?}: frames of packet {}", a.0);
                }
            }
            checked += w.len();
        }
    }
    assert!(checked > 2100, "only {checked} packets checked");
    assert!(spliced <= 96, "{spliced} Java stacks differ");
}

#[test]
fn kind_filter_selects_one_kind() {
    let dir = data().join("descendants/test.1.er");
    let out = run_example("er-dump", &[dir.to_str().unwrap(), "--kind", "heap"]);
    assert_eq!(out.lines().count(), 1);
    assert!(out.contains("\"kind\":\"heap\""));
    assert!(out.contains("\"HSIZE\""));
}
