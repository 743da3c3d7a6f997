//! `map.xml`: load-object segments mapped and unmapped over time, dynamic functions (vDSO,
//! collector API, JVM stubs), JIT-compiled Java methods; and PC → load object resolution
//! (spec: "マップファイル (map.xml)"; format notes §4, gprofng mmaptrace.c).

use crate::error::Result;
use crate::log::{Timestamp, parse_tstamp, parse_u64};
use crate::xml::{XmlEvent, XmlReader};
use std::collections::HashMap;

/// One `<event>` of map.xml.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "event", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum MapEvent {
    /// `kind="map" object="segment"`: part of a load object mapped.
    Segment(Segment),
    /// `kind="map" object="function"`: a dynamic function (code in dyntext).
    Function {
        /// Relative timestamp.
        tstamp: Timestamp,
        /// Start address.
        vaddr: u64,
        /// Size in bytes.
        size: u64,
        /// Name.
        name: String,
    },
    /// `kind="map" object="dynfunc"`: a symbol of a dynamic module (`[vdso]`).
    DynFunc {
        /// Module name.
        name: String,
        /// Address.
        vaddr: u64,
        /// Size.
        size: u64,
        /// Symbol name.
        funcname: String,
    },
    /// `kind="map" object="jcm"`: a JIT-compiled Java method.
    Jcm {
        /// Relative timestamp.
        tstamp: Timestamp,
        /// Code address.
        vaddr: u64,
        /// Code size.
        size: u64,
        /// `jmethodID`.
        method_id: u64,
    },
    /// `kind="unmap"`: an address range (or a JIT method) went away.
    Unmap {
        /// Relative timestamp.
        tstamp: Timestamp,
        /// Address unmapped (0 if given by method id).
        vaddr: u64,
        /// `methodId`, if given.
        method_id: Option<u64>,
    },
    /// Any other event, attributes as written.
    Other {
        /// `kind`.
        kind: String,
        /// Every attribute.
        attributes: Vec<(String, String)>,
    },
}

/// A mapped segment of a load object.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Segment {
    /// Relative timestamp of the mapping.
    pub tstamp: Timestamp,
    /// Start address.
    pub vaddr: u64,
    /// Size in bytes.
    pub size: u64,
    /// Page size.
    pub pagesz: u64,
    /// File offset of the mapping (may be negative).
    pub foffset: i64,
    /// Protection bits (`PROT_*`; 0x005 = r-x).
    pub modes: u32,
    /// `chksum`.
    pub chksum: u64,
    /// Load object path (or `LinuxKernel`).
    pub name: String,
}

/// Where a PC falls: load object and offset in it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Resolved<'a> {
    /// Load object (segment name or dynamic function name).
    pub name: &'a str,
    /// Offset of the PC in the load object's file (segment offset + `foffset`), or in the
    /// dynamic function.
    pub offset: u64,
    /// True for generated code (a `function` or `jcm` event: vDSO, JVM stubs, interpreter, JIT
    /// code), false for a segment of a load object file.
    pub generated: bool,
    /// File offset of the start of the mapping holding the PC (`foffset`; 0 for generated
    /// code).
    pub segment_offset: u64,
    /// Size of the mapping holding the PC: gprofng's placeholder for a load object it cannot
    /// read covers that many bytes from file offset 0 (see
    /// [`missing_object_name`](crate::stacks::missing_object_name)).
    pub segment_size: u64,
}

impl Resolved<'_> {
    /// True when the PC is in the JVM's own code: gprofng flags a load object as the JVM
    /// (`SEG_FLAG_JVM`, `Experiment::process_seg_map_cmd`) when its name contains
    /// `libjvm.so`. Generated code (interpreter, stubs, JIT methods) is not the JVM's.
    pub fn in_jvm(&self) -> bool {
        !self.generated && self.name.contains("libjvm.so")
    }
}

