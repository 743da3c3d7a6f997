//! `callctx`: parse + full iteration of real contexts (depths 1–23 from a real `.iprof` file),
//! as `Context::parse` + `frames()` and as the one-pass `parse_frames`, beside a naive
//! `split`/`str::parse` baseline measured in the same run. The target (1 GB/s of context text
//! on one core) is for parse + full iteration: `parse_frames (one pass)` is that path. The
//! `callctx/build` group builds the same contexts frame by frame with `ContextBuf::push_inner`;
//! `callctx/tree` aggregates them in a `ContextTree`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::hint::black_box;

use callctx::{Context, ContextBuf, ContextTree, Frame};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The contexts as slices of one text, as a zero-copy reader of an `.iprof` file sees them.
fn contexts() -> String {
    let path = benches::repo_root().join("callctx/tests/data/contexts-v0.4.0.txt");
    std::fs::read_to_string(path).expect("callctx fixture")
}

fn parse_and_iterate(c: &mut Criterion) {
    let text = contexts();
    let lines: Vec<&str> = text.lines().collect();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    let mut group = c.benchmark_group("callctx");
    group.throughput(Throughput::Bytes(bytes as u64));

    group.bench_function("parse+frames", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for line in &lines {
                let ctx = Context::parse(black_box(line)).unwrap();
                for frame in ctx.frames() {
                    acc = acc
                        .wrapping_add(u64::from(frame.method))
                        .wrapping_add(frame.bci as u64);
                }
            }
            acc
        });
    });

    group.bench_function("parse_frames (one pass)", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for line in &lines {
                for frame in callctx::parse_frames(black_box(line)) {
                    let frame = frame.unwrap();
                    acc = acc
                        .wrapping_add(u64::from(frame.method))
                        .wrapping_add(frame.bci as u64);
                }
            }
            acc
        });
    });

    group.bench_function("parse+frames.rev", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for line in &lines {
                let ctx = Context::parse(black_box(line)).unwrap();
                for frame in ctx.frames().rev() {
                    acc = acc
                        .wrapping_add(u64::from(frame.method))
                        .wrapping_add(frame.bci as u64);
                }
            }
            acc
        });
    });

    group.bench_function("parse only", |b| {
        b.iter(|| {
            lines
                .iter()
                .map(|l| Context::parse(black_box(l)).unwrap().len())
                .sum::<usize>()
        });
    });

    // Baseline: what a user would write without this crate.
    group.bench_function("naive split+parse", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for line in &lines {
                for frame in black_box(line).split('<') {
                    let (m, bci) = frame.split_once(':').unwrap();
                    let m: u32 = m.parse().unwrap();
                    let bci: i32 = bci.parse().unwrap();
                    acc = acc.wrapping_add(u64::from(m)).wrapping_add(bci as u64);
                }
            }
            acc
        });
    });
    group.finish();
}

/// Building contexts frame by frame, outermost first (as a stack walk from the bottom gives
/// them), with `ContextBuf::push_inner`, beside collecting the same frames into a `Vec` and
/// reversing it (the baseline a user would write).
fn build(c: &mut Criterion) {
    let text = contexts();
    let outermost_first: Vec<Vec<Frame>> = text
        .lines()
        .map(|l| {
            let mut frames: Vec<Frame> = Context::parse(l).unwrap().frames().collect();
            frames.reverse();
            frames
        })
        .collect();
    let frames: usize = outermost_first.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("callctx/build");
    group.throughput(Throughput::Elements(frames as u64));
    group.bench_function("ContextBuf::push_inner", |b| {
        b.iter(|| {
            let mut depth = 0usize;
            for stack in &outermost_first {
                let mut ctx = ContextBuf::new();
                for &frame in black_box(stack) {
                    ctx.push_inner(frame);
                }
                depth += ctx.len();
            }
            depth
        });
    });
    group.bench_function("baseline Vec push + reverse", |b| {
        b.iter(|| {
            let mut depth = 0usize;
            for stack in &outermost_first {
                let mut frames = Vec::new();
                for &frame in black_box(stack) {
                    frames.push(frame);
                }
                frames.reverse();
                depth += ContextBuf::from_frames(frames).len();
            }
            depth
        });
    });
    group.finish();
}

/// Aggregating the contexts into a `ContextTree` (insert every context, then walk every
/// node), beside counting them in a `HashMap<ContextBuf, u64>` (the baseline a user would
/// write, which makes no tree) in the same run.
fn tree(c: &mut Criterion) {
    let text = contexts();
    let mut group = c.benchmark_group("callctx/tree");
    group.throughput(Throughput::Elements(text.lines().count() as u64));
    group.bench_function("ContextTree insert + iter", |b| {
        b.iter(|| {
            let mut tree = ContextTree::new();
            for line in black_box(&text).lines() {
                tree.insert(&Context::parse(line).unwrap(), 1u64);
            }
            tree.iter().map(|n| *n.self_value()).sum::<u64>()
        });
    });
    group.bench_function("baseline HashMap<ContextBuf, u64>", |b| {
        b.iter(|| {
            let mut counts: HashMap<ContextBuf, u64> = HashMap::new();
            for line in black_box(&text).lines() {
                *counts
                    .entry(ContextBuf::from(Context::parse(line).unwrap()))
                    .or_default() += 1;
            }
            counts.values().sum::<u64>()
        });
    });
    group.finish();
}

criterion_group!(benches, parse_and_iterate, build, tree);
criterion_main!(benches);
