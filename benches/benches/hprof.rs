//! Benchmarks for `hprof` (binary side): decoding, incremental decoding, the class histogram
//! (ours vs the `jvm-hprof` crate, side by side in one run) and encoding.
//!
//! By default they run on the dumps bundled in `hprof/tests/data/binary/`. Set
//! `HPROF_BENCH_FILE=/path/large.hprof` to run the histogram comparison on a big dump
//! (`benches/hprof-peers.sh` generates them with HeapGen and prints the ratios).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::semicolon_if_nothing_returned
)]

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::io::Read;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use hprof::binary::histogram::{Histogram, IdHasher};
use hprof::binary::incremental::Decoder;
use hprof::binary::write::Writer;
use hprof::binary::{Record, Records};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = benches::repo_root().join("hprof/tests/data/binary");
    [
        "heapgen_jdk17.hprof",
        "haha_sun_jdk5_64bit.hprof",
        "ahat_test-dump-base_art-host-2025.hprof",
    ]
    .iter()
    .map(|n| (n.to_string(), std::fs::read(dir.join(n)).unwrap()))
    .collect()
}

fn peer_file() -> PathBuf {
    std::env::var_os("HPROF_BENCH_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| benches::repo_root().join("hprof/tests/data/binary/heapgen_jdk17.hprof"))
}

/// Our histogram over a file, read through a fixed 4 MiB buffer (the histogram example's path).
fn ours_stream(path: &PathBuf) -> u64 {
    let mut file = std::fs::File::open(path).unwrap();
    let mut buf = vec![0u8; 4 << 20];
    let mut filled = 0;
    let mut decoder = Decoder::new();
    let mut hist = Histogram::new();
    loop {
        let n = file.read(&mut buf[filled..]).unwrap();
        filled += n;
        let (consumed, needed) = decoder.decode_with(&buf[..filled], &mut hist).unwrap();
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        if n == 0 {
            decoder.finish(&buf[..filled]).unwrap();
            return hist.total_instances();
        }
        if filled + needed > buf.len() {
            buf.resize(filled + needed, 0);
        }
    }
}

/// A class histogram with the `jvm-hprof` crate over the same bytes: every record, every
/// heap-dump sub-record; instances and object arrays by class id, primitive arrays by type.
/// `threads` > 1 splits the heap-dump records into byte-balanced groups, as ours does.
fn jvm_hprof_histogram(data: &[u8], threads: usize) -> u64 {
    use jvm_hprof::heap_dump::SubRecord;
    type Map = HashMap<u64, (u64, u64), BuildHasherDefault<IdHasher>>;
    let hprof = jvm_hprof::parse_hprof(data).unwrap();
    let mut segments = Vec::new();
    for r in hprof.records_iter() {
        let r = r.unwrap();
        if let Some(seg) = r.as_heap_dump_segment() {
            segments.push(seg.unwrap());
        }
    }
    let count = |segs: &[jvm_hprof::HeapDumpSegment<'_>]| -> (Map, [(u64, u64); 8]) {
        let mut classes = Map::default();
        let mut prims = [(0u64, 0u64); 8];
        for seg in segs {
            for s in seg.sub_records() {
                match s.unwrap() {
                    SubRecord::Instance(i) => {
                        let e = classes.entry(i.class_obj_id().id()).or_default();
                        e.0 += 1;
                        e.1 += i.fields().len() as u64;
                    }
                    SubRecord::ObjectArray(a) => {
                        let e = classes.entry(a.array_class_obj_id().id()).or_default();
                        e.0 += 1;
                    }
                    SubRecord::PrimitiveArray(p) => {
                        prims[p.primitive_type() as usize].0 += 1;
                    }
                    _ => {}
                }
            }
        }
        (classes, prims)
    };
    let total = |(classes, prims): (Map, [(u64, u64); 8])| -> u64 {
        classes.values().map(|v| v.0).sum::<u64>() + prims.iter().map(|v| v.0).sum::<u64>()
    };
    if threads <= 1 {
        return total(count(&segments));
    }
    let half = segments.len() / 2;
    let (a, b) = segments.split_at(half);
    std::thread::scope(|s| {
        let ha = s.spawn(|| total(count(a)));
        let hb = s.spawn(|| total(count(b)));
        ha.join().unwrap() + hb.join().unwrap()
    })
}

fn histogram_vs_peer(c: &mut Criterion) {
    let path = peer_file();
    let data = std::fs::read(&path).unwrap();
    // Same answer from everyone before timing anything.
    let expected = Histogram::from_bytes(&data).unwrap().total_instances();
    assert_eq!(jvm_hprof_histogram(&data, 1), expected);
    assert_eq!(jvm_hprof_histogram(&data, 2), expected);
    assert_eq!(
        Histogram::from_bytes_parallel(&data, 2)
            .unwrap()
            .total_instances(),
        expected
    );
    assert_eq!(ours_stream(&path), expected);

    let mut g = c.benchmark_group("hprof_histogram");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("ours_1t_memory", |b| {
        b.iter(|| Histogram::from_bytes(&data).unwrap().total_instances())
    });
    g.bench_function("ours_1t_stream_4MiB", |b| b.iter(|| ours_stream(&path)));
    g.bench_function("jvm-hprof_1t_memory", |b| {
        b.iter(|| jvm_hprof_histogram(&data, 1))
    });
    g.bench_function("ours_2t_memory", |b| {
        b.iter(|| {
            Histogram::from_bytes_parallel(&data, 2)
                .unwrap()
                .total_instances()
        })
    });
    g.bench_function("jvm-hprof_2t_memory", |b| {
        b.iter(|| jvm_hprof_histogram(&data, 2))
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("hprof_decode");
    for (name, data) in fixtures() {
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("records_and_sub_records", &name),
            &data,
            |b, data| {
                b.iter(|| {
                    let (_, records) = Records::new(data).unwrap();
                    let mut n = 0usize;
                    for r in records {
                        if let (_, Record::HeapDump(d) | Record::HeapDumpSegment(d)) = r.unwrap() {
                            for s in d.sub_records() {
                                s.unwrap();
                                n += 1;
                            }
                        }
                    }
                    n
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("incremental_64KiB_chunks", &name),
            &data,
            |b, data| {
                b.iter(|| {
                    let mut d = Decoder::new();
                    let mut buf = Vec::with_capacity(1 << 17);
                    let mut n = 0usize;
                    for chunk in data.chunks(64 << 10) {
                        buf.extend_from_slice(chunk);
                        let (consumed, _) = d.decode_all(&buf, |_| n += 1).unwrap();
                        buf.drain(..consumed);
                    }
                    n
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("encode_every_sub_record", &name),
            &data,
            |b, data| {
                b.iter(|| {
                    let (header, records) = Records::new(data).unwrap();
                    let mut w = Writer::new(Vec::with_capacity(data.len()), &header).unwrap();
                    for r in records {
                        match r.unwrap() {
                            (h, Record::HeapDump(d) | Record::HeapDumpSegment(d)) => {
                                w.start_heap_dump_record(h.tag, h.time).unwrap();
                                for s in d.sub_records() {
                                    w.write_sub_record(&s.unwrap()).unwrap();
                                }
                                w.close_heap_dump_record().unwrap();
                            }
                            (h, other) => w.write_record(h.time, &other).unwrap(),
                        }
                    }
                    w.finish().unwrap().len()
                })
            },
        );
    }
    g.finish();
}

/// Process CPU time (user + system, all threads) in seconds, from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name.
    (ticks(11) + ticks(12)) / 100.0
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// `HPROF_PEERS=1`: paired runs (A B A B …) of our histogram and jvm-hprof's on
/// `HPROF_BENCH_FILE`, printing median wall and CPU seconds and the ratios. Wall time on a
/// shared 2-core machine is noisy; CPU time and the paired ratios are the figures to quote.
fn peers() {
    let path = peer_file();
    let data = std::fs::read(&path).unwrap();
    let mb = data.len() as f64 / 1e6;
    let expected = Histogram::from_bytes(&data).unwrap().total_instances();
    let pairs: usize = std::env::var("HPROF_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    type Run<'a> = (&'a str, Box<dyn Fn() -> u64 + 'a>);
    let runs: Vec<Run<'_>> = vec![
        ("ours_1t_stream_4MiB", Box::new(|| ours_stream(&path))),
        (
            "ours_1t_memory",
            Box::new(|| Histogram::from_bytes(&data).unwrap().total_instances()),
        ),
        (
            "jvm-hprof_1t_memory",
            Box::new(|| jvm_hprof_histogram(&data, 1)),
        ),
        (
            "ours_2t_memory",
            Box::new(|| {
                Histogram::from_bytes_parallel(&data, 2)
                    .unwrap()
                    .total_instances()
            }),
        ),
        (
            "jvm-hprof_2t_memory",
            Box::new(|| jvm_hprof_histogram(&data, 2)),
        ),
    ];
    let mut wall = vec![Vec::new(); runs.len()];
    let mut cpu = vec![Vec::new(); runs.len()];
    for _ in 0..pairs {
        for (i, (_, f)) in runs.iter().enumerate() {
            let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
            assert_eq!(f(), expected);
            wall[i].push(t0.elapsed().as_secs_f64());
            cpu[i].push(cpu_seconds() - c0);
        }
    }
    println!(
        "file {} ({:.0} MB, {} objects), {} paired rounds",
        path.display(),
        mb,
        expected,
        pairs
    );
    println!(
        "{:<22} {:>10} {:>10} {:>10}",
        "run", "wall s", "CPU s", "MB/s wall"
    );
    let mut med = Vec::new();
    for (i, (name, _)) in runs.iter().enumerate() {
        let (w, c) = (median(&mut wall[i]), median(&mut cpu[i]));
        println!("{name:<22} {w:>10.3} {c:>10.3} {:>10.0}", mb / w);
        med.push((w, c));
    }
    let ratio = |a: usize, b: usize| (med[b].0 / med[a].0, med[b].1 / med[a].1);
    for (a, b, what) in [
        (0, 2, "ours 1t stream vs jvm-hprof 1t"),
        (1, 2, "ours 1t memory vs jvm-hprof 1t"),
        (3, 4, "ours 2t memory vs jvm-hprof 2t"),
    ] {
        let (w, c) = ratio(a, b);
        println!("speed-up {what}: {w:.2}x wall, {c:.2}x CPU");
    }
}

criterion_group!(benches, histogram_vs_peer, decode);

fn main() {
    if std::env::var_os("HPROF_PEERS").is_some() {
        peers();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
