//! The object index: every `INSTANCE_DUMP`, `OBJ_ARRAY_DUMP`,
//! `PRIM_ARRAY_DUMP`, `PRIMITIVE_ARRAY_NODATA` and `CLASS_DUMP` of a dump (`hprof.md` §1.5),
//! sorted once by id, with the file offset of its sub-record; plus the names, class layouts and
//! GC roots the graph needs. Built in one pass over bytes the caller holds.

use std::collections::HashMap;

use super::super::cursor::Cursor;
use super::super::error::{Error, Result};
use super::super::header::Header;
use super::super::heap_dump::{ClassDump, GcRoot, SubRecord, parse_sub_record, sub_tag};
use super::super::histogram::{IdMap, java_class_name};
use super::super::records::{Record, RecordHeader, Trace, Wholeness, parse_body, tag};
use super::super::types::{BasicType, Id, IdSize};
use super::{NodeIndex, Warnings};

/// What kind of object a node is (from its sub-record tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum NodeKind {
    /// `INSTANCE_DUMP` (0x21).
    Instance,
    /// `OBJ_ARRAY_DUMP` (0x22).
    ObjectArray,
    /// `PRIM_ARRAY_DUMP` (0x23) or Android `PRIMITIVE_ARRAY_NODATA` (0xC3).
    PrimitiveArray,
    /// `CLASS_DUMP` (0x20): the class object.
    Class,
}

/// The most nodes an index holds: node indices are `u32`, the top bit and the two largest
/// values are reserved (edge flags, the super-root, "none").
pub const MAX_NODES: usize = (1 << 31) - 2;

/// One class's flattened instance layout: where its object-typed fields sit in an instance's
/// field data (own fields first, then the superclass's, …, as `INSTANCE_DUMP` lays them out).
#[derive(Debug, Clone, Default)]
pub(crate) struct Layout {
    /// Byte offsets of object-typed fields; `(offset, weak)`: `weak` marks a `referent`
    /// field of a `java.lang.ref` Weak/Finalizer/Phantom reference (ahat policy only).
    pub(crate) refs: Vec<(u32, bool)>,
    /// Total field bytes of the layout (possibly cut at the longest instance seen).
    pub(crate) size: u64,
}

/// Per-class data kept by the index.
#[derive(Debug, Clone)]
pub(crate) struct ClassInfo<'a> {
    pub(crate) dump: ClassDump<'a>,
    pub(crate) layout: Layout,
}

/// The object index: node `i` is the `i`-th smallest object id of the dump.
///
/// Duplicate ids: the first sub-record in file order wins; the others are counted in
/// [`Warnings::duplicate_ids`] and otherwise ignored.
#[derive(Debug)]
pub struct ObjectIndex<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) header: Header,
    pub(crate) ids: Vec<Id>,
    pub(crate) offsets: Vec<u64>,
    pub(crate) classes: IdMap<ClassInfo<'a>>,
    pub(crate) strings: IdMap<&'a [u8]>,
    pub(crate) class_name_ids: IdMap<Id>,
    pub(crate) roots: Vec<GcRoot>,
    pub(crate) traces: HashMap<u32, Trace<'a>>,
    pub(crate) warnings: Warnings,
    /// Class ids of `java.lang.Class` and the primitive-array classes, by name.
    pub(crate) special: HashMap<String, Id>,
}

