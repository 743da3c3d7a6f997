//! Scratch storage: where the graph keeps the arrays it needs while building (the file offsets
//! of the objects, the references both ways, the depth-first order, the sort buffer) and those it
//! builds on demand (shortest-path parents). By default they are ordinary heap memory
//! ([`InMemory`]); a caller with a dump larger than its memory hands in its own [`Scratch`] —
//! typically memory-mapped files it creates and deletes — so that the kernel may write those
//! pages out and read them back, while the crate itself still opens no file.
//!
//! See the [memory model](super#memory) for what lives where.

use std::ops::DerefMut;

use super::super::error::{Error, Result};

/// A fixed-length array of `T` handed out by a [`Scratch`]: anything that derefs to a mutable
/// slice (a `Box<[T]>`, or a caller's memory-mapped file cast to `[T]`).
pub trait ScratchArray<T>: DerefMut<Target = [T]> + Send + Sync {}

impl<T, A: DerefMut<Target = [T]> + Send + Sync> ScratchArray<T> for A {}

/// An array from a [`Scratch`].
pub type Array<T> = Box<dyn ScratchArray<T>>;

impl<T> std::fmt::Debug for dyn ScratchArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{} elements]", self.len())
    }
}

/// Hands out zero-filled arrays of a given length. Implementations must return exactly `len`
/// elements, all zero, or an error (e.g. the disk is full: [`Error::Scratch`]).
pub trait Scratch: Sync {
    /// `len` zeroed `u32`s; `what` names the array (for error messages).
    ///
    /// # Errors
    /// When the storage cannot be had.
    fn u32s(&self, len: usize, what: &'static str) -> Result<Array<u32>>;

    /// `len` zeroed `u64`s; `what` names the array.
    ///
    /// # Errors
    /// When the storage cannot be had.
    fn u64s(&self, len: usize, what: &'static str) -> Result<Array<u64>>;
}

impl std::fmt::Debug for dyn Scratch + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// The arrays (by the `what` of [`Scratch::u32s`] and [`Scratch::u64s`]) that the graph writes
/// in many places at once, at random or in thousands of runs side by side, rather than front
/// to back. Storage that writes its pages out, such as memory-mapped files, should back these
/// with small pages: once the scratch outgrows the memory, a page written out and then
/// written again is written out again whole, and a 2 MiB huge page costs 512 times a 4 KiB
/// one. Every other array is written front to back, or in at most a few hundred runs a
/// thread (its buckets of the predecessor lists past 2^26 objects), and read either
/// so or at random, where huge pages save misses in the address translation and faults.
pub const WRITTEN_SCATTERED: &[&str] = &[
    "predecessors",
    "predecessor row starts",
    "reverse references",
    "shortest-path parents",
    "dominator tree children",
];

/// Scratch arrays in ordinary heap memory (zeroed pages the kernel provides lazily: an array
/// sized by an upper bound costs only the pages written).
#[derive(Debug, Clone, Copy, Default)]
pub struct InMemory;

/// The default scratch storage.
pub static IN_MEMORY: InMemory = InMemory;

impl Scratch for InMemory {
    fn u32s(&self, len: usize, _what: &'static str) -> Result<Array<u32>> {
        Ok(Box::new(vec![0u32; len].into_boxed_slice()))
    }

    fn u64s(&self, len: usize, _what: &'static str) -> Result<Array<u64>> {
        Ok(Box::new(vec![0u64; len].into_boxed_slice()))
    }
}

/// Checks that a caller's scratch storage kept its contract (the right length).
pub(crate) fn checked<T>(a: Array<T>, len: usize, what: &'static str) -> Result<Array<T>> {
    if a.len() == len {
        Ok(a)
    } else {
        Err(Error::Scratch {
            what,
            len: len as u64,
            message: format!("it gave {} elements", a.len()),
        })
    }
}

/// `len` zeroed `u32`s from `s`, checked.
pub(crate) fn u32s(s: &dyn Scratch, len: usize, what: &'static str) -> Result<Array<u32>> {
    checked(s.u32s(len, what)?, len, what)
}

/// `len` zeroed `u64`s from `s`, checked.
pub(crate) fn u64s(s: &dyn Scratch, len: usize, what: &'static str) -> Result<Array<u64>> {
    checked(s.u64s(len, what)?, len, what)
}
