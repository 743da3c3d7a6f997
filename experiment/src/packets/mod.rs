//! Binary data files (`profile`, `heaptrace`, `synctrace`, `iotrace`, `hwcounters`, …):
//! 64 KiB blocks of packets with EMPTY/CLOSED padding, decoded through the `<profpckt>` field
//! descriptors of log.xml (spec: "データファイル"; format notes §2–§3).
//!
//! [`Packets`] walks the blocks lazily; [`Packet`] reads any field by its log.xml name; the typed
//! views ([`ClockPacket`], [`HeapPacket`], [`SyncPacket`], [`IoPacket`], [`HwcPacket`]) read the
//! known kinds through a [`Layout`] computed once per descriptor.

mod clock;
mod heap;
mod hwc;
mod io;
mod sync;

pub use clock::{ClockPacket, MicroState, SOLARIS_MICROSTATES};
pub use heap::{HeapPacket, HeapType};
pub use hwc::HwcPacket;
pub use io::{IoPacket, IoType};
pub use sync::SyncPacket;

pub use crate::tags::TagMap;

use crate::cursor::{Endian, get_u16, get_u32, get_u64};
use crate::error::{Error, Result};
use crate::log::{FieldDescriptor, FieldType, PacketDescriptor};
use std::collections::HashMap;

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

/// A decoded field value.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Value {
    /// `INT32`/`INT64`.
    Int(i64),
    /// `UINT32`/`UINT64`/`DATE`.
    UInt(u64),
    /// `DOUBLE`.
    Double(f64),
    /// `STRING`.
    Str(String),
}

impl Value {
    /// The value as `u64` (signed values reinterpreted; strings and doubles give `None`).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Int(v) => Some(v as u64),
            Value::UInt(v) => Some(v),
            _ => None,
        }
    }
}

/// Reads field `f` of packet `p`: `Ok(None)` for an empty string or an undecodable type.
pub fn read_field(p: &RawPacket<'_>, f: &FieldDescriptor, endian: Endian) -> Result<Option<Value>> {
    let off = f.offset as usize;
    let bad = |width: String| Error::Invalid {
        what: "packet field",
        offset: p.offset + u64::from(f.offset),
        expected: format!(
            "field `{}` ({}) inside the packet's {} bytes",
            f.name,
            width,
            p.bytes.len()
        ),
        found: format!("offset {}", f.offset),
    };
    Ok(Some(match f.field_type {
        FieldType::Int32 => Value::Int(i64::from(
            get_u32(p.bytes, off, endian).ok_or_else(|| bad("4 bytes".into()))? as i32,
        )),
        FieldType::Uint32 => Value::UInt(u64::from(
            get_u32(p.bytes, off, endian).ok_or_else(|| bad("4 bytes".into()))?,
        )),
        FieldType::Int64 => {
            Value::Int(get_u64(p.bytes, off, endian).ok_or_else(|| bad("8 bytes".into()))? as i64)
        }
        FieldType::Uint64 | FieldType::Date => {
            Value::UInt(get_u64(p.bytes, off, endian).ok_or_else(|| bad("8 bytes".into()))?)
        }
        FieldType::Double => Value::Double(f64::from_bits(
            get_u64(p.bytes, off, endian).ok_or_else(|| bad("8 bytes".into()))?,
        )),
        FieldType::String => {
            let s = p.bytes.get(off..).ok_or_else(|| bad("a string".into()))?;
            let len = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            if len == 0 {
                return Ok(None);
            }
            Value::Str(String::from_utf8_lossy(s.get(..len).unwrap_or_default()).into_owned())
        }
        FieldType::Unknown => return Ok(None),
    }))
}

/// A packet with the descriptor of its kind: every field readable by its log.xml name.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a> {
    /// The raw packet.
    pub raw: RawPacket<'a>,
    /// Its descriptor.
    pub descriptor: &'a PacketDescriptor,
    /// Byte order.
    pub endian: Endian,
}

impl<'a> Packet<'a> {
    /// Field `name`, `Ok(None)` if the descriptor has no such field (or it is an empty string).
    pub fn get(&self, name: &str) -> Result<Option<Value>> {
        match self.descriptor.field(name) {
            Some(f) => read_field(&self.raw, f, self.endian),
            None => Ok(None),
        }
    }