impl<'a> ObjectIndex<'a> {
    /// Indexes a whole dump held in memory (e.g. memory-mapped) in one pass.
    ///
    /// A dump cut short, or a heap-dump record whose sub-records stop decoding, still gives an
    /// index of everything before the damage; the error is kept in
    /// [`Warnings::stopped_at`].
    ///
    /// # Errors
    /// Header errors (not an HPROF file), or more than [`MAX_NODES`] objects.
    pub fn build(data: &'a [u8]) -> Result<ObjectIndex<'a>> {
        let (header, header_len) = Header::parse(data)?;
        let id_size = header.id_size;
        let mut warnings = Warnings::default();
        let mut pairs: Vec<(Id, u64)> = Vec::new();
        let mut classes: IdMap<ClassInfo<'a>> = IdMap::default();
        let mut strings: IdMap<&'a [u8]> = IdMap::default();
        let mut class_name_ids: IdMap<Id> = IdMap::default();
        let mut roots = Vec::new();
        let mut traces = HashMap::new();
        // Longest instance data per class id (to bound flattened layouts).
        let mut longest: IdMap<u32> = IdMap::default();
        let mut c = Cursor::new(
            data.get(header_len..).unwrap_or_default(),
            header_len as u64,
            id_size,
        );
        let mut whole = Wholeness::default();
        while !c.is_empty() {
            let rh = match RecordHeader::parse(&mut c) {
                Ok(h) => h,
                Err(e) => {
                    warnings.stopped_at.get_or_insert(e);
                    break;
                }
            };
            whole.see(rh.tag);
            let is_dump = rh.tag == tag::HEAP_DUMP || rh.tag == tag::HEAP_DUMP_SEGMENT;
            let (body, cut) = match c.bytes(rh.length as usize, "a record body") {
                Ok(b) => (b, None),
                // A heap dump cut short: index the sub-records that are there.
                Err(e) if is_dump => (c.rest(), Some(e)),
                Err(e) => {
                    warnings.stopped_at.get_or_insert(e);
                    break;
                }
            };
            if is_dump {
                let mut sc = Cursor::new(body, rh.body_offset(), id_size);
                while !sc.is_empty() {
                    let at = sc.offset();
                    let sub = match parse_sub_record(&mut sc) {
                        Ok(s) => s,
                        Err(e) => {
                            warnings.stopped_at.get_or_insert(e);
                            break;
                        }
                    };
                    match sub {
                        SubRecord::InstanceDump(i) => {
                            pairs.push((i.object_id, at));
                            let len = u32::try_from(i.data.len()).unwrap_or(u32::MAX);
                            let e = longest.entry(i.class_id).or_insert(0);
                            *e = (*e).max(len);
                        }
                        SubRecord::ObjectArrayDump(a) => pairs.push((a.array_id, at)),
                        SubRecord::PrimitiveArrayDump(a) => pairs.push((a.array_id, at)),
                        SubRecord::PrimitiveArrayNoData(a) => pairs.push((a.array_id, at)),
                        SubRecord::ClassDump(cd) => {
                            pairs.push((cd.class_id, at));
                            classes.entry(cd.class_id).or_insert(ClassInfo {
                                dump: cd,
                                layout: Layout::default(),
                            });
                        }
                        SubRecord::Root(root) => roots.push(root),
                        SubRecord::HeapDumpInfo(_) => {}
                    }
                }
                if let Some(e) = cut {
                    warnings.stopped_at.get_or_insert(e);
                    break;
                }
                continue;
            }
            let record = match parse_body(&rh, body, id_size) {
                Ok(r) => r,
                Err(e) => {
                    // One bad record: keep going with the next (its framing is intact).
                    warnings.stopped_at.get_or_insert(e);
                    continue;
                }
            };
            match record {
                Record::Utf8(u) => {
                    strings.insert(u.id, u.bytes);
                }
                Record::LoadClass(l) => {
                    class_name_ids.insert(l.class_id, l.name_id);
                }
                Record::Trace(t) => {
                    traces.insert(t.stack_trace_serial, t);
                }
                _ => {}
            }
        }
        if warnings.stopped_at.is_none() {
            // The same judgement of a whole file as every other reader of a dump.
            if let Err(e) = whole.check(c.offset()) {
                warnings.stopped_at = Some(e);
            }
        }
        if pairs.len() > MAX_NODES {
            return Err(Error::Invalid {
                offset: 0,
                message: format!(
                    "{} objects: the graph holds at most {MAX_NODES}",
                    pairs.len()
                ),
            });
        }
        // Sort by id, file order among equal ids; the first of each id wins.
        pairs.sort_unstable();
        let before = pairs.len();
        pairs.dedup_by_key(|p| p.0);
        warnings.duplicate_ids = (before - pairs.len()) as u64;
        let ids: Vec<Id> = pairs.iter().map(|p| p.0).collect();
        let offsets: Vec<u64> = pairs.iter().map(|p| p.1).collect();
        drop(pairs);
        let mut special = HashMap::new();
        for (&class_id, &name_id) in &class_name_ids {
            if let Some(raw) = strings.get(&name_id) {
                let name = java_class_name(&String::from_utf8_lossy(raw));
                let is_special = name == "java.lang.Class"
                    || BasicType::ALL
                        .iter()
                        .any(|t| *t != BasicType::Object && name == format!("{}[]", t.java_name()));
                if is_special && classes.contains_key(&class_id) {
                    special.entry(name).or_insert(class_id);
                }
            }
        }
        let mut ix = ObjectIndex {
            data,
            header,
            ids,
            offsets,
            classes,
            strings,
            class_name_ids,
            roots,
            traces,
            warnings,
            special,
        };
        ix.build_layouts(&longest);
        Ok(ix)
    }

    /// The file header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The bytes the index was built over.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The identifier size.
    pub fn id_size(&self) -> IdSize {
        self.header.id_size
    }

    /// Number of nodes (distinct object ids).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the dump holds no object.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Problems met while indexing (and, once a graph is built, while finding edges).
    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }

    /// The id of node `node`.
    #[inline]
    pub fn id(&self, node: NodeIndex) -> Option<Id> {
        self.ids.get(node as usize).copied()
    }