/// Everything read from `map.xml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Map {
    /// Events in file order (not time-ordered).
    pub events: Vec<MapEvent>,
}

fn attr<'a>(a: &'a [(String, String)], n: &str) -> Option<&'a str> {
    a.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str())
}

/// What an event that maps code maps: a segment of a load object, or code generated at run
/// time (a `function` or `jcm` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mapping<'a> {
    /// Relative time of the event.
    tstamp: Timestamp,
    /// Start address.
    vaddr: u64,
    /// Size in bytes.
    size: u64,
    /// The load object, the dynamic function, or `<JIT-compiled method>`.
    name: &'a str,
    /// File offset of the start (0 for generated code; may be negative).
    foffset: i64,
    /// Code generated at run time rather than a segment of a load object file.
    generated: bool,
}

impl<'a> Mapping<'a> {
    /// Whether the mapping holds `pc`.
    fn contains(&self, pc: u64) -> bool {
        pc >= self.vaddr && pc - self.vaddr < self.size
    }

    /// Where `pc`, which the mapping holds, falls in it.
    fn place(&self, pc: u64) -> Resolved<'a> {
        Resolved {
            name: self.name,
            offset: (pc - self.vaddr).wrapping_add(self.foffset as u64),
            generated: self.generated,
            segment_offset: self.foffset as u64,
            segment_size: self.size,
        }
    }
}

impl MapEvent {
    /// What the event maps, for an event that maps code.
    fn mapping(&self) -> Option<Mapping<'_>> {
        let (tstamp, vaddr, size, name, foffset, generated) = match self {
            MapEvent::Segment(s) => (s.tstamp, s.vaddr, s.size, s.name.as_str(), s.foffset, false),
            MapEvent::Function {
                tstamp,
                vaddr,
                size,
                name,
            } => (*tstamp, *vaddr, *size, name.as_str(), 0, true),
            MapEvent::Jcm {
                tstamp,
                vaddr,
                size,
                ..
            } => (*tstamp, *vaddr, *size, "<JIT-compiled method>", 0, true),
            _ => return None,
        };
        Some(Mapping {
            tstamp,
            vaddr,
            size,
            name,
            foffset,
            generated,
        })
    }
}

impl Map {
    /// Parses map.xml.
    pub fn parse(data: &[u8]) -> Result<Map> {
        let mut map = Map::default();
        let mut r = XmlReader::new(data, "map.xml");
        while let Some(ev) = r.next_event()? {
            let XmlEvent::Start {
                name,
                attributes: a,
                ..
            } = ev
            else {
                continue;
            };
            if name != "event" {
                continue;
            }
            let num = |n: &str| attr(&a, n).map(parse_u64).unwrap_or(0);
            let ts = attr(&a, "tstamp").map(parse_tstamp).unwrap_or(0);
            let s = |n: &str| attr(&a, n).unwrap_or_default().to_owned();
            let e = match (
                attr(&a, "kind").unwrap_or_default(),
                attr(&a, "object").unwrap_or_default(),
            ) {
                ("map", "segment") => MapEvent::Segment(Segment {
                    tstamp: ts,
                    vaddr: num("vaddr"),
                    size: num("size"),
                    pagesz: num("pagesz"),
                    foffset: num("foffset") as i64,
                    modes: num("modes") as u32,
                    chksum: num("chksum"),
                    name: s("name"),
                }),
                ("map", "function") => MapEvent::Function {
                    tstamp: ts,
                    vaddr: num("vaddr"),
                    size: num("size"),
                    name: s("name"),
                },
                ("map", "dynfunc") => MapEvent::DynFunc {
                    name: s("name"),
                    vaddr: num("vaddr"),
                    size: num("size"),
                    funcname: s("funcname"),
                },
                ("map", "jcm") => MapEvent::Jcm {
                    tstamp: ts,
                    vaddr: num("vaddr"),
                    size: num("size"),
                    method_id: num("methodId"),
                },
                ("unmap", _) => MapEvent::Unmap {
                    tstamp: ts,
                    vaddr: num("vaddr"),
                    method_id: attr(&a, "methodId").map(parse_u64),
                },
                (kind, _) => MapEvent::Other {
                    kind: kind.to_owned(),
                    attributes: a.clone(),
                },
            };
            map.events.push(e);
        }
        Ok(map)
    }

