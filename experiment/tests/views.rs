//! gprofng's callers–callees, leaks and allocations views, value by value: on every recorded
//! case, `CallersCallees::read` and `profile::heap_stacks` give exactly what
//! `gprofng display text -callers-callees`, `-leaks` and `-allocs` print
//! (`callers-callees.txt`, `leaks.txt`, `allocs.txt`, made by tests/data/record-views.sh):
//! functions and their order, each caller and callee in order, every value at gprofng's
//! precision, each distinct heap stack with its instances, bytes and frames.
//!
//! The load objects the experiments ran with come from tests/data/load-objects/ (symbols-only
//! extracts) through the source's `load_object`, as a directory source finds them on the
//! recording machine.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{data, gprofng_stacks, gprofng_text, open};
use experiment::profile::{CallersCallees, HeapView, Metric, heap_stacks};

/// The cases with gprofng's views recorded (`java_heap`'s callers–callees among them: gprofng
/// counts a Java experiment's calls by its Java frames only, as `CallersCallees::read` does).
/// `java_heap`'s leaks and allocations are compared in
/// `java_leaks_and_allocations_equal_gprofngs` (ties in gprofng's order).
///
/// The `dwarf4_*` cases' leaks and allocations are compared in tests/lines.rs: their
/// programs' line tables are DWARF 4, which gprofng 2.40 reads, so their frames carry native
/// lines (`Symbolizer::with_native_lines`).
fn cases(view: &str) -> Vec<String> {
    let heap_view = view == "leaks.txt" || view == "allocs.txt";
    let mut out: Vec<String> = std::fs::read_dir(data())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|c| !(heap_view && c == "java_heap") && data().join(c).join(view).is_file())
        .filter(|c| !(heap_view && c.starts_with("dwarf4_")))
        .collect();
    out.sort();
    out
}

/// One line of a callers–callees block: the value tokens (percentages dropped), the name,
/// and whether it is the block's function (`*`).
type Line = (Vec<String>, String, bool);

/// The blocks of callers-callees.txt, one per function.
fn reference_blocks(text: &str, metrics: &[Metric]) -> Vec<Vec<Line>> {
    let mut blocks = Vec::new();
    let mut name_col = None;
    let mut block: Vec<Line> = Vec::new();
    for line in text.lines().skip(2) {
        if line.trim().is_empty() {
            if !block.is_empty() {
                blocks.push(std::mem::take(&mut block));
            }
            name_col = None;
            continue;
        }
        if let Some(at) = line.find("Name").filter(|_| line.starts_with("Attr.")) {
            name_col = Some(at);
            continue;
        }
        let Some(col) = name_col else { continue };
        let first = line.as_bytes()[0];
        if !(first.is_ascii_digit() || first == b' ') || line.len() < col {
            continue; // the header's further lines
        }
        let tokens: Vec<&str> = line[..col - 1].split_whitespace().collect();
        if tokens.is_empty() || !tokens[0].starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let mut values = Vec::new();
        let mut t = tokens.iter();
        for m in metrics {
            values.push(t.next().unwrap_or_else(|| panic!("`{line}`")).to_string());
            if *m == Metric::TotalCpu {
                t.next(); // its percentage (gprofng shows one for CPU time only)
            }
        }
        block.push((
            values,
            line[col..].to_owned(),
            line.as_bytes()[col - 1] == b'*',
        ));
    }
    if !block.is_empty() {
        blocks.push(block);
    }
    blocks
}

#[test]
fn callers_callees_equal_gprofngs_on_every_case() {
    let cases = cases("callers-callees.txt");
    assert!(cases.len() >= 13, "{cases:?}");
    assert!(cases.iter().any(|c| c == "java_heap"));
    for case in cases {
        let exp = open(&case);
        let view = CallersCallees::read(&exp, None).unwrap();
        let text = std::fs::read_to_string(data().join(&case).join("callers-callees.txt")).unwrap();
        let want = reference_blocks(&text, &view.metrics);
        let text_of = |values: &[u64]| -> Vec<String> {
            view.metrics
                .iter()
                .zip(values)
                .map(|(m, v)| gprofng_text(*m, *v))
                .collect()
        };
        let ours: Vec<Vec<Line>> = view
            .functions
            .iter()
            .map(|f| {
                let mut b: Vec<Line> = f
                    .callers
                    .iter()
                    .map(|r| (text_of(&r.values), r.name.clone(), false))
                    .collect();
                b.push((text_of(&f.values), f.name.clone(), true));
                b.extend(
                    f.callees
                        .iter()
                        .map(|r| (text_of(&r.values), r.name.clone(), false)),
                );
                b
            })
            .collect();
        assert_eq!(ours.len(), want.len(), "{case}: functions");
        for (o, w) in ours.iter().zip(&want) {
            assert_eq!(o, w, "{case}");
        }
    }
}

