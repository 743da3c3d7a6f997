//! Benchmarks for `jvmpi-types`: decode (and encode) throughput of heap, object and monitor
//! dump buffers, on the real-heap buffers in `jvmpi-types/tests/data`. No peer parser of JVMPI
//! buffers exists to compare against; the hprof agent's C reader is not runnable here.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jvmpi_types::dump::{heap, monitor};
use jvmpi_types::{ClassTable, DumpLevel, DumpOptions, IdOrder, IdSize};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        benches::repo_root()
            .join("jvmpi-types/tests/data")
            .join(name),
    )
    .expect(name)
}

fn parse(c: &mut Criterion) {
    let hs = DumpOptions::new(IdSize::Four, IdOrder::Little).hotspot();
    let be64 = DumpOptions::new(IdSize::Eight, IdOrder::Big);
    let classes32: ClassTable = serde_json::from_slice(&data("heap-classes-hs32le.json")).unwrap();
    let classes32 = classes32.layouts().unwrap();
    let classes64: ClassTable =
        serde_json::from_slice(&data("heap-classes-sparc64be.json")).unwrap();
    let classes64 = classes64.layouts().unwrap();

    let mut g = c.benchmark_group("jvmpi");
    for (name, options, level, classes) in [
        ("heap-l2-hs32le.bin", hs, DumpLevel::Level2, &classes32),
        ("heap-l1-hs32le.bin", hs, DumpLevel::Level1, &classes32),
        ("heap-l1-sparc64be.bin", be64, DumpLevel::Level1, &classes64),
    ] {
        let buf = data(name);
        g.throughput(Throughput::Bytes(buf.len() as u64));
        g.bench_function(format!("decode/{name}"), |b| {
            b.iter(|| {
                heap::decode(black_box(&buf), options, level, classes)
                    .unwrap()
                    .len()
            });
        });
        // Lazy iteration that only looks at tags (what the example does).
        g.bench_function(format!("iterate/{name}"), |b| {
            b.iter(|| {
                heap::HeapDumpRecords::new(black_box(&buf), options, level, classes)
                    .unwrap()
                    .map(|r| r.unwrap().tag() as u32)
                    .sum::<u32>()
            });
        });
        // Locating records without building them (no allocation).
        g.bench_function(format!("scan/{name}"), |b| {
            b.iter(|| {
                let mut it =
                    heap::HeapDumpRecords::new(black_box(&buf), options, level, classes).unwrap();
                let mut n = 0u32;
                while let Some(r) = it.next_raw().unwrap() {
                    n += r.tag as u32;
                }
                n
            });
        });
        let records = heap::decode(&buf, options, level, classes).unwrap();
        g.bench_function(format!("encode/{name}"), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(buf.len());
                heap::encode(black_box(&records), options, level, &mut out).unwrap();
                out.len()
            });
        });
    }
    let buf = data("heap-l0-hs32le.bin");
    g.throughput(Throughput::Bytes(buf.len() as u64));
    g.bench_function("decode/heap-l0-hs32le.bin", |b| {
        b.iter(|| heap::decode_level0(black_box(&buf), hs).unwrap().len());
    });
    // Monitor dumps are tiny; repeat the real one to get a measurable buffer.
    let one = data("monitor-hs32le.bin");
    let buf: Vec<u8> = one.iter().copied().cycle().take(one.len() * 1000).collect();
    let plain = DumpOptions::new(IdSize::Four, IdOrder::Little);
    g.throughput(Throughput::Bytes(buf.len() as u64));
    g.bench_function("decode/monitor-hs32le.bin x1000", |b| {
        b.iter(|| monitor::decode(black_box(&buf), plain).unwrap().len());
    });
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
