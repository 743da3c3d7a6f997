//! The graph examples' global allocator: the system's, asking the kernel for transparent huge
//! pages (`madvise(MADV_HUGEPAGE)`) on every block of 32 MiB or more allocated whole.
//!
//! The object graph's per-object arrays (DFS numbers, the semidominator forest, immediate
//! dominators, retained sizes) are allocated whole and read at random, hundreds of megabytes
//! each; with 4 KiB pages nearly every such read also misses the TLB. Kernels set to
//! `transparent_hugepage=madvise` (a common default) only back a mapping with 2 MiB pages when
//! asked; this asks. Blocks that grow (`realloc`) are left alone: they are vectors filled
//! front to back, which gain nothing from huge pages, and advising them too measured slower on
//! the 1.25 GB dump (`benches/README.md`). Elsewhere than Linux it does nothing.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

/// [`System`], plus huge pages for large blocks on Linux.
pub(crate) struct HugePages;

/// From what size a block is worth huge pages.
const FROM: usize = 32 << 20;

/// Asks for huge pages on the whole 2 MiB pages inside `len` bytes at `p`.
#[cfg(target_os = "linux")]
fn advise(p: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    if p.is_null() || len < FROM {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE);
    let end = (p as usize).saturating_add(len) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside a block the allocator just handed out, and
        // MADV_HUGEPAGE changes no contents, only how the pages will be backed; a failure
        // (a kernel without transparent huge pages) leaves it as it was.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: *mut u8, _: usize) {}

// SAFETY: every call is passed to `System` unchanged; `advise` only adds a hint.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
