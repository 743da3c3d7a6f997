//! The synthetic dump generator: deterministic by seed, a valid dump the graph reads without a
//! warning, and the graph's invariants on it (the checks that need no independent reference).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::Command;
use std::sync::atomic::Ordering;

use hprof::binary::Id;
use hprof::binary::graph::{Array, Graph, NodeIndex, Options, Scratch};

fn synth(objects: u64, seed: u64, name: &str) -> Vec<u8> {
    let dir = testkit::TempDir::new("synth-hprof");
    let path = dir.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_synth-hprof"))
        .args([
            "--objects",
            &objects.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    data
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let a = synth(20_000, 3, "a.hprof");
    assert_eq!(a, synth(20_000, 3, "b.hprof"));
    assert_ne!(a, synth(20_000, 4, "c.hprof"));
}

#[test]
fn bad_arguments_exit_2_and_help_exits_0() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_synth-hprof"))
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(run(&["--objects", "many", "x"]).status.code(), Some(2));
    assert_eq!(run(&["x.hprof"]).status.code(), Some(2));
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--objects N"));
    let unwritable = run(&["--objects", "10", "/nonexistent-dir/x.hprof"]);
    assert_eq!(unwritable.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&unwritable.stderr)
            .starts_with("error: /nonexistent-dir/x.hprof: ")
    );
}

