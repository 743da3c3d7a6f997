//! The heap pass: one walk over the heap dumps that writes a row per object, reference and
//! root, and keeps the class dumps (for the layouts and the `classes` table). An instance
//! read before its class's dump, or before a field name its layout needs, is counted and its
//! class kept for the [deferred pass](super::deferred).

use std::collections::HashSet;

use hprof::binary::hash::{IdMap, IdState};
use hprof::binary::heap_dump::{
    ClassDump, InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord,
};
use hprof::binary::incremental::{Event, Visit};
use hprof::binary::layout::{Layout, MissingSuperclass, ObjectFieldLayouts};
use hprof::binary::types::{Id, IdSize, Value};

use super::columns::{
    LOADER, ObjectColumns, ObjectKind, ObjectRow, PROTECTION_DOMAIN, RefColumns, SIGNERS, SUPER,
};
use super::lossy;
use super::schema::{ClassRows, RootRows, table};
use super::summary::Summary;
use super::top_level::TopLevel;
use super::walk::Pass;
use crate::rows::Rows;
use crate::sink::BatchSink;
use crate::{BATCH_ROWS, Error, Result};

/// The big-endian id at `at` in `bytes`, if `bytes` holds it.
#[inline]
fn read_id(id_size: IdSize, bytes: &[u8], at: usize) -> Option<Id> {
    match id_size {
        IdSize::Four => {
            let b = bytes.get(at..at.checked_add(4)?)?;
            Some(Id::from(u32::from_be_bytes(b.try_into().ok()?)))
        }
        IdSize::Eight => {
            let b = bytes.get(at..at.checked_add(8)?)?;
            Some(Id(u64::from_be_bytes(b.try_into().ok()?)))
        }
    }
}

/// How a layout names a field whose name the dump has not given.
#[derive(Clone, Copy)]
pub(super) enum FieldNames {
    /// Only known names: no layout until every name is known (the heap pass).
    Known,
    /// A name the dump never gives is empty (the deferred pass, after every record).
    EmptyWhenMissing,
}

/// The heap pass, and what the deferred pass and the `classes` table need of it.
pub(super) struct HeapPass<'a, 's> {
    pub(super) top: TopLevel,
    /// Where the records outside heap dumps not yet read by [`TopLevel`] begin.
    top_from: u64,
    id_size: IdSize,
    /// The first `CLASS_DUMP` of each class, in the order met.
    pub(super) class_dumps: IdMap<ClassDump<'a>>,
    class_order: Vec<Id>,
    /// The object fields of class layouts, each named by its code in `refs`.
    pub(super) layouts: ObjectFieldLayouts<u32>,
    /// Classes of object arrays, and the last one added.
    array_classes: HashSet<Id, IdState>,
    last_array_class: Option<Id>,
    /// Classes of instances read without a layout.
    pub(super) deferred: HashSet<Id, IdState>,
    class_class_id: Option<Id>,
    /// The heap objects are in now (Android's `HEAP_DUMP_INFO`).
    heap: Option<String>,
    objects: ObjectColumns,
    pub(super) refs: RefColumns,
    roots: RootRows,
    pub(super) sink: &'s mut dyn BatchSink,
    pub(super) summary: Summary,
    /// The first sink error met inside a visit.
    pub(super) failed: Option<Error>,
}

impl<'a, 's> HeapPass<'a, 's> {
    pub(super) fn new(
        top: TopLevel,
        top_from: u64,
        id_size: IdSize,
        dump_len: usize,
        sink: &'s mut dyn BatchSink,
        summary: Summary,
    ) -> Self {
        let class_class_id = top
            .names
            .class_ids()
            .filter(|&id| top.names.raw_name(id) == Some(b"java/lang/Class"))
            .min();
        HeapPass {
            top,
            top_from,
            id_size,
            class_dumps: IdMap::default(),
            class_order: Vec::new(),
            layouts: ObjectFieldLayouts::for_dump(dump_len, MissingSuperclass::NoLayout),
            array_classes: HashSet::default(),
            last_array_class: None,
            deferred: HashSet::default(),
            class_class_id,
            heap: None,
            objects: ObjectColumns::default(),
            refs: RefColumns::default(),
            roots: RootRows::default(),
            sink,
            summary,
            failed: None,
        }
    }

