//! `Context` parses, iterates and queries without allocating: checked with a counting
//! allocator over real contexts.
#![allow(unsafe_code)] // the counting global allocator
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use callctx::Context;

struct Counting;

thread_local! {
    /// Allocations made by this thread (the test harness allocates on its own threads).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: defers to the system allocator; only counts calls.

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn parsing_and_iterating_allocates_nothing() {
    let text = include_str!("data/contexts-v0.4.0.txt");
    // The counter itself works: a Vec allocates.
    let before = allocations();
    drop(std::hint::black_box(vec![1u8; 16]));
    assert_eq!(allocations() - before, 1);
    let before = allocations();
    let mut acc = 0i64;
    for line in text.lines() {
        let ctx = Context::parse(line).unwrap();
        acc += ctx.frames().map(|f| i64::from(f.bci)).sum::<i64>();
        acc += ctx.frames().rev().map(|f| i64::from(f.method)).sum::<i64>();
        acc += i64::from(ctx.innermost().method) + i64::from(ctx.outermost().method);
        acc += ctx.callers().map_or(0, |c| c.len() as i64);
        acc += ctx.truncated_outer(2).len() as i64;
        acc += i64::from(ctx.starts_with(&ctx.truncated_outer(1)));
        acc += i64::from(ctx.ends_with(&ctx));
        acc += callctx::parse_frames(line)
            .map(|f| i64::from(f.unwrap().bci))
            .sum::<i64>();
    }
    assert!(Context::parse("5:0<").is_err());
    assert!(callctx::parse_frames("5:0<").any(|f| f.is_err()));
    let after = allocations();
    assert_eq!(after - before, 0, "allocations while parsing ({acc})");
}
