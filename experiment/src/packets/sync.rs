//! Synchronization tracing packets (`SYNC_PCKT` 2; synctrace.c): SRQST, SOBJ (format notes §3).

use super::{Common, K_SOBJ, K_SRQST, Layout, RawPacket, opt};
use crate::cursor::Endian;
use crate::error::Result;

/// A synchronization wait that lasted at least the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SyncPacket {
    /// Common fields (`tstamp` = when the wait ended).
    pub common: Common,
    /// `SRQST`: when the wait started (absolute ns).
    pub request: u64,
    /// `SOBJ`: address of the synchronization object.
    pub object: u64,
}

impl SyncPacket {
    /// Decodes `p` through `layout`.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<Self> {
        layout.check(p)?;
        Ok(SyncPacket {
            common: layout.common_unchecked(p, e),
            request: opt(layout.known(K_SRQST), p, e),
            object: opt(layout.known(K_SOBJ), p, e),
        })
    }

    /// Time spent waiting (`TSTAMP − SRQST`, 0 if negative), in ns.
    pub fn wait_ns(&self) -> u64 {
        self.common.tstamp.saturating_sub(self.request)
    }
}
