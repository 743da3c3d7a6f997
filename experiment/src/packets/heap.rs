//! Heap tracing packets (`HEAP_PCKT` 5; heaptrace.c): HTYPE, HSIZE, HVADDR, HOVADDR
//! (format notes §3).

use super::{Common, K_HOVADDR, K_HSIZE, K_HTYPE, K_HVADDR, Layout, RawPacket, opt};
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
        layout.check(p)?;
        Ok(HeapPacket {
            common: layout.common_unchecked(p, e),
            htype: HeapType::from_value(opt(layout.known(K_HTYPE), p, e) as u32),
            size: opt(layout.known(K_HSIZE), p, e),
            vaddr: opt(layout.known(K_HVADDR), p, e),
            ovaddr: opt(layout.known(K_HOVADDR), p, e),
        })
    }
}
