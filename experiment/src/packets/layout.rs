//! The layout of one packet kind: where its known fields sit, computed once from its
//! `<profpckt>` descriptor, and the `Common_packet` fields every data packet carries (format
//! notes §3).

use super::blocks::RawPacket;
use crate::cursor::{Endian, get_u32};
use crate::error::{Error, Result};
use crate::log::{FieldDescriptor, FieldType, PacketDescriptor};
use std::collections::HashMap;

/// Declares the kind-specific fields the typed views read, each once: its index in
/// `Layout::known` (`K_NAME`, in the order given) and its `log.xml` name, and `KNOWN`, the
/// names in that order.
macro_rules! known_fields {
    ($($(#[$doc:meta])* $index:ident = $name:literal,)*) => {
        /// Names of the kind-specific fields the typed views read, in `Layout::known` order.
        const KNOWN: [&str; [$($name),*].len()] = [$($name),*];
        known_fields!(@index 0usize; $($(#[$doc])* $index,)*);
    };
    (@index $at:expr; $(#[$doc:meta])* $index:ident, $($rest:tt)*) => {
        $(#[$doc])*
        // The microstate counters after `K_UCPU` are read as `K_UCPU + state`.
        #[allow(dead_code)]
        pub(crate) const $index: usize = $at;
        known_fields!(@index $at + 1; $($rest)*);
    };
    (@index $at:expr;) => {};
}

known_fields! {
    K_MSTATE = "MSTATE",
    K_NTICK = "NTICK",
    K_HTYPE = "HTYPE",
    K_HSIZE = "HSIZE",
    K_HVADDR = "HVADDR",
    K_HOVADDR = "HOVADDR",
    K_SRQST = "SRQST",
    K_SOBJ = "SOBJ",
    K_IOTYPE = "IOTYPE",
    K_IOFD = "IOFD",
    K_IONBYTE = "IONBYTE",
    K_IORQST = "IORQST",
    K_IOOFD = "IOOFD",
    K_IOFSTYPE = "IOFSTYPE",
    K_HWCTAG = "HWCTAG",
    K_HWCINT = "HWCINT",
    K_VADDR = "VADDR",
    K_PADDR = "PADDR",
    K_VIRTPC = "VIRTPC",
    K_PHYSPC = "PHYSPC",
    /// `UCPU`, the first of the old (SS12) clock packet's ten counters, one per Solaris
    /// microstate in order (`K_UCPU + state`).
    K_UCPU = "UCPU",
    K_SCPU = "SCPU",
    K_TRAP = "TRAP",
    K_TFLT = "TFLT",
    K_DFLT = "DFLT",
    K_KFLT = "KFLT",
    K_ULCK = "ULCK",
    K_TSLP = "TSLP",
    K_WCPU = "WCPU",
    K_TSTP = "TSTP",
}

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
pub(super) fn opt(slot: Option<Slot>, p: &RawPacket<'_>, e: Endian) -> u64 {
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
    pub(super) string: Option<(String, usize)>,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

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
}
