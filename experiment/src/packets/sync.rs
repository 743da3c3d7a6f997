//! Synchronization tracing packets (`SYNC_PCKT` 2; synctrace.c): SRQST, SOBJ (format notes §3).

use super::blocks::RawPacket;
use super::layout::{Common, K_SOBJ, K_SRQST, Layout, opt};
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn slots_sign_extend_on_both_paths_and_orders() {
        use crate::log::Log;
        let log = Log::parse(
            b"<experiment version=\"12.4\"/><profile name=\"x\"><profdata fname=\"d\"/><profpckt kind=\"2\">\
              <field name=\"TSTAMP\" offset=\"4\" type=\"INT32\"/><field name=\"SRQST\" offset=\"8\" type=\"UINT32\"/>\
              <field name=\"SOBJ\" offset=\"12\" type=\"INT32\"/></profpckt></profile>",
        )
        .unwrap();
        let layout = Layout::new(&log.packets[0]);
        for e in [Endian::Little, Endian::Big] {
            let mut b = Vec::new();
            let put = |b: &mut Vec<u8>, v: u32| {
                b.extend(if e == Endian::Little {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                });
            };
            b.extend(if e == Endian::Little {
                [16, 0, 2, 0]
            } else {
                [0, 16, 0, 2]
            });
            put(&mut b, (-5i32) as u32);
            put(&mut b, 0xFFFF_FFF0);
            put(&mut b, (-7i32) as u32); // in the last 4 bytes: the slow path
            let p = RawPacket {
                offset: 0,
                kind: 2,
                bytes: &b,
            };
            let s = SyncPacket::decode(&p, &layout, e).unwrap();
            assert_eq!(s.common.tstamp, (-5i64) as u64, "{e:?}");
            assert_eq!(s.request, 0xFFFF_FFF0, "{e:?}");
            assert_eq!(s.object, (-7i64) as u64, "{e:?}");
        }
    }
}
