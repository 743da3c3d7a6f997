//! The sorted object ids of a dump in about 5 bytes per object: the low 32 bits of each id,
//! the high 32 bits once per run of ids that share them (a HotSpot heap of 150 GB spans fewer
//! than 40 such runs), and a bucket table over each run (one `u32` per four ids) that finds an
//! id's node in O(1) expected time.

use super::super::types::Id;
use super::NodeIndex;

/// Ids per bucket of the lookup table, on average.
const IDS_PER_BUCKET: u64 = 4;

/// The ids whose high 32 bits are `hi`: nodes `start..end`.
#[derive(Debug, Clone, Copy)]
struct Run {
    hi: u32,
    start: u32,
    end: u32,
    /// The low word of the run's first id, shifted.
    first: u32,
    shift: u32,
    /// Where the run's buckets start in the bucket table (`buckets + 1` entries).
    base: usize,
    buckets: usize,
}

/// Sorted distinct object ids: node `i` is the `i`-th smallest.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ids {
    lo: Vec<u32>,
    runs: Vec<Run>,
    /// Per run, `buckets + 1` node indices: bucket `k` holds nodes `table[k]..table[k + 1]`.
    table: Vec<u32>,
    /// When the high words span at most [`DIRECT`] values: per high word from the first
    /// run's, the index of its run (`u32::MAX`: none).
    direct: Vec<u32>,
}

/// The widest span of high words looked up through a direct table (16 KiB).
const DIRECT: u32 = 4096;

impl Ids {
    /// From sorted, distinct ids (at most `u32::MAX` of them), as the raw numbers the index
    /// sorts.
    pub(crate) fn new(sorted: &[u64]) -> Ids {
        let lo: Vec<u32> = sorted.iter().map(|&id| id as u32).collect();
        let mut runs = Vec::new();
        let mut table = Vec::new();
        let mut start = 0usize;
        while let Some(&first) = sorted.get(start) {
            let hi = (first >> 32) as u32;
            let len = sorted
                .get(start..)
                .unwrap_or_default()
                .partition_point(|&id| (id >> 32) as u32 == hi);
            let end = start + len;
            let first_lo = first as u32;
            let last_lo = sorted.get(end - 1).map_or(first_lo, |&id| id as u32);
            let span = u64::from(last_lo - first_lo);
            let want = (len as u64).div_ceil(IDS_PER_BUCKET).max(1);
            let mut shift = 0;
            while (span >> shift) + 1 > want && shift < 32 {
                shift += 1;
            }
            let buckets = (span >> shift) as usize + 1;
            let base = table.len();
            let mut i = start;
            for k in 0..buckets as u64 {
                while i < end
                    && lo
                        .get(i)
                        .is_some_and(|&l| (u64::from(l.wrapping_sub(first_lo)) >> shift) < k)
                {
                    i += 1;
                }
                table.push(i as u32);
            }
            table.push(end as u32);
            runs.push(Run {
                hi,
                start: start as u32,
                end: end as u32,
                first: first_lo,
                shift,
                base,
                buckets,
            });
            start = end;
        }
        let mut direct = Vec::new();
        if let (Some(first), Some(last)) = (runs.first(), runs.last()) {
            if last.hi - first.hi < DIRECT {
                direct = vec![u32::MAX; (last.hi - first.hi) as usize + 1];
                for (k, r) in runs.iter().enumerate() {
                    if let Some(slot) = direct.get_mut((r.hi - first.hi) as usize) {
                        *slot = k as u32;
                    }
                }
            }
        }
        Ids {
            lo,
            runs,
            table,
            direct,
        }
    }

    /// Number of ids.
    pub(crate) fn len(&self) -> usize {
        self.lo.len()
    }

    /// The id of node `node`.
    #[inline]
    pub(crate) fn get(&self, node: NodeIndex) -> Option<Id> {
        let lo = *self.lo.get(node as usize)?;
        let r = self
            .runs
            .partition_point(|r| r.start <= node)
            .checked_sub(1)?;
        let hi = self.runs.get(r)?.hi;
        Some(Id(u64::from(hi) << 32 | u64::from(lo)))
    }

    /// The node with id `id`.
    #[inline]
    pub(crate) fn node(&self, id: Id) -> Option<NodeIndex> {
        let hi = (id.0 >> 32) as u32;
        let lo = id.0 as u32;
        let run = match self.runs.as_slice() {
            [only] if only.hi == hi => only,
            runs if !self.direct.is_empty() => {
                let k = hi.checked_sub(runs.first()?.hi)?;
                runs.get(*self.direct.get(k as usize)? as usize)?
            }
            runs => {
                let r = runs.binary_search_by_key(&hi, |r| r.hi).ok()?;
                runs.get(r)?
            }
        };
        let k = (u64::from(lo.checked_sub(run.first)?) >> run.shift) as usize;
        if k >= run.buckets {
            return None;
        }
        let a = *self.table.get(run.base + k)? as usize;
        let b = *self.table.get(run.base + k + 1)? as usize;
        let at = self.lo.get(a..b)?.binary_search(&lo).ok()?;
        debug_assert!(a + at < run.end as usize);
        Some((a + at) as NodeIndex)
    }

    /// Every id, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Id> + '_ {
        self.runs.iter().flat_map(|r| {
            self.lo
                .get(r.start as usize..r.end as usize)
                .unwrap_or_default()
                .iter()
                .map(move |&lo| Id(u64::from(r.hi) << 32 | u64::from(lo)))
        })
    }

    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.lo.capacity() * 4
            + self.table.capacity() * 4
            + self.runs.capacity() * std::mem::size_of::<Run>()
            + self.direct.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn finds_every_id_and_no_other() {
        let mut ids: Vec<u64> = vec![1, 2, 3, 8, 16, 1 << 32, (1 << 32) + 7, 5 << 33, u64::MAX];
        ids.extend((0..1000u64).map(|k| 0x7_0000_0000 + k * 24));
        ids.sort_unstable();
        ids.dedup();
        let ix = Ids::new(&ids);
        assert_eq!(ix.len(), ids.len());
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(ix.node(Id(id)), Some(i as u32), "{id:#x}");
            assert_eq!(ix.get(i as u32), Some(Id(id)));
        }
        assert_eq!(ix.iter().map(Id::get).collect::<Vec<_>>(), ids);
        for id in [
            0,
            4,
            9,
            (1 << 32) + 1,
            0x7_0000_0001,
            0x6_ffff_ffff,
            u64::MAX - 1,
        ] {
            assert_eq!(ix.node(Id(id)), None, "{id:#x}");
        }
        assert_eq!(ix.get(ids.len() as u32), None);
        assert_eq!(Ids::new(&[]).node(Id(5)), None);
    }
}
