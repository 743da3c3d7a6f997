//! Test support shared by the workspace's crates: a counting global allocator, so a test can
//! prove that a call allocates nothing, or no more than a bound, on hostile input; temporary
//! directories removed when dropped ([`TempDir`]); [`cli`], examples run as tools; and
//! [`hprof`], real dumps reshaped for tests.
//!
//! A test binary installs it and measures one call at a time; the counters are per thread,
//! so the test harness's own threads do not disturb them:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: testkit::Counting = testkit::Counting;
//!
//! let (v, peak) = testkit::peak_of(|| vec![0u8; 1000]);
//! assert_eq!(v.len(), 1000);
//! assert!(peak >= 1000);
//! let ((), n) = testkit::allocs_of(|| ());
//! assert_eq!(n, 0);
//! ```

// The allocator must implement the unsafe `GlobalAlloc` trait; it only forwards to `System`.
#![allow(unsafe_code)]

pub mod cli;
pub mod hprof;
mod temp;

pub use temp::TempDir;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// A global allocator that forwards to [`System`] and counts, per thread, the bytes in use,
/// their peak, the bytes and the number of allocations made, and the largest one.
pub struct Counting;

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// `try_with`: an allocation while the thread's locals are being torn down is not counted.
fn grew(n: usize) {
    let _ = TOTAL.try_with(|t| t.set(t.get().wrapping_add(n)));
    let _ = COUNT.try_with(|c| c.set(c.get().wrapping_add(1)));
    let _ = LARGEST.try_with(|l| l.set(l.get().max(n)));
    let _ = CURRENT.try_with(|c| {
        let now = c.get().wrapping_add(n);
        c.set(now);
        // Signed: memory allocated by another thread and freed by this one takes the count
        // below zero, which is no peak.
        let _ = PEAK.try_with(|p| {
            if now as isize > p.get() as isize {
                p.set(now);
            }
        });
    });
}

fn shrank(n: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get().wrapping_sub(n)));
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

/// What `counter` moved by while `f` ran on this thread.
fn delta<T>(
    counter: &'static std::thread::LocalKey<Cell<usize>>,
    f: impl FnOnce() -> T,
) -> (T, usize) {
    let start = counter.with(Cell::get);
    let r = f();
    (r, counter.with(Cell::get).wrapping_sub(start))
}

/// Peak bytes in use on this thread while `f` runs, above what was in use before.
///
/// Counted from zero while `f` runs, so that what happened before (such as memory another
/// thread allocated and this one freed, which takes the thread's count below zero) does not
/// matter.
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = CURRENT.with(|c| c.replace(0));
    let outer_peak = PEAK.with(|p| p.replace(0));
    let r = f();
    let peak = PEAK.with(Cell::get);
    let during = CURRENT.with(Cell::get);
    CURRENT.with(|c| c.set(before.wrapping_add(during)));
    // An enclosing `peak_of` sees this one's peak on top of what was in use before it.
    PEAK.with(|p| {
        let total = before.wrapping_add(peak);
        p.set(if total as isize > outer_peak as isize {
            total
        } else {
            outer_peak
        });
    });
    (r, peak)
}

/// The peak heap of owned models against the size of their input, over a test's fixtures.
///
/// Each [`Budget::check`] prints one row of `benches/README.md`'s table (`model, fixture,
/// input bytes, peak heap bytes, ratio`) on stderr; [`Budget::assert_within`] fails with the
/// worst model if it took more than the given multiple of its input.
#[derive(Debug, Default)]
pub struct Budget {
    worst: f64,
    what: String,
}

impl Budget {
    /// Records `model` built from `fixture` (`input` bytes) at `peak` bytes; gives the ratio.
    #[allow(clippy::print_stderr)] // the row is the test's report
    pub fn check(&mut self, model: &str, fixture: &str, input: usize, peak: usize) -> f64 {
        let ratio = peak as f64 / input.max(1) as f64;
        eprintln!("| {model} | {fixture} | {input} | {peak} | {ratio:.2}× |");
        if ratio > self.worst {
            self.worst = ratio;
            self.what = format!("{model} of {fixture}");
        }
        ratio
    }

    /// Panics if the worst model checked took more than `limit` × its input.
    pub fn assert_within(&self, limit: f64) {
        assert!(
            self.worst <= limit,
            "{}: {:.2}× its input (budget {limit}×)",
            self.what,
            self.worst
        );
    }
}

/// Bytes allocated (and reallocated to) on this thread while `f` runs, freed or not.
pub fn total_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    delta(&TOTAL, f)
}

/// How many allocations and reallocations `f` makes on this thread.
pub fn allocs_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    delta(&COUNT, f)
}

/// The largest single allocation (or reallocation) `f` makes on this thread.
pub fn largest_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LARGEST.with(|l| l.replace(0));
    let r = f();
    let largest = LARGEST.with(|l| l.replace(before.max(l.get())));
    (r, largest)
}
