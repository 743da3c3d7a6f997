//! The chunk header: the 68 bytes that open every chunk (magic `FLR\0`, version, sizes and
//! offsets, the chunk's clock, and its flags).

use crate::cursor::Cursor;
use crate::error::{Error, Result};

/// The magic bytes that open every chunk.
pub const MAGIC: [u8; 4] = *b"FLR\0";

/// The size of a chunk header in bytes.
pub const HEADER_SIZE: usize = 68;

/// Flag bit: the chunk writes integers compressed.
const FLAG_COMPRESSED_INTS: u32 = 1;
/// Flag bit (2.x): this is the last chunk of the recording.
const FLAG_FINAL_CHUNK: u32 = 2;

/// The header of one chunk. Offsets inside the chunk (`constant_pool_offset`,
/// `metadata_offset`) are relative to the chunk start, as the file stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ChunkHeader {
    /// Where the chunk starts in the input.
    pub offset: u64,
    /// Major version: 1 (JDK 9 and 10) or 2 (JDK 11 and later).
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// The chunk's size in bytes, header included (0 while a chunk is being written).
    pub chunk_size: u64,
    /// Offset of the last checkpoint event, from the chunk start (the head of the delta chain).
    pub constant_pool_offset: u64,
    /// Offset of the (last) metadata event, from the chunk start.
    pub metadata_offset: u64,
    /// Wall-clock time the chunk starts, in nanoseconds since the epoch.
    pub start_nanos: i64,
    /// The chunk's duration in nanoseconds.
    pub duration_nanos: i64,
    /// The chunk's start in ticks of its own clock.
    pub start_ticks: i64,
    /// Ticks per second of the chunk's clock.
    pub ticks_per_second: i64,
    /// The raw 4 bytes after the clock: in 2.x a generation byte, a padding byte and 16 bits
    /// of flags; in 1.x an `int` of feature bits.
    pub features: u32,
}

impl ChunkHeader {
    /// Reads the header of the chunk that starts at `offset` in `data`.
    pub fn parse(data: &[u8], offset: usize) -> Result<ChunkHeader> {
        let mut c = Cursor::new(data, offset, data.len(), false);
        let magic = c.bytes(4, "chunk magic")?;
        if magic != MAGIC {
            return Err(Error::invalid(
                "chunk magic",
                "\"FLR\\0\"",
                format_args!("{magic:02x?}"),
                offset as u64,
            ));
        }
        let major = c.raw_u16("chunk major version")?;
        let minor = c.raw_u16("chunk minor version")?;
        if !(1..=2).contains(&major) {
            return Err(Error::invalid(
                "chunk version",
                "1.x or 2.x",
                format_args!("{major}.{minor}"),
                offset as u64 + 4,
            ));
        }
        let header = ChunkHeader {
            offset: offset as u64,
            major,
            minor,
            chunk_size: c.raw_u64("chunk size")?,
            constant_pool_offset: c.raw_u64("constant pool offset")?,
            metadata_offset: c.raw_u64("metadata offset")?,
            start_nanos: c.raw_u64("chunk start nanos")? as i64,
            duration_nanos: c.raw_u64("chunk duration")? as i64,
            start_ticks: c.raw_u64("chunk start ticks")? as i64,
            ticks_per_second: c.raw_u64("ticks per second")? as i64,
            features: c.raw_u32("chunk flags")?,
        };
        if header.chunk_size != 0 && header.chunk_size < HEADER_SIZE as u64 {
            return Err(Error::invalid(
                "chunk size",
                "at least the 68-byte header",
                header.chunk_size,
                offset as u64 + 8,
            ));
        }
        Ok(header)
    }

    /// Whether integers are written compressed.
    pub fn compressed_integers(&self) -> bool {
        self.features & FLAG_COMPRESSED_INTS != 0
    }

    /// Whether the header marks this as the recording's last chunk (2.x only).
    pub fn is_final(&self) -> bool {
        self.major >= 2 && self.features & FLAG_FINAL_CHUNK != 0
    }

    /// The generation byte of a 2.x header (0 once the chunk is complete; the recorder bumps
    /// it while it is writing).
    pub fn generation(&self) -> u8 {
        if self.major >= 2 {
            (self.features >> 24) as u8
        } else {
            0
        }
    }

    /// Where the chunk ends in the input, as the header declares it.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.chunk_size)
    }
}