    /// The segments in file order.
    pub fn segments(&self) -> impl Iterator<Item = &Segment> {
        self.events.iter().filter_map(|e| match e {
            MapEvent::Segment(s) => Some(s),
            _ => None,
        })
    }

    /// Where file offset 0 of load object `name` is mapped at relative time `ts`: the address
    /// of its latest segment with file offset 0 mapped at or before `ts` and not unmapped since
    /// (the load bias plus the first `PT_LOAD`'s page address, see
    /// [`Elf::load_address`](crate::elf::Elf::load_address)).
    pub fn load_base(&self, name: &str, ts: Timestamp) -> Option<u64> {
        self.index().load_base(name, ts)
    }

    /// Names native PC `pc` (resolved at relative time `ts` to `resolved`) the way gprofng's
    /// call stacks do, for [`Stack::user_view_frames_jni`](crate::frameinfo::Stack::user_view_frames_jni).
    /// Generated code is named by its map.xml function; a load object by the function symbol of
    /// `elf` (its ELF, or archived copy, if the caller has it) containing the PC's address in
    /// the object: `pc` minus the [load base](Map::load_base) plus the object's
    /// [`Elf::load_address`](crate::elf::Elf::load_address) — which needs only `p_vaddr`, so
    /// separate debug files work too — or, without a mapping of the object's first page, the
    /// PC's file offset through the program headers.
    pub fn native_frame(
        &self,
        pc: u64,
        ts: Timestamp,
        resolved: &Resolved<'_>,
        elf: Option<&crate::elf::Elf>,
    ) -> crate::frameinfo::NativeFrame {
        name_native(pc, resolved, elf, || self.load_base(resolved.name, ts))
    }

    /// An index of this map for many lookups: [`MapIndex::resolve`],
    /// [`MapIndex::load_base`] and [`MapIndex::native_frame`] answer what the methods here
    /// answer (which build an index for each call).
    pub fn index(&self) -> MapIndex<'_> {
        MapIndex::new(self)
    }

    /// Resolves `pc` at relative time `ts` to the load object mapped there (the latest mapping
    /// at or before `ts` that contains `pc` and was not unmapped in between; among mappings of
    /// the same time the last in file order), or to a dynamic function.
    pub fn resolve(&self, pc: u64, ts: Timestamp) -> Option<Resolved<'_>> {
        self.index().resolve(pc, ts)
    }
}

/// [`Map::native_frame`] with the load base from `base` (asked only when needed).
fn name_native(
    pc: u64,
    resolved: &Resolved<'_>,
    elf: Option<&crate::elf::Elf>,
    base: impl FnOnce() -> Option<u64>,
) -> crate::frameinfo::NativeFrame {
    let in_jvm = resolved.in_jvm();
    if resolved.generated {
        return crate::frameinfo::NativeFrame {
            function: Some(resolved.name.to_owned()),
            in_jvm,
        };
    }
    let function = elf.and_then(|elf| {
        let addr = match (base(), elf.load_address()) {
            (Some(base), Some(first)) => pc.wrapping_sub(base).wrapping_add(first),
            _ => elf.address_of_offset(resolved.offset)?,
        };
        Some(elf.function_name(addr)?.into_owned())
    });
    crate::frameinfo::NativeFrame { function, in_jvm }
}