    /// The layout of `class_id`; `None` when a class of its chain has no `CLASS_DUMP` (yet),
    /// the chain loops, or (with [`FieldNames::Known`]) a field name is not known yet (it may
    /// still come: the layout waits for the deferred pass).
    #[inline]
    pub(super) fn layout(&mut self, class_id: Id, names: FieldNames) -> Option<Layout> {
        let dumps = &self.class_dumps;
        let strings = &self.top.names;
        let refs = &mut self.refs;
        self.layouts.layout(
            class_id,
            self.id_size,
            dumps.len(),
            |id| dumps.get(&id).copied(),
            |name_id| match (strings.string(name_id), names) {
                (Some(name), _) => Some(refs.intern(name)),
                (None, FieldNames::Known) => None,
                (None, FieldNames::EmptyWhenMissing) => Some(refs.intern(b"")),
            },
        )
    }

    /// The references of instance `i` through the object fields of `layout`.
    #[inline]
    pub(super) fn instance_refs(&mut self, i: &InstanceDump<'_>, layout: Layout) {
        for f in self.layouts.fields(layout) {
            let to = read_id(self.id_size, i.data, f.offset as usize).unwrap_or(Id::NULL);
            if !to.is_null() {
                self.refs.push_field(i.object_id, to, f.tag);
            }
        }
    }

    #[inline]
    fn instance(&mut self, at: u64, i: &InstanceDump<'_>) {
        self.objects.push(ObjectRow {
            id: i.object_id,
            class_id: i.class_id,
            kind: ObjectKind::Instance,
            shallow_size: i.data.len() as u64,
            array_length: 0,
            element_type: None,
            offset: at,
        });
        match self.layout(i.class_id, FieldNames::Known) {
            Some(layout) => self.instance_refs(i, layout),
            None => {
                self.summary.instances_without_layout += 1;
                self.deferred.insert(i.class_id);
            }
        }
    }

    #[inline]
    fn object_array(&mut self, at: u64, a: &ObjectArrayDump<'_>) {
        if self.last_array_class != Some(a.array_class_id) {
            self.array_classes.insert(a.array_class_id);
            self.last_array_class = Some(a.array_class_id);
        }
        self.objects.push(ObjectRow {
            id: a.array_id,
            class_id: a.array_class_id,
            kind: ObjectKind::ObjectArray,
            shallow_size: a.elements.bytes().len() as u64,
            array_length: a.elements.len() as u32,
            element_type: None,
            offset: at,
        });
        for (index, to) in a.elements.iter().enumerate() {
            if !to.is_null() {
                self.refs.push_element(a.array_id, to, index as u32);
            }
        }
    }

    #[inline]
    fn primitive_array(&mut self, at: u64, a: &PrimitiveArrayDump<'_>) {
        let size = a.element_type.size(IdSize::Four).max(1);
        self.objects.push(ObjectRow {
            id: a.array_id,
            class_id: Id::NULL,
            kind: ObjectKind::PrimitiveArray,
            shallow_size: a.data.len() as u64,
            array_length: (a.data.len() / size) as u32,
            element_type: Some(a.element_type),
            offset: at,
        });
    }

