//! Merging the profiles of several runs into one (what `native-image-utils
//! merge-pgo-profiles` does for GraalVM users).
//!
//! Ids mean nothing across files, so everything is unified by name: types by their name,
//! methods by name plus the names of the signature's types (declaring, return, parameters).
//! Ids are remapped (an item keeps its id from the first input that has it, when that id is
//! still free), contexts are compared frame by frame after remapping, and counts are summed
//! per context and per record key: the branch `(target bci, branch index)` of conditional
//! records, the type of virtual invoke, monitor and instanceof records. Counts can be
//! weighted per input; sums saturate at `i64::MAX`. (Real files repeat conditional triplets
//! with the sentinel target bci -5, such as `-5, 0, 0`; merging sums those into one.)
//!
//! Ids that resolve to nothing in their file (stubbed metadata, dangling references) cannot
//! be matched by name: they are kept as they are and assumed to mean the same in every input
//! (true for several runs of one build). Unknown top-level keys are kept from the first input
//! that has them; unknown members inside types, methods and entries are not merged.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use callctx::{ContextBuf, Frame};
use indexmap::IndexMap;

use crate::model::{
    Ctx, Extra, Layout, Method, Profile, ProfileEntry, RawJson, Section, TopLevelKey, Type,
};

/// Options of [`merge`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeOptions {
    /// A weight per input, multiplying its counts (missing weights are 1.0). Weighted counts
    /// are rounded to the nearest integer; a weight of exactly 1.0 keeps counts exact.
    pub weights: Vec<f64>,
}

/// Merges `profiles` (see the module documentation) into a new, owned profile.
pub fn merge(profiles: &[&Profile<'_>], options: &MergeOptions) -> Profile<'static> {
    let mut merger = Merger::new();
    for (i, profile) in profiles.iter().enumerate() {
        merger.add_weighted(profile, options.weights.get(i).copied().unwrap_or(1.0));
    }
    merger.finish()
}

/// A type's cross-file identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum TypeKey {
    /// A type with this name.
    Named(String),
    /// An id that names no type in its file.
    Raw(i64),
}

/// A method's cross-file identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum MethodKey {
    /// A method with this name and signature.
    Named { name: String, signature: Vec<i64> },
    /// An id that names no method in its file.
    Raw(i64),
}

/// Output ids: each key keeps its preferred id when free.
#[derive(Debug)]
struct Ids<K> {
    map: IndexMap<K, i64>,
    used: HashSet<i64>,
    next: i64,
}

impl<K: std::hash::Hash + Eq> Ids<K> {
    fn new() -> Self {
        Ids {
            map: IndexMap::new(),
            used: HashSet::new(),
            next: 0,
        }
    }

    fn get(&mut self, key: K, preferred: i64) -> i64 {
        if let Some(&id) = self.map.get(&key) {
            return id;
        }
        let id = if self.used.contains(&preferred) {
            while self.used.contains(&self.next) {
                self.next = self.next.saturating_add(1);
            }
            self.next
        } else {
            preferred
        };
        self.used.insert(id);
        self.map.insert(key, id);
        id
    }
}

/// Summed records of one context: record key (all integers but the count) → count.
/// Summed records of one context: record key → count. The key holds the integers before
/// the count: none (one count), the type id (pairs), or target bci and branch index.
type Acc = IndexMap<RecordKey, i64>;

/// The integers of a record before its count (at most two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct RecordKey {
    len: u8,
    values: [i64; 2],
}

impl RecordKey {
    fn of(key: &[i64]) -> Self {
        match *key {
            [a] => RecordKey {
                len: 1,
                values: [a, 0],
            },
            [a, b] => RecordKey {
                len: 2,
                values: [a, b],
            },
            _ => RecordKey {
                len: 0,
                values: [0, 0],
            },
        }
    }

