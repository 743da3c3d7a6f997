//! Benchmarks for `pointsto`: call tree TXT (line reader, graph builder, writer), object tree,
//! CSV. No peer parser exists in Rust; the baseline is splitting the same bytes into lines
//! (`str::lines`), the floor any line parser pays, measured in the same run.
#![allow(
    missing_docs,
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::semicolon_if_nothing_returned
)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "../../pointsto/tests/generate/mod.rs"]
mod generate;

use generate::{Options, Version};
use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;
use pointsto::call_tree::txt::Reader;
use pointsto::object_tree::ObjectTree;

/// A generated call tree of at least `mb` megabytes, with report-like proportions (most
/// lines `id-ref=`, depth up to 26).
fn call_tree(mb: usize, version: Version) -> String {
    let opts = Options {
        version,
        mangled: false,
        crlf: false,
    };
    let mut scale = 1;
    loop {
        let shape = generate::Shape {
            entries: Some(64 * scale),
            ..generate::REALISTIC_SHAPE
        };
        let budget = scale * ((mb as u64) << 20 >> 7);
        let (text, _) = generate::call_tree_shaped(7, opts, budget, shape);
        if text.len() >= mb << 20 {
            return text;
        }
        scale *= 2;
    }
}

fn txt_call_tree(c: &mut Criterion) {
    let text = call_tree(16, Version::V24_2);
    let mut group = c.benchmark_group("pointsto/call_tree_txt");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("baseline_str_lines", |b| {
        b.iter(|| black_box(text.as_str()).lines().count())
    });
    group.bench_function("reader_lines", |b| {
        b.iter(|| {
            Reader::from_bytes(black_box(text.as_bytes()))
                .filter(Result::is_ok)
                .count()
        })
    });
    group.bench_function("graph_parse_txt", |b| {
        b.iter(|| {
            CallGraph::parse_txt(black_box(text.as_bytes()))
                .unwrap()
                .methods
                .len()
        })
    });
    let graph = CallGraph::parse_txt(text.as_bytes()).unwrap();
    group.bench_function("write_txt", |b| {
        b.iter(|| {
            pointsto::write::call_tree_txt(black_box(&graph))
                .unwrap()
                .len()
        })
    });
    group.finish();
}

fn object_tree(c: &mut Criterion) {
    let opts = Options {
        version: Version::V24_2,
        mangled: false,
        crlf: false,
    };
    let mut roots = 256;
    let text = loop {
        let (text, _) = generate::object_tree_with_roots(3, opts, u64::MAX, Some(roots));
        if text.len() > 4 << 20 {
            break text;
        }
        roots *= 2;
    };
    let mut group = c.benchmark_group("pointsto/object_tree_txt");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("baseline_str_lines", |b| {
        b.iter(|| black_box(text.as_str()).lines().count())
    });
    group.bench_function("parse", |b| {
        b.iter(|| {
            ObjectTree::parse(black_box(text.as_bytes()))
                .unwrap()
                .nodes
                .len()
        })
    });
    group.finish();
}

fn csv_call_tree(c: &mut Criterion) {
    let text = call_tree(8, Version::V24_2);
    let report = pointsto::write::call_tree_csv(&CallGraph::parse_txt(text.as_bytes()).unwrap());
    let bytes = report.methods.len() + report.invokes.len() + report.targets.len();
    let mut group = c.benchmark_group("pointsto/call_tree_csv");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("baseline_str_lines", |b| {
        b.iter(|| {
            [&report.methods, &report.invokes, &report.targets]
                .iter()
                .map(|f| black_box(f.as_str()).lines().count())
                .sum::<usize>()
        })
    });
    group.bench_function("read_csv", |b| {
        b.iter(|| {
            CallGraph::read_csv(|f| match f {
                CsvFile::Methods => Some(report.methods.as_bytes()),
                CsvFile::Invokes => Some(report.invokes.as_bytes()),
                CsvFile::Targets => Some(report.targets.as_bytes()),
                _ => None,
            })
            .unwrap()
            .invokes
            .len()
        })
    });
    group.finish();
}

criterion_group!(benches, txt_call_tree, object_tree, csv_call_tree);
criterion_main!(benches);
