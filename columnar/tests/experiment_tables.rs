//! The experiment tables against the experiment crate's own answers, on real gprofng
//! experiments: one sample per packet, every stack id resolves, the functions gprofng lists
//! are there under gprofng's names, and the samples of each stack add up per leaf function.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test helpers

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, RecordBatch};
use columnar::MemorySink;
use experiment::bytes::Bytes;
use experiment::stacks::Symbolizer;
use experiment::{Error, Experiment, Source};

struct Dir(PathBuf);

impl Source for Dir {
    fn read(&self, path: &str) -> experiment::Result<Option<Bytes>> {
        match std::fs::read(self.0.join(path)) {
            Ok(b) => Ok(Some(b.into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::Read {
                path: path.to_owned(),
                reason: e.to_string(),
            }),
        }
    }
    fn list(&self, dir: &str) -> Vec<String> {
        std::fs::read_dir(self.0.join(dir))
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../experiment/tests/data")
        .join(name)
}

/// Load objects named by an experiment are read from the repository's extracts of them
/// (`experiment/tests/data/load-objects/`), by file name, like the experiment crate's tests.
fn load_object(path: &str) -> Option<Bytes> {
    let name = Path::new(path).file_name()?;
    std::fs::read(case("load-objects").join(name))
        .ok()
        .map(Into::into)
}

fn export(name: &str) -> (MemorySink, columnar::experiment::Summary, Experiment<Dir>) {
    let exp = Experiment::open(Dir(case(name).join("test.1.er"))).unwrap();
    let mut sink = MemorySink::new();
    let summary = {
        let symbols = Symbolizer::new(&exp).with_load_objects(load_object);
        columnar::experiment::export(name, &exp, symbols, &mut sink, &mut |_| {}).unwrap()
    };
    (sink, summary, exp)
}

fn batches<'s>(sink: &'s MemorySink, table: &str) -> &'s [RecordBatch] {
    &sink.tables.get(table).unwrap().1
}

fn strs(b: &RecordBatch, col: &str) -> Vec<Option<String>> {
    let a = b.column_by_name(col).unwrap().as_string::<i32>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i).to_owned()))
        .collect()
}

fn u32s(b: &RecordBatch, col: &str) -> Vec<Option<u32>> {
    let a = b.column_by_name(col).unwrap().as_primitive::<UInt32Type>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i)))
        .collect()
}

/// gprofng's function names from a recorded `functions.txt` (the last column), `<Total>` aside.
fn gprofng_functions(name: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(case(name).join("functions.txt")).unwrap();
    text.lines()
        .skip_while(|l| !l.contains("<Total>"))
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let first_name = cols.iter().position(|c| c.parse::<f64>().is_err())?;
            Some(cols[first_name..].join(" "))
        })
        .collect()
}

#[test]
fn one_sample_per_packet_and_every_stack_resolves() {
    for name in ["clock_basic", "heap", "sync_all", "iotrace", "java_heap"] {
        let (sink, summary, exp) = export(name);
        assert!(summary.is_complete(), "{name}: {:?}", summary.stopped);
        let packets: usize = exp
            .data_files()
            .unwrap()
            .iter()
            .map(|f| f.packets().count())
            .sum();
        assert!(packets > 0, "{name}");
        assert_eq!(sink.rows("samples"), packets, "{name}");
        let mut stack_ids = BTreeSet::new();
        for b in batches(&sink, "stacks") {
            stack_ids.extend(u32s(b, "stack_id").into_iter().flatten());
        }
        for b in batches(&sink, "samples") {
            for id in u32s(b, "stack_id").into_iter().flatten() {
                assert!(stack_ids.contains(&id), "{name}: stack {id}");
            }
        }
        assert!(sink.rows("load_objects") > 0, "{name}");
    }
}

#[test]
fn the_functions_gprofng_lists_are_there_under_its_names() {
    for name in ["clock_basic", "heap", "sync_all"] {
        let (sink, _, _) = export(name);
        let ours: BTreeSet<String> = batches(&sink, "functions")
            .iter()
            .flat_map(|b| strs(b, "name"))
            .flatten()
            .collect();
        let want = gprofng_functions(name);
        assert!(!want.is_empty(), "{name}");
        let missing: Vec<&String> = want.difference(&ours).collect();
        assert!(missing.is_empty(), "{name}: {missing:?} not in {ours:?}");
    }
}

