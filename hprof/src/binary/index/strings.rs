//! The contents of `java.lang.String` instances (`char[]` and `byte[]` + `coder` layouts).

use std::collections::HashMap;
use std::sync::Arc;

use super::build::Index;
use crate::binary::error::{Error, Result};
use crate::binary::hash::IdMap;
use crate::binary::heap_dump::{PrimitiveArrayDump, SubRecord};
use crate::binary::types::{BasicType, Id, Value};

/// The UTF-16 code units of a `String`'s `value` array: `char[]` as is; `byte[]` as UTF-16
/// (little-endian) with `coder` 1, else Latin-1 (JDK 9+ `coder` 0, Android's compressed
/// strings).
fn string_units(a: &PrimitiveArrayDump<'_>, coder: Option<i64>) -> Vec<u16> {
    match (a.element_type, coder) {
        (BasicType::Char, _) => a.chars().map(Iterator::collect).unwrap_or_default(),
        (BasicType::Byte, Some(1)) => a
            .data
            .chunks_exact(2)
            .map(|c| {
                u16::from_le_bytes([
                    c.first().copied().unwrap_or(0),
                    c.last().copied().unwrap_or(0),
                ])
            })
            .collect(),
        (BasicType::Byte, _) => a.data.iter().map(|&b| u16::from(b)).collect(),
        _ => Vec::new(),
    }
}

/// A `java.lang.String` instance's id and its `coder`, `offset` and `count` fields.
type StringFields = (Id, Option<i64>, Option<i64>, Option<i64>);

impl<'a> Index<'a> {
    /// The contents of every `java.lang.String` instance, by object id.
    ///
    /// Handles `value` as `char[]` (JDK ≤ 8, Android; with Dalvik's `offset`/`count`) and as
    /// `byte[]` with `coder` (JDK 9+: 0 Latin-1, 1 UTF-16 in the dumping machine's byte order,
    /// little-endian assumed), and Android's compressed `byte[]` strings.
    ///
    /// Strings with the same `value` array and range share one text (`Arc<str>`), and each
    /// array is decoded once.
    ///
    /// # Errors
    /// Decoding errors of the heap dumps; [`Error::Invalid`] when the distinct texts (Java 6
    /// substrings of one array at many different ranges) would exceed 4 times the heap dumps'
    /// size plus 64 MiB.
    pub fn java_strings(&self) -> Result<HashMap<Id, Arc<str>>> {
        let id_size = self.header.id_size;
        let string_classes = self.classes_named("java.lang.String");
        let mut layouts = IdMap::default();
        for &c in string_classes {
            if let Ok(mut l) = self.layout(c) {
                // Keep only the first field of each name read below (what `field` finds), so
                // many classes sharing a large superclass do not each hold its whole layout.
                let mut kept: Vec<&[u8]> = Vec::new();
                l.fields.retain(|f| {
                    let wanted = matches!(f.name, b"value" | b"coder" | b"offset" | b"count");
                    let first = wanted && !kept.contains(&f.name);
                    if first {
                        kept.push(f.name);
                    }
                    first
                });
                l.fields.shrink_to_fit();
                layouts.insert(c, l);
            }
        }
        // Pass 1: String instances → (value array id, coder, offset, count).
        let mut wanted: IdMap<Vec<StringFields>> = IdMap::default();
        let mut order = Vec::new();
        for s in self.sub_records() {
            if let SubRecord::InstanceDump(i) = s? {
                if let Some(l) = layouts.get(&i.class_id) {
                    let int = |name: &str| -> Option<i64> {
                        match l.field(&i, id_size, name)? {
                            Value::Int(v) => Some(v.into()),
                            Value::Byte(v) => Some(v.into()),
                            _ => None,
                        }
                    };
                    let value = l
                        .field(&i, id_size, "value")
                        .and_then(|v| v.as_object())
                        .unwrap_or_default();
                    wanted.entry(value).or_default().push((
                        i.object_id,
                        int("coder"),
                        int("offset"),
                        int("count"),
                    ));
                    order.push(i.object_id);
                }
            }
        }
        // Pass 2: the arrays they point to. Each array is decoded once per coder, and strings
        // with the same array and range share their text; what differs (Java 6 substrings of
        // one array at many offsets) counts against a budget proportional to the dump.
        let dump_bytes: usize = self.heap_dumps.iter().map(|d| d.body.len()).sum();
        let mut budget = dump_bytes.saturating_mul(4).saturating_add(64 << 20);
        let mut out: HashMap<Id, Arc<str>> = HashMap::new();
        let empty: Arc<str> = Arc::from("");
        let sub_records = self
            .heap_dumps
            .iter()
            .flat_map(|d| d.sub_records().map(move |s| s.map(|s| (d, s))));
        for s in sub_records {
            if let (d, SubRecord::PrimitiveArrayDump(a)) = s? {
                let Some(users) = wanted.get(&a.array_id) else {
                    continue;
                };
                // Where the array's elements start in the file (for the error below).
                let at = d.offset.saturating_add(
                    (a.data.as_ptr() as usize).saturating_sub(d.body.as_ptr() as usize) as u64,
                );
                let mut decoded: Vec<(Option<i64>, Vec<u16>)> = Vec::new();
                let mut texts: HashMap<(Option<i64>, usize, usize), Arc<str>> = HashMap::new();
                for &(string_id, coder, offset, count) in users {
                    let coder = match a.element_type {
                        BasicType::Char => None,
                        BasicType::Byte => coder,
                        _ => continue,
                    };
                    let i = match decoded.iter().position(|(c, _)| *c == coder) {
                        Some(i) => i,
                        None => {
                            decoded.push((coder, string_units(&a, coder)));
                            decoded.len() - 1
                        }
                    };
                    let units: &[u16] = decoded.get(i).map_or(&[], |(_, u)| u.as_slice());
                    let range = match (offset, count) {
                        (Some(o), Some(n)) if o >= 0 && n >= 0 => {
                            let start = (o as usize).min(units.len());
                            start..(o as usize).saturating_add(n as usize).min(units.len())
                        }
                        _ => 0..units.len(),
                    };
                    let key = (coder, range.start, range.end);
                    let text = match texts.get(&key) {
                        Some(t) => t.clone(),
                        None => {
                            let t: Arc<str> =
                                String::from_utf16_lossy(units.get(range).unwrap_or_default())
                                    .into();
                            budget = budget.checked_sub(t.len()).ok_or_else(|| Error::Invalid {
                                offset: at,
                                message: format!(
                                    "java.lang.String contents exceed {} bytes \
                                         (4 times the heap dumps plus 64 MiB): strings share \
                                         this array at too many different ranges",
                                    dump_bytes.saturating_mul(4).saturating_add(64 << 20)
                                ),
                            })?;
                            texts.insert(key, t.clone());
                            t
                        }
                    };
                    out.insert(string_id, text);
                }
            }
        }
        // Strings whose value is null or missing are empty.
        for id in order {
            out.entry(id).or_insert_with(|| empty.clone());
        }
        Ok(out)
    }
}
