//! Loading what a pass will read a few steps early, without waiting for it.
//!
//! The graph's passes over graphs past the caches (from `dominators::FAR_FROM` rows) know a
//! few steps ahead which array entries they will read at random. A plain load of such an
//! entry (the way to ask for it in safe Rust) is a demand load: when it misses, it holds up
//! every instruction after it from retiring, and a few such misses fill the processor's
//! window. A prefetch instruction asks the caches for the line and goes on at once (the
//! measurements are in `benches/README.md`, "prefetch instructions for the look-aheads").
//!
//! This is the crate's one `unsafe` block. `_mm_prefetch` is an `unsafe` function only because
//! it is declared with `#[target_feature(enable = "sse")]`; SSE is part of every x86-64
//! processor (the block is compiled only where the build has `sse`), and a prefetch never
//! dereferences its address: it cannot fault, whatever the address, and changes no memory.
//! Elsewhere the entry is loaded as before.

/// Asks the caches for the line of `v[i]` and returns at once. `i` may be past the end of `v`
/// (the hint is then for an address nothing will read, which is harmless). On x86-64 nothing
/// is read; elsewhere `v[i]` is loaded if it exists.
#[inline(always)]
pub(crate) fn prefetch<T: Copy>(v: &[T], i: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = v.as_ptr().wrapping_add(i).cast::<i8>();
        // SAFETY: the only requirement of `_mm_prefetch` is the `sse` target feature, which
        // the `cfg` above guarantees; the instruction does not access memory at `p`, so no
        // address (in bounds or not) can fault or be read.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    {
        std::hint::black_box(v.get(i).copied());
    }
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    /// A prefetch past the end of its slice, of an empty slice, or of an address that wraps
    /// around returns, and changes nothing.
    #[test]
    fn prefetch_anywhere_reads_nothing() {
        let v = [7u32; 4];
        for i in [0, 3, 4, 1 << 20, usize::MAX / 8, usize::MAX] {
            prefetch(&v, i);
        }
        prefetch::<u64>(&[], 1);
        assert_eq!(v, [7; 4]);
    }
}
