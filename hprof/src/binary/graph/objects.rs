//! The object index: every `INSTANCE_DUMP`, `OBJ_ARRAY_DUMP`,
//! `PRIM_ARRAY_DUMP`, `PRIMITIVE_ARRAY_NODATA` and `CLASS_DUMP` of a dump (`hprof.md` §1.5),
//! sorted once by id, with the file offset of its sub-record; plus the names, class layouts and
//! GC roots the graph needs. Built in one pass over bytes the caller holds.

use std::collections::HashMap;

use super::super::cursor::Cursor;
use super::super::error::{Error, Result};
use super::super::hash::IdMap;
use super::super::header::Header;
use super::super::heap_dump::{ClassDump, GcRoot, SubRecord, parse_sub_record, sub_tag};
use super::super::layout::{ChainEnd, MissingSuperclass, ObjectFieldLayouts, SuperclassChain};
use super::super::names::{BorrowedStrings, ClassNames};
use super::super::records::{Record, RecordBodies, Trace, parse_body};
use super::super::types::{BasicType, Id, IdSize, StackTraceSerial};
use super::ids::Ids;
use super::scratch::{self, Array, IN_MEMORY, Scratch};
use super::sub_records::{self, Body};
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

/// The most nodes an index holds: node indices are `u32`, and the two largest values are
/// reserved (the super-root's row and "none"). Past it, [`ObjectIndex::build`] fails with an
/// error naming the count.
pub const MAX_NODES: usize = u32::MAX as usize - 1;

/// The error for a dump of more than `max` objects.
pub(crate) fn too_many(count: usize, max: usize) -> Error {
    Error::TooManyObjects {
        count: count as u64,
        limit: max as u64,
    }
}

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
    /// The class's position in [`ObjectIndex::class_ids`].
    pub(crate) number: u32,
}

/// The object index: node `i` is the `i`-th smallest object id of the dump.
///
/// Duplicate ids: the first sub-record in file order wins; the others are counted in
/// [`Warnings::duplicate_ids`] and otherwise ignored.
#[derive(Debug)]
pub struct ObjectIndex<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) header: Header,
    pub(crate) ids: Ids,
    /// File offset of each node's sub-record (in scratch storage).
    pub(crate) offsets: Array<u64>,
    /// At most how many references the nodes hold (their edges, before resolving).
    pub(crate) edge_bound: u64,
    pub(crate) classes: IdMap<ClassInfo<'a>>,
    pub(crate) names: ClassNames<BorrowedStrings<'a>>,
    pub(crate) roots: Vec<GcRoot>,
    pub(crate) traces: HashMap<StackTraceSerial, Trace<'a>>,
    pub(crate) warnings: Warnings,
    /// Class ids of `java.lang.Class` and the primitive-array classes, by name.
    pub(crate) special: HashMap<String, Id>,
    /// Every class id with a `CLASS_DUMP` or a `LOAD_CLASS`, ascending (a dense number per
    /// class: [`ClassInfo::number`]).
    pub(crate) class_ids: Vec<Id>,
}

