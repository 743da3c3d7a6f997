//! A hash map keyed by the format's integer ids (class ids, constant-pool keys), with a
//! multiplicative hasher: the keys are small integers chosen by the recorder, and SipHash's
//! resistance to chosen keys costs more than it protects here (a hostile file can at worst
//! make one chunk's lookups slower, never unbounded).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map from an integer id to `V`.
pub(crate) type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;