    /// Sub-records other than instance and array dumps.
    fn sub_record(&mut self, s: SubRecord<'a>, at: u64) {
        match s {
            SubRecord::InstanceDump(i) => self.instance(at, &i),
            SubRecord::ObjectArrayDump(a) => self.object_array(at, &a),
            SubRecord::PrimitiveArrayDump(a) => self.primitive_array(at, &a),
            SubRecord::PrimitiveArrayNoData(a) => {
                let size = a.element_type.size(IdSize::Four) as u64;
                self.objects.push(ObjectRow {
                    id: a.array_id,
                    class_id: Id::NULL,
                    kind: ObjectKind::PrimitiveArray,
                    shallow_size: u64::from(a.length) * size,
                    array_length: a.length,
                    element_type: Some(a.element_type),
                    offset: at,
                });
            }
            SubRecord::ClassDump(c) => self.class_dump(c, at),
            SubRecord::Root(root) => self.roots.push(&root, self.heap.as_deref()),
            SubRecord::HeapDumpInfo(info) => {
                self.heap = self
                    .top
                    .names
                    .string(info.name_id)
                    .map(|b| lossy(b).into_owned());
                self.objects.set_heap(self.heap.clone());
            }
            _ => {}
        }
    }

    /// A class object's row and references; its dump is kept for the layouts (the first
    /// one, when a class is dumped twice).
    fn class_dump(&mut self, c: ClassDump<'a>, at: u64) {
        self.objects.push(ObjectRow {
            id: c.class_id,
            class_id: self.class_class_id.unwrap_or(Id::NULL),
            kind: ObjectKind::Class,
            shallow_size: 0,
            array_length: 0,
            element_type: None,
            offset: at,
        });
        for (to, name) in [
            (c.super_class_id, SUPER),
            (c.class_loader_id, LOADER),
            (c.signers_id, SIGNERS),
            (c.protection_domain_id, PROTECTION_DOMAIN),
        ] {
            if !to.is_null() {
                self.refs.push_field(c.class_id, to, name);
            }
        }
        for st in c.static_fields() {
            if let Value::Object(to) = st.value {
                if !to.is_null() {
                    let name = self
                        .refs
                        .intern(self.top.names.string(st.name_id).unwrap_or_default());
                    self.refs.push_field(c.class_id, to, name);
                }
            }
        }
        for cp in c.constant_pool() {
            if let Value::Object(to) = cp.value {
                if !to.is_null() {
                    let name = format!("<constant_pool[{}]>", cp.index);
                    let name = self.refs.intern(name.as_bytes());
                    self.refs.push_field(c.class_id, to, name);
                }
            }
        }
        if let std::collections::hash_map::Entry::Vacant(e) = self.class_dumps.entry(c.class_id) {
            e.insert(c);
            self.class_order.push(c.class_id);
        }
    }

    /// Sends full batches to the sink.
    #[inline]
    fn flush_full(&mut self) {
        if self.failed.is_some() {
            return;
        }
        if self.objects.len() >= BATCH_ROWS {
            let r = self.objects.flush(self.sink);
            self.sent(table::OBJECTS, r);
        }
        if self.refs.len() >= BATCH_ROWS {
            let r = self.refs.flush(self.sink);
            self.sent(table::REFERENCES, r);
        }
        if self.roots.len() >= BATCH_ROWS {
            let r = self.roots.flush(self.sink);
            self.sent(table::ROOTS, r);
        }
    }

    /// Counts the rows a flush sent to `table`, or keeps its error.
    #[cold]
    pub(super) fn sent(&mut self, table: &'static str, r: Result<u64>) {
        match r {
            Ok(n) => self.summary.add_rows(table, n),
            Err(e) => {
                self.failed.get_or_insert(e);
            }
        }
    }

    /// Sends the rows of `objects`, `references` and `roots` not sent yet.
    pub(super) fn flush(&mut self) -> Result<()> {
        let n = self.objects.flush(self.sink)?;
        self.summary.add_rows(table::OBJECTS, n);
        let n = self.refs.flush(self.sink)?;
        self.summary.add_rows(table::REFERENCES, n);
        let n = self.roots.flush(self.sink)?;
        self.summary.add_rows(table::ROOTS, n);
        Ok(())
    }

