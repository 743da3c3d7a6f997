//! Duplicate strings: `java.lang.String` instances with equal contents, grouped, with the bytes
//! the copies beyond the first waste. Reads every layout of `String` the dumps hold: JDK 9+
//! compact strings (`value` a `byte[]`, `coder` 0 Latin-1 or 1 UTF-16 in the platform's byte
//! order, little-endian on the x86 and Arm machines that write dumps), JDK 6–8 (`value` a
//! `char[]`, and in JDK 6 `offset` and `count`), and Android ART (a `value` array written with
//! each string, `byte[]` when compressed, `char[]` otherwise).

use std::collections::{HashMap, HashSet};

use super::super::heap_dump::SubRecord;
use super::super::types::{BasicType, Id};
use super::objects::ObjectIndex;
use super::retained::recorded_size;

/// One content shared by several `String` instances.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DuplicateString {
    /// The content (unpaired UTF-16 surrogates become U+FFFD).
    pub text: String,
    /// How many `String` instances hold it.
    pub count: u64,
    /// The recorded bytes of every copy beyond the first: their `String` instances, and their
    /// value arrays unless shared with another copy.
    pub wasted_bytes: u64,
}

/// Where `String`'s fields sit in its instances' data.
#[derive(Debug, Clone, Copy, Default)]
struct StringLayout {
    value: Option<usize>,
    coder: Option<usize>,
    offset: Option<usize>,
    count: Option<usize>,
}

#[derive(Default)]
struct Group {
    count: u64,
    wasted: u64,
}

impl ObjectIndex<'_> {
    /// The `top` most wasteful duplicated strings (contents held by two or more `String`
    /// instances), by wasted bytes, then count, then text.
    pub fn duplicate_strings(&self, top: usize) -> Vec<DuplicateString> {
        let Some((class_id, layout)) = self.string_layout() else {
            return Vec::new();
        };
        let id_size = self.id_size().bytes();
        let mut groups: HashMap<String, Group> = HashMap::new();
        let mut arrays_seen: HashSet<Id> = HashSet::new();
        for v in 0..self.len() as u32 {
            let Ok(SubRecord::InstanceDump(s)) = self.sub_record(v) else {
                continue;
            };
            if s.class_id != class_id {
                continue;
            }
            let field = |at: Option<usize>, len: usize| {
                at.and_then(|a| s.data.get(a..a + len))
                    .map(|b| b.iter().fold(0u64, |x, &y| x << 8 | u64::from(y)))
            };
            let Some(value) = field(layout.value, id_size).map(Id) else {
                continue;
            };
            let Some(array) = self.node(value) else {
                continue;
            };
            let coder = field(layout.coder, 1).unwrap_or(0);
            let Ok(SubRecord::PrimitiveArrayDump(a)) = self.sub_record(array) else {
                continue;
            };
            let units: Vec<u16> = match (a.element_type, coder) {
                (BasicType::Char, _) => a
                    .data
                    .chunks_exact(2)
                    .map(|c| match c {
                        [a, b] => u16::from_be_bytes([*a, *b]),
                        _ => 0,
                    })
                    .collect(),
                (BasicType::Byte, 1) => a
                    .data
                    .chunks_exact(2)
                    .map(|c| match c {
                        [a, b] => u16::from_le_bytes([*a, *b]),
                        _ => 0,
                    })
                    .collect(),
                (BasicType::Byte, _) => a.data.iter().map(|&b| u16::from(b)).collect(),
                _ => continue,
            };
            // JDK 6: a window of a shared char[].
            let units = match (field(layout.offset, 4), field(layout.count, 4)) {
                (Some(off), Some(n)) if layout.offset.is_some() => units
                    .get(off as usize..(off + n) as usize)
                    .map(<[u16]>::to_vec)
                    .unwrap_or(units),
                _ => units,
            };
            let text = String::from_utf16_lossy(&units);
            let own = s.data.len() as u64;
            let array_bytes = if arrays_seen.insert(value) {
                recorded_size(self, array)
            } else {
                0
            };
            let g = groups.entry(text).or_default();
            if g.count > 0 {
                g.wasted = g.wasted.saturating_add(own + array_bytes);
            }
            g.count += 1;
        }
        let mut out: Vec<DuplicateString> = groups
            .into_iter()
            .filter(|(_, g)| g.count > 1)
            .map(|(text, g)| DuplicateString {
                text,
                count: g.count,
                wasted_bytes: g.wasted,
            })
            .collect();
        out.sort_by(|a, b| {
            b.wasted_bytes
                .cmp(&a.wasted_bytes)
                .then(b.count.cmp(&a.count))
                .then_with(|| a.text.cmp(&b.text))
        });
        out.truncate(top);
        out
    }

    /// `java.lang.String`'s class id and where its fields sit.
    fn string_layout(&self) -> Option<(Id, StringLayout)> {
        let class_id = self
            .names
            .class_ids()
            .find(|&class_id| self.class_name(class_id).as_deref() == Some("java.lang.String"))?;
        let dump = self.class_dump(class_id)?;
        let id_size = self.id_size();
        let mut layout = StringLayout::default();
        let mut at = 0;
        for f in dump.instance_fields() {
            let name = self.string(f.name_id).unwrap_or_default();
            match (name, f.field_type) {
                (b"value", BasicType::Object) => layout.value = Some(at),
                (b"coder", BasicType::Byte) => layout.coder = Some(at),
                (b"offset", BasicType::Int) => layout.offset = Some(at),
                (b"count", BasicType::Int) => layout.count = Some(at),
                _ => {}
            }
            at += f.field_type.size(id_size);
        }
        Some((class_id, layout))
    }
}
