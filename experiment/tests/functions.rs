//! Function profiles and folded stacks against gprofng's own reference outputs: for every
//! native fixture, `StackProfile::function_table` gives exactly the rows of `functions.txt`
//! (`gprofng display text -functions`: names, order, every default metric at gprofng's
//! precision), and the folded stacks add up to every node of `calltree.txt`.
//!
//! The load objects the experiments ran with (libc, ld.so and gprofng's collector libraries of
//! Debian 12) are not archived in the fixtures; their function symbols are in
//! tests/data/load-objects/ (symbols-only extracts, see README.md there).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{NATIVE_CASES, data, load_dir};
use experiment::bytes::Bytes;
use experiment::packets::DataKind;
use experiment::profile::{FunctionTable, Metric, StackProfile};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, MemorySource, Source};
use std::collections::BTreeMap;

/// The symbols-only extract of the load object at `path`, or for a case whose experiment
/// archived nothing (`killed`), the program kept beside it.
fn load_object(path: &str) -> Option<Bytes> {
    let name = path.rsplit('/').next()?;
    let case = path
        .rsplit('/')
        .nth(1)
        .filter(|c| EXTRA_CASES.contains(c) && name == "prog");
    let file = match case {
        Some(case) => data().join(case).join(name),
        None => data().join("load-objects").join(name),
    };
    std::fs::read(file).ok().map(Bytes::from)
}

/// Cases recorded with tests/data/record-extra.sh (C++ names, many threads, deep recursion,
/// a killed target, ticks in a PLT stub), each with gprofng's functions.txt and calltree.txt of the same time.
const EXTRA_CASES: [&str; 5] = [
    "cxx_names",
    "many_threads",
    "deepstack",
    "killed",
    "plt_leaf",
];

fn profile<'e, S: Source, F: Source>(
    exp: &'e Experiment<S>,
    founder: Option<&'e Experiment<F>>,
    kind: Option<DataKind>,
) -> StackProfile<'e, S> {
    let mut symbols = Symbolizer::new(exp).with_load_objects(load_object);
    if let Some(f) = founder {
        symbols = symbols.with_founder_archives(f);
    }
    let p = StackProfile::collect(exp, symbols, kind).unwrap();
    let w = p.symbols.warnings();
    assert_eq!(
        (w.unknown_pcs, w.unreadable_objects, w.missing_stacks),
        (0, 0, 0),
        "{w:?}"
    );
    p
}

/// The function table of a case, its descendants with data merged in (as gprofng shows it).
fn table(case: &str, kind: Option<DataKind>) -> FunctionTable {
    let src = load_dir(&data().join(case).join("test.1.er"));
    let exp = Experiment::open(src).unwrap();
    let mut t = profile(&exp, None::<&Experiment<MemorySource>>, kind).function_table();
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        let child = exp.open_descendant(&d.name).unwrap();
        t.merge(profile(&child, Some(&exp), kind).function_table());
    }
    t
}

/// gprofng's text for a value: seconds with 3 decimals, else the integer. Times under a
/// microsecond are `0.` (gprofng's time values have microsecond resolution: `0.000` means
/// at least 1 µs).
fn gprofng_text(metric: Metric, v: u64) -> String {
    if metric.is_time() {
        if v < 1000 {
            "0.".into()
        } else {
            format!("{:.3}", v as f64 / 1e9)
        }
    } else {
        v.to_string()
    }
}

/// Rows of functions.txt: (name, metric tokens) with `tokens_per_row` metric tokens (values
/// and percentages) before the name.
fn reference_rows(text: &str, tokens_per_row: usize) -> Vec<(String, Vec<String>)> {
    let mut rows = Vec::new();
    let mut started = false;
    for line in text.lines() {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if !started {
            started = toks.get(tokens_per_row).is_some_and(|t| *t == "<Total>");
        }
        if !started || toks.is_empty() {
            continue;
        }
        // The name is the rest of the line after the metric tokens.
        let mut rest = line;
        for _ in 0..tokens_per_row {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            rest = &rest[end..];
        }
        rows.push((
            rest.trim().to_owned(),
            toks[..tokens_per_row]
                .iter()
                .map(ToString::to_string)
                .collect(),
        ));
    }
    rows
}

#[test]
fn function_lists_equal_gprofngs_on_every_native_fixture() {
    for case in NATIVE_CASES {
        check_function_list(case);
    }
}

#[test]
fn function_lists_equal_gprofngs_on_the_extra_cases() {
    for case in EXTRA_CASES {
        check_function_list(case);
    }
}

