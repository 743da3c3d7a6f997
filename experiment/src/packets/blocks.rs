//! The blocks of a data file: packets one after another, each `tsize` bytes and 4-byte
//! aligned, with `EMPTY`/`CLOSED` padding to the end of a block (spec: "データファイル"; format
//! notes §2), and the packet types of their headers.

use crate::cursor::{Endian, get_u16};
use crate::error::{Error, Result};

/// `EMPTY_PCKT`: padding up to the end of a block.
pub const EMPTY_PCKT: u16 = 0;
/// `CLOSED_PCKT`: the rest of the block is unused.
pub const CLOSED_PCKT: u16 = 0xFFFF;
/// `PROF_PCKT`: old (SS12) clock profiling packet.
pub const PROF_PCKT: u16 = 1;
/// `SYNC_PCKT`.
pub const SYNC_PCKT: u16 = 2;
/// `HW_PCKT`.
pub const HW_PCKT: u16 = 3;
/// `XHWC_PCKT`.
pub const XHWC_PCKT: u16 = 4;
/// `HEAP_PCKT`.
pub const HEAP_PCKT: u16 = 5;
/// `MPI_PCKT`.
pub const MPI_PCKT: u16 = 6;
/// `MHWC_PCKT`: memory-space hardware counter packet.
pub const MHWC_PCKT: u16 = 7;
/// `OPROF_PCKT`: gprofng clock profiling packet.
pub const OPROF_PCKT: u16 = 8;
/// `OMP_PCKT`.
pub const OMP_PCKT: u16 = 9;
/// `RACE_PCKT`.
pub const RACE_PCKT: u16 = 10;
/// `FRAME_PCKT` (data.frameinfo only).
pub const FRAME_PCKT: u16 = 11;
/// `DEADLOCK_PCKT`.
pub const DEADLOCK_PCKT: u16 = 13;
/// `UID_PCKT` (data.frameinfo only).
pub const UID_PCKT: u16 = 17;
/// `IOTRACE_PCKT`.
pub const IOTRACE_PCKT: u16 = 19;

/// Packets are 4-byte aligned (`PACKET_ALIGNMENT`).
pub const PACKET_ALIGNMENT: usize = 4;
/// After a zero `tsize` or a bad packet the reader resumes at the next multiple of this.
pub const PROFILE_BUFFER_CHUNK: usize = 16384;

/// One packet as found in a data file: its offset, type and bytes (header included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawPacket<'a> {
    /// Byte offset in the file.
    pub offset: u64,
    /// Packet type (`<profpckt kind>`).
    pub kind: u16,
    /// The whole packet, `tsize` bytes.
    pub bytes: &'a [u8],
}

/// Lazy, fallible walk over the packets of a block-structured file (padding skipped).
///
/// A zero `tsize` skips to the next 16 KiB boundary, like gprofng; a misaligned `tsize` yields an
/// error and resynchronises there too; a packet running past the end yields an error and ends
/// the walk (the file was cut, e.g. by a killed target).
#[derive(Debug, Clone)]
pub struct Packets<'a> {
    data: &'a [u8],
    pos: usize,
    endian: Endian,
    done: bool,
    /// Offset of `data` in its file (a chunk of a larger file).
    base: u64,
}

impl<'a> Packets<'a> {
    /// Walks `data` with byte order `endian`.
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Packets::at(data, endian, 0)
    }

    /// Walks `data`, a chunk of a file that starts at byte `base` of it: offsets (in packets
    /// and errors) and the 16 KiB boundaries padding skips to are the file's.
    pub fn at(data: &'a [u8], endian: Endian, base: u64) -> Self {
        Packets {
            data,
            pos: 0,
            endian,
            done: false,
            base,
        }
    }

    /// The offset in the file of the next packet to be read.
    pub fn next_offset(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    fn resync(&mut self) {
        let chunk = PROFILE_BUFFER_CHUNK as u64;
        let next = (self.next_offset() / chunk + 1).saturating_mul(chunk);
        self.pos = usize::try_from(next - self.base).unwrap_or(usize::MAX);
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<RawPacket<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let pos = self.pos;
            let (Some(tsize), Some(kind)) = (
                get_u16(self.data, pos, self.endian),
                get_u16(self.data, pos + 2, self.endian),
            ) else {
                self.done = true;
                // A file cut 1–3 bytes into a packet header: say so, a reader must not take
                // the file for complete.
                let left = self.data.len().saturating_sub(pos);
                if left > 0 {
                    return Some(Err(Error::Truncated {
                        what: "packet header",
                        offset: self.base.saturating_add(pos as u64),
                        needed: 4,
                        available: left as u64,
                    }));
                }
                return None;
            };
            let tsize = usize::from(tsize);
            if tsize == 0 {
                self.resync();
                continue;
            }
            if tsize < PACKET_ALIGNMENT || tsize % PACKET_ALIGNMENT != 0 {
                self.resync();
                return Some(Err(Error::Invalid {
                    what: "packet tsize",
                    offset: self.base.saturating_add(pos as u64),
                    expected: "a non-zero multiple of 4".into(),
                    found: tsize.to_string(),
                }));
            }
            let Some(bytes) = self.data.get(pos..pos + tsize) else {
                self.done = true;
                return Some(Err(Error::Truncated {
                    what: "packet",
                    offset: self.base.saturating_add(pos as u64),
                    needed: tsize as u64,
                    available: (self.data.len() - pos) as u64,
                }));
            };
            self.pos = pos + tsize;
            if kind == EMPTY_PCKT || kind == CLOSED_PCKT {
                continue;
            }
            return Some(Ok(RawPacket {
                offset: self.base.saturating_add(pos as u64),
                kind,
                bytes,
            }));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn walk_skips_padding_and_resyncs() {
        let mut d = vec![0u8; 3 * PROFILE_BUFFER_CHUNK];
        // packet of 8 bytes, type 8
        d[0..4].copy_from_slice(&[8, 0, 8, 0]);
        // EMPTY padding of 8 bytes
        d[8..12].copy_from_slice(&[8, 0, 0, 0]);
        // zero tsize at 16 => skip to 16384; misaligned packet there
        d[16384..16388].copy_from_slice(&[6, 0, 8, 0]);
        // real packet at 32768 running past end
        d[32768..32772].copy_from_slice(&[0xF0, 0xFF, 8, 0]);
        let v: Vec<_> = Packets::new(&d, Endian::Little).collect();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].as_ref().unwrap().offset, 0);
        assert!(matches!(v[1], Err(Error::Invalid { offset: 16384, .. })));
        assert!(matches!(v[2], Err(Error::Truncated { offset: 32768, .. })));
    }

    #[test]
    fn big_endian_header() {
        let d = [0, 8, 0, 8, 1, 2, 3, 4];
        let p = Packets::new(&d, Endian::Big).next().unwrap().unwrap();
        assert_eq!((p.kind, p.bytes.len()), (8, 8));
    }
}
