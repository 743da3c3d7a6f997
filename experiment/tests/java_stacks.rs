//! Java frames of gprofng's user view: execution modes read off the native stack agree with
//! gprofng's machine view, and source lines with its `-lines` list, of the shared Java fixture
//! `../shared/fixtures/experiment-java/cpu` (gprofng 2.40 with Java support; `--ignored`, run by
//! .ci/run); source lines of `tests/data/java_heap` equal those of its full `dheap.txt`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::FsSource;
use experiment::Experiment;
use experiment::packets::TypedPacket;
use experiment::stacks::{FrameKind, Order, Symbolizer};
use std::collections::{HashMap, HashSet};
use std::ops::Not;
use std::path::PathBuf;

fn shared(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/experiment-java")
        .join(case)
}

/// Per packet of a `-d*` dump (keyed by raw TSTAMP): its frame names, root first.
fn dump_stacks(text: &str) -> HashMap<u64, Vec<String>> {
    let mut out: HashMap<u64, Vec<String>> = HashMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('#') {
            let ts = rest.split(':').nth(1).and_then(|s| s.split(',').next());
            current = ts.and_then(|t| t.trim().parse::<u64>().ok());
            if let Some(t) = current {
                out.entry(t).or_default();
            }
        } else if line.starts_with("          ") {
            if let Some(t) = current {
                out.get_mut(&t).unwrap().push(line.trim().to_owned());
            }
        }
    }
    out
}

/// The function name of a dump's frame line (`name + 0xOFFSET [0x...]`, or `name <Java
/// native method> [...]`).
fn frame_name(line: &str) -> &str {
    let line = line.rsplit_once(" [0x").map_or(line, |(a, _)| a);
    line.rsplit_once(" + 0x").map_or(line, |(a, _)| a)
}

#[test]
#[ignore = "needs ../shared/fixtures/experiment-java/cpu beside the repository (.ci/run runs it)"]
fn interpreted_and_compiled_frames_agree_with_the_machine_view() {
    let dir = shared("cpu");
    let exp = Experiment::open(FsSource::new(dir.join("test.1.er")).archives_only()).unwrap();
    let machine = dump_stacks(&std::fs::read_to_string(dir.join("dprofile-machine.txt")).unwrap());
    let mut symbols = Symbolizer::new(&exp);
    let mut ids = Vec::new();
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            if let Ok(TypedPacket::Clock(c)) = p.unwrap().typed() {
                ids.push((
                    c.common.tstamp,
                    symbols.stack(c.common.frinfo, c.common.tstamp),
                ));
            }
        }
    }
    assert_eq!(ids.len(), 561);
    let java: HashSet<&str> = symbols
        .functions()
        .iter()
        .filter(|f| f.signature.is_some())
        .map(|f| f.name.as_str())
        .collect();
    let (mut interpreted, mut compiled, mut checked) = (0, 0, 0);
    for (tstamp, id) in ids {
        let frames: Vec<(FrameKind, &str)> = symbols
            .stack_frames(id, Order::RootFirst)
            .map(|f| (f.kind, symbols.function(f.function).unwrap().name.as_str()))
            .collect();
        if frames.iter().all(|(k, _)| *k == FrameKind::Pseudo) {
            continue;
        }
        let native = &machine[&tstamp];
        let in_interpreter = native.iter().any(|n| n.starts_with("Interpreter + "));
        let jit: Vec<&str> = native
            .iter()
            .map(|n| frame_name(n))
            .filter(|n| java.contains(n))
            .collect();
        let has = |kind| frames.iter().any(|(k, _)| *k == kind);
        assert!(
            in_interpreter || !has(FrameKind::JavaInterpreted),
            "{tstamp} {frames:?}"
        );
        assert!(
            jit.iter().any(|n| frames.iter().any(|(_, f)| f == n)) || !has(FrameKind::JavaCompiled),
            "{tstamp} {frames:?}"
        );
        // JIT code of a method AsyncGetCallTrace's stack lacks matches no Java frame.
        for name in jit.iter().filter(|n| frames.iter().any(|(_, f)| f == *n)) {
            assert!(
                frames
                    .iter()
                    .any(|(k, n)| *k == FrameKind::JavaCompiled && n == name),
                "{tstamp}: {name} {frames:?}"
            );
        }
        interpreted += frames
            .iter()
            .filter(|(k, _)| *k == FrameKind::JavaInterpreted)
            .count();
        compiled += frames
            .iter()
            .filter(|(k, _)| *k == FrameKind::JavaCompiled)
            .count();
        checked += 1;
    }
    assert!(checked > 300, "{checked}");
    assert!(interpreted > 0 && compiled > 0, "{interpreted} {compiled}");
    // Leaf first is root first reversed.
    let id = symbols.stack_frames(experiment::stacks::StackId(0), Order::LeafFirst);
    let mut root_first: Vec<_> = symbols
        .stack_frames(experiment::stacks::StackId(0), Order::RootFirst)
        .collect();
    root_first.reverse();
    assert_eq!(id.collect::<Vec<_>>(), root_first);
}

