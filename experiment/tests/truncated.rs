//! Experiments cut the way real ones are (collector killed, disk full, a copy interrupted): the
//! examples print what could be read, say on stderr which file was cut and where, and exit 3;
//! nothing is silently lost. Each case cuts a real fixture (`heap`) the same way.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::data;
use experiment::Experiment;
use std::path::{Path, PathBuf};
use testkit::TempDir;
use testkit::cli::Example;

/// A copy of the heap fixture in a fresh temporary directory, with `edit` applied to it.
fn cut_copy(name: &str, edit: impl FnOnce(&Path)) -> (TempDir, PathBuf) {
    let root = TempDir::new(&format!("experiment-truncated-{name}"));
    let dir = root.join("test.1.er");
    std::fs::create_dir_all(dir.join("archives")).unwrap();
    let src = data().join("heap/test.1.er");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    edit(&dir);
    (root, dir)
}

fn truncate(path: &Path, len: usize) {
    let b = std::fs::read(path).unwrap();
    std::fs::write(path, &b[..len]).unwrap();
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(example: &'static str, args: &[&str]) -> Run {
    let out = Example::new("gprofng-experiment", example).run(args);
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn open(dir: &Path) -> Experiment<MemSource> {
    Experiment::open(MemSource(dir.to_path_buf())).unwrap()
}

/// The directory through the library alone (no example).
struct MemSource(PathBuf);

impl experiment::Source for MemSource {
    fn read(&self, path: &str) -> experiment::Result<Option<experiment::bytes::Bytes>> {
        Ok(std::fs::read(self.0.join(path)).ok().map(Into::into))
    }
    fn list(&self, _: &str) -> Vec<String> {
        Vec::new()
    }
}

#[test]
fn frameinfo_cut_to_one_byte_is_partial_not_zero_frames() {
    let (_root, dir) = cut_copy("frameinfo1", |d| truncate(&d.join("data.frameinfo"), 1));
    let exp = open(&dir);
    let cut = exp.truncations().unwrap();
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert_eq!(
        cut[0].to_string(),
        "data.frameinfo: packet header: expected 4 bytes at byte offset 0, found only 1"
    );
    assert!(exp.incomplete());
    let d = dir.to_str().unwrap();
    let r = run("er-dump", &[d, "--archives-only"]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().count(),
        618,
        "every packet is still printed"
    );
    assert!(
        r.stderr.contains(&format!(
            "warning: {d}/data.frameinfo: partial: packet header: expected 4 bytes at byte offset 0"
        )),
        "{}",
        r.stderr
    );
    let r = run("er-summary", &[d]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(r.stdout.contains("\"incomplete\":true"), "{}", r.stdout);
    assert!(
        r.stdout.contains("data.frameinfo: packet header"),
        "{}",
        r.stdout
    );
}

#[test]
fn frameinfo_cut_mid_packet_keeps_the_stacks_before_the_cut() {
    let (_root, dir) = cut_copy("frameinfo-mid", |d| {
        truncate(&d.join("data.frameinfo"), 3000);
    });
    let exp = open(&dir);
    let cut = exp.truncations().unwrap();
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert!(
        cut[0]
            .to_string()
            .starts_with("data.frameinfo: packet: expected"),
        "{}",
        cut[0]
    );
    assert!(exp.frameinfo().frame_packet_count() > 0);
    let r = run("er-functions", &[dir.to_str().unwrap(), "--archives-only"]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(r.stderr.contains("packets without a stack"), "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("{\"name\":\"<Total>\",\"i.heapleakbytes\":235629")
    );
}

#[test]
fn log_cut_before_its_packet_descriptors_is_reported() {
    let (_root, dir) = cut_copy("log", |d| {
        let log = std::fs::read_to_string(d.join("log.xml")).unwrap();
        let at = log.find("<profile name=\"heaptrace\"").unwrap();
        std::fs::write(d.join("log.xml"), &log[..at]).unwrap();
    });
    let exp = open(&dir);
    let cut = exp.truncations().unwrap();
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert!(
        cut[0]
            .to_string()
            .contains("log.xml cut before its packet descriptors"),
        "{}",
        cut[0]
    );
    assert_eq!(cut[0].file(), Some("heaptrace"));
    let d = dir.to_str().unwrap();
    let r = run("er-dump", &[d, "--archives-only"]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("warning: {d}/heaptrace: partial:")),
        "{}",
        r.stderr
    );
    let r = run("er-summary", &[d]);
    assert_eq!(r.code, Some(3));
    assert!(r.stdout.contains("\"incomplete\":true"));
}

#[test]
fn data_file_cut_mid_packet_salvages_the_packets_before() {
    let (_root, dir) = cut_copy("mid", |d| truncate(&d.join("heaptrace"), 1000));
    let d = dir.to_str().unwrap();
    let r = run("er-dump", &[d, "--archives-only"]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().count(),
        12,
        "packets 0..12 end before byte 1000"
    );
    assert!(
        r.stderr.contains(&format!(
            "warning: {d}/heaptrace: partial: packet: expected 80 bytes at byte offset 960, found only 40"
        )),
        "{}",
        r.stderr
    );
    let r = run("er-summary", &[d]);
    assert_eq!(r.code, Some(3));
    assert!(r.stdout.contains("\"incomplete\":true"));
}

#[test]
fn a_leftover_tail_of_one_to_three_bytes_is_reported() {
    for extra in 1..=3usize {
        let (_root, dir) = cut_copy(&format!("tail{extra}"), |d| {
            let mut b = std::fs::read(d.join("heaptrace")).unwrap();
            b.extend(std::iter::repeat_n(0x41u8, extra));
            std::fs::write(d.join("heaptrace"), b).unwrap();
        });
        let d = dir.to_str().unwrap();
        let r = run("er-summary", &[d]);
        assert_eq!(r.code, Some(3), "{extra}: {}", r.stderr);
        assert!(r.stdout.contains("\"incomplete\":true"), "{}", r.stdout);
        assert!(
            r.stderr.contains(&format!(
                "warning: {d}/heaptrace: partial: packet header: expected 4 bytes at byte offset 65536, found only {extra}"
            )),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn intact_experiment_is_complete_and_exits_0() {
    let d = data().join("heap/test.1.er");
    let r = run("er-summary", &[d.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("\"incomplete\":false"));
    assert!(r.stdout.contains("\"truncations\":[]"));
}

#[test]
fn errors_name_the_experiment_file() {
    // A packet whose tsize is not a multiple of 4, in the first block of heaptrace.
    let (_root, dir) = cut_copy("misaligned", |d| {
        let mut b = std::fs::read(d.join("heaptrace")).unwrap();
        b[0] = 81;
        std::fs::write(d.join("heaptrace"), b).unwrap();
    });
    let d = dir.to_str().unwrap();
    let r = run("er-dump", &[d, "--archives-only"]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "warning: {d}/heaptrace: partial: packet tsize at byte offset 0"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn a_collector_killed_between_packets_is_partial_in_every_example() {
    // Recorded with gprofng (tests/data/record-extra.sh): the target was killed (SIGKILL), so
    // log.xml has no exit event although every data file ends on a packet boundary.
    let dir = data().join("killed/test.1.er");
    let d = dir.to_str().unwrap();
    assert!(open(&dir).truncations().unwrap().is_empty());
    let warning = format!("warning: {d}/log.xml: partial: no exit event");
    for (example, args) in [
        ("er-summary", vec![d]),
        ("er-dump", vec![d]),
        ("er-functions", vec![d, "--kind", "clock"]),
        ("er-folded", vec![d, "--kind", "clock"]),
    ] {
        let r = run(example, &args);
        assert_eq!(r.code, Some(3), "{example}: {}", r.stderr);
        assert!(r.stderr.contains(&warning), "{example}: {}", r.stderr);
        assert!(!r.stdout.is_empty(), "{example} prints what it read");
    }
    let r = run("er-summary", &[d]);
    assert!(r.stdout.contains("\"incomplete\":true"), "{}", r.stdout);
}