#[test]
fn graph_check_exits_0_on_a_whole_dump_3_on_a_cut_one_and_2_on_a_bad_flag() {
    let data = synth(5_000, 7, "whole.hprof");
    let dir = testkit::TempDir::new("graph-check");
    let (whole, cut) = (dir.join("whole.hprof"), dir.join("cut.hprof"));
    std::fs::write(&whole, &data).unwrap();
    std::fs::write(&cut, &data[..data.len() * 2 / 3]).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_graph-check"))
            .args(args)
            .output()
            .unwrap()
    };
    let ok = run(&[whole.as_os_str()]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).starts_with(r#"{"objects":5309,"#));
    let partial = run(&[cut.as_os_str()]);
    assert_eq!(partial.status.code(), Some(3));
    let warning = String::from_utf8_lossy(&partial.stderr).into_owned();
    assert!(
        warning.starts_with(&format!("warning: {}: partial: ", cut.display())),
        "{warning}"
    );
    assert!(String::from_utf8_lossy(&partial.stdout).starts_with(r#"{"objects":"#));
    let bad = run(&["--threads".as_ref(), "0".as_ref(), whole.as_os_str()]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_graph_of_a_synthetic_dump_keeps_its_invariants() {
    let n = 100_000;
    let data = synth(n, 11, "graph.hprof");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let w = graph.warnings();
    assert!(w.is_empty(), "{w}");
    let s = graph.summary();
    // The objects, and the classes on top.
    assert!(s.objects > n && s.objects < n + 400, "{s:?}");
    // The 5 % garbage (of the objects after the threads, holders and root arrays), and
    // nothing else, is unreachable: every tree object is held by its parent.
    assert!(
        (n / 21..=n / 20).contains(&s.unreachable),
        "only the garbage is unreachable: {s:?}"
    );
    // Retained ≥ shallow, every idom chain ends at the super-root, the super-root's children
    // retain exactly the reachable bytes, paths are shortest chains of references.
    let c = benches::graph_check::check(&graph, 997).unwrap();
    // The chain of Link objects is as deep as the generator made it (about n/8).
    assert!(u64::from(c.deepest) >= n / 9, "{c:?}");
    assert!(c.paths > 50, "{c:?}");
}

/// Scratch storage in heap memory that counts what it hands out.
#[derive(Default)]
struct Counting {
    bytes: std::sync::atomic::AtomicU64,
    arrays: std::sync::Mutex<Vec<&'static str>>,
}

impl Scratch for Counting {
    fn u32s(&self, len: usize, what: &'static str) -> hprof::binary::Result<Array<u32>> {
        self.bytes.fetch_add(4 * len as u64, Ordering::Relaxed);
        self.arrays.lock().unwrap().push(what);
        Ok(Box::new(vec![0u32; len]))
    }

    fn u64s(&self, len: usize, what: &'static str) -> hprof::binary::Result<Array<u64>> {
        self.bytes.fetch_add(8 * len as u64, Ordering::Relaxed);
        self.arrays.lock().unwrap().push(what);
        Ok(Box::new(vec![0u64; len]))
    }
}

/// Scratch storage that fails.
struct Full;

impl Scratch for Full {
    fn u32s(&self, len: usize, what: &'static str) -> hprof::binary::Result<Array<u32>> {
        Err(hprof::binary::Error::Scratch {
            what,
            len: len as u64,
            message: "no space left on device".to_owned(),
        })
    }

    fn u64s(&self, len: usize, what: &'static str) -> hprof::binary::Result<Array<u64>> {
        self.u32s(len, what).map(|_| unreachable!())
    }
}

#[test]
fn the_caller_s_scratch_storage_gives_the_same_graph() {
    let data = synth(50_000, 3, "scratch.hprof");
    let plain = Graph::build(&data, Options::default()).unwrap();
    let counting = Counting::default();
    let options = Options {
        scratch: &counting,
        ..Options::default()
    };
    let graph = Graph::build(&data, options).unwrap();
    assert_eq!(graph.summary(), plain.summary());
    assert_eq!(graph.top_retained(50), plain.top_retained(50));
    let n = graph.index().len();
    for v in (0..n as NodeIndex).step_by(101) {
        assert_eq!(graph.retained(v), plain.retained(v));
        assert_eq!(graph.path(v), plain.path(v));
    }
    // The arrays of the memory model, and no other: offsets, references, depth-first order,
    // predecessors, then (for the paths) references again, parents and the queue.
    let arrays = counting.arrays.lock().unwrap().clone();
    for what in [
        "object offsets",
        "references",
        "reference row starts",
        "depth-first order",
        "predecessors",
        "predecessor row starts",
        "shortest-path parents",
        "breadth-first queue",
    ] {
        assert!(arrays.contains(&what), "{what} not in {arrays:?}");
    }
    assert!(counting.bytes.load(Ordering::Relaxed) >= 8 * n as u64);
    // Storage that fails is an error naming the array, never a panic or a wrong answer.
    let full = Options {
        scratch: &Full,
        ..Options::default()
    };
    let e = Graph::build(&data, full).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("scratch storage for object offsets"),
        "{e}"
    );
}

#[test]
fn several_threads_give_the_same_graph() {
    // The generator writes ids ascending (the index then needs no second pass): as written,
    // and with two segments swapped, so that each thread's ids ascend but not across them.
    let data = synth(100_000, 5, "threads.hprof");
    for bytes in [
        data.clone(),
        testkit::hprof::segments_swapped(&data).unwrap(),
    ] {
        let one = Graph::build(&bytes, Options::default()).unwrap();
        for threads in [2, 3, 8] {
            let many = Graph::build(
                &bytes,
                Options {
                    threads,
                    ..Options::default()
                },
            )
            .unwrap();
            assert_eq!(many.summary(), one.summary());
            assert_eq!(many.warnings(), one.warnings());
            let n = one.index().len();
            for v in 0..n as NodeIndex {
                assert_eq!(
                    many.index().offset(v),
                    one.index().offset(v),
                    "offset of {v}"
                );
                assert_eq!(many.retained(v), one.retained(v), "{threads} threads");
            }
        }
    }
}

#[test]
#[ignore = "needs ahat-peer built: cp -r ../shared/tools/ahat-peer /tmp/ahat-peer && sh /tmp/ahat-peer/build.sh, then AHAT_PEER_JAR=/tmp/ahat-peer/build/ahat-peer.jar cargo test --release -p benches --test synth_hprof -- --ignored"]
fn every_object_of_a_million_object_dump_matches_ahat() {
    let jar = std::env::var("AHAT_PEER_JAR")
        .expect("set AHAT_PEER_JAR to the built ahat-peer.jar (see the ignore reason)");
    let dir = testkit::TempDir::new("synth-ahat");
    let path = dir.join("synth-1m.hprof");
    let data = synth(1_000_000, 7, "synth-1m.hprof");
    std::fs::write(&path, &data).unwrap();
    let tsv = dir.join("synth-1m.tsv");
    let status = Command::new("java")
        .args(["-Xmx4g", "-jar", &jar, "--top", "1", "--quiet", "--all"])
        .arg(&tsv)
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "ahat-peer failed");
    let graph = Graph::build(&data, Options::ahat()).unwrap();
    let text = std::fs::read_to_string(&tsv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (id_c, sh_c, re_c, dom_c) = (col("id"), col("shallow"), col("retained"), col("dominator"));
    let mut compared = 0u64;
    let mut in_tree = 0u64;
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        let id: u64 = f[id_c].parse().unwrap();
        let v = graph
            .node(Id(id))
            .unwrap_or_else(|| panic!("ahat's object {id} is not ours"));
        if f[dom_c].is_empty() || f[dom_c] == "null" {
            assert!(
                !graph.in_dominator_tree(v),
                "{id}: ahat has it outside the tree"
            );
            continue;
        }
        in_tree += 1;
        let r = graph.retained(v);
        assert_eq!(
            r.shallow,
            f[sh_c].parse::<u64>().unwrap(),
            "shallow of {id}"
        );
        assert_eq!(
            r.retained,
            f[re_c].parse::<u64>().unwrap(),
            "retained of {id}"
        );
        assert_eq!(
            r.dominator.unwrap_or(Id::NULL),
            Id(f[dom_c].parse::<u64>().unwrap()),
            "dominator of {id}"
        );
        compared += 1;
    }
    let ours_in_tree = (0..graph.index().len() as NodeIndex)
        .filter(|&v| graph.in_dominator_tree(v))
        .count() as u64;
    assert_eq!(ours_in_tree, in_tree);
    // The garbage and what only it reaches are outside; most of the heap was compared.
    assert!(compared > 500_000, "{compared}");
}
