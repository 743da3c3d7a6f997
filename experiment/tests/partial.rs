//! Damage the experiment can see is partial: `Experiment::partial` names it, and every example
//! exits 3 with `warning: PATH: partial: …` — on real experiments damaged the ways of issue
//! #27 (map.xml or jclasses cut, an empty data.frameinfo, a bad packet header, a log.xml
//! whose heap descriptor lost its `kind`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::data;
use experiment::{Experiment, Partial};
use std::path::{Path, PathBuf};
use testkit::TempDir;
use testkit::cli::Example;

/// A copy of fixture `case`'s experiment (top-level files and archives) in a temporary folder,
/// damaged by `damage`.
fn damaged(case: &str, tag: &str, damage: impl FnOnce(&Path)) -> (TempDir, PathBuf) {
    let root = TempDir::new(&format!("exp-partial-{tag}"));
    let exp = root.join("test.1.er");
    copy_dir(&data().join(case).join("test.1.er"), &exp);
    damage(&exp);
    (root, exp)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn cut(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// The reasons `partial()` gives for `exp`, as `FILE: why`.
fn reasons(exp: &Path) -> Vec<String> {
    let exp = experiment::fs::open(exp).unwrap();
    exp.partial().iter().map(ToString::to_string).collect()
}

/// Every example on `exp` exits 3 and says `warning: EXP/FILE: partial: …` for `file`.
fn examples_say_partial(exp: &Path, file: &str) {
    let e = exp.to_str().unwrap();
    let runs: [(&str, Vec<&str>); 4] = [
        ("er-functions", vec![e]),
        ("er-folded", vec![e, "--kind", "clock"]),
        ("er-summary", vec![e]),
        ("er-dump", vec![e]),
    ];
    for (name, args) in runs {
        let out = Example::new("gprofng-experiment", name).run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{name} {args:?}: {stderr}");
        let want = format!("warning: {e}/{file}: partial: ");
        assert!(stderr.contains(&want), "{name}: no `{want}` in:\n{stderr}");
        assert!(!out.stdout.is_empty(), "{name} printed what it could read");
    }
}

#[test]
fn intact_experiments_are_complete_and_a_killed_one_says_why() {
    for case in common::CASES {
        let exp = experiment::fs::open(data().join(case).join("test.1.er")).unwrap();
        assert_eq!(exp.partial(), [], "{case}");
        assert!(!exp.incomplete());
    }
    let exp = experiment::fs::open(data().join("killed/test.1.er")).unwrap();
    assert_eq!(exp.partial(), [Partial::NoExitEvent]);
    let summary = experiment::summary::Summary::of(&exp).unwrap();
    assert!(summary.incomplete);
    assert_eq!(summary.partial.len(), 1);
    assert!(summary.partial[0].starts_with("log.xml: no exit event"));
    assert_eq!(exp.partial()[0].file(), "log.xml");
    assert!(exp.incomplete());
}

#[test]
fn a_cut_map_xml_is_partial() {
    let (_root, exp) = damaged("clock_basic", "map", |e| cut(&e.join("map.xml"), 300));
    let r = reasons(&exp);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(
        r[0].starts_with("map.xml: 2:1: expected the rest of the element"),
        "{r:?}"
    );
    examples_say_partial(&exp, "map.xml");
}

#[test]
fn a_cut_jclasses_is_partial_and_keeps_the_methods_before_the_cut() {
    let (_root, exp) = damaged("java_heap", "jclasses", |e| cut(&e.join("jclasses"), 1));
    let r = reasons(&exp);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(
        r[0].starts_with("jclasses: packet header: expected 4 bytes"),
        "{r:?}"
    );
    examples_say_partial(&exp, "jclasses");
    // Cut in the middle: the classes before the cut still name their methods.
    let (_root, exp) = damaged("java_heap", "jclasses-mid", |e| {
        cut(&e.join("jclasses"), 300_001);
    });
    let opened = Experiment::open(experiment::fs::DirSource::new(&exp).archives_only()).unwrap();
    let bytes = opened.file("jclasses").unwrap().unwrap();
    let (classes, stopped) =
        experiment::jclasses::JClasses::parse_salvaging(&bytes, opened.endian());
    assert!(stopped.is_some());
    assert!(!classes.classes.is_empty());
    let list = experiment::profile::FunctionList::read(&opened, None).unwrap();
    assert!(
        list.rows.iter().any(|r| r.name.contains('(')),
        "Java methods named"
    );
    assert!(reasons(&exp)[0].starts_with("jclasses: "));
}

#[test]
fn an_empty_frameinfo_that_packets_reference_is_partial() {
    let (_root, exp) = damaged("clock_basic", "frameinfo", |e| {
        cut(&e.join("data.frameinfo"), 0);
    });
    let r = reasons(&exp);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(r[0].starts_with("data.frameinfo: "), "{r:?}");
    assert!(r[0].contains("every stack is lost"), "{r:?}");
    examples_say_partial(&exp, "data.frameinfo");
}

#[test]
fn a_bad_packet_header_is_partial() {
    // One 0xFFFFFFFF over bytes 57–60 (1-based) of the profile: the second packet's header.
    let (_root, exp) = damaged("cxx_names", "tsize", |e| {
        let p = e.join("profile");
        let mut b = std::fs::read(&p).unwrap();
        b[56..60].copy_from_slice(&[0xFF; 4]);
        std::fs::write(&p, b).unwrap();
    });
    let r = reasons(&exp);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(
        r[0].starts_with("profile: packet tsize at byte offset 56"),
        "{r:?}"
    );
    examples_say_partial(&exp, "profile");
    // er-dump's own per-packet warning carries the word too.
    let out = Example::new("gprofng-experiment", "er-dump").run(&[exp.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .all(|l| !l.starts_with("warning: ") || l.contains(": partial: ")),
        "{stderr}"
    );
}

#[test]
fn a_log_whose_descriptors_miss_a_data_files_packets_is_partial() {
    // One bit: the heap descriptor's `kind=` becomes `iind=`.
    let (_root, exp) = damaged("heap", "descriptor", |e| {
        let p = e.join("log.xml");
        let mut b = std::fs::read(&p).unwrap();
        let at = b.windows(15).position(|w| w == b"<profpckt kind=").unwrap();
        b[at + 10] ^= b'k' ^ b'i';
        std::fs::write(&p, b).unwrap();
    });
    let r = reasons(&exp);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(
        r[0].starts_with("heaptrace: packet type at byte offset"),
        "{r:?}"
    );
    let e = exp.to_str().unwrap();
    let out = Example::new("gprofng-experiment", "er-functions").run(&[e]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(&format!("warning: {e}/heaptrace: partial: "))
    );
}
