//! gprofng's source-line view, value by value: `LineList::read` gives exactly what
//! `gprofng display text -lines` prints (`lines.txt`, made by tests/data/record-views.sh and
//! tests/data/record-lines.sh): every row's text in gprofng's order, every value at gprofng's
//! precision.
//!
//! * `dwarf4_lines` (a `gcc -gdwarf-4 -O0` program whose archived copy keeps its line tables)
//!   with native lines from DWARF: per-line rows of the program's functions, a header's lines
//!   under the header's name, recursion counted once per packet, heap metrics per line;
//!   gprofng's leaks and allocations frames with their `line N in "file"`.
//! * Every other native case with native lines off: their programs are DWARF 5 (GCC 12's
//!   default), whose line tables gprofng 2.40 does not read, so gprofng lists each function as
//!   `<Function: f, instructions without line numbers>`; with DWARF on, we give their lines,
//!   which must add up to the function list per function.
//!
//! The load objects the experiments ran with come from tests/data/load-objects/ as in
//! tests/views.rs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{data, gprofng_stacks, gprofng_text, open};
use experiment::lines::{LineList, NativeLines};
use experiment::packets::DataKind;
use experiment::profile::{FunctionList, HeapView, Metric, StackProfile};
use experiment::stacks::Symbolizer;

/// The rows of lines.txt: value tokens (percentages dropped) and the name.
fn reference_rows(text: &str, metrics: &[Metric]) -> Vec<(Vec<String>, String)> {
    let mut name_col = None;
    let mut out = Vec::new();
    for line in text.lines() {
        if name_col.is_none() {
            name_col = line.find("Name").filter(|_| !line.starts_with("Lines"));
            continue;
        }
        let col = name_col.unwrap();
        if line.len() < col || !line.starts_with(|c: char| c.is_ascii_digit() || c == ' ') {
            continue;
        }
        let tokens: Vec<&str> = line[..col].split_whitespace().collect();
        if tokens.is_empty() || !tokens[0].starts_with(|c: char| c.is_ascii_digit()) {
            continue; // the header's further lines
        }
        let mut values = Vec::new();
        let mut t = tokens.iter();
        for m in metrics {
            values.push(t.next().unwrap_or_else(|| panic!("`{line}`")).to_string());
            if *m == Metric::TotalCpu {
                t.next(); // its percentage
            }
        }
        out.push((values, line[col..].to_owned()));
    }
    out
}

fn ours(list: &LineList) -> Vec<(Vec<String>, String)> {
    list.lines
        .iter()
        .map(|l| {
            let values = list
                .columns
                .iter()
                .zip(&l.values)
                .map(|(c, v)| gprofng_text(c.metric, *v))
                .collect();
            (values, l.name.clone())
        })
        .collect()
}

/// Compares `case` with gprofng's lines.txt; returns the number of rows compared.
fn assert_equal_to_gprofng(case: &str, native: NativeLines) -> usize {
    let exp = open(case);
    let list = LineList::read(&exp, None, native).unwrap();
    assert!(list.line_table_errors.is_empty(), "{case}");
    let metrics: Vec<Metric> = list.columns.iter().map(|c| c.metric).collect();
    let text = std::fs::read_to_string(data().join(case).join("lines.txt")).unwrap();
    let want = reference_rows(&text, &metrics);
    let ours = ours(&list);
    assert!(!want.is_empty(), "{case}: no reference rows");
    for (o, w) in ours.iter().zip(&want) {
        assert_eq!(o, w, "{case}");
    }
    assert_eq!(ours.len(), want.len(), "{case}: rows");
    want.len()
}