#[test]
fn java_source_lines_match_gprofngs() {
    let dir = common::data().join("java_heap");
    let exp = Experiment::open(FsSource::new(dir.join("test.1.er")).archives_only()).unwrap();
    // `name + 0xBCI` -> the line gprofng prints, if any.
    let mut want: HashMap<String, Option<u32>> = HashMap::new();
    for line in std::fs::read_to_string(dir.join("java-frames.txt"))
        .unwrap()
        .lines()
    {
        let (frame, line) = match line.split_once(", line ") {
            Some((f, rest)) => (f, rest.split(' ').next().unwrap().parse::<u32>().ok()),
            None => (line, None),
        };
        want.insert(frame.to_owned(), line);
    }
    let mut symbols = Symbolizer::new(&exp);
    let mut ids = Vec::new();
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            let t = p.unwrap().typed().unwrap();
            ids.push(symbols.stack(t.common().frinfo, t.common().tstamp));
        }
    }
    let (mut with_line, mut without, mut seen) = (0, 0, HashSet::new());
    for id in ids {
        for f in symbols.stack_frames(id, Order::LeafFirst) {
            let func = symbols.function(f.function).unwrap();
            if func.signature.is_none() || func.name.ends_with(')').not() {
                continue;
            }
            let key = format!("{} + 0x{:08X}", func.name, f.offset);
            let Some(&line) = want.get(&key) else {
                continue; // a native method's frame (`<Java native method>`)
            };
            assert_eq!(f.line, line, "{key}");
            if seen.insert(key) {
                if line.is_some() {
                    with_line += 1;
                } else {
                    without += 1;
                }
            }
        }
    }
    assert_eq!(with_line, 18);
    assert!(without > 40, "{without}");
}

#[test]
fn class_files_give_line_tables_and_reject_other_bytes() {
    use experiment::classfile::ClassFile;
    let bytes =
        std::fs::read(common::data().join("java_heap/test.1.er/jdynclasses/Main.class")).unwrap();
    let class = ClassFile::parse(&bytes).unwrap();
    assert_eq!(class.this_class, "Main");
    assert_eq!(class.source_file.as_deref(), Some("Main.java"));
    let main = class.method("main", "([Ljava/lang/String;)V").unwrap();
    // gprofng: `Main.main(java.lang.String[]) + 0x00000013, line 59 in "Main.java"`.
    assert_eq!(main.line(0x13), Some(59));
    assert_eq!(main.line(main.code_length), None);
    // Every cut of the file is an error naming what was being read, never a panic.
    for cut in (0..bytes.len()).step_by(7) {
        let err = ClassFile::parse(&bytes[..cut]).unwrap_err();
        assert!(err.is_truncated(), "{cut}: {err}");
    }
    // Cut right after constant_pool_count: the pool the count announces is missing.
    let err = ClassFile::parse(&bytes[..10]).unwrap_err();
    assert!(
        err.to_string().contains("class file constant pool"),
        "{err}"
    );
    let err = ClassFile::parse(b"\x7fELF\x02\x01\x01\0").unwrap_err();
    assert!(err.to_string().contains("class file magic"), "{err}");
}

/// gprofng's `-lines` list of experiment-java/cpu: the exclusive and inclusive CPU time of every
/// Java source line it names (`Main.isPrime(long), line 14 in "Main.java"`) equals the ticks of
/// the packets whose leaf frame, or any frame, is at that line.
#[test]
#[ignore = "needs ../shared/fixtures/experiment-java/cpu beside the repository (.ci/run runs it)"]
fn cpu_per_source_line_matches_gprofngs_line_list() {
    let dir = shared("cpu");
    let exp = Experiment::open(FsSource::new(dir.join("test.1.er")).archives_only()).unwrap();
    let ptimer_ns = exp.log().profile("profile").unwrap().ptimer.unwrap() * 1000;
    let mut symbols = Symbolizer::new(&exp);
    let mut excl: HashMap<(String, u32), u64> = HashMap::new();
    let mut incl: HashMap<(String, u32), u64> = HashMap::new();
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            let Ok(TypedPacket::Clock(c)) = p.unwrap().typed() else {
                continue;
            };
            let ticks: u64 = c.ticks().map(|(_, n)| u64::from(n)).sum();
            let id = symbols.stack(c.common.frinfo, c.common.tstamp);
            let mut seen = HashSet::new();
            for (i, f) in symbols.stack_frames(id, Order::LeafFirst).enumerate() {
                let Some(line) = f.line else { continue };
                let key = (symbols.function(f.function).unwrap().name.clone(), line);
                if i == 0 {
                    *excl.entry(key.clone()).or_default() += ticks;
                }
                if seen.insert(key.clone()) {
                    *incl.entry(key).or_default() += ticks;
                }
            }
        }
    }
    let secs = |ticks: u64| match ticks * ptimer_ns {
        0 => "0.".to_owned(),
        ns => format!("{:.3}", ns as f64 / 1e9),
    };
    let text = std::fs::read_to_string(dir.join("lines.txt")).unwrap();
    let mut checked = 0;
    for row in text.lines().filter(|l| l.contains(" in \"Main.java\"")) {
        let toks: Vec<&str> = row.split_whitespace().collect();
        let name_at = row.find("Main").unwrap();
        let (name, line) = row[name_at..].split_once(", line ").unwrap();
        let line: u32 = line.split(' ').next().unwrap().parse().unwrap();
        let key = (name.to_owned(), line);
        let e = excl.get(&key).copied().unwrap_or(0);
        let i = incl.get(&key).copied().unwrap_or(0);
        assert_eq!(
            (secs(e), secs(i)),
            (toks[0].to_owned(), toks[2].to_owned()),
            "{row}"
        );
        checked += 1;
    }
    assert_eq!(checked, 20);
}