#[test]
fn cxx_names_are_demangled_like_gprofngs() {
    let t = table("cxx_names", None);
    let columns = t.default_columns();
    let names: Vec<String> = t.rows(&columns, None).into_iter().map(|r| r.name).collect();
    for want in [
        "(anonymous namespace)::hidden(long) [clone .constprop.0]",
        "by_config(Config const*) [clone .constprop.0] [clone .isra.0]",
        "geom::Box<double>::grow(int) const [clone .isra.0]",
        "geom::alloc(char const*, geom::Vec<int, 3>&)",
        "split_me(int) [clone .part.0]",
        "c_sized",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
}

#[test]
fn call_trees_of_the_extra_cases_equal_gprofngs() {
    for case in EXTRA_CASES {
        // Heap columns (4) come first where heap tracing was on.
        let heap = case != "plt_leaf";
        check_calltree(
            case,
            DataKind::Clock,
            Metric::TotalCpu,
            if heap { 4 } else { 0 },
        );
        if heap && case != "killed" {
            check_calltree(case, DataKind::Heap, Metric::HeapLeakBytes, 0);
        }
    }
}

fn check_function_list(case: &str) {
    {
        let t = table(case, None);
        let columns = t.default_columns();
        let rows = t.rows(&columns, FunctionTable::sort_column(&columns));
        // Clock columns carry a percentage column each.
        let tokens: usize = columns
            .iter()
            .map(|c| if c.metric == Metric::TotalCpu { 2 } else { 1 })
            .sum();
        let text = std::fs::read_to_string(data().join(case).join("functions.txt")).unwrap();
        let want = reference_rows(&text, tokens);
        assert!(!want.is_empty(), "{case}: no rows parsed");
        let got: Vec<(String, Vec<String>)> = rows
            .iter()
            .map(|r| {
                let mut toks = Vec::new();
                for (c, &v) in columns.iter().zip(&r.values) {
                    toks.push(gprofng_text(c.metric, v));
                    if c.metric == Metric::TotalCpu {
                        toks.push(String::new()); // percentage: not compared
                    }
                }
                (r.name.clone(), toks)
            })
            .collect();
        assert_eq!(
            got.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            want.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            "{case}: function names and order"
        );
        for ((name, g), (_, w)) in got.iter().zip(&want) {
            assert_eq!(g.len(), tokens, "{case} {name}");
            for (i, (gv, wv)) in g.iter().zip(w).enumerate() {
                if gv.is_empty() {
                    continue;
                }
                assert_eq!(gv, wv, "{case} {name}: column {i}");
            }
        }
    }
}

/// Every node of calltree.txt (whose first metric column is `metric`) is the sum of the folded
/// stacks it prefixes.
fn check_calltree(case: &str, kind: DataKind, metric: Metric, column: usize) {
    let src = load_dir(&data().join(case).join("test.1.er"));
    let exp = Experiment::open(src).unwrap();
    let p = profile(&exp, None::<&Experiment<MemorySource>>, Some(kind));
    let mut nodes: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    let mut total = 0u64;
    for (line, v) in p.folded(metric) {
        total += v;
        let frames: Vec<String> = line.split(';').map(str::to_owned).collect();
        for n in 1..=frames.len() {
            *nodes.entry(frames[..n].to_vec()).or_default() += v;
        }
    }
    assert_eq!(total, p.total(metric), "{case}");
    let text = std::fs::read_to_string(data().join(case).join("calltree.txt")).unwrap();
    let tree = parse_calltree_column(&text, column);
    assert!(tree.len() > 1, "{case}");
    for (path, want) in &tree {
        if path.len() == 1 {
            assert_eq!(gprofng_text(metric, total), *want, "{case} <Total>");
            continue;
        }
        let got = nodes.get(&path[1..]).copied().unwrap_or(0);
        if want == "0" || want == "0." {
            assert!(
                got == 0 || gprofng_text(metric, got) == *want,
                "{case} {path:?}"
            );
        } else {
            assert_eq!(gprofng_text(metric, got), *want, "{case} {path:?}");
        }
    }
}

/// calltree.txt with several metric columns: the value of column `column` (0-based, the
/// clock columns' percentages not counted) per node.
fn parse_calltree_column(text: &str, column: usize) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let Some(at) = line.find("+-") else { continue };
        let value = line[..at]
            .split_whitespace()
            .nth(column)
            .unwrap()
            .to_owned();
        let name = line[at + 2..].trim().to_owned();
        while stack.last().is_some_and(|(col, _)| *col >= at) {
            stack.pop();
        }
        stack.push((at, name));
        let path: Vec<String> = stack.iter().map(|(_, n)| n.clone()).collect();
        out.entry(path).or_insert(value);
    }
    out
}