    /// Every id, ascending (node `i` has the `i`-th).
    pub fn ids(&self) -> &[Id] {
        &self.ids
    }

    /// File offset of the sub-record (its tag byte) of node `node`.
    #[inline]
    pub fn offset(&self, node: NodeIndex) -> Option<u64> {
        self.offsets.get(node as usize).copied()
    }

    /// The node with this id (binary search over the sorted ids; [`Lookup`] is O(1)
    /// expected).
    #[inline]
    pub fn node(&self, id: Id) -> Option<NodeIndex> {
        self.ids.binary_search(&id).ok().map(|i| i as NodeIndex)
    }

    /// Flattens every class's instance layout along its superclass chain.
    fn build_layouts(&mut self, longest: &IdMap<u32>) {
        let id_size = self.header.id_size;
        let referent: &[u8] = b"referent";
        let ids: Vec<Id> = self.classes.keys().copied().collect();
        let max_depth = self.classes.len();
        for class_id in ids {
            let limit = u64::from(longest.get(&class_id).copied().unwrap_or(0));
            let mut refs = Vec::new();
            let mut offset = 0u64;
            let mut id = class_id;
            let mut depth = 0;
            let mut weak_ref = false;
            let mut names = Vec::new();
            while id != 0 && depth <= max_depth && offset <= limit {
                let Some(info) = self.classes.get(&id) else {
                    if depth > 0 {
                        self.warnings.missing_superclasses += 1;
                    }
                    break;
                };
                names.push(id);
                for f in info.dump.instance_fields() {
                    if f.field_type == BasicType::Object && offset < limit {
                        let is_referent = self.strings.get(&f.name_id) == Some(&referent);
                        refs.push((offset as u32, is_referent));
                    }
                    offset += f.field_type.size(id_size) as u64;
                }
                id = info.dump.super_class_id;
                depth += 1;
            }
            for c in names {
                let name = self.class_name(c);
                if matches!(
                    name.as_deref(),
                    Some(
                        "java.lang.ref.WeakReference"
                            | "java.lang.ref.PhantomReference"
                            | "java.lang.ref.FinalizerReference"
                            | "java.lang.ref.Finalizer"
                    )
                ) {
                    weak_ref = true;
                }
                if name.as_deref() == Some("java.lang.ref.SoftReference") {
                    // ahat: the nearest java.lang.ref class decides; a soft reference is
                    // followed like a strong one.
                    break;
                }
                if weak_ref {
                    break;
                }
            }
            for r in &mut refs {
                r.1 &= weak_ref;
            }
            if let Some(info) = self.classes.get_mut(&class_id) {
                info.layout = Layout { refs, size: offset };
            }
        }
    }

    /// The class name (Java source form) of the class object `class_id`, from its
    /// `LOAD_CLASS` record.
    pub fn class_name(&self, class_id: Id) -> Option<String> {
        let name_id = self.class_name_ids.get(&class_id)?;
        let raw = self.strings.get(name_id)?;
        Some(java_class_name(&String::from_utf8_lossy(raw)))
    }