#[test]
fn dwarf4_lines_equal_gprofngs() {
    assert_eq!(
        assert_equal_to_gprofng("dwarf4_lines", NativeLines::Dwarf),
        32
    );
    // What the rows are, beyond their text: a header function's lines under its own file,
    // lines past 99 listed after line 102 (gprofng sorts ties by text).
    let list = LineList::read(&open("dwarf4_lines"), None, NativeLines::Dwarf).unwrap();
    let mix: Vec<_> = list.lines.iter().filter(|l| l.function == "mix").collect();
    assert_eq!(mix.len(), 4);
    assert!(mix.iter().all(|l| l.file.as_deref() == Some("mix.h")));
    let names: Vec<&str> = list.lines.iter().map(|l| l.name.as_str()).collect();
    let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(at("allocate, line 102 in \"lines.c\"") < at("allocate, line 95 in \"lines.c\""));
    let line95 = &list.lines[at("allocate, line 95 in \"lines.c\"")];
    assert_eq!(line95.line, Some(95));
    assert_eq!(list.value(line95, "i.heapalloccnt"), Some(30));
}

#[test]
fn dwarf4_cxx_lines_equal_gprofngs() {
    // -O2 C++: code inlined into main is on the line of its call (`keep = lambda(50);`, line
    // 83, where the line table says 82), GCC's clones have their lines, and of the rows
    // sharing an address gprofng's sort picks the one it picks. One difference: gprofng
    // 2.40 lists the constructor GCC emits once under two symbols (C1 and C2) without lines;
    // we list its lines, which add up to gprofng's row.
    let exp = open("dwarf4_cxx");
    let list = LineList::read(&exp, None, NativeLines::Dwarf).unwrap();
    let metrics: Vec<Metric> = list.columns.iter().map(|c| c.metric).collect();
    let text = std::fs::read_to_string(data().join("dwarf4_cxx/lines.txt")).unwrap();
    let ctor = "geom::Box<double>::Box(int)";
    let (want_ctor, want): (Vec<_>, Vec<_>) = reference_rows(&text, &metrics)
        .into_iter()
        .partition(|(_, n)| n.contains(ctor));
    let (ours_ctor, ours): (Vec<_>, Vec<_>) =
        ours(&list).into_iter().partition(|(_, n)| n.contains(ctor));
    assert_eq!(ours, want);
    assert!(want.len() > 30, "{}", want.len());
    assert!(
        want.iter()
            .any(|(_, n)| n == "main, line 83 in \"names.cc\"")
    );
    assert_eq!(want_ctor.len(), 1);
    assert_eq!(
        want_ctor[0].1,
        format!("<Function: {ctor}, instructions without line numbers>")
    );
    assert!(!ours_ctor.is_empty());
    let k = list
        .keys
        .iter()
        .position(|k| k == "i.heapalloccnt")
        .unwrap();
    let sum: u64 = list
        .lines
        .iter()
        .filter(|l| l.function == ctor)
        .map(|l| l.values[k])
        .sum();
    assert_eq!(sum.to_string(), want_ctor[0].0[k]);
}

#[test]
fn native_cases_equal_gprofngs_without_native_lines() {
    // gprofng 2.40 reads no DWARF 5 line table: every native function without line numbers.
    let mut cases: Vec<String> = std::fs::read_dir(data())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|c| {
            c != "java_heap"
                && !c.starts_with("dwarf4_")
                && data().join(c).join("lines.txt").is_file()
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 12, "{cases:?}");
    let rows: usize = cases
        .iter()
        .map(|case| assert_equal_to_gprofng(case, NativeLines::Off))
        .sum();
    assert!(rows >= 138, "{rows} rows compared");
}

#[test]
fn dwarf5_lines_add_up_to_the_function_list() {
    // With DWARF on, the DWARF 5 programs get their lines (later gprofng releases read them
    // too): each function's line rows add up to its exclusive values in the function list,
    // and the program's hot functions are on the lines of their source.
    for case in [
        "clock_basic",
        "heap",
        "many_threads",
        "cxx_names",
        "descendants",
    ] {
        let exp = open(case);
        let lines = LineList::read(&exp, None, NativeLines::Dwarf).unwrap();
        let functions = FunctionList::read(&exp, None).unwrap();
        assert_eq!(lines.keys, functions.keys, "{case}");
        assert_eq!(lines.lines[0].values, functions.rows[0].values, "{case}");
        for (k, key) in functions.keys.iter().enumerate() {
            if !key.starts_with("e.") {
                continue;
            }
            for f in &functions.rows[1..] {
                let sum: u64 = lines
                    .lines
                    .iter()
                    .filter(|l| l.function == f.name)
                    .map(|l| l.values[k])
                    .sum();
                assert_eq!(sum, f.values[k], "{case}: {} {key}", f.name);
            }
        }
        let with_lines = lines.lines.iter().filter(|l| l.line.is_some()).count();
        assert!(with_lines > 0, "{case}: no native lines");
    }
    let exp = open("clock_basic");
    let list = LineList::read(&exp, None, NativeLines::Dwarf).unwrap();
    // clock.c (make-experiment-corpus.sh): `leaf_sqrt_loop` is lines 6–7.
    let leaf: Vec<_> = list
        .lines
        .iter()
        .filter(|l| l.function == "leaf_sqrt_loop")
        .collect();
    assert!(!leaf.is_empty());
    for l in leaf {
        assert_eq!(l.file.as_deref(), Some("clock.c"));
        assert!(matches!(l.line, Some(6 | 7)), "{l:?}");
    }
}

