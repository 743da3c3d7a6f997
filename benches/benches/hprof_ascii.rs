//! Benchmarks for `hprof::ascii` (HPROF ASCII reports). The input is built by repeating the
//! bodies of the three real fixtures (hprof/tests/data/ascii) after one header and prelude, to
//! about 16 MiB. No other ASCII HPROF parser exists to compare with (hprof.md §3), so the
//! baseline is a bare line split of the same bytes (`str::lines`), the floor of any
//! line-oriented parser.
//!
//! Two groups: `hprof_ascii` measures wall-clock time; `hprof_ascii_cpu` measures the
//! benchmark thread's CPU time (`/proc/thread-self/schedstat`), i.e. throughput on one core,
//! which stays meaningful when other processes share the machine.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput};
use hprof::ascii::{Reader, Report};
use std::hint::black_box;

fn input() -> Vec<u8> {
    let dir = benches::repo_root().join("hprof/tests/data/ascii");
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    let files = [
        read("optimization_java.hprof.txt"),
        read("SimNet_java.hprof.txt"),
        read("jvm-in-action_java.hprof.txt"),
    ];
    let sep = "\n--------\n\n";
    let first = &files[0];
    let body_at = |t: &str| t.find(sep).map(|i| i + sep.len()).unwrap();
    let mut out = String::from(&first[..body_at(first)]);
    while out.len() < 16 << 20 {
        for f in &files {
            let f = f.replace("\r\n", "\n");
            out.push_str(&f[body_at(&f)..]);
        }
    }
    out.into_bytes()
}

fn run<M: Measurement>(c: &mut Criterion<M>, group: &str, data: &[u8]) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("baseline_str_lines", |b| {
        b.iter(|| {
            std::str::from_utf8(black_box(data))
                .unwrap()
                .lines()
                .count()
        });
    });
    g.bench_function("reader_entries", |b| {
        b.iter(|| Reader::new(black_box(data)).filter(Result::is_ok).count());
    });
    // Dropping the parsed model (freeing every string) is not part of parsing.
    g.bench_function("report_parse", |b| {
        b.iter_with_large_drop(|| Report::parse(black_box(data)).unwrap());
    });
    let report = Report::parse(data).unwrap();
    g.bench_function("report_write", |b| b.iter(|| black_box(&report).to_text()));
    g.finish();
}

/// CPU time of the current thread in nanoseconds.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

struct ThreadCpuTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns().unwrap_or(0)
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().unwrap_or(0).saturating_sub(start).max(1)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        for v in values {
            *v /= 1e6;
        }
        "ms (CPU)"
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let per = match t {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => *b as f64,
            Throughput::Elements(e) | Throughput::ElementsAndBytes { elements: e, .. } => *e as f64,
            _ => 1.0,
        };
        for v in values {
            *v = per * 1e9 / *v / 1_048_576.0;
        }
        "MiB/s (per CPU-second)"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn main() {
    let data = input();
    // Sanity: the synthetic input parses without errors.
    assert!(Reader::new(&data).all(|e| e.is_ok()));
    let mut c = Criterion::default().configure_from_args();
    run(&mut c, "hprof_ascii", &data);
    if thread_cpu_ns().is_some() {
        let mut c = Criterion::default()
            .with_measurement(ThreadCpuTime)
            .configure_from_args();
        run(&mut c, "hprof_ascii_cpu", &data);
    }
    Criterion::default().configure_from_args().final_summary();
}
