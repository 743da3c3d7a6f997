//! Benchmark for `hprof::binary::LayoutCache` on the real dumps of hprof/tests/data/binary:
//! decoding the fields of every instance through a layout cache against
//! `Index::instance_fields`, which builds the class's layout for every instance (the
//! reference in the same run). The instances are collected beforehand, so both measure
//! layouts and decoding only.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
use criterion::{Criterion, Throughput};
use hprof::binary::{Index, InstanceDump, SubRecord};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let dir = benches::repo_root().join("hprof/tests/data/binary");
    for name in ["heapgen_jdk17", "ahat_test-dump-base_art-host-2025"] {
        let data = std::fs::read(dir.join(format!("{name}.hprof"))).unwrap();
        let index = Index::build(&data).unwrap();
        let instances: Vec<InstanceDump<'_>> = index
            .sub_records()
            .filter_map(|s| match s.unwrap() {
                SubRecord::InstanceDump(i) => Some(i),
                _ => None,
            })
            .collect();
        let mut g = c.benchmark_group(format!("hprof_layouts/{name}"));
        g.throughput(Throughput::Elements(instances.len() as u64));
        g.sample_size(20);
        g.bench_function("instance_fields_uncached", |b| {
            b.iter(|| {
                let mut fields = 0;
                for i in &instances {
                    // Some instances of the Android dump have classes without a CLASS_DUMP.
                    fields += index.instance_fields(black_box(i)).map_or(0, |f| f.len());
                }
                fields
            });
        });
        g.bench_function("layout_cache", |b| {
            b.iter(|| {
                let mut cache = index.layout_cache();
                let mut fields = 0;
                for i in &instances {
                    fields += cache.instance_fields(black_box(i)).map_or(0, |f| f.len());
                }
                fields
            });
        });
        g.finish();
    }
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