/// A [`Map`] indexed for many lookups (naming every PC of every stack): mappings sorted by
/// start address with the largest end so far, unmap times by address, and each load object's
/// segments at file offset 0 by time. Built in O(n log n); a lookup looks only at the
/// mappings that start at or below the PC and could reach it, instead of at every event.
#[derive(Debug, Clone)]
pub struct MapIndex<'m> {
    map: &'m Map,
    /// `(start address, size, event index)` of every mapping, by start address.
    by_start: Vec<(u64, u64, usize)>,
    /// The largest end address (saturating) among `by_start[..=i]`.
    max_end: Vec<u64>,
    /// Unmap times by address, sorted.
    unmaps: HashMap<u64, Vec<Timestamp>>,
    /// `(time, event index, address)` of each load object's segments at file offset 0, sorted.
    bases: HashMap<&'m str, Vec<(Timestamp, usize, u64)>>,
}

impl<'m> MapIndex<'m> {
    fn new(map: &'m Map) -> Self {
        let mut by_start = Vec::new();
        let mut unmaps: HashMap<u64, Vec<Timestamp>> = HashMap::new();
        let mut bases: HashMap<&'m str, Vec<(Timestamp, usize, u64)>> = HashMap::new();
        for (i, e) in map.events.iter().enumerate() {
            if let MapEvent::Unmap { tstamp, vaddr, .. } = e {
                unmaps.entry(*vaddr).or_default().push(*tstamp);
            }
            if let MapEvent::Segment(s) = e {
                if s.foffset == 0 {
                    bases
                        .entry(s.name.as_str())
                        .or_default()
                        .push((s.tstamp, i, s.vaddr));
                }
            }
            if let Some(m) = e.mapping() {
                by_start.push((m.vaddr, m.size, i));
            }
        }
        by_start.sort_unstable();
        let mut end = 0u64;
        let max_end = by_start
            .iter()
            .map(|&(vaddr, size, _)| {
                end = end.max(vaddr.saturating_add(size));
                end
            })
            .collect();
        for times in unmaps.values_mut() {
            times.sort_unstable();
        }
        for segments in bases.values_mut() {
            segments.sort_unstable();
        }
        MapIndex {
            map,
            by_start,
            max_end,
            unmaps,
            bases,
        }
    }

