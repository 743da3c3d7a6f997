//! Benchmarks for `iprof`: the borrowed parse of the real 4 MB fixtures side by side with
//! `serde_json::from_slice::<serde_json::Value>` on the same bytes, plus the writer,
//! validation and merge.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const FILES: [(&str, &str); 2] = [
    (
        "v0.4.0",
        "iprof/tests/fixtures/tommyettinger-assorted-benchmarks_ccb36f2_default_v0.4.0.iprof",
    ),
    (
        "v0.2.0",
        "iprof/tests/fixtures/krisfoster-binary-tree_ff318ed_default_v0.2.0.iprof",
    ),
];

fn parse(c: &mut Criterion) {
    for (name, path) in FILES {
        let bytes = std::fs::read(benches::repo_root().join(path)).expect("fixture");
        let mut group = c.benchmark_group(format!("iprof_parse/{name}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("iprof::Profile::parse", |b| {
            b.iter(|| iprof::Profile::parse(black_box(&bytes)).unwrap());
        });
        group.bench_function("serde_json::Value", |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).unwrap());
        });
        group.finish();
    }
}

fn operations(c: &mut Criterion) {
    let (_, path) = FILES[0];
    let bytes = std::fs::read(benches::repo_root().join(path)).expect("fixture");
    let profile = iprof::Profile::parse(&bytes).unwrap();
    let mut group = c.benchmark_group("iprof_ops/v0.4.0");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("to_json", |b| b.iter(|| black_box(&profile).to_json()));
    group.bench_function("validate", |b| b.iter(|| black_box(&profile).validate()));
    group.bench_function("merge_with_itself", |b| {
        b.iter(|| iprof::merge(&[&profile, &profile], &iprof::MergeOptions::default()));
    });
    group.finish();
}

criterion_group!(benches, parse, operations);
criterion_main!(benches);
