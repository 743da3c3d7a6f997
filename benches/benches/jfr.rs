//! Benchmarks for `jfr-format`: every event of a 100 MB+ recording decoded, beside the `jfrs`
//! crate (0.2.5) reading the same bytes in the same run. The recording is made at bench time
//! (not committed): the committed two-chunk `alloc-chunks.jfr` (JDK 17, `settings=profile`)
//! repeated until it passes 100 MiB; a `.jfr` file is a sequence of self-contained chunks, as
//! `jfr assemble` makes them, so this is a valid recording of 120 chunks. It is also written
//! to `$TMPDIR/jfr-bench-100mb.jfr` for the whole-process comparisons in benches/README.md.
//!
//! - `check_records`: what `jfr-summary` does: every event's every field decoded and checked;
//! - `validate`: the same through the event iterator (`Event::validate` per event);
//! - `values`: every event decoded into `Value`s (strings borrowed, references unresolved);
//! - `jfrs_events`: `jfrs`'s event iterator, which decodes every event's values.
//!
//! Also printed: on-CPU throughput (`/proc/thread-self/schedstat`), since wall-clock figures
//! on the shared VM understate one core.
#![allow(
    missing_docs,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::indexing_slicing,
    clippy::semicolon_if_nothing_returned
)]

use std::hint::black_box;
use std::io::Cursor;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn recording() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../jfr/tests/data/alloc-chunks.jfr"
    );
    let one = std::fs::read(path).unwrap();
    let mut data = Vec::with_capacity((100 << 20) + one.len());
    while data.len() < 100 << 20 {
        data.extend_from_slice(&one);
    }
    let _ = std::fs::write(std::env::temp_dir().join("jfr-bench-100mb.jfr"), &data);
    data
}

fn check_records(data: &[u8]) -> usize {
    let mut n = 0;
    for chunk in jfr::Chunks::new(data) {
        chunk.unwrap().check_records(|_, _| n += 1).unwrap();
    }
    n
}

fn validate(data: &[u8]) -> usize {
    let mut n = 0;
    for chunk in jfr::Chunks::new(data) {
        let chunk = chunk.unwrap();
        for e in chunk.records() {
            let e = e.unwrap();
            if e.type_id() > 1 {
                e.validate().unwrap();
            }
            n += 1;
        }
    }
    n
}

fn values(data: &[u8]) -> usize {
    let mut n = 0;
    for chunk in jfr::Chunks::new(data) {
        let chunk = chunk.unwrap();
        for e in chunk.events() {
            n += black_box(e.unwrap().values().unwrap()).fields.len();
        }
    }
    n
}

fn jfrs_events(data: &[u8]) -> usize {
    let mut reader = jfrs::reader::JfrReader::new(Cursor::new(data));
    let mut n = 0;
    for (mut chunk_reader, chunk) in reader.chunks().flatten() {
        for event in chunk_reader.events(&chunk) {
            black_box(event.unwrap());
            n += 1;
        }
    }
    n
}

/// Nanoseconds this thread has spent on a CPU.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn on_cpu(data: &[u8]) {
    let rounds = 3;
    let mut t = [0u64; 4];
    for _ in 0..rounds {
        for (i, f) in [
            check_records as fn(&[u8]) -> usize,
            validate,
            values,
            jfrs_events,
        ]
        .iter()
        .enumerate()
        {
            let Some(a) = cpu_ns() else { return };
            black_box(f(data));
            t[i] += cpu_ns().unwrap_or(a) - a;
        }
    }
    let mbs = |ns: u64| data.len() as f64 * rounds as f64 / (ns as f64 / 1e9) / 1e6;
    println!(
        "jfr on-CPU, {rounds} interleaved rounds over {} bytes: check_records {:.0} MB/s, validate {:.0} MB/s, values {:.0} MB/s, jfrs {:.0} MB/s (check_records {:.1}x jfrs)",
        data.len(),
        mbs(t[0]),
        mbs(t[1]),
        mbs(t[2]),
        mbs(t[3]),
        t[3] as f64 / t[0] as f64
    );
}

fn decode_all(c: &mut Criterion) {
    let data = recording();
    println!(
        "recording: {} bytes, {} records; jfrs reads {} events",
        data.len(),
        validate(&data),
        jfrs_events(&data)
    );
    on_cpu(&data);
    let mut group = c.benchmark_group("jfr/decode_all");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.bench_function("check_records", |b| {
        b.iter(|| check_records(black_box(&data)))
    });
    group.bench_function("validate", |b| b.iter(|| validate(black_box(&data))));
    group.bench_function("values", |b| b.iter(|| values(black_box(&data))));
    group.bench_function("jfrs_events", |b| b.iter(|| jfrs_events(black_box(&data))));
    group.finish();
}

criterion_group!(benches, decode_all);
criterion_main!(benches);