#[test]
fn folded_stacks_add_up_to_gprofngs_call_trees() {
    for (case, kind, metric) in [
        ("clock_basic", DataKind::Clock, Metric::TotalCpu),
        ("dynfunc_api", DataKind::Clock, Metric::TotalCpu),
        ("heap", DataKind::Heap, Metric::HeapLeakBytes),
        ("sync_all", DataKind::Sync, Metric::Sync),
        ("iotrace", DataKind::Io, Metric::IoReadTime),
    ] {
        let src = load_dir(&data().join(case).join("test.1.er"));
        let exp = Experiment::open(src).unwrap();
        let p = profile(&exp, None::<&Experiment<MemorySource>>, Some(kind));
        let folded = p.folded(metric);
        assert!(!folded.is_empty(), "{case}");
        // Inclusive value of every call-tree node: the sum over folded stacks it prefixes.
        let mut nodes: BTreeMap<Vec<String>, u64> = BTreeMap::new();
        let mut total = 0u64;
        for (line, v) in &folded {
            total += v;
            let frames: Vec<String> = line.split(';').map(str::to_owned).collect();
            for n in 1..=frames.len() {
                *nodes.entry(frames[..n].to_vec()).or_default() += v;
            }
        }
        assert_eq!(total, p.total(metric), "{case}");
        let text = std::fs::read_to_string(data().join(case).join("calltree.txt")).unwrap();
        let tree = parse_calltree(&text);
        assert!(tree.len() > 1, "{case}");
        for (path, want) in &tree {
            if path.len() == 1 {
                assert_eq!(gprofng_text(metric, total), *want, "{case} <Total>");
                continue;
            }
            let got = nodes.get(&path[1..]).copied().unwrap_or(0);
            assert_eq!(gprofng_text(metric, got), *want, "{case} {path:?}");
        }
    }
}

/// calltree.txt: `VALUE [PCT]   +-<Total>` then `  +-child` two columns deeper per level;
/// the first metric column is the tree's metric.
fn parse_calltree(text: &str) -> BTreeMap<Vec<String>, String> {
    parse_calltree_column(text, 0)
}

/// er-functions and er-folded on `cxx_names`: the C++ functions of the program (named from
/// its archived copy alone, whatever the machine's libraries) with gprofng's names and values,
/// and folded heap stacks adding up to gprofng's `<Total>`.
#[test]
fn examples_print_gprofngs_cxx_rows() {
    let exp = data().join("cxx_names/test.1.er");
    let exp = exp.to_str().unwrap();
    let out = common::run_example("er-functions", &[exp, "--archives-only"]);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let text = std::fs::read_to_string(data().join("cxx_names/functions.txt")).unwrap();
    let want = reference_rows(&text, 8);
    let mut checked = 0;
    for (name, toks) in &want {
        let program = (name.contains('(') && !name.starts_with('<'))
            || ["<Total>", "c_sized", "c_entry"].contains(&name.as_str());
        if !program {
            continue; // libc and collector functions: named from the machine's files
        }
        let row = rows
            .iter()
            .find(|r| r["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} missing"));
        let keys = [
            "i.heapleakbytes",
            "i.heapleakcnt",
            "i.heapallocbytes",
            "i.heapalloccnt",
        ];
        for (k, want) in keys.iter().zip(toks) {
            assert_eq!(row[k].to_string(), *want, "{name} {k}");
        }
        let cpu = row["e.totalcpu"].as_f64().unwrap();
        assert_eq!(
            format!("{cpu:.3}").replace("0.000", "0."),
            toks[4],
            "{name}"
        );
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
    let folded = common::run_example(
        "er-folded",
        &[
            exp,
            "--kind",
            "heap",
            "--metric",
            "heapleakbytes",
            "--archives-only",
        ],
    );
    let total: u64 = folded
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total.to_string(), want[0].1[0]);
    assert!(folded.contains("split_me(int) [clone .part.0]"), "{folded}");
}

/// `plt_leaf` has ticks whose leaf PC is in the program's .plt (the stub of `tiny`): gprofng
/// leaves that frame out and charges `caller`, and so do we.
#[test]
fn plt_leaves_of_a_real_experiment_are_skipped() {
    use experiment::elf::Elf;
    let dir = data().join("plt_leaf/test.1.er");
    let exp = Experiment::open(load_dir(&dir)).unwrap();
    let prog = exp
        .archives()
        .into_iter()
        .find(|a| a.starts_with("prog_"))
        .unwrap();
    let elf = Elf::parse(&exp.file(&format!("archives/{prog}")).unwrap().unwrap()).unwrap();
    let plt = elf.plt.clone().unwrap();
    let base = exp
        .map()
        .events
        .iter()
        .find_map(|e| match e {
            experiment::map::MapEvent::Segment(s)
                if s.name.ends_with("/prog") && s.foffset == 0 =>
            {
                Some(s.vaddr)
            }
            _ => None,
        })
        .unwrap();
    let mut in_plt = 0;
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            let t = p.unwrap().typed().unwrap();
            let stack = exp.frameinfo().stack(t.common().frinfo).unwrap().unwrap();
            let leaf = stack.native[0].wrapping_sub(base);
            if leaf.wrapping_sub(plt.address) < plt.size {
                in_plt += 1;
            }
        }
    }
    assert!(in_plt > 0, "no tick in .plt: the fixture tests nothing");
    let t = table("plt_leaf", None);
    let columns = t.default_columns();
    let rows = t.rows(&columns, None);
    assert!(rows.iter().all(|r| r.name != "@plt"));
}