#[test]
fn clock_samples_per_leaf_function_match_the_packets_ticks() {
    let (sink, _, _) = export("clock_basic");
    // Leaf function of each stack: the frame of greatest depth.
    let mut leaf: HashMap<u32, (u32, String)> = HashMap::new();
    for b in batches(&sink, "stacks") {
        let depth = u32s(b, "depth");
        for ((id, d), f) in u32s(b, "stack_id")
            .into_iter()
            .zip(depth)
            .zip(strs(b, "function"))
        {
            let (id, d, f) = (id.unwrap(), d.unwrap(), f.unwrap());
            let e = leaf.entry(id).or_insert((d, f.clone()));
            if d >= e.0 {
                *e = (d, f);
            }
        }
    }
    let mut by_leaf: BTreeMap<String, u64> = BTreeMap::new();
    for b in batches(&sink, "samples") {
        let ticks = b
            .column_by_name("ntick")
            .expect("NTICK is a column")
            .as_primitive::<arrow_array::types::Int64Type>();
        for (i, id) in u32s(b, "stack_id").into_iter().enumerate() {
            let name = id
                .and_then(|id| leaf.get(&id))
                .map_or("<no stack>".into(), |l| l.1.clone());
            *by_leaf.entry(name).or_default() += ticks.value(i) as u64;
        }
    }
    // gprofng: all 0.450 s of exclusive CPU time is in leaf_sqrt_loop.
    let total: u64 = by_leaf.values().sum();
    assert!(total > 0);
    assert_eq!(by_leaf.get("leaf_sqrt_loop"), Some(&total), "{by_leaf:?}");
}

/// A source that refuses to read a data file whole: only by ranges (`read_at`), the largest
/// range asked for kept.
struct ChunksOnly {
    dir: Dir,
    data_files: Vec<String>,
    largest: std::cell::Cell<usize>,
}

impl Source for ChunksOnly {
    fn read(&self, path: &str) -> experiment::Result<Option<Bytes>> {
        if self.data_files.iter().any(|f| f == path) {
            return Err(Error::Read {
                path: path.to_owned(),
                reason: "data files are read by ranges only".into(),
            });
        }
        self.dir.read(path)
    }
    fn list(&self, dir: &str) -> Vec<String> {
        self.dir.list(dir)
    }
    fn read_at(&self, path: &str, offset: u64, len: usize) -> experiment::Result<Option<Bytes>> {
        self.largest.set(self.largest.get().max(len));
        let whole = self.dir.read(path)?;
        Ok(whole.map(|b| {
            let start = usize::try_from(offset).unwrap().min(b.len());
            b.slice(start..start.saturating_add(len).min(b.len()))
        }))
    }
}

#[test]
fn data_files_are_read_in_bounded_chunks() {
    for name in ["heap", "java_heap"] {
        let (whole, _, _) = export(name);
        let dir = case(name).join("test.1.er");
        let data_files = Experiment::open(Dir(dir.clone()))
            .unwrap()
            .log()
            .data_files();
        let exp = Experiment::open(ChunksOnly {
            dir: Dir(dir),
            data_files,
            largest: std::cell::Cell::new(0),
        })
        .unwrap();
        let mut sink = MemorySink::new();
        let summary = {
            let symbols = Symbolizer::new(&exp).with_load_objects(load_object);
            columnar::experiment::export(name, &exp, symbols, &mut sink, &mut |_| {}).unwrap()
        };
        assert!(summary.is_complete(), "{name}: {:?}", summary.stopped);
        let largest = exp.source().largest.get();
        assert!(
            largest > 0 && largest <= experiment::STREAM_CHUNK,
            "{name}: {largest}"
        );
        for table in ["samples", "stacks", "functions", "load_objects"] {
            assert_eq!(sink.rows(table), whole.rows(table), "{name} {table}");
            assert_eq!(
                batches(&sink, table),
                batches(&whole, table),
                "{name} {table}"
            );
        }
    }
}