    /// The `UTF8` string with this id.
    pub fn string(&self, id: Id) -> Option<&'a [u8]> {
        self.strings.get(&id).copied()
    }

    /// Every GC-root sub-record, in file order (all kinds, `ROOT_UNREACHABLE` included).
    pub fn gc_roots(&self) -> &[GcRoot] {
        &self.roots
    }

    /// The `CLASS_DUMP` of a class.
    pub fn class_dump(&self, class_id: Id) -> Option<&ClassDump<'a>> {
        self.classes.get(&class_id).map(|c| &c.dump)
    }

    /// The stack trace with this serial.
    pub fn trace(&self, serial: u32) -> Option<&Trace<'a>> {
        self.traces.get(&serial)
    }

    /// Decodes the sub-record of node `node`.
    ///
    /// # Errors
    /// Only if `node` is out of range (the sub-record decoded once already).
    pub fn sub_record(&self, node: NodeIndex) -> Result<SubRecord<'a>> {
        let offset = self.offset(node).ok_or_else(|| Error::Invalid {
            offset: 0,
            message: format!("no node {node}"),
        })?;
        let rest = self.data.get(offset as usize..).unwrap_or_default();
        parse_sub_record(&mut Cursor::new(rest, offset, self.header.id_size))
    }

    /// The kind of node `node`.
    pub fn kind(&self, node: NodeIndex) -> Option<NodeKind> {
        let tag = *self.data.get(self.offset(node)? as usize)?;
        Some(match tag {
            sub_tag::INSTANCE_DUMP => NodeKind::Instance,
            sub_tag::OBJ_ARRAY_DUMP => NodeKind::ObjectArray,
            sub_tag::CLASS_DUMP => NodeKind::Class,
            _ => NodeKind::PrimitiveArray,
        })
    }

    /// The class name of node `node` as the histogram spells it: `java.lang.String`,
    /// `int[]`, `java.lang.Object[]`; a class object's is `java.lang.Class` (the class it
    /// stands for is [`class_object_name`](ObjectIndex::class_object_name)); an object whose
    /// class has no `LOAD_CLASS` name gets `<unknown class 0x…>`.
    pub fn class_name_of(&self, node: NodeIndex) -> String {
        let class_id = match self.sub_record(node) {
            Ok(SubRecord::InstanceDump(i)) => i.class_id,
            Ok(SubRecord::ObjectArrayDump(a)) => a.array_class_id,
            Ok(SubRecord::PrimitiveArrayDump(a)) => {
                return format!("{}[]", a.element_type.java_name());
            }
            Ok(SubRecord::PrimitiveArrayNoData(a)) => {
                return format!("{}[]", a.element_type.java_name());
            }
            Ok(SubRecord::ClassDump(_)) => return "java.lang.Class".to_owned(),
            _ => return "<unknown>".to_owned(),
        };
        self.class_name(class_id)
            .unwrap_or_else(|| format!("<unknown class 0x{class_id:x}>"))
    }

    /// For a class object, the name of the class it stands for (`java.lang.System` for the
    /// `java.lang.Class` instance of `System`); `None` for every other node.
    pub fn class_object_name(&self, node: NodeIndex) -> Option<String> {
        match self.sub_record(node) {
            Ok(SubRecord::ClassDump(c)) => Some(
                self.class_name(c.class_id)
                    .unwrap_or_else(|| format!("<unknown class 0x{:x}>", c.class_id)),
            ),
            _ => None,
        }
    }

    /// How a person would name node `node` in a list of objects: its class name
    /// ([`class_name_of`](ObjectIndex::class_name_of)), except that a class object is
    /// `class NAME` (`class java.lang.System`), as Eclipse MAT and ahat show it.
    pub fn display_name(&self, node: NodeIndex) -> String {
        match self.class_object_name(node) {
            Some(name) => format!("class {name}"),
            None => self.class_name_of(node),
        }
    }

    /// The class id of node `node`'s class (`None` for primitive arrays and class objects,
    /// whose class has no id of its own in the dump's records).
    pub fn class_id_of(&self, node: NodeIndex) -> Option<Id> {
        match self.sub_record(node).ok()? {
            SubRecord::InstanceDump(i) => Some(i.class_id),
            SubRecord::ObjectArrayDump(a) => Some(a.array_class_id),
            _ => None,
        }
    }

    pub(crate) fn layout(&self, class_id: Id) -> Option<&Layout> {
        self.classes.get(&class_id).map(|c| &c.layout)
    }
}

/// A bucket table over the sorted ids of an [`ObjectIndex`] (4 bytes per node): the bucket of
/// an id is `(id − smallest) >> shift`, with about one id per bucket, then a binary search
/// inside the bucket — O(1) expected, O(log n) at worst, whatever ids a dump holds.
#[derive(Debug, Clone)]
pub struct Lookup<'i> {
    ids: &'i [Id],
    buckets: Vec<u32>,
    shift: u32,
}

impl<'i> Lookup<'i> {
    /// Builds the table over `ix`'s ids.
    pub fn new(ix: &'i ObjectIndex<'_>) -> Lookup<'i> {
        let ids = ix.ids.as_slice();
        let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
            return Lookup {
                ids,
                buckets: Vec::new(),
                shift: 0,
            };
        };
        let n = ids.len() as u64;
        let span = last - first;
        let mut shift = 0;
        while (span >> shift) >= n && shift < 63 {
            shift += 1;
        }
        let nb = (span >> shift) as usize + 1;
        let mut buckets = Vec::with_capacity(nb + 1);
        let mut i = 0usize;
        for k in 0..nb as u64 {
            while ids.get(i).is_some_and(|&id| ((id - first) >> shift) < k) {
                i += 1;
            }
            buckets.push(i as u32);
        }
        buckets.push(ids.len() as u32);
        Lookup {
            ids,
            buckets,
            shift,
        }
    }

    /// The node with this id.
    #[inline]
    pub fn node(&self, id: Id) -> Option<NodeIndex> {
        let first = *self.ids.first()?;
        if id < first {
            return None;
        }
        let k = ((id - first) >> self.shift) as usize;
        let (Some(&lo), Some(&hi)) = (self.buckets.get(k), self.buckets.get(k + 1)) else {
            return None;
        };
        let (lo, hi) = (lo as usize, hi as usize);
        self.ids
            .get(lo..hi)?
            .binary_search(&id)
            .ok()
            .map(|i| (lo + i) as NodeIndex)
    }
}