impl<'a> ObjectIndex<'a> {
    /// Indexes a whole dump held in memory (e.g. memory-mapped): one pass for the ids, names
    /// and classes, one for the file offsets.
    ///
    /// A dump cut short, or a heap-dump record whose sub-records stop decoding, still gives an
    /// index of everything before the damage; the error is kept in
    /// [`Warnings::stopped_at`].
    ///
    /// # Errors
    /// Header errors (not an HPROF file), or more than [`MAX_NODES`] objects.
    pub fn build(data: &'a [u8]) -> Result<ObjectIndex<'a>> {
        ObjectIndex::build_in(data, &IN_MEMORY)
    }

    /// As [`ObjectIndex::build`], keeping the file offsets (8 bytes per object) in `scratch`.
    ///
    /// # Errors
    /// As [`ObjectIndex::build`], and when `scratch` fails.
    pub fn build_in(data: &'a [u8], scratch: &dyn Scratch) -> Result<ObjectIndex<'a>> {
        ObjectIndex::build_limited(data, scratch, MAX_NODES, 1)
    }

    /// [`ObjectIndex::build_in`] with a smaller node limit (tests of the limit).
    pub(crate) fn build_limited(
        data: &'a [u8],
        scratch: &dyn Scratch,
        max_nodes: usize,
        threads: usize,
    ) -> Result<ObjectIndex<'a>> {
        let (header, header_len) = Header::parse(data)?;
        let id_size = header.id_size;
        let mut warnings = Warnings::default();
        let mut names = ClassNames::borrowing();
        let mut traces = HashMap::new();
        // The same walk as every other reader of a dump: a heap dump cut short gives the
        // sub-records that are there, and a file that is not whole says so at its end.
        let records = RecordBodies::after_header(
            data.get(header_len..).unwrap_or_default(),
            header_len as u64,
            id_size,
        );
        // The heap-dump records are read on the threads while the walk goes on; the first
        // error outside them, with its record's place in the walk, comes back from the walk.
        let (found, stopped) = sub_records::find_while(id_size, threads, data.len(), |take| {
            let mut stopped: Option<(usize, Error)> = None;
            for (k, r) in records.salvaging().enumerate() {
                let (rh, body) = match r {
                    Ok(r) => r,
                    Err(e) => {
                        stopped.get_or_insert((k, e));
                        break;
                    }
                };
                if rh.is_heap_dump() {
                    take(Body {
                        record: k,
                        offset: rh.body_offset(),
                        bytes: body,
                    });
                    continue;
                }
                let record = match parse_body(&rh, body, id_size) {
                    Ok(r) => r,
                    Err(e) => {
                        // One bad record: keep going with the next (its framing is intact).
                        stopped.get_or_insert((k, e));
                        continue;
                    }
                };
                match record {
                    Record::Utf8(u) => names.add_string(u.id, u.bytes),
                    Record::LoadClass(l) => names.add_class(l.class_id, l.name_id),
                    Record::Trace(t) => {
                        traces.insert(t.stack_trace_serial, t);
                    }
                    _ => {}
                }
            }
            stopped
        });
        warnings.stopped_at = match (found.error, stopped) {
            (Some((a, e)), Some((b, _))) if a <= b => Some(e),
            (_, Some((_, e))) | (Some((_, e)), None) => Some(e),
            (None, None) => None,
        };
        let mut classes: IdMap<ClassInfo<'a>> = IdMap::default();
        for dump in found.class_dumps {
            // The first CLASS_DUMP of a class id in file order wins.
            classes.entry(dump.class_id).or_insert(ClassInfo {
                dump,
                layout: Layout::default(),
                number: u32::MAX,
            });
        }
        let (roots, instances, stretches) = (found.roots, found.instances, found.stretches);
        let (other_refs, instance_refs_by_length) =
            (found.other_refs, found.instance_refs_by_length);
        // Sort by id; the first sub-record of each id in file order wins (second pass).
        let mut ids = sub_records::sorted(found.ids, threads);
        let count = ids.len();
        ids.dedup();
        warnings.duplicate_ids = (count - ids.len()) as u64;
        if ids.len() > max_nodes {
            return Err(too_many(ids.len(), max_nodes));
        }
        let ids = Ids::new(&ids);
        let offsets = match found.ascending {
            Some(found) if found.len() == ids.len() => {
                let mut offsets = scratch::u64s(scratch, ids.len(), "object offsets")?;
                offsets.copy_from_slice(&found);
                offsets
            }
            _ => first_offsets(data, id_size, &stretches, &ids, scratch)?,
        };
        let mut special = HashMap::new();
        for class_id in names.class_ids() {
            if let Some(name) = names.class_name(class_id) {
                let is_special = name == "java.lang.Class"
                    || BasicType::ALL
                        .iter()
                        .any(|t| *t != BasicType::Object && name == format!("{}[]", t.java_name()));
                if is_special && classes.contains_key(&class_id) {
                    special.entry(name).or_insert(class_id);
                }
            }
        }
        let mut class_ids: Vec<Id> = classes.keys().copied().collect();
        class_ids.extend(names.class_ids());
        class_ids.sort_unstable();
        class_ids.dedup();
        for (k, id) in class_ids.iter().enumerate() {
            if let Some(c) = classes.get_mut(id) {
                c.number = k as u32;
            }
        }
        let mut ix = ObjectIndex {
            data,
            header,
            ids,
            offsets,
            edge_bound: 0,
            classes,
            names,
            roots,
            traces,
            warnings,
            special,
            class_ids,
        };
        let longest: IdMap<u32> = instances.iter().map(|(&k, &(l, _))| (k, l)).collect();
        ix.build_layouts(&longest);
        let by_layout = instances
            .iter()
            .map(|(class_id, &(_, count))| {
                let refs = ix.layout(*class_id).map_or(0, |l| l.refs.len() as u64);
                count.saturating_mul(refs + 1)
            })
            .fold(0, u64::saturating_add);
        // Never more than the input's bytes can hold, whatever the layouts say.
        ix.edge_bound = by_layout
            .min(instance_refs_by_length)
            .saturating_add(other_refs);
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
        self.ids.len() == 0
    }

    /// Bytes of heap memory the ids and their lookup table hold (about 5 per object; the file
    /// offsets live in the scratch storage, the classes and names are not counted).
    pub fn heap_bytes(&self) -> usize {
        self.ids.heap_bytes()
    }

    /// Problems met while indexing (and, once a graph is built, while finding edges).
    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }

    /// The id of node `node`.
    #[inline]
    pub fn id(&self, node: NodeIndex) -> Option<Id> {
        self.ids.get(node)
    }

