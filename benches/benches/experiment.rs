//! Benchmarks for `experiment`: packet decoding throughput on a large data file built from the
//! real packets of the gprofng fixtures (clock, heap, sync, I/O), packed densely into 64 KiB
//! blocks with EMPTY tails exactly as the collector writes them. Throughput is bytes of data file.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use experiment::log::Log;
use experiment::packets::{Packets, TypedPacket};
use experiment::{DataFile, cursor::Endian};
use std::hint::black_box;
use std::path::PathBuf;

const BLOCK: usize = 65536;
const SIZE: usize = 64 << 20;

fn fixture(case: &str) -> PathBuf {
    benches::repo_root()
        .join("experiment/tests/data")
        .join(case)
        .join("test.1.er")
}

/// One log.xml describing all four kinds, every kind's packets in file `data`.
fn merged_log() -> Log {
    let mut log = Log::default();
    for (case, file) in [
        ("clock_basic", "profile"),
        ("heap", "heaptrace"),
        ("sync_all", "synctrace"),
        ("iotrace", "iotrace"),
    ] {
        let l = Log::parse(&std::fs::read(fixture(case).join("log.xml")).unwrap()).unwrap();
        if log.version.is_empty() {
            log = l.clone();
            log.packets.clear();
        }
        for mut d in l
            .packets
            .into_iter()
            .filter(|d| d.file.as_deref() == Some(file))
        {
            d.file = Some("data".into());
            log.packets.push(d);
        }
    }
    log
}

/// A `SIZE`-byte data file of real packets, round-robin over the kinds, dense 64 KiB blocks.
fn big_file() -> Vec<u8> {
    let mut packets: Vec<Vec<u8>> = Vec::new();
    for (case, file) in [
        ("clock_basic", "profile"),
        ("heap", "heaptrace"),
        ("sync_all", "synctrace"),
        ("iotrace", "iotrace"),
    ] {
        let bytes = std::fs::read(fixture(case).join(file)).unwrap();
        packets.extend(Packets::new(&bytes, Endian::Little).map(|p| p.unwrap().bytes.to_vec()));
    }
    let mut out = Vec::with_capacity(SIZE);
    let mut block = Vec::with_capacity(BLOCK);
    for p in packets.iter().cycle() {
        if block.len() + p.len() + 8 > BLOCK {
            let rest = BLOCK - block.len();
            block.extend((rest as u16).to_le_bytes());
            block.extend([0, 0]);
            block.resize(BLOCK, 0);
            out.extend(&block);
            block.clear();
            if out.len() >= SIZE {
                break;
            }
        }
        block.extend(p);
    }
    out
}

/// Nanoseconds this thread has spent on a CPU (the machine is shared: wall-clock throughput
/// under load understates what one core does).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn typed_sum(file: &DataFile<'_>) -> u64 {
    let mut sum = 0u64;
    for p in file.packets() {
        let t = p.unwrap().typed().unwrap();
        sum = sum.wrapping_add(t.common().tstamp);
        if let TypedPacket::Heap(h) = t {
            sum = sum.wrapping_add(h.size);
        }
    }
    sum
}

fn decode(c: &mut Criterion) {
    let log = merged_log();
    let data = Bytes::from(big_file());
    let file = DataFile::new("data", data.clone(), &log);
    let n = file.packets().count();
    println!("synthetic data file: {} bytes, {n} packets", data.len());
    if let Some(start) = cpu_ns() {
        let rounds = 5;
        for _ in 0..rounds {
            black_box(typed_sum(&file));
        }
        if let Some(end) = cpu_ns() {
            let secs = (end - start) as f64 / 1e9;
            let gbps = (data.len() * rounds) as f64 / secs / 1e9;
            println!(
                "decode_typed on-CPU throughput: {gbps:.2} GB/s ({rounds} rounds, {secs:.3} s CPU)"
            );
        }
    }
    let mut g = c.benchmark_group("experiment");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("walk_blocks", |b| {
        b.iter(|| black_box(Packets::new(&data, Endian::Little).count()));
    });
    g.bench_function("decode_typed", |b| b.iter(|| black_box(typed_sum(&file))));
    g.bench_function("decode_by_name", |b| {
        b.iter(|| {
            let mut sum = 0usize;
            for p in file.packets() {
                sum += p.unwrap().packet.record().unwrap().fields.len();
            }
            black_box(sum)
        });
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