    /// Readies the deferred pass: every layout again, now that all class dumps are known.
    /// Whether any instance read without a layout has one now (else the pass is not
    /// needed).
    pub(super) fn defer(&mut self) -> bool {
        self.layouts.clear();
        let deferred: Vec<Id> = self.deferred.iter().copied().collect();
        let mut any = false;
        for id in deferred {
            any |= self.layout(id, FieldNames::EmptyWhenMissing).is_some();
        }
        any
    }

    /// Classes objects name that the dump never describes (no `LOAD CLASS`, no
    /// `CLASS_DUMP`): listed in `classes` at the end, as the histogram names them.
    fn unknown_classes(&self) -> Vec<Id> {
        let known = |id: &Id| {
            id.is_null()
                || self.top.load_classes.contains_key(id)
                || self.class_dumps.contains_key(id)
        };
        // An instance of a class without a dump has no layout, so its class is deferred.
        let mut unknown: Vec<Id> = self
            .deferred
            .iter()
            .chain(self.array_classes.iter())
            .copied()
            .filter(|id| !known(id))
            .collect();
        unknown.sort_unstable();
        unknown.dedup();
        unknown
    }

    /// Writes the small tables (`strings`, `stack_traces`, `classes`, `stack_frames`) and
    /// hands back the summary.
    pub(super) fn finish(mut self) -> Result<Summary> {
        self.top.finish(self.sink, &mut self.summary)?;
        self.write_classes()?;
        self.top.write_frames(self.sink, &mut self.summary)?;
        Ok(self.summary)
    }

    /// Writes the `classes` rows: classes with a `CLASS_DUMP` in the order met, then those
    /// with only a `LOAD_CLASS`, then the classes objects name that the dump never describes.
    fn write_classes(&mut self) -> Result<()> {
        let mut ids: Vec<Id> = self.class_order.clone();
        let mut extra: Vec<Id> = self
            .top
            .load_classes
            .keys()
            .copied()
            .filter(|id| !self.class_dumps.contains_key(id))
            .collect();
        extra.sort_unstable();
        ids.extend(extra);
        ids.extend(self.unknown_classes());
        let mut rows = ClassRows::default();
        for id in ids {
            let dump = self.class_dumps.get(&id);
            rows.class_id.append_value(id.get());
            rows.name.append_value(self.top.names.java_name(id));
            rows.super_id.append_option(
                dump.map(|c| c.super_class_id)
                    .filter(|s| !s.is_null())
                    .map(Id::get),
            );
            rows.loader_id.append_option(
                dump.map(|c| c.class_loader_id)
                    .filter(|s| !s.is_null())
                    .map(Id::get),
            );
            rows.instance_size
                .append_option(dump.map(|c| c.instance_size));
            rows.field_count
                .append_option(dump.map(|c| c.instance_fields_len));
            rows.static_field_count
                .append_option(dump.map(|c| c.static_fields_len));
            rows.class_serial
                .append_option(self.top.load_classes.get(&id).map(|s| s.0));
            rows.len += 1;
            let n = rows.flush_if_full(self.sink)?;
            self.summary.add_rows(table::CLASSES, n);
        }
        let n = rows.flush(self.sink)?;
        self.summary.add_rows(table::CLASSES, n);
        Ok(())
    }
}

impl<'a> Visit<'a> for HeapPass<'a, '_> {
    fn event(&mut self, event: Event<'a>) {
        match event {
            Event::SubRecord(at, s) => {
                self.sub_record(s, at);
                self.flush_full();
            }
            Event::Record(rh, record) if rh.offset >= self.top_from && self.failed.is_none() => {
                if let Err(e) = self.top.record(record, self.sink, &mut self.summary) {
                    self.failed.get_or_insert(e);
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        self.instance(at, &dump);
        self.flush_full();
    }

    #[inline]
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.object_array(at, &dump);
        self.flush_full();
    }

    #[inline]
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.primitive_array(at, &dump);
        self.flush_full();
    }
}

impl<'a> Pass<'a> for HeapPass<'a, '_> {
    fn failed(&mut self) -> Option<Error> {
        self.failed.take()
    }
}
