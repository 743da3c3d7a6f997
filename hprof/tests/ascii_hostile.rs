//! Hostile HPROF ASCII reports that parse without error but must not make the model,
//! the folded stacks or the reference check allocate far more than the input's size (a deep
//! trace shared by many sample rows, an unknown class shared by many instances). A per-thread
//! counting allocator measures each call.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use testkit::total_of;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

use hprof::ascii::{CpuKind, FoldedWeight, Report, StackTraceSerial, Unresolved};
use std::fmt::Write;

/// A report with one `frames`-deep trace and a CPU SAMPLES table of `rows` rows that all
/// sample it.
fn deep_trace_shared_by_rows(frames: usize, rows: usize) -> String {
    let mut t = String::from("TRACE 1:\n");
    for i in 0..frames {
        writeln!(t, "\tpkg.Cls{i}.method{i}(Cls{i}.java:{i})").unwrap();
    }
    writeln!(
        t,
        "CPU SAMPLES BEGIN (total = {rows}) Mon Feb 04 08:12:06 2002"
    )
    .unwrap();
    t.push_str("rank   self  accum   count trace method\n");
    for r in 1..=rows {
        writeln!(t, "{r:4}  0.01% 99.99%       1     1 pkg.Cls0.method0").unwrap();
    }
    t.push_str("CPU SAMPLES END\n");
    t
}

#[test]
fn folding_a_trace_shared_by_many_rows_builds_its_stack_once() {
    // 3 000 frames, 3 000 rows on that trace: the folded output is one ~90 KB line, but
    // folding used to build (and drop) that line once per row: about 1.3 GB of allocation
    // for 190 KB of input.
    let text = deep_trace_shared_by_rows(3_000, 3_000);
    let report = Report::parse(text.as_bytes()).unwrap();
    let (folded, total) = total_of(|| report.folded(CpuKind::Samples, FoldedWeight::Count));
    assert_eq!(folded.len(), 1);
    assert_eq!(folded[0].weight, 3_000);
    assert!(folded[0].stack.starts_with("pkg.Cls2999.method2999;"));
    assert!(folded[0].stack.ends_with(";pkg.Cls0.method0"));
    assert!(
        total < 4 * text.len(),
        "folding {} bytes of input allocated {total} bytes",
        text.len()
    );
}

#[test]
fn an_unknown_class_shared_by_many_instances_is_reported_once() {
    let mut text =
        String::from("HEAP DUMP BEGIN (20000 objects, 160000 bytes) Sun Jul 28 00:19:32 2019\n");
    for i in 1..=20_000u32 {
        writeln!(text, "OBJ {i:x} (sz=8, trace=0, class=a.Missing@ffff)").unwrap();
    }
    text.push_str("HEAP DUMP END\n");
    let report = Report::parse(text.as_bytes()).unwrap();
    let (unresolved, total) = total_of(|| report.unresolved());
    assert_eq!(
        unresolved.len(),
        2,
        "{:?}",
        &unresolved[..4.min(unresolved.len())]
    );
    assert_eq!(
        unresolved,
        [
            Unresolved::Trace(StackTraceSerial(0)),
            Unresolved::Class(0xffff)
        ]
    );
    assert!(total < text.len(), "{total} bytes for {} bytes", text.len());
}
