//! Conformance with the JDK's own tools on every committed recording: `jfr print --json`
//! event by event and field by field (every resolved stack frame: `--stack-depth 64` on both
//! sides, deeper than any recorded stack), and `jfr summary`'s counts and sizes per type.
//!
//! Needs the JDK's `jfr` (on PATH, or `$JAVA_HOME/bin/jfr`); without it the tests fail with a
//! message saying so. Normalisations, each because the two sides cannot print the same text:
//! - numbers are compared as numbers (Java's `Double.toString` writes `1.0E-5` where Rust
//!   writes `1e-5`; both read back to the same `f64`);
//! - times of a chunk whose metadata is the previous chunk's: JDK 17 reuses the previous
//!   chunk's parsers, and with them that chunk's clock, so its times of later chunks are off
//!   by the drift between the two chunks' clocks (a few microseconds). We convert with each
//!   chunk's own clock; the test allows exactly that drift (computed from the two headers,
//!   plus a nanosecond of rounding) on those chunks' timestamps.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;
use std::process::Command;

use jfr::json::{EventPrinter, JsonOptions, write_event};
use serde_json::Value as Json;

fn recordings() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/data")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jfr"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 9,
        "the committed recordings are missing: {files:?}"
    );
    files
}

fn jfr_tool() -> PathBuf {
    let candidates = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/jfr"))
        .into_iter()
        .chain(std::env::var_os("PATH").into_iter().flat_map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("jfr"))
                .collect::<Vec<_>>()
        }));
    for c in candidates {
        if c.is_file() {
            return c;
        }
    }
    panic!(
        "the JDK's `jfr` tool is needed (JDK 17: on PATH or in $JAVA_HOME/bin) and was not found"
    );
}

fn run_jfr(args: &[&str]) -> String {
    let out = Command::new(jfr_tool())
        .args(args)
        .output()
        .expect("running jfr");
    assert!(
        out.status.success(),
        "jfr {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Nanoseconds since the epoch of a UTC time as `jfr print` writes it.
fn parse_utc(s: &str) -> Option<i128> {
    let s = s.strip_suffix('Z')?;
    let (date, time) = s.split_once('T')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>().ok());
    let (y, m, dd) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.split(':').map(|x| x.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next().flatten().unwrap_or(0));
    let nanos: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    // days from civil (proleptic Gregorian)
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + dd - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((i128::from(days * 86_400 + hh * 3600 + mm * 60 + ss)) * 1_000_000_000 + i128::from(nanos))
}

/// The first difference between the JDK's value and ours, as a path and the two values.
fn diff(theirs: &Json, ours: &Json, path: &str, drift: i128) -> Option<String> {
    match (theirs, ours) {
        (Json::Number(a), Json::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            (!same).then(|| format!("{path}: {a} != {b}"))
        }
        (Json::String(a), Json::String(b)) if a != b => {
            let close = drift > 0
                && matches!((parse_utc(a), parse_utc(b)), (Some(x), Some(y)) if (x - y).abs() <= drift);
            (!close).then(|| format!("{path}: {a:?} != {b:?}"))
        }
        (Json::Object(a), Json::Object(b)) => {
            let (ka, kb): (Vec<_>, Vec<_>) = (a.keys().collect(), b.keys().collect());
            if ka != kb {
                return Some(format!("{path}: fields {ka:?} != {kb:?}"));
            }
            a.iter()
                .find_map(|(k, v)| diff(v, &b[k], &format!("{path}.{k}"), drift))
        }
        (Json::Array(a), Json::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{path}: {} elements != {}", a.len(), b.len()));
            }
            a.iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| diff(x, y, &format!("{path}[{i}]"), drift))
        }
        (a, b) => (a != b).then(|| format!("{path}: {a} != {b}")),
    }
}

