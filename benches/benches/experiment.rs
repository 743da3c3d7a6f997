//! Benchmarks for `experiment`.
#![allow(missing_docs)]
use criterion::{Criterion, criterion_group, criterion_main};

fn parse(c: &mut Criterion) {
    c.bench_function("noop", |b| b.iter(|| 1 + 1));
}

criterion_group!(benches, parse);
criterion_main!(benches);