fn heap_view_equals_gprofngs(file: &str, view: HeapView) {
    let cases = cases(file);
    assert!(cases.len() >= 5, "{cases:?}");
    for case in cases {
        let exp = open(&case);
        let ours: Vec<(u64, u64, Vec<String>)> = heap_stacks(&exp, view)
            .unwrap()
            .into_iter()
            .map(|s| (s.instances, s.bytes, s.frames))
            .collect();
        let text = std::fs::read_to_string(data().join(&case).join(file)).unwrap();
        let want = gprofng_stacks(&text);
        assert_eq!(ours.len(), want.len(), "{case}: distinct stacks");
        for (i, (o, w)) in ours.iter().zip(&want).enumerate() {
            assert_eq!(o, w, "{case} {file} #{}", i + 1);
        }
    }
}

#[test]
fn leaks_equal_gprofngs_on_every_heap_case() {
    heap_view_equals_gprofngs("leaks.txt", HeapView::Leaks);
}

#[test]
fn allocations_equal_gprofngs_on_every_heap_case() {
    heap_view_equals_gprofngs("allocs.txt", HeapView::Allocations);
}

#[test]
fn java_leaks_and_allocations_equal_gprofngs() {
    // gprofng lists the leaks and allocations of a Java experiment by their Java frames only
    // (no native frames spliced under a `<Java native method>`, which its per-packet view
    // shows; `<no Java callstack recorded>` printed as a native method): every stack, its
    // instances and bytes, and the frames' text (`<Java native method>`, `line N in "F"`).
    let exp = open("java_heap");
    for (file, view) in [
        ("leaks.txt", HeapView::Leaks),
        ("allocs.txt", HeapView::Allocations),
    ] {
        let ours: Vec<(u64, u64, Vec<String>)> = heap_stacks(&exp, view)
            .unwrap()
            .into_iter()
            .map(|s| (s.instances, s.bytes, s.frames))
            .collect();
        let text = std::fs::read_to_string(data().join("java_heap").join(file)).unwrap();
        let want = gprofng_stacks(&text);
        assert_eq!(ours.len(), want.len(), "{file}: distinct stacks");
        // gprofng orders stacks by bytes, then instances; among stacks equal in both its
        // order is its sort's own (allocs.txt has 12 stacks in runs of such ties, e.g. four
        // stacks of 1 × 49 B listed in neither first-seen nor text order), so each run of
        // ties is compared as a set and everything else in order.
        let key = |s: &(u64, u64, Vec<String>)| (s.0, s.1);
        assert_eq!(
            ours.iter().map(key).collect::<Vec<_>>(),
            want.iter().map(key).collect::<Vec<_>>(),
            "{file}: instances and bytes in gprofng's order"
        );
        let mut at = 0;
        let mut tied = 0;
        while at < want.len() {
            let end = at
                + want[at..]
                    .iter()
                    .take_while(|w| key(w) == key(&want[at]))
                    .count();
            let mut o: Vec<&Vec<String>> = ours[at..end].iter().map(|s| &s.2).collect();
            let mut w: Vec<&Vec<String>> = want[at..end].iter().map(|s| &s.2).collect();
            if end - at > 1 {
                tied += end - at;
                o.sort();
                w.sort();
            }
            assert_eq!(o, w, "{file} #{}", at + 1);
            at = end;
        }
        assert!(tied <= 12, "{file}: {tied} tied stacks");
        assert!(
            want.iter()
                .any(|w| w.2.iter().any(|f| f.ends_with("<Java native method>"))),
            "{file}"
        );
    }
    // The leaks have no ties: their order is gprofng's exactly.
    let leaks = heap_stacks(&exp, HeapView::Leaks).unwrap();
    let text = std::fs::read_to_string(data().join("java_heap/leaks.txt")).unwrap();
    let want = gprofng_stacks(&text);
    for (i, (o, w)) in leaks.iter().zip(&want).enumerate() {
        assert_eq!(
            (o.instances, o.bytes, &o.frames),
            (w.0, w.1, &w.2),
            "#{}",
            i + 1
        );
    }
}