/// Our events of `data` as `jfr print --json` orders them (each chunk's by end time), each
/// with the timestamp drift the JDK's clock reuse allows it.
fn ours(data: &[u8], options: &JsonOptions) -> Vec<(Json, i128)> {
    let mut out = Vec::new();
    let mut clock: Option<(i64, jfr::ChunkHeader)> = None;
    for chunk in jfr::Chunks::new(data) {
        let chunk = chunk.unwrap();
        assert!(chunk.cut().is_none());
        // The clock JDK 17 converts this chunk's ticks with: the first chunk's of a run of
        // chunks sharing one metadata id.
        let jdk_clock = match clock {
            Some((id, h)) if id == chunk.metadata.id => h,
            _ => chunk.header,
        };
        clock = Some((chunk.metadata.id, jdk_clock));
        let drift = if jdk_clock == chunk.header {
            0
        } else {
            let h = &chunk.header;
            let since = (h.start_ticks - jdk_clock.start_ticks) as f64
                / (jdk_clock.ticks_per_second as f64 / 1e9);
            let jdk = i128::from(jdk_clock.start_nanos) + since as i128;
            (i128::from(h.start_nanos) - jdk).abs() + 2
        };
        let mut events: Vec<_> = chunk.events().map(|e| e.unwrap()).collect();
        events.sort_by_key(|e| e.start_end_ticks().unwrap().1);
        let mut printer = EventPrinter::new(&chunk, *options);
        for (i, e) in events.into_iter().enumerate() {
            let mut line = String::new();
            printer.write(&e, &mut line).unwrap();
            if i % 97 == 0 {
                // The printer's reuse of rendered constants changes nothing.
                let mut fresh = String::new();
                write_event(&e, options, &mut fresh).unwrap();
                assert_eq!(line, fresh);
            }
            out.push((
                serde_json::from_str(&line).unwrap_or_else(|err| panic!("{err}: {line}")),
                drift,
            ));
        }
    }
    out
}

#[test]
fn print_json_matches_the_jdk_on_every_recording() {
    let options = JsonOptions { stack_depth: 64 };
    let mut compared = 0;
    for file in recordings() {
        let path = file.to_str().unwrap();
        let theirs: Json =
            serde_json::from_str(&run_jfr(&["print", "--json", "--stack-depth", "64", path]))
                .unwrap();
        let theirs = theirs["recording"]["events"].as_array().unwrap();
        let data = std::fs::read(&file).unwrap();
        let ours = ours(&data, &options);
        assert_eq!(theirs.len(), ours.len(), "{path}: event count");
        for (i, (t, (o, drift))) in theirs.iter().zip(&ours).enumerate() {
            if let Some(d) = diff(t, o, "", *drift) {
                panic!("{path}: event {i} ({}) differs at {d}", t["type"]);
            }
        }
        compared += ours.len();
    }
    assert!(compared > 100_000, "only {compared} events compared");
}

#[test]
fn summary_matches_the_jdk_on_every_recording() {
    for file in recordings() {
        let path = file.to_str().unwrap();
        let text = run_jfr(&["summary", path]);
        let mut theirs: Vec<(String, u64, u64)> = text
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                let (name, count, bytes) = (w.next()?, w.next()?, w.next()?);
                (name.starts_with("jdk.") && w.next().is_none())
                    .then(|| Some((name.to_owned(), count.parse().ok()?, bytes.parse().ok()?)))?
            })
            .collect();
        let data = std::fs::read(&file).unwrap();
        let mut stats = std::collections::BTreeMap::<String, (u64, u64)>::new();
        for chunk in jfr::Chunks::new(&data) {
            let chunk = chunk.unwrap();
            for class in chunk.metadata.event_types() {
                stats.entry(class.name.clone()).or_default();
            }
            for e in chunk.records() {
                let e = e.unwrap();
                if e.type_id() > 1 {
                    e.validate().unwrap();
                }
                let s = stats.entry(e.type_name().unwrap().to_owned()).or_default();
                s.0 += 1;
                s.1 += e.size() as u64;
            }
        }
        let mut ours: Vec<(String, u64, u64)> =
            stats.into_iter().map(|(k, (c, b))| (k, c, b)).collect();
        theirs.sort();
        ours.sort();
        assert!(
            theirs.len() > 100,
            "{path}: parsed {} rows of jfr summary",
            theirs.len()
        );
        assert_eq!(theirs, ours, "{path}");
    }
}
