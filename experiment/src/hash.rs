//! A fast hasher for the crate's integer-keyed maps (addresses, frame-info uids, allocation ids):
//! the keys are not chosen by an adversary who gains by colliding them (the worst an
//! experiment can do is slow its own reading down), and SipHash costs as much as the rest of
//! a heap trace's pairing.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of integers (the scheme of rustc's `FxHasher`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IntHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for IntHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            if let Some(w) = word.get_mut(..chunk.len()) {
                w.copy_from_slice(chunk);
            }
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(SEED);
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    /// The product's well-mixed high bits rotated down: hashbrown picks buckets by the low
    /// bits, and a product keeps its key's low zero bits (16-byte aligned addresses would all
    /// start probing at a multiple of 16).
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

/// A `HashMap` with [`IntHasher`].
pub(crate) type IntMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IntHasher>>;
