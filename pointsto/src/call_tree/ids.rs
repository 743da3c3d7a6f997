//! Report ids as hash keys: a seeded hasher for maps keyed by ids, and the compact index and
//! set the readers use while ids stream by.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use indexmap::IndexMap;

/// A fast hasher for the reports' integer ids, seeded per map: one folded 64×64→128-bit
/// multiply of the id and a secret seed. Ids come from the report, so they may be chosen to
/// collide; with the seed drawn at random for each map (see [`IdState`]) no fixed set of ids
/// makes every lookup probe the same buckets, as they could with an unseeded multiplicative
/// hash (ids `i << 32` all landed in one bucket).
#[derive(Debug, Clone, Copy, Default)]
#[allow(unreachable_pub)] // named by `IdState`'s `BuildHasher` impl, never exported
pub struct IdHasher {
    seed: u64,
    hash: u64,
}

/// `x * y` as 128 bits, its halves XORed together.
#[inline(always)]
fn folded_multiply(x: u64, y: u64) -> u64 {
    let full = u128::from(x) * u128::from(y);
    (full as u64) ^ ((full >> 64) as u64)
}

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.hash
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.hash.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.hash = folded_multiply(id ^ self.seed, 0x9E37_79B9_7F4A_7C15 ^ self.hash);
    }
}

/// Builds the ids' hashers with a seed drawn at random (from the standard library's per-process
/// random keys) when the map is created. Named by [`IdMap`], never exported.
#[derive(Debug, Clone, Copy)]
#[allow(unreachable_pub)]
pub struct IdState {
    seed: u64,
}

impl Default for IdState {
    fn default() -> Self {
        let seed = std::collections::hash_map::RandomState::new().hash_one(0x1d5_u64);
        IdState { seed }
    }
}

impl BuildHasher for IdState {
    type Hasher = IdHasher;

    fn build_hasher(&self) -> IdHasher {
        IdHasher {
            seed: self.seed,
            hash: 0,
        }
    }
}

/// A map keyed by report ids.
pub type IdMap<V> = IndexMap<u64, V, IdState>;

/// A map from report ids to indices: a vector for the usual small, dense ids (the printers
/// count from 0), a hash map for the rest.
#[derive(Debug, Default)]
pub(crate) struct IdIndex {
    dense: Vec<u32>,
    /// How many ids the vector holds (not its length, which grows with the largest id).
    dense_entries: usize,
    sparse: HashMap<u64, usize, IdState>,
}

impl IdIndex {
    /// Whether `id` belongs in the vector: ids stay below a few times the number of entries
    /// in real reports, so the vector never outgrows the data by much.
    fn dense(&self, id: u64) -> bool {
        let entries = (self.dense_entries + self.sparse.len()) as u64;
        id < (1 << 16) + 8 * entries && id < (1 << 26)
    }

    /// Sets `id`'s index; returns false if `id` already had one.
    pub(crate) fn insert(&mut self, id: u64, index: usize) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        match u32::try_from(index) {
            Ok(small) if small != u32::MAX && self.dense(id) => {
                let at = id as usize;
                if at >= self.dense.len() {
                    self.dense.resize((at + 1).next_power_of_two(), u32::MAX);
                }
                if let Some(slot) = self.dense.get_mut(at) {
                    *slot = small;
                    self.dense_entries += 1;
                }
                true
            }
            _ => self.sparse.insert(id, index).is_none(),
        }
    }

    /// `id`'s index.
    pub(crate) fn get(&self, id: u64) -> Option<usize> {
        match usize::try_from(id).ok().and_then(|at| self.dense.get(at)) {
            Some(&slot) if slot != u32::MAX => Some(slot as usize),
            _ => self.sparse.get(&id).copied(),
        }
    }
}

/// The set of defined ids: a bitset for the usual small ids, a hash set for the rest.
#[derive(Debug, Default)]
pub(crate) struct IdSet {
    dense: Vec<u64>,
    sparse: std::collections::HashSet<u64, IdState>,
}

impl IdSet {
    /// Ids below this live in the bitset (at most 2 MiB of bits).
    const DENSE_LIMIT: u64 = 1 << 24;

    pub(crate) fn insert(&mut self, id: u64) {
        if id < Self::DENSE_LIMIT {
            let word = (id / 64) as usize;
            if word >= self.dense.len() {
                self.dense.resize((word + 1).next_power_of_two(), 0);
            }
            if let Some(bits) = self.dense.get_mut(word) {
                *bits |= 1 << (id % 64);
            }
        } else {
            self.sparse.insert(id);
        }
    }

    pub(crate) fn contains(&self, id: u64) -> bool {
        if id < Self::DENSE_LIMIT {
            self.dense
                .get((id / 64) as usize)
                .is_some_and(|bits| bits & (1 << (id % 64)) != 0)
        } else {
            self.sparse.contains(&id)
        }
    }
}

#[cfg(test)]
mod tests {
    /// Regression: the unseeded multiplicative hash put ids `i << 32` (which a report can
    /// hold) all in one bucket, making each insert scan all the others. Seeded, they spread
    /// like random values (about 63% of 4096 buckets hit by 4096 keys).
    #[test]
    fn ids_sharing_low_bits_spread_over_buckets() {
        use std::hash::BuildHasher;
        let state = IdState::default();
        let buckets: std::collections::HashSet<u64> = (0..4096u64)
            .map(|i| state.hash_one(i << 32) & 4095)
            .collect();
        assert!(buckets.len() > 2200, "{} buckets", buckets.len());
        let small: std::collections::HashSet<u64> =
            (0..4096u64).map(|i| state.hash_one(i) & 4095).collect();
        assert!(small.len() > 2200, "{} buckets", small.len());
        // Two maps draw different seeds.
        assert_ne!(state.hash_one(1u64), IdState::default().hash_one(1u64));
    }

    use super::*;

    #[test]
    fn id_index_dense_and_sparse() {
        let mut index = IdIndex::default();
        assert!(index.insert(3, 0));
        assert!(index.insert(u64::MAX, 1));
        assert!(index.insert(1 << 40, 2));
        assert!(!index.insert(3, 9));
        assert!(!index.insert(u64::MAX, 9));
        assert_eq!(
            (
                index.get(3),
                index.get(u64::MAX),
                index.get(1 << 40),
                index.get(4)
            ),
            (Some(0), Some(1), Some(2), None)
        );
        assert!(index.dense.len() < 1 << 17);
        let mut set = IdSet::default();
        set.insert(5);
        set.insert(u64::MAX);
        assert!(set.contains(5) && set.contains(u64::MAX) && !set.contains(6));
    }
}