    /// What event `event` maps, if it maps code.
    fn mapping(&self, event: usize) -> Option<Mapping<'m>> {
        self.map.events.get(event).and_then(MapEvent::mapping)
    }

    /// Was the mapping of `vaddr` made at `t` unmapped at or before `ts`?
    fn unmapped(&self, vaddr: u64, t: Timestamp, ts: Timestamp) -> bool {
        self.unmaps.get(&vaddr).is_some_and(|times| {
            let first = times.partition_point(|&u| u < t);
            times.get(first).is_some_and(|&u| u <= ts)
        })
    }

    /// [`Map::resolve`].
    pub fn resolve(&self, pc: u64, ts: Timestamp) -> Option<Resolved<'m>> {
        self.lookup(pc, ts).map(|(_, r)| r)
    }

    /// The `jmethodID` of the JIT-compiled method (`object="jcm"`) whose code holds `pc` at
    /// time `ts`; `None` when the PC resolves to anything else.
    pub fn jit_method(&self, pc: u64, ts: Timestamp) -> Option<u64> {
        let (event, _) = self.lookup(pc, ts)?;
        match self.map.events.get(event)? {
            MapEvent::Jcm { method_id, .. } => Some(*method_id),
            _ => None,
        }
    }

    /// The first mapping made after `ts` that holds `pc`, and its time: for PCs sampled
    /// before the collector logged their mapping (code present at start, fresh JIT code).
    pub fn resolve_later(&self, pc: u64, ts: Timestamp) -> Option<(Resolved<'m>, Timestamp)> {
        let mut best: Option<(Timestamp, usize)> = None;
        for (_, _, event) in self.around(pc) {
            let Some(m) = self.mapping(event) else {
                continue;
            };
            let t = m.tstamp;
            if m.contains(pc) && t > ts && best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, event));
            }
        }
        let (t, _) = best?;
        Some((self.resolve(pc, t)?, t))
    }

    /// The mappings (start, size, event index) starting at or below `pc` that may reach past
    /// it, highest start first: the candidates to hold `pc`, whenever they were made.
    fn around(&self, pc: u64) -> impl Iterator<Item = (u64, u64, usize)> + '_ {
        let below = self.by_start.partition_point(|&(vaddr, ..)| vaddr <= pc);
        (0..below)
            .rev()
            // No mapping at or before `i` reaches past `pc`: none of them contains it.
            .take_while(move |&i| self.max_end.get(i).is_some_and(|&end| end > pc))
            .filter_map(|i| self.by_start.get(i).copied())
    }

    /// The event index of the mapping of `pc` at `ts`, and where the PC falls in it.
    fn lookup(&self, pc: u64, ts: Timestamp) -> Option<(usize, Resolved<'m>)> {
        let mut best: Option<(Timestamp, usize, Resolved<'m>)> = None;
        for (vaddr, size, event) in self.around(pc) {
            let Some(m) = self.mapping(event) else {
                continue;
            };
            let t = m.tstamp;
            if pc - vaddr >= size || t > ts || self.unmapped(vaddr, t, ts) {
                continue;
            }
            // The latest mapping; among equal times the last in file order.
            if best
                .as_ref()
                .is_none_or(|&(bt, be, _)| (t, event) > (bt, be))
            {
                best = Some((t, event, m.place(pc)));
            }
        }
        best.map(|(_, event, r)| (event, r))
    }

    /// [`Map::load_base`].
    pub fn load_base(&self, name: &str, ts: Timestamp) -> Option<u64> {
        let segments = self.bases.get(name)?;
        let at = segments.partition_point(|&(t, ..)| t <= ts);
        let &(t, _, vaddr) = segments.get(at.checked_sub(1)?)?;
        (!self.unmapped(vaddr, t, ts)).then_some(vaddr)
    }

    /// [`Map::native_frame`].
    pub fn native_frame(
        &self,
        pc: u64,
        ts: Timestamp,
        resolved: &Resolved<'_>,
        elf: Option<&crate::elf::Elf>,
    ) -> crate::frameinfo::NativeFrame {
        name_native(pc, resolved, elf, || self.load_base(resolved.name, ts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lookup by its definition (every mapping checked against every event), the oracle
    /// [`MapIndex::resolve`] is tested against.
    fn reference(map: &Map, pc: u64, ts: Timestamp) -> Option<Resolved<'_>> {
        let mut best: Option<(Timestamp, Resolved<'_>)> = None;
        for e in &map.events {
            let Some(m) = e.mapping() else {
                continue;
            };
            let t = m.tstamp;
            if t > ts || !m.contains(pc) {
                continue;
            }
            if best.as_ref().is_some_and(|(bt, _)| t < *bt) {
                continue;
            }
            let unmapped = map.events.iter().any(|u| {
                matches!(u, MapEvent::Unmap { tstamp, vaddr: uv, .. }
                    if *tstamp >= t && *tstamp <= ts && *uv == m.vaddr)
            });
            if !unmapped {
                best = Some((t, m.place(pc)));
            }
        }
        best.map(|(_, r)| r)
    }

    /// [`Map::load_base`] by its definition (every segment and unmap looked at), the oracle
    /// [`MapIndex::load_base`] is tested against.
    fn reference_load_base(map: &Map, name: &str, ts: Timestamp) -> Option<u64> {
        let mut best: Option<(Timestamp, u64)> = None;
        for s in map.segments() {
            if s.name == name
                && s.foffset == 0
                && s.tstamp <= ts
                && best.is_none_or(|(bt, _)| s.tstamp >= bt)
            {
                best = Some((s.tstamp, s.vaddr));
            }
        }
        let (t, vaddr) = best?;
        let unmapped = map.events.iter().any(|e| {
            matches!(e, MapEvent::Unmap { tstamp, vaddr: v, .. }
                if *v == vaddr && *tstamp >= t && *tstamp <= ts)
        });
        (!unmapped).then_some(vaddr)
    }

    #[test]
    fn lookups_match_the_reference_on_overlapping_remaps() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..20 {
            let mut map = Map::default();
            for i in 0..150 {
                let (tstamp, vaddr, size) = (next(50), next(16) * 16, next(6) * 16);
                map.events.push(match next(5) {
                    0 => MapEvent::Segment(Segment {
                        tstamp,
                        vaddr,
                        size,
                        pagesz: 4096,
                        foffset: next(100) as i64 - 50,
                        modes: 5,
                        chksum: 0,
                        name: format!("lib{}.so", i % 7),
                    }),
                    1 => MapEvent::Function {
                        tstamp,
                        vaddr,
                        size,
                        name: format!("f{i}"),
                    },
                    2 => MapEvent::Jcm {
                        tstamp,
                        vaddr,
                        size,
                        method_id: i,
                    },
                    _ => MapEvent::Unmap {
                        tstamp,
                        vaddr,
                        method_id: None,
                    },
                });
            }
            let index = map.index();
            for pc in (0..300).step_by(3) {
                for ts in (0..55).step_by(5) {
                    let want = reference(&map, pc, ts);
                    assert_eq!(map.resolve(pc, ts), want, "{pc} {ts}");
                    assert_eq!(index.resolve(pc, ts), want, "index {pc} {ts}");
                }
            }
            for lib in 0..8 {
                let name = format!("lib{lib}.so");
                for ts in 0..55 {
                    let want = reference_load_base(&map, &name, ts);
                    assert_eq!(index.load_base(&name, ts), want, "index {name} {ts}");
                    assert_eq!(map.load_base(&name, ts), want, "{name} {ts}");
                }
            }
        }
    }

    #[test]
    fn ten_thousand_remaps_of_one_address() {
        // JIT code space reused: each mapping used to scan all events for its unmaps
        // (quadratic per lookup).
        let n = 10_000u64;
        let mut map = Map::default();
        for i in 0..n {
            map.events.push(MapEvent::Jcm {
                tstamp: 10 * i,
                vaddr: 0x4000,
                size: 0x100,
                method_id: i,
            });
            map.events.push(MapEvent::Unmap {
                tstamp: 10 * i + 5,
                vaddr: 0x4000,
                method_id: Some(i),
            });
        }
        map.events.push(MapEvent::Segment(Segment {
            tstamp: 0,
            vaddr: 0x1000,
            size: 0x10000,
            pagesz: 4096,
            foffset: 0x20,
            modes: 5,
            chksum: 0,
            name: "libjvm.so".into(),
        }));
        let jit = Resolved {
            name: "<JIT-compiled method>",
            offset: 0x10,
            generated: true,
            segment_offset: 0,
            segment_size: 0x100,
        };
        let lib = Resolved {
            name: "libjvm.so",
            offset: 0x3030,
            generated: false,
            segment_offset: 0x20,
            segment_size: 0x10000,
        };
        assert_eq!(map.resolve(0x4010, 10 * (n - 1) + 4), Some(jit.clone()));
        // Between an unmap and the next mapping the segment underneath shows through.
        assert_eq!(map.resolve(0x4010, 10 * (n - 1) + 5), Some(lib.clone()));
        assert_eq!(map.resolve(0x4010, 10 * (n / 2) + 7), Some(lib.clone()));
        let index = map.index();
        assert_eq!(index.resolve(0x4010, 10 * (n - 1) + 4), Some(jit));
        assert_eq!(index.resolve(0x4010, 10 * (n - 1) + 5), Some(lib.clone()));
        assert_eq!(index.resolve(0x4010, 10 * (n / 2) + 7), Some(lib));
        assert_eq!(index.load_base("libjvm.so", 5), None); // not at file offset 0
    }
}