    /// Every id, ascending (node `i` has the `i`-th).
    pub fn ids(&self) -> impl Iterator<Item = Id> + '_ {
        self.ids.iter()
    }

    /// File offset of the sub-record (its tag byte) of node `node`.
    #[inline]
    pub fn offset(&self, node: NodeIndex) -> Option<u64> {
        self.offsets.get(node as usize).copied()
    }

    /// The node with this id (O(1) expected: a bucket table over the sorted ids).
    #[inline]
    pub fn node(&self, id: Id) -> Option<NodeIndex> {
        self.ids.node(id)
    }

    /// Flattens every class's instance layout along its superclass chain: the object fields
    /// an instance of the class can hold (those before the end of its longest instance).
    fn build_layouts(&mut self, longest: &IdMap<u32>) {
        let id_size = self.header.id_size;
        let referent: &[u8] = b"referent";
        let mut layouts = ObjectFieldLayouts::for_dump(self.data.len(), MissingSuperclass::Partial);
        let ids: Vec<Id> = self.classes.keys().copied().collect();
        for class_id in ids {
            let limit = u64::from(longest.get(&class_id).copied().unwrap_or(0));
            let classes = &self.classes;
            let names = &self.names;
            let Some(layout) = layouts.layout(
                class_id,
                id_size,
                classes.len(),
                |id| classes.get(&id).map(|c| c.dump),
                |name_id| Some(names.string(name_id) == Some(referent)),
            ) else {
                continue;
            };
            if layout.chain_end == ChainEnd::MissingClass && layout.size <= limit {
                self.warnings.missing_superclasses += 1;
            }
            let mut refs: Vec<(u32, bool)> = layouts
                .fields(layout)
                .iter()
                .filter(|f| u64::from(f.offset) < limit)
                .map(|f| (f.offset, f.tag))
                .collect();
            // A `referent` is weak only in a weak, phantom or finalizer reference.
            if refs.iter().any(|r| r.1) && !self.is_weak_reference(class_id) {
                for r in &mut refs {
                    r.1 = false;
                }
            }
            if let Some(info) = self.classes.get_mut(&class_id) {
                info.layout = Layout {
                    refs,
                    size: layout.size,
                };
            }
        }
    }

    /// Whether the `referent` of instances of `class_id` is weak (ahat's policy): the
    /// nearest `java.lang.ref` class of its superclass chain is a weak, phantom or finalizer
    /// reference (a soft reference is followed like a strong one).
    fn is_weak_reference(&self, class_id: Id) -> bool {
        let classes = &self.classes;
        let chain = SuperclassChain::new(class_id, classes.len(), |id| {
            classes.get(&id).map(|c| c.dump)
        });
        for (id, _) in chain {
            match self.class_name(id).as_deref() {
                Some(
                    "java.lang.ref.WeakReference"
                    | "java.lang.ref.PhantomReference"
                    | "java.lang.ref.FinalizerReference"
                    | "java.lang.ref.Finalizer",
                ) => return true,
                Some("java.lang.ref.SoftReference") => return false,
                _ => {}
            }
        }
        false
    }

    /// The class name (Java source form) of the class object `class_id`, from its
    /// `LOAD_CLASS` record.
    pub fn class_name(&self, class_id: Id) -> Option<String> {
        self.names.class_name(class_id)
    }

    /// The `UTF8` string with this id.
    pub fn string(&self, id: Id) -> Option<&'a [u8]> {
        self.names.strings().get(id)
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
    pub fn trace(&self, serial: StackTraceSerial) -> Option<&Trace<'a>> {
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

/// Finds nodes by id in O(1) expected time ([`ObjectIndex::node`] does the same; this type
/// stays for callers that hold one).
#[derive(Debug, Clone, Copy)]
pub struct Lookup<'i> {
    ids: &'i Ids,
}

impl<'i> Lookup<'i> {
    /// A lookup over `ix`'s ids.
    pub fn new(ix: &'i ObjectIndex<'_>) -> Lookup<'i> {
        Lookup { ids: &ix.ids }
    }

    /// The node with this id.
    #[inline]
    pub fn node(&self, id: Id) -> Option<NodeIndex> {
        self.ids.node(id)
    }
}

/// The second pass: the file offset of the first sub-record of every id, in file order, over
/// the stretches of sub-records the first pass decoded.
fn first_offsets(
    data: &[u8],
    id_size: IdSize,
    stretches: &[(u64, u64)],
    ids: &Ids,
    scratch: &dyn Scratch,
) -> Result<Array<u64>> {
    let mut offsets = scratch::u64s(scratch, ids.len(), "object offsets")?;
    for &(start, end) in stretches {
        let body = data.get(start as usize..end as usize).unwrap_or_default();
        // As in the first pass, `parse_sub_record` on a cursor (the hot loop).
        let mut c = Cursor::new(body, start, id_size);
        while !c.is_empty() {
            let at = c.offset();
            let Ok(sub) = parse_sub_record(&mut c) else {
                break;
            };
            let id = match sub {
                SubRecord::InstanceDump(i) => i.object_id,
                SubRecord::ObjectArrayDump(a) => a.array_id,
                SubRecord::PrimitiveArrayDump(a) => a.array_id,
                SubRecord::PrimitiveArrayNoData(a) => a.array_id,
                SubRecord::ClassDump(cd) => cd.class_id,
                _ => continue,
            };
            if let Some(slot) = ids.node(id).and_then(|v| offsets.get_mut(v as usize)) {
                if *slot == 0 {
                    *slot = at;
                }
            }
        }
    }
    Ok(offsets)
}
