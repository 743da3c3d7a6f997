//! Contexts from a real `.iprof` file (tommyettinger/assorted-benchmarks, schema 0.4.0): every
//! one parses, displays back to its own text, and agrees with a naive split.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use callctx::{Context, ContextTree};

const CONTEXTS: &str = include_str!("data/contexts-v0.4.0.txt");

fn naive(text: &str) -> Vec<(u32, i32)> {
    text.split('<')
        .map(|f| {
            let (m, b) = f.split_once(':').unwrap();
            (m.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

#[test]
fn every_real_context_parses_and_round_trips() {
    let mut count = 0;
    let mut negative = 0;
    let mut deepest = 0;
    for line in CONTEXTS.lines() {
        let ctx = Context::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(ctx.to_string(), line);
        let frames: Vec<(u32, i32)> = ctx.frames().map(|f| (f.method, f.bci)).collect();
        assert_eq!(frames, naive(line));
        let one_pass: Vec<(u32, i32)> = callctx::parse_frames(line)
            .map(|f| f.map(|f| (f.method, f.bci)))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(one_pass, frames);
        let mut rev: Vec<(u32, i32)> = ctx.frames().rev().map(|f| (f.method, f.bci)).collect();
        rev.reverse();
        assert_eq!(rev, frames);
        assert_eq!(ctx.len(), frames.len());
        negative += usize::from(frames.iter().any(|&(_, b)| b < 0));
        deepest = deepest.max(ctx.len());
        count += 1;
    }
    assert_eq!(count, 2909);
    assert!(negative > 200, "{negative}");
    assert_eq!(deepest, 23);
}

#[test]
fn real_contexts_aggregate() {
    let mut tree = ContextTree::new();
    for line in CONTEXTS.lines() {
        tree.insert(&Context::parse(line).unwrap(), 1u64);
    }
    assert_eq!(*tree.total(), 2909);
    let self_sum: u64 = tree.iter().map(|n| *n.self_value()).sum();
    assert_eq!(self_sum, 2909);
    let mut folded = String::new();
    tree.write_folded(&mut folded, |m| m).unwrap();
    let lines = folded.lines().count();
    assert!(lines > 0 && lines <= 2909);
    let folded_sum: u64 = folded
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(folded_sum, 2909);
}
