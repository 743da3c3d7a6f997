//! The synthetic dump generator: deterministic by seed, a valid dump the graph reads without a
//! warning, and the graph's invariants on it (the checks that need no independent reference).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::Command;

use hprof::binary::graph::{Graph, NodeIndex, Options};

fn synth(objects: u64, seed: u64, name: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("synth-hprof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
fn the_graph_of_a_synthetic_dump_keeps_its_invariants() {
    let n = 100_000;
    let data = synth(n, 11, "graph.hprof");
    let graph = Graph::build(&data, Options::default()).unwrap();
    let w = graph.warnings();
    assert!(w.is_empty(), "{w}");
    let s = graph.summary();
    // The objects, and the classes on top.
    assert!(s.objects > n && s.objects < n + 400, "{s:?}");
    assert!(s.unreachable > n / 20, "the garbage is unreachable: {s:?}");
    let len = graph.index().len() as NodeIndex;
    // Retained ≥ shallow; every idom chain ends at the super-root.
    let mut depth: Vec<u32> = vec![u32::MAX; len as usize];
    let mut top_sum = 0u64;
    for v in 0..len {
        if !graph.in_dominator_tree(v) {
            assert_eq!(graph.retained_size(v), 0);
            continue;
        }
        assert!(graph.retained_size(v) >= graph.shallow_size(v), "{v}");
        match graph.dominator(v) {
            Some(None) => top_sum += graph.retained_size(v),
            Some(Some(_)) => {}
            None => panic!("{v} in the tree without a dominator"),
        }
        // Walk up, iteratively, to the super-root (at most `len` steps).
        let mut chain = vec![v];
        let mut at = v;
        loop {
            if depth[at as usize] != u32::MAX {
                break;
            }
            match graph.dominator(at) {
                Some(None) => {
                    depth[at as usize] = 1;
                    break;
                }
                Some(Some(d)) => {
                    assert!(chain.len() <= len as usize, "a cycle of dominators at {v}");
                    chain.push(d);
                    at = d;
                }
                None => panic!("{at}'s dominator chain leaves the tree"),
            }
        }
        let mut below = depth[at as usize];
        for &c in chain.iter().rev() {
            if depth[c as usize] == u32::MAX {
                below += 1;
                depth[c as usize] = below;
            } else {
                below = depth[c as usize];
            }
        }
    }
    // The super-root's children retain exactly the reachable bytes.
    assert_eq!(top_sum, s.reachable_bytes);
    // The chain of Link objects is as deep as the generator made it (about n/8).
    assert!(*depth.iter().filter(|&&d| d != u32::MAX).max().unwrap() as u64 >= n / 9);
    // Path lengths are breadth-first depths: a path's every prefix is itself a shortest path.
    for v in (0..len).step_by(997) {
        if let Some(path) = graph.path(v) {
            for k in [0, path.len() / 2, path.len() - 1] {
                assert_eq!(graph.path(path[k]).unwrap().len(), k + 1, "{v} via {k}");
            }
        }
    }
}
