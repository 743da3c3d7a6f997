//! Benchmarks for `hprof::binary::graph` on the real dumps of hprof/tests/data/binary: the
//! object index alone, the whole graph (index, references, paths, dominators, retained sizes)
//! under both edge policies, and the histogram pass over the same bytes as the floor of any
//! one-pass reader. Whole-process runs against ahat on large HeapGen dumps are in
//! `benches/hprof-graph-peers.sh`.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
use criterion::{Criterion, Throughput};
use hprof::binary::graph::{Graph, ObjectIndex, Options};
use hprof::binary::histogram::Histogram;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let dir = benches::repo_root().join("hprof/tests/data/binary");
    for name in ["heapgen_jdk17", "ahat_test-dump-base_art-host-2025"] {
        let data = std::fs::read(dir.join(format!("{name}.hprof"))).unwrap();
        let mut g = c.benchmark_group(format!("hprof_graph/{name}"));
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.sample_size(20);
        g.bench_function("histogram_floor", |b| {
            b.iter(|| Histogram::parse(black_box(&data)).unwrap());
        });
        g.bench_function("object_index", |b| {
            b.iter_with_large_drop(|| ObjectIndex::build(black_box(&data)).unwrap());
        });
        g.bench_function("graph_recorded", |b| {
            b.iter_with_large_drop(|| Graph::build(black_box(&data), Options::default()).unwrap());
        });
        g.bench_function("graph_ahat", |b| {
            b.iter_with_large_drop(|| Graph::build(black_box(&data), Options::ahat()).unwrap());
        });
        let graph = Graph::build(&data, Options::default()).unwrap();
        g.bench_function("top_100", |b| b.iter(|| graph.top_retained(black_box(100))));
        g.bench_function("class_retained", |b| b.iter(|| graph.class_retained()));
        g.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
