//! Constant pools: the checkpoint events (type 1) of a chunk, each holding pools of entries
//! (`class id`, `count`, then `key`, value per entry), found by following the delta chain from
//! the header's constant-pool offset back to the chunk's first checkpoint. Entries are indexed
//! by where their value starts; values are decoded when a reference is resolved.

use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::idmap::IdMap;
use crate::metadata::Metadata;
use crate::value;

/// The constant pools of one chunk: for each pool class, where each key's value starts.
#[derive(Debug, Clone, Default)]
pub struct ConstantPools {
    pools: IdMap<IdMap<usize>>,
    entries: usize,
}

/// The fixed part of a checkpoint event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Checkpoint {
    /// Where the event starts in the input.
    pub offset: u64,
    /// The event's size in bytes.
    pub size: u64,
    /// Its start time in ticks.
    pub start_ticks: i64,
    /// Its duration in ticks.
    pub duration_ticks: i64,
    /// The (negative) distance to the previous checkpoint of the chunk; 0 for the first.
    pub delta: i64,
    /// The checkpoint-type byte (flush, chunk header, statics, thread bits).
    pub kind: u8,
    /// How many pools it holds.
    pub pools: u32,
}

impl ConstantPools {
    /// Where the value of entry `key` of the pool of class id `class_id` starts.
    pub fn get(&self, class_id: u64, key: i64) -> Option<usize> {
        self.pools.get(&class_id)?.get(&(key as u64)).copied()
    }

    /// How many entries all pools hold together.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether no pool holds an entry.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The class ids of the pools, and how many entries each holds.
    pub fn sizes(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.pools.iter().map(|(&id, p)| (id, p.len()))
    }

    /// Reads the checkpoint event `c` is at (the cursor is limited to the chunk) and indexes
    /// its entries; with `newest_wins`, an entry replaces one of the same key already held,
    /// otherwise the one held stays (the chain is walked newest first).
    pub(crate) fn read_checkpoint(
        &mut self,
        md: &Metadata,
        c: &mut Cursor<'_>,
        newest_wins: bool,
    ) -> Result<Checkpoint> {
        let offset = c.pos();
        let size = c.int("checkpoint event size")?;
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| {
                Error::invalid(
                    "checkpoint event size",
                    "a positive size",
                    size,
                    offset as u64,
                )
            })?;
        c.seek(offset);
        let mut e = c.split(size, "checkpoint event")?;
        e.int("checkpoint event size")?;
        let type_at = e.pos();
        let kind = e.long("checkpoint event type")?;
        if kind != 1 {
            return Err(Error::invalid(
                "checkpoint event type",
                "1",
                kind,
                type_at as u64,
            ));
        }
        let start_ticks = e.long("checkpoint start time")?;
        let duration_ticks = e.long("checkpoint duration")?;
        let delta = e.long("checkpoint delta")?;
        let kind = e.u8("checkpoint type")?;
        let pools = e.count("checkpoint pool count")?;
        for _ in 0..pools {
            let class_at = e.pos();
            let class_id = e.long("constant-pool class")? as u64;
            let class = md.index_of(class_id).ok_or_else(|| {
                Error::invalid(
                    "constant-pool class",
                    "the id of a declared class",
                    class_id,
                    class_at as u64,
                )
            })?;
            let n = e.count("constant-pool entry count")?;
            let pool = self.pools.entry(class_id).or_default();
            // Real pools hold tens of thousands of entries; a hostile count grows the map only
            // as entries decode.
            pool.reserve(n.min(1 << 16));
            for _ in 0..n {
                let key = e.long("constant-pool key")? as u64;
                let at = e.pos();
                value::skip_ops(
                    md,
                    &mut e,
                    class,
                    md.layouts.get(class).map_or(&[], |l| &l[..]),
                )?;
                let before = pool.len();
                if newest_wins {
                    pool.insert(key, at);
                } else {
                    pool.entry(key).or_insert(at);
                }
                self.entries += pool.len() - before;
            }
        }
        Ok(Checkpoint {
            offset: offset as u64,
            size: size as u64,
            start_ticks,
            duration_ticks,
            delta,
            kind,
            pools: pools as u32,
        })
    }

    /// Follows the delta chain from the checkpoint at `last` (an offset in the input) back to
    /// the chunk's first, within `[chunk_start, chunk_end)`.
    pub(crate) fn read_chain(
        md: &Metadata,
        data: &[u8],
        chunk_start: usize,
        chunk_end: usize,
        last: usize,
        compressed: bool,
    ) -> Result<(ConstantPools, Vec<Checkpoint>)> {
        let mut pools = ConstantPools::default();
        let mut checkpoints = Vec::new();
        let mut pos = last;
        loop {
            let mut c = Cursor::new(data, pos, chunk_end, compressed);
            let cp = pools.read_checkpoint(md, &mut c, false)?;
            checkpoints.push(cp);
            if cp.delta == 0 {
                break;
            }
            // Each step goes back, and stays past the header: the chain ends.
            let next = i128::from(cp.offset as i64) + i128::from(cp.delta);
            if cp.delta > 0 || next < (chunk_start + crate::header::HEADER_SIZE) as i128 {
                return Err(Error::invalid(
                    "checkpoint delta",
                    "a step back to an earlier checkpoint of the chunk",
                    cp.delta,
                    cp.offset,
                ));
            }
            pos = next as usize;
        }
        checkpoints.reverse();
        Ok((pools, checkpoints))
    }
}
