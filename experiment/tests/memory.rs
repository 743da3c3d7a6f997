//! Memory of the owned models against the size of their input, on the real experiments of
//! `tests/data/`: peak heap (counting allocator, `testkit`) while building a model from the
//! experiment's files (already in memory) and keeping it. The input is every file of the
//! experiment directory, descendants included (`archives/` holds empty files), or for the
//! typed packets the data files alone; the models of the descendants are built and kept too.
//! The budget is 8× the input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stderr
)]

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{CASES, data};
use experiment::bytes::Bytes;
use experiment::packets::TypedPacket;
use experiment::profile::{FunctionTable, StackProfile};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, MemorySource, Source};
use testkit::{Budget, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// The family's budget: an owned model takes at most 8× its input at its peak.
const LIMIT: f64 = 8.0;

/// Every file under `dir` in memory, and their total size.
fn load_dir(dir: &Path) -> (MemorySource, usize) {
    fn walk(root: &Path, dir: &Path, src: &mut MemorySource, size: &mut usize) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, src, size);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
                let bytes = std::fs::read(&p).unwrap();
                *size += bytes.len();
                src.insert(rel, bytes);
            }
        }
    }
    let mut src = MemorySource::new();
    let mut size = 0;
    walk(dir, dir, &mut src, &mut size);
    (src, size)
}

/// The symbols-only extracts of the load objects the experiments ran with, by file name.
fn load_objects() -> HashMap<String, Bytes> {
    std::fs::read_dir(data().join("load-objects"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_owned();
            (name, Bytes::from(std::fs::read(&p).unwrap()))
        })
        .collect()
}

/// The size of the data files of `exp` and its descendants.
fn data_size(src: &MemorySource) -> usize {
    let exp = Experiment::open(src.clone()).unwrap();
    let size = |files: Vec<experiment::DataFile<'_>>| -> usize {
        files.iter().map(|f| f.bytes().len()).sum()
    };
    let mut total = size(exp.data_files().unwrap());
    for d in exp.descendants() {
        total += size(exp.open_descendant(&d.name).unwrap().data_files().unwrap());
    }
    total
}

/// Every typed packet of every data file of `exp`.
fn typed_packets<S: Source>(exp: &Experiment<S>) -> Vec<TypedPacket> {
    let mut out = Vec::new();
    for file in exp.data_files().unwrap() {
        for packet in file.packets() {
            let Ok(packet) = packet else { break };
            if let Ok(typed) = packet.typed() {
                out.push(typed);
            }
        }
    }
    out
}

/// The function table of `exp` (its founder's archives for a descendant).
fn functions<S: Source, F: Source>(
    exp: &Experiment<S>,
    founder: Option<&Experiment<F>>,
    objects: &HashMap<String, Bytes>,
) -> FunctionTable {
    let mut symbols = Symbolizer::new(exp)
        .with_load_objects(|path| objects.get(path.rsplit('/').next()?).cloned());
    if let Some(f) = founder {
        symbols = symbols.with_founder_archives(f);
    }
    StackProfile::collect(exp, symbols, None)
        .unwrap()
        .function_table()
}

#[test]
fn owned_models_fit_in_eight_times_their_input() {
    let objects = load_objects();
    let mut budget = Budget::default();
    for case in CASES {
        let dir = data().join(case).join("test.1.er");
        let (src, input) = load_dir(&dir);

        let (opened, peak) = peak_of(|| {
            let exp = Experiment::open(src.clone()).unwrap();
            // Descendants borrow their founder: they are kept until the end of the closure.
            let children: Vec<_> = exp
                .descendants()
                .iter()
                .map(|d| exp.open_descendant(&d.name).unwrap())
                .collect();
            let n = children.len();
            drop(children);
            (exp, n)
        });
        drop(opened);
        budget.check(
            "experiment `Experiment::open` (+ descendants)",
            case,
            input,
            peak,
        );

        // The packets alone (the experiment opened beforehand), against the data files.
        let exp = Experiment::open(src.clone()).unwrap();
        let children: Vec<_> = exp
            .descendants()
            .iter()
            .map(|d| exp.open_descendant(&d.name).unwrap())
            .collect();
        let (packets, peak) = peak_of(|| {
            let mut packets = typed_packets(&exp);
            for child in &children {
                packets.extend(typed_packets(child));
            }
            packets
        });
        let data_bytes = data_size(&src);
        assert_eq!(packets.is_empty(), data_bytes == 0, "{case}");
        drop(packets);
        if data_bytes > 0 {
            budget.check(
                "experiment typed packets (`Vec<TypedPacket>`), against the data files",
                case,
                data_bytes,
                peak,
            );
        }

        let (table, peak) = peak_of(|| {
            let exp = Experiment::open(src.clone()).unwrap();
            let mut table = functions(&exp, None::<&Experiment<MemorySource>>, &objects);
            for d in exp.descendants().into_iter().filter(|d| d.has_data) {
                let child = exp.open_descendant(&d.name).unwrap();
                table.merge(functions(&child, Some(&exp), &objects));
            }
            (exp, table)
        });
        drop(table);
        budget.check(
            "experiment stacks + profile (`Symbolizer`, `StackProfile`, `FunctionTable`)",
            case,
            input,
            peak,
        );
    }
    budget.assert_within(LIMIT);
}
