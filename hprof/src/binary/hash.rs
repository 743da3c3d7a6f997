//! The seeded hasher of the maps keyed by ids read from a dump (object, class and string ids).
//!
//! Public only for the family's sibling crates (`jvmprof-columnar`); not part of the API.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use super::types::Id;

/// A fast hasher for identifiers, seeded per map: one folded 64×64→128-bit multiply of the id
/// and a secret seed. Ids come from the file, so they may be chosen to collide; with the seed
/// drawn at random for each map (see [`IdState`]) no fixed set of ids makes every lookup
/// probe the same buckets, as they could with an unseeded multiplicative hash.
#[derive(Debug, Default, Clone, Copy)]
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
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.hash.rotate_left(8) ^ u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.hash = folded_multiply(n ^ self.seed, 0x9E37_79B9_7F4A_7C15 ^ self.hash);
    }
}

/// Builds [`IdHasher`]s with a seed drawn at random (from the standard library's per-process
/// random keys) when the map is created.
#[derive(Debug, Clone, Copy)]
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

    #[inline]
    fn build_hasher(&self) -> IdHasher {
        IdHasher {
            seed: self.seed,
            hash: 0,
        }
    }
}

/// A `HashMap` keyed by [`Id`] with [`IdHasher`].
pub type IdMap<V> = HashMap<Id, V, IdState>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: the unseeded hash was a fixed bijection, so a dump could hold ids
    /// picked (by inverting it) to share one bucket, making each insert scan all the others.
    /// Seeded, structured ids spread like random values (about 63% of 4096 buckets hit by 4096
    /// keys), and the seed differs between maps. The seeds come from a fixed generator: drawn
    /// at random, about one in 2,700 spreads 4096 small ids over fewer than 2200 buckets (down
    /// to 1862 in 200,000 seeds), which once failed CI.
    #[test]
    fn ids_sharing_low_bits_spread_over_buckets() {
        use std::hash::BuildHasher;
        let mut x = 0x243F_6A88_85A3_08D3u64;
        let mut spread = Vec::new();
        for _ in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let state = IdState { seed: x };
            for shift in [0, 32] {
                let buckets: std::collections::HashSet<u64> = (0..4096u64)
                    .map(|i| state.hash_one(i << shift) & 4095)
                    .collect();
                spread.push(buckets.len());
            }
        }
        spread.sort_unstable();
        assert!(spread[0] > 1700, "{spread:?}");
        assert!(spread[spread.len() / 2] > 2400, "{spread:?}");
        // Two maps draw different seeds.
        assert_ne!(
            IdState::default().hash_one(1u64),
            IdState::default().hash_one(1u64)
        );
    }

    /// An [`Id`] hashes as its number: one `write_u64`, the hasher's fast path (a `write` of
    /// bytes would fold them one at a time).
    #[test]
    fn an_id_hashes_as_one_u64() {
        #[derive(Default)]
        struct Calls(Vec<&'static str>);
        impl Hasher for Calls {
            fn finish(&self) -> u64 {
                0
            }
            fn write(&mut self, _: &[u8]) {
                self.0.push("write");
            }
            fn write_u64(&mut self, _: u64) {
                self.0.push("write_u64");
            }
        }
        let mut calls = Calls::default();
        std::hash::Hash::hash(&Id(0x7f00_1000), &mut calls);
        assert_eq!(calls.0, ["write_u64"]);
        let state = IdState::default();
        for n in [0, 1, 0x7f00_1000, u64::MAX] {
            assert_eq!(state.hash_one(Id(n)), state.hash_one(n));
        }
    }
}