    /// Every field in descriptor order, with its name.
    pub fn fields(&self) -> impl Iterator<Item = (&'a str, Result<Option<Value>>)> + '_ {
        self.descriptor
            .fields
            .iter()
            .map(move |f| (f.name.as_str(), read_field(&self.raw, f, self.endian)))
    }

    /// All fields decoded into an owned record (first bad field ⇒ error).
    pub fn record(&self) -> Result<Record> {
        let mut fields = Vec::with_capacity(self.descriptor.fields.len());
        for (name, v) in self.fields() {
            if let Some(v) = v? {
                fields.push((name.to_owned(), v));
            }
        }
        Ok(Record {
            offset: self.raw.offset,
            kind: self.raw.kind,
            fields,
        })
    }
}

/// An owned, fully decoded packet: its fields by log.xml name.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Record {
    /// Byte offset in the data file.
    pub offset: u64,
    /// Packet type.
    pub kind: u16,
    /// `(name, value)` in descriptor order (empty strings left out).
    pub fields: Vec<(String, Value)>,
}

impl Record {
    /// Field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Names of the kind-specific fields the typed views read, in `Layout::known` order.
const KNOWN: [&str; 30] = [
    "MSTATE", "NTICK", "HTYPE", "HSIZE", "HVADDR", "HOVADDR", "SRQST", "SOBJ", "IOTYPE", "IOFD",
    "IONBYTE", "IORQST", "IOOFD", "IOFSTYPE", "HWCTAG", "HWCINT", "VADDR", "PADDR", "VIRTPC",
    "PHYSPC", // The old (SS12) clock packet's counters, one per Solaris microstate, in order.
    "UCPU", "SCPU", "TRAP", "TFLT", "DFLT", "KFLT", "ULCK", "TSLP", "WCPU", "TSTP",
];
pub(crate) const K_MSTATE: usize = 0;
pub(crate) const K_NTICK: usize = 1;
pub(crate) const K_HTYPE: usize = 2;
pub(crate) const K_HSIZE: usize = 3;
pub(crate) const K_HVADDR: usize = 4;
pub(crate) const K_HOVADDR: usize = 5;
pub(crate) const K_SRQST: usize = 6;
pub(crate) const K_SOBJ: usize = 7;
pub(crate) const K_IOTYPE: usize = 8;
pub(crate) const K_IOFD: usize = 9;
pub(crate) const K_IONBYTE: usize = 10;
pub(crate) const K_IORQST: usize = 11;
pub(crate) const K_IOOFD: usize = 12;
pub(crate) const K_IOFSTYPE: usize = 13;
pub(crate) const K_HWCTAG: usize = 14;
pub(crate) const K_HWCINT: usize = 15;
pub(crate) const K_VADDR: usize = 16;
pub(crate) const K_PADDR: usize = 17;
pub(crate) const K_VIRTPC: usize = 18;
pub(crate) const K_PHYSPC: usize = 19;
/// `UCPU`, the first of the ten microstate counters (`K_UCPU + state`).
pub(crate) const K_UCPU: usize = 20;

/// Where a fixed-size field sits in a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    offset: usize,
    /// 0 for 64-bit fields, 32 for 32-bit ones (bits to drop from an 8-byte load).
    shift: u32,
    signed: bool,
}

impl Slot {
    /// The slot of field `f` (`None` for strings and other variable-size types).
    fn of(f: &FieldDescriptor) -> Option<Slot> {
        let (shift, signed) = match f.field_type {
            FieldType::Int32 => (32, true),
            FieldType::Uint32 => (32, false),
            FieldType::Int64 => (0, true),
            FieldType::Uint64 | FieldType::Date => (0, false),
            _ => return None,
        };
        Some(Slot {
            offset: f.offset as usize,
            shift,
            signed,
        })
    }

    /// Bytes the field needs from the packet start.
    fn end(self) -> usize {
        self.offset
            .saturating_add(if self.shift == 0 { 8 } else { 4 })
    }