    fn as_slice(&self) -> &[i64] {
        self.values.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

/// An incremental merge: [`Merger::add`] the profiles, then [`Merger::finish`].
#[derive(Debug)]
pub struct Merger {
    types: Ids<TypeKey>,
    methods: Ids<MethodKey>,
    sections: HashMap<Section, IndexMap<ContextBuf, Acc>>,
    versions: Vec<String>,
    layouts: Vec<Layout>,
    key_order: Option<Vec<TopLevelKey>>,
    unknown: Vec<(Cow<'static, str>, RawJson<'static>)>,
    unknown_keys: HashSet<String>,
}

impl Default for Merger {
    fn default() -> Self {
        Merger::new()
    }
}

impl Merger {
    /// An empty merge.
    pub fn new() -> Self {
        Merger {
            types: Ids::new(),
            methods: Ids::new(),
            sections: HashMap::new(),
            versions: Vec::new(),
            layouts: Vec::new(),
            key_order: None,
            unknown: Vec::new(),
            unknown_keys: HashSet::new(),
        }
    }

    /// Adds a profile with weight 1.
    pub fn add(&mut self, profile: &Profile<'_>) {
        self.add_weighted(profile, 1.0);
    }

    /// Adds a profile whose counts are multiplied by `weight`.
    pub fn add_weighted(&mut self, profile: &Profile<'_>, weight: f64) {
        self.versions.push(profile.version.to_string());
        self.layouts.push(profile.layout);
        if self.key_order.is_none() {
            self.key_order = Some(profile.key_order.clone());
        }
        for (key, value) in &profile.unknown {
            if self.unknown_keys.insert(key.to_string()) {
                self.unknown
                    .push((Cow::Owned(key.to_string()), value.clone().into_owned()));
            }
        }

        let mut type_map: HashMap<i64, i64> = HashMap::with_capacity(profile.types.len());
        for t in &profile.types {
            let out = self.types.get(TypeKey::Named(t.name.to_string()), t.id);
            type_map.entry(t.id).or_insert(out);
        }
        let mut method_map: HashMap<i64, i64> = HashMap::with_capacity(profile.methods.len());
        for m in &profile.methods {
            for &t in &m.signature {
                type_map
                    .entry(t)
                    .or_insert_with(|| self.types.get(TypeKey::Raw(t), t));
            }
            let key = MethodKey::Named {
                name: m.name.to_string(),
                // Output type ids stand for the types' names (or unresolved raw ids).
                signature: m
                    .signature
                    .iter()
                    .map(|&t| type_map.get(&t).copied().unwrap_or(t))
                    .collect(),
            };
            let out = self.methods.get(key, m.id);
            method_map.entry(m.id).or_insert(out);
        }

        for section in Section::ALL {
            let Some(entries) = profile.section(section) else {
                continue;
            };
            let mut acc_entries = self.sections.remove(&section).unwrap_or_default();
            for e in entries {
                let ctx = if section == Section::Monitor {
                    e.ctx.to_context_buf()
                } else {
                    ContextBuf::from_frames(e.ctx.frames().map(|f| {
                        let raw = i64::from(f.method);
                        let out = match method_map.get(&raw) {
                            Some(&out) => out,
                            None => {
                                let out = self.methods.get(MethodKey::Raw(raw), raw);
                                method_map.insert(raw, out);
                                out
                            }
                        };
                        Frame::new(u32::try_from(out).unwrap_or(f.method), f.bci)
                    }))
                };
                let acc = acc_entries.entry(ctx).or_default();
                let arity = section.arity();
                for record in e.records.chunks_exact(arity) {
                    let Some((&count, key)) = record.split_last() else {
                        continue;
                    };
                    let mut key = RecordKey::of(key);
                    if arity == 2 {
                        let t = key.values[0];
                        key.values[0] = match type_map.get(&t) {
                            Some(&out) => out,
                            None => {
                                let out = self.types.get(TypeKey::Raw(t), t);
                                type_map.insert(t, out);
                                out
                            }
                        };
                    }
                    let sum = acc.entry(key).or_insert(0);
                    *sum = sum.saturating_add(weighted(count, weight));
                }
            }
            self.sections.insert(section, acc_entries);
        }
    }

    /// The merged profile.
    pub fn finish(self) -> Profile<'static> {
        let same_version = self
            .versions
            .windows(2)
            .all(|w| matches!(w, [a, b] if a == b));
        let legacy = !self.layouts.is_empty() && self.layouts.iter().all(|&l| l == Layout::Legacy);
        let has_instanceof = self.sections.contains_key(&Section::Instanceof);
        let version = match self.versions.first() {
            Some(v) if same_version => v.clone(),
            _ if has_instanceof => "1.1.0".to_owned(),
            _ => "1.0.0".to_owned(),
        };
        let types = self
            .types
            .map
            .iter()
            .filter_map(|(key, &id)| match key {
                TypeKey::Named(name) => Some(Type {
                    id,
                    name: Cow::Owned(name.clone()),
                    extra: Extra::default(),
                }),
                TypeKey::Raw(_) => None,
            })
            .collect();
        let methods = self
            .methods
            .map
            .iter()
            .filter_map(|(key, &id)| match key {
                MethodKey::Named { name, signature } => Some(Method {
                    id,
                    name: Cow::Owned(name.clone()),
                    signature: signature.clone(),
                    extra: Extra::default(),
                }),
                MethodKey::Raw(_) => None,
            })
            .collect();
        let mut profile = Profile {
            version: Cow::Owned(version),
            types,
            methods,
            unknown: self.unknown,
            layout: if legacy {
                Layout::Legacy
            } else {
                Layout::Modern
            },
            key_order: self.key_order.unwrap_or_default(),
            ..Profile::default()
        };
        for (section, entries) in self.sections {
            let out: Vec<ProfileEntry<'static>> = entries
                .into_iter()
                .map(|(ctx, acc)| {
                    let mut records = Vec::with_capacity(acc.len() * section.arity());
                    for (key, count) in acc {
                        records.extend_from_slice(key.as_slice());
                        records.push(count);
                    }
                    ProfileEntry::new(Ctx::Owned(ctx), records)
                })
                .collect();
            *profile.section_mut(section) = Some(out);
        }
        profile
    }
}

/// `count × weight`, rounded and saturating; exact for weight 1.
fn weighted(count: i64, weight: f64) -> i64 {
    if weight == 1.0 {
        count
    } else {
        // `as` saturates (and maps NaN to 0), which is what a weighted count should do.
        (count as f64 * weight).round() as i64
    }
}