#[test]
fn dwarf4_heap_frames_carry_gprofngs_lines() {
    // Frames with `line N in "file"`, and in code inlined at a call the call's line and
    // gprofng's chain (`main + 0x00000124, line 83 in "names.cc" <-- operator() names.cc:82 `).
    // The C1/C2 constructor of dwarf4_cxx has no lines in gprofng 2.40 (see
    // `dwarf4_cxx_lines_equal_gprofngs`): its frames are compared without them.
    let ctor = "geom::Box<double>::Box(int) + ";
    let plain = |f: &String| -> String {
        match f.find(", line ").filter(|_| f.starts_with(ctor)) {
            Some(at) => f[..at].to_owned(),
            None => f.clone(),
        }
    };
    for case in ["dwarf4_lines", "dwarf4_cxx"] {
        let exp = open(case);
        let symbols = Symbolizer::new(&exp).with_native_lines();
        let profile = StackProfile::collect(&exp, symbols, Some(DataKind::Heap)).unwrap();
        for (file, view) in [
            ("leaks.txt", HeapView::Leaks),
            ("allocs.txt", HeapView::Allocations),
        ] {
            let ours: Vec<(u64, u64, Vec<String>)> = profile
                .heap_stacks(view)
                .into_iter()
                .map(|s| (s.instances, s.bytes, s.frames.iter().map(plain).collect()))
                .collect();
            let text = std::fs::read_to_string(data().join(case).join(file)).unwrap();
            let want = gprofng_stacks(&text);
            assert!(
                want.iter()
                    .any(|w| w.2.iter().any(|f| f.contains(", line ")))
            );
            assert_eq!(ours, want, "{case} {file}");
        }
    }
    let text = std::fs::read_to_string(data().join("dwarf4_cxx/leaks.txt")).unwrap();
    assert!(text.contains("line 83 in \"names.cc\" <-- operator() names.cc:82 \n"));
}

#[test]
fn java_lines_equal_gprofngs_for_java_rows() {
    // java_heap's fixture lacks libjvm.so, so its JVM-internal native rows differ; its Java
    // rows (lines from the class files in jdynclasses/, `instructions from source file` for
    // classes whose class file the experiment lacks) are gprofng's.
    let exp = open("java_heap");
    let list = LineList::read(&exp, None, NativeLines::Off).unwrap();
    let metrics: Vec<Metric> = list.columns.iter().map(|c| c.metric).collect();
    let text = std::fs::read_to_string(data().join("java_heap/lines.txt")).unwrap();
    let want = reference_rows(&text, &metrics);
    let ours = ours(&list);
    let java = |name: &str| name.contains(".java") || name.starts_with("<JVM-System>");
    let mut compared = 0;
    for (values, name) in want.iter().filter(|(_, n)| java(n)) {
        let o = ours
            .iter()
            .find(|(_, n)| n == name)
            .unwrap_or_else(|| panic!("{name}: not in ours"));
        assert_eq!(&o.0, values, "{name}");
        compared += 1;
    }
    assert!(compared > 20, "{compared}");
    assert!(
        want.iter()
            .any(|(_, n)| n == "Main.compressRoundTrip(int), line 37 in \"Main.java\"")
    );
}