    /// Reads the slot (32-bit signed values sign-extended) as `u64`; 0 if it lies outside the
    /// packet (callers check that first with [`Layout::check`]).
    ///
    /// Fast path: one unaligned 8-byte load, the 32-bit value cut out with shifts (its bytes are
    /// the low half of a little-endian load, the high half of a big-endian one).
    #[inline(always)]
    fn load(self, b: &[u8], e: Endian) -> u64 {
        if let Some(w) = b.get(self.offset..self.offset.wrapping_add(8)) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            let s = self.shift;
            return match (e, self.signed) {
                (Endian::Little, false) => (u64::from_le_bytes(a) << s) >> s,
                (Endian::Little, true) => ((i64::from_le_bytes(a) << s) >> s) as u64,
                (Endian::Big, false) => u64::from_be_bytes(a) >> s,
                (Endian::Big, true) => (i64::from_be_bytes(a) >> s) as u64,
            };
        }
        self.load_tail(b, e)
    }

    /// A 32-bit field in the last 4..8 bytes of the packet.
    #[cold]
    #[inline(never)]
    fn load_tail(self, b: &[u8], e: Endian) -> u64 {
        match get_u32(b, self.offset, e) {
            Some(v) if self.shift != 0 && self.signed => i64::from(v as i32) as u64,
            Some(v) if self.shift != 0 => u64::from(v),
            _ => 0,
        }
    }
}

/// Reads an optional slot: absent fields read as 0.
#[inline(always)]
fn opt(slot: Option<Slot>, p: &RawPacket<'_>, e: Endian) -> u64 {
    match slot {
        Some(s) => s.load(p.bytes, e),
        None => 0,
    }
}

/// Field positions of one packet kind, computed once from its descriptor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// `LWPID`.
    pub lwpid: Option<Slot>,
    /// `THRID`.
    pub thrid: Option<Slot>,
    /// `CPUID`.
    pub cpuid: Option<Slot>,
    /// `TSTAMP`.
    pub tstamp: Option<Slot>,
    /// `FRINFO`.
    pub frinfo: Option<Slot>,
    /// Kind-specific fields, by name, in descriptor order.
    pub extra: Vec<(String, Slot)>,
    string: Option<(String, usize)>,
    known: [Option<Slot>; KNOWN.len()],
    /// Packet length every fixed-size field of the descriptor fits in.
    need: usize,
    /// The fields of a heap packet sit where gprofng's `Heap_packet` puts them
    /// ([`HEAP_FIXED`]): decoded with fixed offsets.
    pub(crate) heap_fixed: bool,
}

/// gprofng's `Heap_packet` (`LWPID`, `THRID`, `CPUID`, `TSTAMP`, `FRINFO`, `HTYPE`, `HSIZE`,
/// `HVADDR`, `HOVADDR`): each field's offset and whether it is 32-bit. Signedness does not
/// matter here: 64-bit fields are kept as their bits, and the two 32-bit ones are read as
/// `u32`.
const HEAP_FIXED: [(&str, usize, bool); 9] = [
    ("LWPID", 8, false),
    ("THRID", 16, false),
    ("CPUID", 24, true),
    ("TSTAMP", 32, false),
    ("FRINFO", 40, false),
    ("HTYPE", 48, true),
    ("HSIZE", 56, false),
    ("HVADDR", 64, false),
    ("HOVADDR", 72, false),
];

/// The bytes of a heap packet of [`HEAP_FIXED`]'s layout.
pub(crate) const HEAP_FIXED_LEN: usize = 80;

impl Layout {
    /// The layout of `d`.
    pub fn new(d: &PacketDescriptor) -> Layout {
        // The first field of each name, like `PacketDescriptor::field` (one pass: a descriptor
        // with many fields must not cost a search per field).
        let mut first: HashMap<&str, &FieldDescriptor> = HashMap::with_capacity(d.fields.len());
        for f in &d.fields {
            first.entry(f.name.as_str()).or_insert(f);
        }
        let of = |name: &str| first.get(name).and_then(|f| Slot::of(f));
        let mut extra = Vec::new();
        let mut string = None;
        for f in &d.fields {
            match f.name.as_str() {
                "LWPID" | "THRID" | "CPUID" | "TSTAMP" | "FRINFO" => {}
                _ if f.field_type == FieldType::String => {
                    string = Some((f.name.clone(), f.offset as usize));
                }
                name => {
                    if let Some(s) = of(name) {
                        extra.push((name.to_owned(), s));
                    }
                }
            }
        }
        Layout {
            lwpid: of("LWPID"),
            thrid: of("THRID"),
            cpuid: of("CPUID"),
            tstamp: of("TSTAMP"),
            frinfo: of("FRINFO"),
            extra,
            string,
            known: KNOWN.map(of),
            need: d
                .fields
                .iter()
                .filter_map(|f| of(&f.name))
                .map(Slot::end)
                .max()
                .unwrap_or(0),
            heap_fixed: HEAP_FIXED.iter().all(|&(name, offset, narrow)| {
                of(name).is_some_and(|s| s.offset == offset && (s.shift == 32) == narrow)
            }),
        }
    }

