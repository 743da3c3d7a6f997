//! Allocation is bounded by the input: a few bytes of report never make the parser reserve
//! hundreds of megabytes. A counting allocator records the largest single allocation and the
//! peak of bytes in use.

// The counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;
use pointsto::diff::CallTreeDiff;

struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);
static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The tests measure one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn grew(by: usize) {
    let now = IN_USE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call forwards unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        grew(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Five invoke rows whose ids each just fit the dense id index's growth rule once grew the
/// index to 2^26 slots (256 MiB) from 266 bytes of CSV.
#[test]
fn sparse_csv_invoke_ids_do_not_blow_up_the_id_index() {
    let methods = include_bytes!("data/regressions/sparse_invoke_ids_methods.csv");
    let invokes = include_bytes!("data/regressions/sparse_invoke_ids_invokes.csv");
    let targets = include_bytes!("data/regressions/sparse_invoke_ids_targets.csv");
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    LARGEST.store(0, Ordering::Relaxed);
    let graph = CallGraph::parse_csv(|file| match file {
        CsvFile::Methods => Some(&methods[..]),
        CsvFile::Invokes => Some(&invokes[..]),
        CsvFile::Targets => Some(&targets[..]),
        _ => None,
    })
    .unwrap();
    let largest = LARGEST.load(Ordering::Relaxed);
    assert_eq!(graph.invokes.len(), 5);
    assert_eq!(graph.invokes[4].id, Some(67_108_863));
    assert_eq!(graph.callee_count(&graph.invokes[4]), 1);
    assert!(
        largest < 4 << 20,
        "largest allocation {largest} bytes for a 266-byte report"
    );
}

/// Review regression: the diff copied both method strings into every edge, so one method with
/// a 100 KB name calling 1,000 others (150 KB of CSV) made a diff of 1,000 edges holding 100 MB.
/// Each method string is now kept once and shared by its edges.
#[test]
fn diff_edges_share_method_strings() {
    let n = 1_000;
    let long = "x".repeat(100_000);
    let mut methods = String::from("Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n");
    methods.push_str(&format!("0,{long},a.B,empty,void,a.B.m,p,true\n"));
    let mut invokes = String::from("Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n");
    let mut targets = String::from("InvokeId,TargetId\n");
    for i in 1..=n {
        methods.push_str(&format!("{i},m{i},a.B,empty,void,a.B.m{i},p,false\n"));
        invokes.push_str(&format!("{i},0,1,{i},true\n"));
        targets.push_str(&format!("{i},{i}\n"));
    }
    let input = methods.len() + invokes.len() + targets.len();
    let parse = |m: &str, i: &str, t: &str| {
        CallGraph::parse_csv(|file| match file {
            CsvFile::Methods => Some(m.as_bytes()),
            CsvFile::Invokes => Some(i.as_bytes()),
            CsvFile::Targets => Some(t.as_bytes()),
            _ => None,
        })
        .unwrap()
    };
    let a = parse(&methods, &invokes, &targets);
    let empty = parse(
        "Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n",
        "Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n",
        "InvokeId,TargetId\n",
    );
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let diff = CallTreeDiff::new(&a, &empty);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!(diff.edges_only_in_a.len(), n);
    assert_eq!(diff.edges_only_in_a[0].caller.len(), long.len() + 11);
    assert_eq!(diff.methods_only_in_a.len(), n + 1);
    assert!(
        peak < 4 * input,
        "peak {peak} bytes while diffing a {input}-byte report"
    );
}
