//! Allocation is bounded by the input: a few bytes of report never make the parser reserve
//! hundreds of megabytes. A counting allocator records the largest single allocation.

// The counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to `System`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;

struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
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
