//! Binary data files (`profile`, `heaptrace`, `synctrace`, `iotrace`, `hwcounters`, …):
//! 64 KiB blocks of packets with EMPTY/CLOSED padding, decoded through the `<profpckt>` field
//! descriptors of log.xml (spec: "データファイル"; format notes §2–§3).
//!
//! [`Packets`] walks the blocks lazily; [`Packet`] reads any field by its log.xml name; the typed
//! views ([`ClockPacket`], [`HeapPacket`], [`SyncPacket`], [`IoPacket`], [`HwcPacket`]) read the
//! known kinds through a [`Layout`] computed once per descriptor.

mod blocks;
mod clock;
mod fields;
mod heap;
mod hwc;
mod io;
mod layout;
mod sync;

pub use blocks::{
    CLOSED_PCKT, DEADLOCK_PCKT, EMPTY_PCKT, FRAME_PCKT, HEAP_PCKT, HW_PCKT, IOTRACE_PCKT,
    MHWC_PCKT, MPI_PCKT, OMP_PCKT, OPROF_PCKT, PACKET_ALIGNMENT, PROF_PCKT, PROFILE_BUFFER_CHUNK,
    Packets, RACE_PCKT, RawPacket, SYNC_PCKT, UID_PCKT, XHWC_PCKT,
};
pub use clock::{ClockPacket, MicroState, SOLARIS_MICROSTATES};
pub use fields::{Packet, Record, Value, read_field};
pub use heap::{HeapPacket, HeapType};
pub use hwc::HwcPacket;
pub use io::{IoPacket, IoType};
pub use layout::{Common, Layout, Slot};
pub use sync::SyncPacket;

pub use crate::tags::TagMap;

use crate::cursor::Endian;
use crate::error::Result;

/// The data kinds with typed views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum DataKind {
    /// Clock profiling (`OPROF_PCKT`, old `PROF_PCKT`).
    Clock,
    /// Heap tracing.
    Heap,
    /// Synchronization tracing.
    Sync,
    /// I/O tracing.
    Io,
    /// Hardware counter profiling (`HW_PCKT`, `XHWC_PCKT`, `MHWC_PCKT`).
    Hwc,
    /// Any other packet type (OpenMP, MPI, races, deadlocks, unknown): fields only.
    Other(u16),
}

impl DataKind {
    /// The kind of packet type `t`.
    pub fn from_packet_type(t: u16) -> Self {
        match t {
            PROF_PCKT | OPROF_PCKT => DataKind::Clock,
            HEAP_PCKT => DataKind::Heap,
            SYNC_PCKT => DataKind::Sync,
            IOTRACE_PCKT => DataKind::Io,
            HW_PCKT | XHWC_PCKT | MHWC_PCKT => DataKind::Hwc,
            other => DataKind::Other(other),
        }
    }

    /// Short name: `clock`, `heap`, `sync`, `io`, `hwc`, or `kind<N>`.
    pub fn name(self) -> String {
        match self {
            DataKind::Clock => "clock".into(),
            DataKind::Heap => "heap".into(),
            DataKind::Sync => "sync".into(),
            DataKind::Io => "io".into(),
            DataKind::Hwc => "hwc".into(),
            DataKind::Other(k) => format!("kind{k}"),
        }
    }
}

/// A typed view of any data packet.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum TypedPacket {
    /// Clock profiling.
    Clock(ClockPacket),
    /// Heap tracing.
    Heap(HeapPacket),
    /// Synchronization tracing.
    Sync(SyncPacket),
    /// I/O tracing.
    Io(IoPacket),
    /// Hardware counters.
    Hwc(HwcPacket),
    /// Other kinds: the common fields only (read the rest through [`Packet`]).
    Other {
        /// Packet type.
        packet_type: u16,
        /// Common fields.
        common: Common,
    },
}

impl TypedPacket {
    /// Decodes `p` through `layout` according to its type.
    #[inline]
    pub fn decode(p: &RawPacket<'_>, layout: &Layout, e: Endian) -> Result<TypedPacket> {
        Ok(match DataKind::from_packet_type(p.kind) {
            DataKind::Clock => TypedPacket::Clock(ClockPacket::decode(p, layout, e)?),
            DataKind::Heap => TypedPacket::Heap(HeapPacket::decode(p, layout, e)?),
            DataKind::Sync => TypedPacket::Sync(SyncPacket::decode(p, layout, e)?),
            DataKind::Io => TypedPacket::Io(IoPacket::decode(p, layout, e)?),
            DataKind::Hwc => TypedPacket::Hwc(HwcPacket::decode(p, layout, e)?),
            DataKind::Other(t) => TypedPacket::Other {
                packet_type: t,
                common: layout.common(p, e)?,
            },
        })
    }

    /// The common fields.
    pub fn common(&self) -> &Common {
        match self {
            TypedPacket::Clock(p) => &p.common,
            TypedPacket::Heap(p) => &p.common,
            TypedPacket::Sync(p) => &p.common,
            TypedPacket::Io(p) => &p.common,
            TypedPacket::Hwc(p) => &p.common,
            TypedPacket::Other { common, .. } => common,
        }
    }
}

/// Sorts packets by timestamp (stable: equal timestamps keep file order). Data files are in
/// block-allocation order, not time order.
pub fn sort_by_time(packets: &mut [TypedPacket]) {
    packets.sort_by_key(|p| p.common().tstamp);
}
