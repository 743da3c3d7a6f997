//! Hardware counter packets (`HW_PCKT` 3, `MHWC_PCKT` 7; hwprofile.h): HWCTAG, HWCINT and the
//! memory-space fields (format notes §3).

use super::blocks::RawPacket;
use super::layout::{
    Common, K_HWCINT, K_HWCTAG, K_PADDR, K_PHYSPC, K_VADDR, K_VIRTPC, Layout, opt,
};
use crate::cursor::Endian;
use crate::error::Result;

/// A hardware counter overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HwcPacket {
    /// Common fields.
    pub common: Common,
    /// `HWCTAG`: the counter (`tag` of `<profile name="hwcounter">`).
    pub tag: u32,
    /// `HWCINT`: events this overflow represents.
    pub interval: u64,
    /// `VADDR` (memory-space packets; 0 otherwise).
    pub vaddr: u64,
    /// `PADDR`.
    pub paddr: u64,
    /// `VIRTPC`.
    pub virtual_pc: u64,
    /// `PHYSPC`.
    pub physical_pc: u64,
}

impl HwcPacket {
    /// Decodes `p` through `layout`.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<Self> {
        layout.check(p)?;
        Ok(HwcPacket {
            common: layout.common_unchecked(p, e),
            tag: opt(layout.known(K_HWCTAG), p, e) as u32,
            interval: opt(layout.known(K_HWCINT), p, e),
            vaddr: opt(layout.known(K_VADDR), p, e),
            paddr: opt(layout.known(K_PADDR), p, e),
            virtual_pc: opt(layout.known(K_VIRTPC), p, e),
            physical_pc: opt(layout.known(K_PHYSPC), p, e),
        })
    }
}
