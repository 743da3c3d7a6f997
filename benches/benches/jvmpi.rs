//! Benchmarks for `jvmpi-types`: decode (and encode) throughput of heap, object and monitor
//! dump buffers, on the real-heap buffers in `jvmpi-types/tests/data`. No peer parser of JVMPI
//! buffers exists to compare against; the hprof agent's C reader is not runnable here.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jvmpi_types::dump::heap::InstanceDump;
use jvmpi_types::dump::{heap, monitor};
use jvmpi_types::{ClassTable, DumpLevel, DumpOptions, IdOrder, IdSize, TypeCode};

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
                heap::parse(black_box(&buf), options, level, classes)
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
        let records = heap::parse(&buf, options, level, classes).unwrap();
        g.bench_function(format!("encode/{name}"), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(buf.len());
                heap::write(black_box(&records), options, level, &mut out).unwrap();
                out.len()
            });
        });
    }
    let buf = data("heap-l0-hs32le.bin");
    g.throughput(Throughput::Bytes(buf.len() as u64));
    g.bench_function("decode/heap-l0-hs32le.bin", |b| {
        b.iter(|| heap::parse_level0(black_box(&buf), hs).unwrap().len());
    });
    // Monitor dumps are tiny; repeat the real one to get a measurable buffer.
    let one = data("monitor-hs32le.bin");
    let buf: Vec<u8> = one.iter().copied().cycle().take(one.len() * 1000).collect();
    let plain = DumpOptions::new(IdSize::Four, IdOrder::Little);
    g.throughput(Throughput::Bytes(buf.len() as u64));
    g.bench_function("decode/monitor-hs32le.bin x1000", |b| {
        b.iter(|| monitor::parse(black_box(&buf), plain).unwrap().len());
    });
    g.finish();
}

/// Decoding the fields of every instance of the real level-2 heap through an
/// `InstanceLayoutCache` against `InstanceDump::fields_from` (which gathers the field types
/// along the superclass chain for every instance), in the same run. The fixtures carry no
/// instance field types (only statics), so the real heap's classes and superclass chains
/// (from its class dumps) are each given three `int` fields of their own, and each instance's
/// values are zeros of its chain's size.
fn layouts(c: &mut Criterion) {
    let hs = DumpOptions::new(IdSize::Four, IdOrder::Little).hotspot();
    let classes: ClassTable = serde_json::from_slice(&data("heap-classes-hs32le.json")).unwrap();
    let mut classes = classes.layouts().unwrap();
    let records =
        heap::parse(&data("heap-l2-hs32le.bin"), hs, DumpLevel::Level2, &classes).unwrap();
    classes.insert_supers(&records);
    for r in &records {
        if let heap::HeapDumpRecord::ClassDump(class) = r {
            classes.insert_instance_fields(class.class, vec![TypeCode::Int; 3]);
        }
    }
    let instances: Vec<InstanceDump> = records
        .iter()
        .filter_map(|r| match r {
            heap::HeapDumpRecord::InstanceDump(i) => {
                let n = classes.instance_field_types(i.class)?.len();
                Some(InstanceDump {
                    values: vec![0; 4 * n],
                    ..i.clone()
                })
            }
            _ => None,
        })
        .collect();
    assert!(instances.len() > 1000, "{} instances", instances.len());
    let mut g = c.benchmark_group("jvmpi_layouts/heap-l2-hs32le.bin");
    g.throughput(Throughput::Elements(instances.len() as u64));
    g.bench_function("fields_from", |b| {
        b.iter(|| {
            let mut n = 0;
            for i in &instances {
                n += black_box(i)
                    .fields_from(&classes, hs, DumpLevel::Level2)
                    .unwrap()
                    .unwrap()
                    .len();
            }
            n
        });
    });
    g.bench_function("fields_with_cache", |b| {
        b.iter(|| {
            let mut cache = classes.instance_layout_cache();
            let mut n = 0;
            for i in &instances {
                n += black_box(i)
                    .fields_with(&mut cache, hs, DumpLevel::Level2)
                    .unwrap()
                    .unwrap()
                    .len();
            }
            n
        });
    });
    g.finish();
}

criterion_group!(benches, parse, layouts);
criterion_main!(benches);
