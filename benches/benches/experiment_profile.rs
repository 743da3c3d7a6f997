//! Benchmark for `experiment`'s named stacks and function profiles: a 64 MiB clock+heap
//! experiment built from the real `heap` fixture (its data.frameinfo, map.xml, archived program
//! and the symbols-only extracts of libc and the collector libraries) and the real clock packets
//! of `clock_basic`, whose FRINFO are re-pointed at the heap experiment's stacks. Each iteration
//! names every packet's stack (`Symbolizer`), charges its metrics (`StackProfile::collect`, leaks
//! included) and builds the function table and the folded stacks. Throughput is bytes of
//! packets (profile + heaptrace).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use experiment::cursor::Endian;
use experiment::packets::Packets;
use experiment::profile::{Metric, StackProfile};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, MemorySource};
use std::hint::black_box;
use std::path::PathBuf;

const BLOCK: usize = 65536;
/// Bytes of each of the two data files.
const HALF: usize = 32 << 20;

fn data(rel: &str) -> PathBuf {
    benches::repo_root().join("experiment/tests/data").join(rel)
}

fn packets_of(path: PathBuf) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    Packets::new(&bytes, Endian::Little)
        .map(|p| p.unwrap().bytes.to_vec())
        .collect()
}

/// `HALF` bytes of `packets` repeated in dense 64 KiB blocks with EMPTY tails.
fn blocks(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HALF);
    let mut block = Vec::with_capacity(BLOCK);
    for p in packets.iter().cycle() {
        if block.len() + p.len() + 8 > BLOCK {
            let rest = BLOCK - block.len();
            block.extend((rest as u16).to_le_bytes());
            block.extend([0, 0]);
            block.resize(BLOCK, 0);
            out.extend(&block);
            block.clear();
            if out.len() >= HALF {
                break;
            }
        }
        block.extend(p);
    }
    out
}

fn experiment() -> (MemorySource, usize) {
    let dir = data("heap/test.1.er");
    let heap = packets_of(dir.join("heaptrace"));
    let uids: Vec<u64> = heap
        .iter()
        .map(|p| u64::from_le_bytes(p[40..48].try_into().unwrap()))
        .collect();
    // Clock packets (56 bytes, FRINFO at 36) with the heap experiment's stacks.
    let mut clock = packets_of(data("clock_basic/test.1.er/profile"));
    let mut many = Vec::new();
    for (i, uid) in uids.iter().enumerate() {
        let mut p = clock[i % clock.len()].clone();
        p[36..44].copy_from_slice(&uid.to_le_bytes());
        many.push(p);
    }
    clock = many;
    let log = String::from_utf8_lossy(&std::fs::read(dir.join("log.xml")).unwrap())
        .trim_end_matches('\0')
        .to_owned();
    let clock_log =
        String::from_utf8_lossy(&std::fs::read(data("clock_basic/test.1.er/log.xml")).unwrap())
            .into_owned();
    let start = clock_log.find("<profile name=\"profile\"").unwrap();
    let end = start + clock_log[start..].find("</profile>").unwrap() + "</profile>".len();
    let at = log.find("<profile name=\"heaptrace\"").unwrap();
    let log = format!("{}{}\n{}", &log[..at], &clock_log[start..end], &log[at..]);
    let profile = blocks(&clock);
    let heaptrace = blocks(&heap);
    let bytes = profile.len() + heaptrace.len();
    let mut src = MemorySource::new()
        .with("log.xml", log.into_bytes())
        .with("profile", profile)
        .with("heaptrace", heaptrace);
    for f in ["map.xml", "data.frameinfo"] {
        src.insert(f, std::fs::read(dir.join(f)).unwrap());
    }
    for e in std::fs::read_dir(dir.join("archives")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        src.insert(format!("archives/{name}"), std::fs::read(&p).unwrap());
    }
    (src, bytes)
}

fn load_object(path: &str) -> Option<Bytes> {
    let name = path.rsplit('/').next()?;
    std::fs::read(data("load-objects").join(name))
        .ok()
        .map(Bytes::from)
}

fn profile_once(exp: &Experiment<MemorySource>) -> usize {
    let symbols = Symbolizer::new(exp).with_load_objects(load_object);
    let p = StackProfile::collect(exp, symbols, None).unwrap();
    let t = p.function_table();
    let columns = t.default_columns();
    let rows = t.rows(
        &columns,
        experiment::profile::FunctionTable::sort_column(&columns),
    );
    rows.len() + p.folded(Metric::TotalCpu).len() + p.folded(Metric::HeapAllocBytes).len()
}

/// The reference measured in the same run: decoding every packet of the same two files
/// (typed views, no stacks), as the packet-decoding bench does.
fn decode_once(exp: &Experiment<MemorySource>) -> u64 {
    let mut sum = 0u64;
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            let t = p.unwrap().typed().unwrap();
            sum = sum.wrapping_add(t.common().frinfo);
        }
    }
    sum
}

/// Nanoseconds this thread has spent on a CPU (the machine is shared).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn profile(c: &mut Criterion) {
    let (src, bytes) = experiment();
    let exp = Experiment::open(src).unwrap();
    let rows = profile_once(&exp);
    println!("clock+heap experiment: {bytes} bytes of packets, {rows} rows + folded lines");
    // On-CPU throughput (the machine is shared: wall-clock figures understate one core),
    // profile and plain decoding interleaved so that both see the same machine.
    let rounds = 5;
    let (mut prof, mut dec) = (0u64, 0u64);
    for _ in 0..rounds {
        let Some(a) = cpu_ns() else {
            break;
        };
        black_box(profile_once(&exp));
        let b = cpu_ns().unwrap_or(a);
        black_box(decode_once(&exp));
        let c = cpu_ns().unwrap_or(b);
        prof += b - a;
        dec += c - b;
    }
    if prof > 0 && dec > 0 {
        let mbps = |ns: u64| (bytes * rounds) as f64 / (ns as f64 / 1e9) / 1e6;
        println!(
            "on-CPU: symbolize+profile {:.0} MB/s, plain typed decoding of the same packets {:.0} MB/s (profile costs {:.2}x decoding)",
            mbps(prof),
            mbps(dec),
            prof as f64 / dec as f64
        );
    }
    let mut g = c.benchmark_group("experiment_profile");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(10);
    g.bench_function("symbolize_and_profile", |b| {
        b.iter(|| black_box(profile_once(&exp)));
    });
    g.bench_function("decode_typed_same_packets", |b| {
        b.iter(|| black_box(decode_once(&exp)));
    });
    g.finish();
}

criterion_group!(benches, profile);
criterion_main!(benches);
