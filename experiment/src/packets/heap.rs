//! Heap tracing packets (`HEAP_PCKT` 5; heaptrace.c): HTYPE, HSIZE, HVADDR, HOVADDR
//! (format notes §3).

use super::blocks::RawPacket;
use super::layout::{Common, HEAP_FIXED_LEN, K_HOVADDR, K_HSIZE, K_HTYPE, K_HVADDR, Layout, opt};
use crate::cursor::Endian;
use crate::error::Result;

/// `Heap_type`: what the traced call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HeapType {
    /// 0 `MALLOC` (also calloc, memalign, valloc).
    Malloc,
    /// 1 `FREE`.
    Free,
    /// 2 `REALLOC`.
    Realloc,
    /// 3 `MMAP`.
    Mmap,
    /// 4 `MUNMAP`.
    Munmap,
    /// Any other value.
    Other(u32),
}

impl HeapType {
    /// The type with value `v`.
    pub fn from_value(v: u32) -> Self {
        match v {
            0 => HeapType::Malloc,
            1 => HeapType::Free,
            2 => HeapType::Realloc,
            3 => HeapType::Mmap,
            4 => HeapType::Munmap,
            o => HeapType::Other(o),
        }
    }
}

/// A heap tracing event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapPacket {
    /// Common fields.
    pub common: Common,
    /// `HTYPE`.
    pub htype: HeapType,
    /// `HSIZE`: bytes requested.
    pub size: u64,
    /// `HVADDR`: the allocation's (or freed) address.
    pub vaddr: u64,
    /// `HOVADDR`: realloc's old address.
    pub ovaddr: u64,
}

impl HeapPacket {
    /// Decodes `p` through `layout`.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<Self> {
        if layout.heap_fixed && e == Endian::Little {
            if let Some(b) = p.bytes.first_chunk::<HEAP_FIXED_LEN>() {
                return Ok(HeapPacket::fixed_le(b));
            }
        }
        layout.check(p)?;
        Ok(HeapPacket {
            common: layout.common_unchecked(p, e),
            htype: HeapType::from_value(opt(layout.known(K_HTYPE), p, e) as u32),
            size: opt(layout.known(K_HSIZE), p, e),
            vaddr: opt(layout.known(K_HVADDR), p, e),
            ovaddr: opt(layout.known(K_HOVADDR), p, e),
        })
    }

    /// A little-endian packet of gprofng's `Heap_packet` layout, every field at its fixed
    /// offset (what [`HeapPacket::decode`] reads through the layout, without looking it up).
    #[inline(always)]
    fn fixed_le(b: &[u8; HEAP_FIXED_LEN]) -> Self {
        #[inline(always)]
        fn u64_at(b: &[u8; HEAP_FIXED_LEN], at: usize) -> u64 {
            let mut a = [0u8; 8];
            if let Some(w) = b.get(at..at + 8) {
                a.copy_from_slice(w);
            }
            u64::from_le_bytes(a)
        }
        HeapPacket {
            common: Common {
                lwp_id: u64_at(b, 8),
                thr_id: u64_at(b, 16),
                cpu_id: u64_at(b, 24) as u32,
                tstamp: u64_at(b, 32),
                frinfo: u64_at(b, 40),
            },
            htype: HeapType::from_value(u64_at(b, 48) as u32),
            size: u64_at(b, 56),
            vaddr: u64_at(b, 64),
            ovaddr: u64_at(b, 72),
        }
    }
}