    /// The slot of kind-specific field `name`.
    pub fn slot(&self, name: &str) -> Option<Slot> {
        self.extra.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    #[inline]
    pub(crate) fn known(&self, i: usize) -> Option<Slot> {
        self.known.get(i).copied().flatten()
    }

    /// Checks that every fixed-size field of the descriptor lies inside `p` (log.xml is input
    /// too: a descriptor may point past a packet); after that, reads cannot fail.
    #[inline(always)]
    pub fn check(&self, p: &RawPacket<'_>) -> Result<()> {
        if p.bytes.len() >= self.need {
            Ok(())
        } else {
            Err(self.too_short(p))
        }
    }

    #[cold]
    #[inline(never)]
    fn too_short(&self, p: &RawPacket<'_>) -> Error {
        Error::Invalid {
            what: "packet",
            offset: p.offset,
            expected: format!(
                "at least {} bytes for the fields log.xml describes",
                self.need
            ),
            found: format!("tsize {}", p.bytes.len()),
        }
    }

    /// Reads the fields every packet kind shares.
    #[inline(always)]
    pub fn common(&self, p: &RawPacket<'_>, e: Endian) -> Result<Common> {
        self.check(p)?;
        Ok(self.common_unchecked(p, e))
    }

    #[inline(always)]
    pub(crate) fn common_unchecked(&self, p: &RawPacket<'_>, e: Endian) -> Common {
        Common {
            lwp_id: opt(self.lwpid, p, e),
            thr_id: opt(self.thrid, p, e),
            cpu_id: opt(self.cpuid, p, e) as u32,
            tstamp: opt(self.tstamp, p, e),
            frinfo: opt(self.frinfo, p, e),
        }
    }
}

/// The fields of `Common_packet` every data packet carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Common {
    /// `LWPID` (raw id).
    pub lwp_id: u64,
    /// `THRID` (raw `pthread_t`).
    pub thr_id: u64,
    /// `CPUID`.
    pub cpu_id: u32,
    /// `TSTAMP`: absolute `gethrtime()` ns.
    pub tstamp: u64,
    /// `FRINFO`: uid of the call stack in data.frameinfo (0 = none).
    pub frinfo: u64,
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

#[cfg(test)]
mod tests {
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
    fn layout_of_a_descriptor_with_20000_fields() {
        use crate::log::Log;
        // Each field used to search the whole descriptor (quadratic: minutes for this size).
        let n = 20_000usize;
        let mut xml = String::from(
            "<experiment version=\"12.4\"/><profile name=\"x\"><profdata fname=\"d\"/>\
             <profpckt kind=\"77\"><field name=\"TSTAMP\" offset=\"8\" type=\"UINT64\"/>",
        );
        for i in 0..n {
            xml.push_str(&format!(
                "<field name=\"F{i}\" offset=\"{}\" type=\"UINT32\"/>",
                16 + 4 * i
            ));
        }
        // A repeated name: the first field of that name wins, as in `PacketDescriptor::field`.
        xml.push_str("<field name=\"F0\" offset=\"999999\" type=\"UINT64\"/>");
        xml.push_str("<field name=\"NAME\" offset=\"4\" type=\"STRING\"/></profpckt></profile>");
        let log = Log::parse(xml.as_bytes()).unwrap();
        let layout = Layout::new(&log.packets[0]);
        assert_eq!(layout.extra.len(), n + 1);
        assert_eq!(layout.extra[n].0, "F0");
        assert_eq!(layout.extra[n].1, layout.extra[0].1);
        assert_eq!(layout.extra[0].1.offset, 16);
        assert_eq!(layout.extra[n - 1].1.offset, 16 + 4 * (n - 1));
        assert_eq!(layout.tstamp.map(|s| s.offset), Some(8));
        assert_eq!(layout.lwpid, None);
        assert_eq!(layout.string, Some(("NAME".to_owned(), 4)));
        assert_eq!(layout.need, 16 + 4 * n);
    }

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

    #[test]
    fn big_endian_header() {
        let d = [0, 8, 0, 8, 1, 2, 3, 4];
        let p = Packets::new(&d, Endian::Big).next().unwrap().unwrap();
        assert_eq!((p.kind, p.bytes.len()), (8, 8));
    }
}
