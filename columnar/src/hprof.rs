//! HPROF binary heap dumps as tables: `classes`, `objects`, `references`, `roots`, `strings`,
//! `stack_frames` and `stack_traces` (schemas in the [crate docs](crate#hprof-tables)).
//!
//! Two streaming passes over the dump's bytes (a memory map is the usual source): the first
//! reads strings, classes, stack frames and traces and GC roots; the second writes one row per
//! object and one per reference. Memory holds the class dumps and class names, never objects.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{
    Int32Builder, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use hprof::binary::heap_dump::{
    ClassDump, GcRoot, InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord,
};
use hprof::binary::histogram::ClassNames;
use hprof::binary::incremental::{Event, Visit, visit_sub_records};
use hprof::binary::records::{Frame, HeapDump, Record, Records};
use hprof::binary::types::{BasicType, Id, IdSize, Value};

use crate::BATCH_ROWS;
use crate::rows::{Rows, plain, rows};
use crate::sink::BatchSink;
use crate::{Error, Result};

/// Hashes object and class ids: one multiply by a per-map random odd key, folded. Dumps are
/// untrusted, so the key is drawn per map (from std's random hasher keys): a file cannot pick
/// ids that share a bucket.
#[derive(Clone, Copy)]
struct IdState(u64);

impl Default for IdState {
    fn default() -> Self {
        use std::hash::BuildHasher;
        IdState(std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1)
    }
}

impl std::hash::BuildHasher for IdState {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher {
            key: self.0,
            hash: 0,
        }
    }
}

/// The hasher of [`IdState`].
struct IdHasher {
    key: u64,
    hash: u64,
}

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.hash
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        let m = u128::from(n ^ self.hash).wrapping_mul(u128::from(self.key));
        self.hash = (m as u64) ^ ((m >> 64) as u64);
    }
}

type IdMap<V> = HashMap<Id, V, IdState>;

/// Table names, as the sink receives them.
pub mod table {
    /// One row per class.
    pub const CLASSES: &str = "classes";
    /// One row per heap object (instances, arrays, class objects).
    pub const OBJECTS: &str = "objects";
    /// One row per non-null reference.
    pub const REFERENCES: &str = "references";
    /// One row per GC root sub-record.
    pub const ROOTS: &str = "roots";
    /// One row per `UTF8` record.
    pub const STRINGS: &str = "strings";
    /// One row per `FRAME` record.
    pub const STACK_FRAMES: &str = "stack_frames";
    /// One row per frame of each `TRACE` record.
    pub const STACK_TRACES: &str = "stack_traces";
}

fn field(name: &str, ty: DataType, nullable: bool) -> Field {
    Field::new(name, ty, nullable)
}

/// The `classes` table's schema.
pub fn classes_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("class_id", DataType::UInt64, false),
        field("name", DataType::Utf8, false),
        field("super_id", DataType::UInt64, true),
        field("loader_id", DataType::UInt64, true),
        field("instance_size", DataType::UInt32, true),
        field("field_count", DataType::UInt16, true),
        field("static_field_count", DataType::UInt16, true),
        field("class_serial", DataType::UInt32, true),
    ]))
}

/// The `objects` table's schema.
pub fn objects_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("id", DataType::UInt64, false),
        field("class_id", DataType::UInt64, true),
        field("kind", DataType::Utf8, false),
        field("shallow_size", DataType::UInt64, false),
        field("array_length", DataType::UInt32, true),
        field("element_type", DataType::Utf8, true),
        field("heap", DataType::Utf8, true),
        field("offset", DataType::UInt64, false),
    ]))
}

/// The `references` table's schema.
pub fn references_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("from_id", DataType::UInt64, false),
        field("to_id", DataType::UInt64, false),
        field("field", DataType::Utf8, true),
        field("array_index", DataType::UInt32, true),
    ]))
}

/// The `roots` table's schema.
pub fn roots_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("object_id", DataType::UInt64, false),
        field("root_kind", DataType::Utf8, false),
        field("thread_serial", DataType::UInt32, true),
        field("frame", DataType::Int32, true),
        field("jni_global_ref_id", DataType::UInt64, true),
        field("heap", DataType::Utf8, true),
    ]))
}

/// The `strings` table's schema.
pub fn strings_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("id", DataType::UInt64, false),
        field("value", DataType::Utf8, false),
    ]))
}

/// The `stack_frames` table's schema.
pub fn stack_frames_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("frame_id", DataType::UInt64, false),
        field("method_name", DataType::Utf8, true),
        field("method_signature", DataType::Utf8, true),
        field("source_file", DataType::Utf8, true),
        field("class_serial", DataType::UInt32, false),
        field("class_name", DataType::Utf8, true),
        field("line", DataType::Int32, false),
    ]))
}

/// The `stack_traces` table's schema.
pub fn stack_traces_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("stack_trace_serial", DataType::UInt32, false),
        field("thread_serial", DataType::UInt32, false),
        field("depth", DataType::UInt32, false),
        field("frame_id", DataType::UInt64, false),
    ]))
}

/// The `root_kind` of a GC root: the HPROF name of its sub-record in snake case
/// (`ROOT_JAVA_FRAME` → `java_frame`).
pub fn root_kind(root: &GcRoot) -> &'static str {
    match root {
        GcRoot::Unknown { .. } => "unknown",
        GcRoot::JniGlobal { .. } => "jni_global",
        GcRoot::JniLocal { .. } => "jni_local",
        GcRoot::JavaFrame { .. } => "java_frame",
        GcRoot::NativeStack { .. } => "native_stack",
        GcRoot::StickyClass { .. } => "sticky_class",
        GcRoot::ThreadBlock { .. } => "thread_block",
        GcRoot::MonitorUsed { .. } => "monitor_used",
        GcRoot::ThreadObject { .. } => "thread_object",
        GcRoot::InternedString { .. } => "interned_string",
        GcRoot::Finalizing { .. } => "finalizing",
        GcRoot::Debugger { .. } => "debugger",
        GcRoot::ReferenceCleanup { .. } => "reference_cleanup",
        GcRoot::VmInternal { .. } => "vm_internal",
        GcRoot::JniMonitor { .. } => "jni_monitor",
        GcRoot::Unreachable { .. } => "unreachable",
        #[allow(unreachable_patterns)] // GcRoot may grow
        _ => "other",
    }
}

/// What an export wrote, and where reading stopped when the dump is cut off or damaged.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rows per table.
    pub rows: HashMap<&'static str, u64>,
    /// The decoding error that ended the export early: everything before it was written.
    pub stopped: Option<hprof::binary::error::Error>,
    /// Instances whose class has no usable `CLASS_DUMP` (their references are not written).
    pub instances_without_layout: u64,
    /// Whether the dump ends with a heap dump but without `HEAP DUMP END` after segments.
    pub missing_heap_dump_end: bool,
}

impl Summary {
    /// Whether everything the dump holds was written.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none() && !self.missing_heap_dump_end
    }
}

/// Writes the tables of the dump in `data` to `sink`; `progress` is called now and then with
/// the number of bytes read so far (of `2 × data.len()`: the export makes two passes).
///
/// A dump cut off or damaged mid-way is not an error: every table gets the rows before the
/// damage, and [`Summary::stopped`] says what stopped the export and where.
///
/// # Errors
/// The sink's errors, and a file that is not an HPROF dump at all (its header does not parse).
pub fn export(
    data: &[u8],
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary> {
    let (header, _) = Records::new(data).map_err(Error::Hprof)?;
    let id_size = header.id_size;
    for (name, schema) in [
        (table::CLASSES, classes_schema()),
        (table::OBJECTS, objects_schema()),
        (table::REFERENCES, references_schema()),
        (table::ROOTS, roots_schema()),
        (table::STRINGS, strings_schema()),
        (table::STACK_FRAMES, stack_frames_schema()),
        (table::STACK_TRACES, stack_traces_schema()),
    ] {
        sink.begin(name, schema)?;
    }
    let mut summary = Summary::default();
    let first = first_pass(data, sink, progress, &mut summary)?;
    let mut second = SecondPass::new(&first, id_size);
    second.run(data, sink, progress, &mut summary)?;
    let unknown = std::mem::take(&mut second.unknown_classes);
    drop(second);
    write_classes(&first, &unknown, sink, &mut summary)?;
    write_frames(&first, sink, &mut summary)?;
    Ok(summary)
}

/// What a pass does with what [`walk`] finds: records outside heap dumps through
/// [`Pass::record`], heap-dump sub-records through `hprof`'s [`Visit`] (instance and array
/// dumps by their own methods, the others as [`Event::SubRecord`]). A sink error met inside
/// a visit is kept and handed back by [`Pass::failed`].
trait Pass<'a>: Visit<'a> {
    /// A record outside heap dumps.
    fn record(&mut self, record: Record<'a>);
    /// The first sink error, if any (the walk stops there).
    fn failed(&mut self) -> Option<Error>;
}

/// How a walk ended.
#[derive(Default)]
struct Walked {
    stopped: Option<hprof::binary::error::Error>,
    saw_segment: bool,
    saw_end: bool,
}

/// Walks every record and heap-dump sub-record of `data` into `pass`. A record cut off by the
/// end of the file (or declaring more bytes than the file has) that is a heap dump or segment
/// is still read sub-record by sub-record up to the damage, so a dump cut mid-segment gives
/// every object before the cut. `progress` gets the offset of each record read.
fn walk<'a, P: Pass<'a>>(
    data: &'a [u8],
    progress: &mut dyn FnMut(u64),
    pass: &mut P,
) -> Result<Walked> {
    let (header, records) = Records::new(data).map_err(Error::Hprof)?;
    let mut walked = Walked::default();
    let mut next_record = None;
    let mut next_progress = 0u64;
    let check = |pass: &mut P| pass.failed().map_or(Ok(()), Err);
    for r in records {
        let (rh, record) = match r {
            Ok(r) => r,
            Err(e) => {
                walked.stopped = Some(e);
                break;
            }
        };
        next_record = Some(rh.body_offset() + u64::from(rh.length));
        if rh.offset >= next_progress {
            progress(rh.offset);
            next_progress = rh.offset + (16 << 20);
        }
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                walked.saw_segment |= rh.tag == hprof::binary::records::tag::HEAP_DUMP_SEGMENT;
                let visited = visit_sub_records(&d, pass);
                check(pass)?;
                if let Err(e) = visited {
                    walked.stopped = Some(e);
                    return Ok(walked);
                }
            }
            Record::HeapDumpEnd => walked.saw_end = true,
            other => {
                pass.record(other);
                check(pass)?;
            }
        }
    }
    // Salvage the sub-records of a heap dump record the file cuts short.
    let header_len = data.len() - records_len(data);
    let at = next_record.unwrap_or(header_len as u64);
    let cut = walked.stopped.is_some()
        && data.get(at as usize).is_some_and(|&t| {
            t == hprof::binary::records::tag::HEAP_DUMP
                || t == hprof::binary::records::tag::HEAP_DUMP_SEGMENT
        });
    if cut {
        let body_at = at as usize + hprof::binary::records::RECORD_HEADER_LEN;
        let cut_dump = HeapDump {
            body: data.get(body_at..).unwrap_or_default(),
            offset: body_at as u64,
            id_size: header.id_size,
        };
        // Everything before the damage is visited; the damage itself was reported above.
        let _ = visit_sub_records(&cut_dump, pass);
        check(pass)?;
    }
    Ok(walked)
}

/// The length of `data` after its file header.
fn records_len(data: &[u8]) -> usize {
    match hprof::binary::header::Header::parse(data) {
        Ok((_, len)) => data.len().saturating_sub(len),
        Err(_) => 0,
    }
}

/// What the first pass keeps: names, class dumps, load classes, frames.
struct FirstPass<'a> {
    names: ClassNames,
    class_dumps: IdMap<ClassDump<'a>>,
    class_order: Vec<Id>,
    load_classes: IdMap<u32>,
    class_by_serial: HashMap<u32, Id>,
    frames: Vec<Frame>,
}

fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The first pass's visitor: names, class dumps, frames and roots; objects are skipped.
struct FirstVisitor<'s, 'a> {
    first: FirstPass<'a>,
    sink: &'s mut dyn BatchSink,
    failed: Option<Error>,
    strings: StringsRows,
    traces: TraceRows,
    roots: RootRows,
    heap: Option<String>,
    rows: [u64; 3],
}

impl<'a> FirstVisitor<'_, 'a> {
    fn keep(&mut self, r: Result<u64>, table: usize) {
        match r {
            Ok(n) => {
                if let Some(rows) = self.rows.get_mut(table) {
                    *rows += n;
                }
            }
            Err(e) => {
                self.failed.get_or_insert(e);
            }
        }
    }
}

impl<'a> Visit<'a> for FirstVisitor<'_, 'a> {
    fn event(&mut self, event: Event<'a>) {
        let Event::SubRecord(_, s) = event else {
            return;
        };
        match s {
            SubRecord::ClassDump(c) if !self.first.class_dumps.contains_key(&c.class_id) => {
                self.first.class_dumps.insert(c.class_id, c);
                self.first.class_order.push(c.class_id);
            }
            SubRecord::Root(root) => {
                self.roots.push(&root, self.heap.as_deref());
                let r = self.roots.flush_if_full(self.sink);
                self.keep(r, 2);
            }
            SubRecord::HeapDumpInfo(info) => {
                self.heap = self
                    .first
                    .names
                    .string(info.name_id)
                    .map(|b| lossy(b).into_owned());
            }
            _ => {}
        }
    }

    #[inline]
    fn instance_dump(&mut self, _: u64, _: InstanceDump<'a>) {}

    #[inline]
    fn object_array_dump(&mut self, _: u64, _: ObjectArrayDump<'a>) {}

    #[inline]
    fn primitive_array_dump(&mut self, _: u64, _: PrimitiveArrayDump<'a>) {}
}

impl<'a> Pass<'a> for FirstVisitor<'_, 'a> {
    fn record(&mut self, record: Record<'a>) {
        match record {
            Record::Utf8(u) => {
                self.first.names.add_string(u.id, u.bytes);
                self.strings.push(u.id, &lossy(u.bytes));
                let r = self.strings.flush_if_full(self.sink);
                self.keep(r, 0);
            }
            Record::LoadClass(l) => {
                self.first.names.add_class(l.class_id, l.name_id);
                self.first.load_classes.insert(l.class_id, l.class_serial);
                self.first
                    .class_by_serial
                    .insert(l.class_serial, l.class_id);
            }
            Record::Frame(f) => self.first.frames.push(f),
            Record::Trace(t) => {
                for (depth, frame_id) in t.frame_ids.iter().enumerate() {
                    self.traces.push(
                        t.stack_trace_serial,
                        t.thread_serial,
                        depth as u32,
                        frame_id,
                    );
                }
                let r = self.traces.flush_if_full(self.sink);
                self.keep(r, 1);
            }
            _ => {}
        }
    }

    fn failed(&mut self) -> Option<Error> {
        self.failed.take()
    }
}

fn first_pass<'a>(
    data: &'a [u8],
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
    summary: &mut Summary,
) -> Result<FirstPass<'a>> {
    let mut v = FirstVisitor {
        first: FirstPass {
            names: ClassNames::new(),
            class_dumps: IdMap::default(),
            class_order: Vec::new(),
            load_classes: IdMap::default(),
            class_by_serial: HashMap::new(),
            frames: Vec::new(),
        },
        sink,
        failed: None,
        strings: StringsRows::default(),
        traces: TraceRows::default(),
        roots: RootRows::default(),
        heap: None,
        rows: [0; 3],
    };
    let walked = walk(data, progress, &mut v)?;
    summary.missing_heap_dump_end =
        walked.stopped.is_none() && walked.saw_segment && !walked.saw_end;
    summary.stopped = walked.stopped;
    let [strings, traces, roots] = v.rows;
    *summary.rows.entry(table::STRINGS).or_default() += strings + v.strings.flush(v.sink)?;
    *summary.rows.entry(table::STACK_TRACES).or_default() += traces + v.traces.flush(v.sink)?;
    *summary.rows.entry(table::ROOTS).or_default() += roots + v.roots.flush(v.sink)?;
    Ok(v.first)
}

/// The big-endian id at `at` in `bytes`, if `bytes` holds it.
#[inline]
fn read_id(id_size: IdSize, bytes: &[u8], at: usize) -> Option<Id> {
    match id_size {
        IdSize::Four => {
            let b = bytes.get(at..at.checked_add(4)?)?;
            Some(u64::from(u32::from_be_bytes(b.try_into().ok()?)))
        }
        IdSize::Eight => {
            let b = bytes.get(at..at.checked_add(8)?)?;
            Some(u64::from_be_bytes(b.try_into().ok()?))
        }
    }
}

/// An object-typed field of a class layout: where it is in the instance data, and its name.
#[derive(Clone, Copy)]
struct RefField {
    offset: u32,
    name: u32,
}

struct SecondPass<'f, 'a> {
    first: &'f FirstPass<'a>,
    id_size: IdSize,
    /// Per class: where the object fields of its full layout are in `fields` (`None`: no
    /// usable layout).
    classes: IdMap<Option<(u32, u32)>>,
    /// The object fields of every layout met, one layout after another.
    fields: Vec<RefField>,
    class_class_id: Option<Id>,
    unknown_classes: HashSet<Id>,
    objects: ObjectColumns,
    refs: RefColumns,
}

impl<'f, 'a> SecondPass<'f, 'a> {
    fn new(first: &'f FirstPass<'a>, id_size: IdSize) -> Self {
        let class_class_id = first
            .names
            .class_ids()
            .filter(|&id| first.names.raw_name(id) == Some(b"java/lang/Class"))
            .min();
        SecondPass {
            first,
            id_size,
            classes: IdMap::default(),
            fields: Vec::new(),
            class_class_id,
            unknown_classes: HashSet::new(),
            objects: ObjectColumns::default(),
            refs: RefColumns::default(),
        }
    }

    /// The object fields of `class_id`'s layout along its superclass chain; `None` when a
    /// class of the chain has no `CLASS_DUMP` or the chain loops.
    fn layout(&mut self, class_id: Id) -> Option<(u32, u32)> {
        if let Some(&l) = self.classes.get(&class_id) {
            return l;
        }
        let start = self.fields.len();
        let mut offset = 0usize;
        let mut id = class_id;
        let mut steps = 0usize;
        let mut ok = true;
        while id != 0 {
            steps += 1;
            let Some(c) = self.first.class_dumps.get(&id) else {
                ok = false;
                break;
            };
            if steps > self.first.class_dumps.len() {
                ok = false;
                break;
            }
            for f in c.instance_fields() {
                if f.field_type == BasicType::Object {
                    let name = self
                        .refs
                        .intern(self.first.names.string(f.name_id).unwrap_or_default());
                    self.fields.push(RefField {
                        offset: u32::try_from(offset).unwrap_or(u32::MAX),
                        name,
                    });
                }
                offset = offset.saturating_add(f.field_type.size(self.id_size));
            }
            id = c.super_class_id;
        }
        let end = self.fields.len();
        if !ok {
            self.fields.truncate(start);
        }
        let range = u32::try_from(start).ok().zip(u32::try_from(end).ok());
        let layout = range.filter(|_| ok);
        let known = self.first.load_classes.contains_key(&class_id)
            || self.first.class_dumps.contains_key(&class_id);
        if class_id != 0 && !known {
            self.unknown_classes.insert(class_id);
        }
        self.classes.insert(class_id, layout);
        layout
    }

    /// Notes a class id an object names (a class the dump never describes is listed in
    /// `classes` at the end, as the histogram names it).
    fn note_class(&mut self, class_id: Id) {
        if !self.classes.contains_key(&class_id) {
            let _ = self.layout(class_id);
        }
    }

    fn run(
        &mut self,
        data: &'a [u8],
        sink: &mut dyn BatchSink,
        progress: &mut dyn FnMut(u64),
        summary: &mut Summary,
    ) -> Result<()> {
        let total = data.len() as u64;
        let mut v = SecondVisitor {
            pass: self,
            sink,
            summary,
            failed: None,
            objects: 0,
            refs: 0,
        };
        walk(data, &mut |at| progress(total + at), &mut v)?;
        let objects = v.objects + v.pass.objects.flush(v.sink)?;
        let refs = v.refs + v.pass.refs.flush(v.sink)?;
        *v.summary.rows.entry(table::OBJECTS).or_default() += objects;
        *v.summary.rows.entry(table::REFERENCES).or_default() += refs;
        Ok(())
    }

    #[inline]
    fn instance(&mut self, at: u64, i: &InstanceDump<'_>, summary: &mut Summary) {
        self.objects.push(
            i.object_id,
            i.class_id,
            INSTANCE,
            i.data.len() as u64,
            0,
            None,
            at,
        );
        match self.layout(i.class_id) {
            Some((start, end)) => {
                let fields = self
                    .fields
                    .get(start as usize..end as usize)
                    .unwrap_or_default();
                for f in fields {
                    let to = read_id(self.id_size, i.data, f.offset as usize).unwrap_or(0);
                    if to != 0 {
                        self.refs.push_field(i.object_id, to, f.name);
                    }
                }
            }
            None => summary.instances_without_layout += 1,
        }
    }

    #[inline]
    fn object_array(&mut self, at: u64, a: &ObjectArrayDump<'_>) {
        self.note_class(a.array_class_id);
        self.objects.push(
            a.array_id,
            a.array_class_id,
            OBJECT_ARRAY,
            a.elements.bytes().len() as u64,
            a.elements.len() as u32,
            None,
            at,
        );
        for (index, to) in a.elements.iter().enumerate() {
            if to != 0 {
                self.refs.push_element(a.array_id, to, index as u32);
            }
        }
    }

    #[inline]
    fn primitive_array(&mut self, at: u64, a: &PrimitiveArrayDump<'_>) {
        let size = a.element_type.size(IdSize::Four).max(1);
        self.objects.push(
            a.array_id,
            0,
            PRIMITIVE_ARRAY,
            a.data.len() as u64,
            (a.data.len() / size) as u32,
            Some(a.element_type),
            at,
        );
    }

    /// Sub-records other than instance and array dumps.
    fn sub_record(&mut self, s: &SubRecord<'_>, at: u64, summary: &mut Summary) {
        match s {
            SubRecord::InstanceDump(i) => self.instance(at, i, summary),
            SubRecord::ObjectArrayDump(a) => self.object_array(at, a),
            SubRecord::PrimitiveArrayDump(a) => self.primitive_array(at, a),
            SubRecord::PrimitiveArrayNoData(a) => {
                let size = a.element_type.size(IdSize::Four) as u64;
                self.objects.push(
                    a.array_id,
                    0,
                    PRIMITIVE_ARRAY,
                    u64::from(a.length) * size,
                    a.length,
                    Some(a.element_type),
                    at,
                );
            }
            SubRecord::ClassDump(c) => {
                self.objects.push(
                    c.class_id,
                    self.class_class_id.unwrap_or(0),
                    CLASS,
                    0,
                    0,
                    None,
                    at,
                );
                for (to, name) in [
                    (c.super_class_id, SUPER),
                    (c.class_loader_id, LOADER),
                    (c.signers_id, SIGNERS),
                    (c.protection_domain_id, PROTECTION_DOMAIN),
                ] {
                    if to != 0 {
                        self.refs.push_field(c.class_id, to, name);
                    }
                }
                for st in c.static_fields() {
                    if let Value::Object(to) = st.value {
                        if to != 0 {
                            let name = self
                                .refs
                                .intern(self.first.names.string(st.name_id).unwrap_or_default());
                            self.refs.push_field(c.class_id, to, name);
                        }
                    }
                }
                for cp in c.constant_pool() {
                    if let Value::Object(to) = cp.value {
                        if to != 0 {
                            let name = format!("<constant_pool[{}]>", cp.index);
                            let name = self.refs.intern(name.as_bytes());
                            self.refs.push_field(c.class_id, to, name);
                        }
                    }
                }
            }
            SubRecord::HeapDumpInfo(info) => {
                let name = self
                    .first
                    .names
                    .string(info.name_id)
                    .map(|b| lossy(b).into_owned());
                self.objects.set_heap(name);
            }
            _ => {}
        }
    }
}

/// The second pass's visitor: one row per object and per reference.
struct SecondVisitor<'p, 'f, 'a, 's> {
    pass: &'p mut SecondPass<'f, 'a>,
    sink: &'s mut dyn BatchSink,
    summary: &'p mut Summary,
    failed: Option<Error>,
    objects: u64,
    refs: u64,
}

impl SecondVisitor<'_, '_, '_, '_> {
    /// Sends full batches to the sink.
    #[inline]
    fn flush_full(&mut self) {
        if self.pass.objects.len() >= BATCH_ROWS {
            match self.pass.objects.flush(self.sink) {
                Ok(n) => self.objects += n,
                Err(e) => {
                    self.failed.get_or_insert(e);
                }
            }
        }
        if self.pass.refs.len() >= BATCH_ROWS {
            match self.pass.refs.flush(self.sink) {
                Ok(n) => self.refs += n,
                Err(e) => {
                    self.failed.get_or_insert(e);
                }
            }
        }
    }
}

impl<'a> Visit<'a> for SecondVisitor<'_, '_, 'a, '_> {
    fn event(&mut self, event: Event<'a>) {
        if let Event::SubRecord(at, s) = event {
            self.pass.sub_record(&s, at, self.summary);
            self.flush_full();
        }
    }

    #[inline]
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        self.pass.instance(at, &dump, self.summary);
        self.flush_full();
    }

    #[inline]
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.pass.object_array(at, &dump);
        self.flush_full();
    }

    #[inline]
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.pass.primitive_array(at, &dump);
        self.flush_full();
    }
}

impl<'a> Pass<'a> for SecondVisitor<'_, '_, 'a, '_> {
    fn record(&mut self, _: Record<'a>) {}

    fn failed(&mut self) -> Option<Error> {
        self.failed.take()
    }
}

fn write_classes(
    first: &FirstPass<'_>,
    unknown: &HashSet<Id>,
    sink: &mut dyn BatchSink,
    summary: &mut Summary,
) -> Result<()> {
    let mut rows = ClassRows::default();
    let mut ids: Vec<Id> = first.class_order.clone();
    let mut extra: Vec<Id> = first
        .load_classes
        .keys()
        .copied()
        .filter(|id| !first.class_dumps.contains_key(id))
        .collect();
    extra.sort_unstable();
    ids.extend(extra);
    let mut unknown: Vec<Id> = unknown.iter().copied().collect();
    unknown.sort_unstable();
    ids.extend(unknown);
    for id in ids {
        let dump = first.class_dumps.get(&id);
        rows.class_id.append_value(id);
        rows.name.append_value(first.names.java_name(id));
        rows.super_id
            .append_option(dump.map(|c| c.super_class_id).filter(|&s| s != 0));
        rows.loader_id
            .append_option(dump.map(|c| c.class_loader_id).filter(|&s| s != 0));
        rows.instance_size
            .append_option(dump.map(|c| c.instance_size));
        rows.field_count
            .append_option(dump.map(|c| c.instance_fields_len));
        rows.static_field_count
            .append_option(dump.map(|c| c.static_fields_len));
        rows.class_serial
            .append_option(first.load_classes.get(&id).copied());
        rows.len += 1;
        *summary.rows.entry(table::CLASSES).or_default() += rows.flush_if_full(sink)?;
    }
    *summary.rows.entry(table::CLASSES).or_default() += rows.flush(sink)?;
    Ok(())
}

fn write_frames(
    first: &FirstPass<'_>,
    sink: &mut dyn BatchSink,
    summary: &mut Summary,
) -> Result<()> {
    let mut rows = FrameRows::default();
    let string = |id: Id| first.names.string(id).map(|b| lossy(b).into_owned());
    for f in &first.frames {
        rows.frame_id.append_value(f.frame_id);
        rows.method_name.append_option(string(f.method_name_id));
        rows.method_signature
            .append_option(string(f.method_signature_id));
        rows.source_file.append_option(string(f.source_file_id));
        rows.class_serial.append_value(f.class_serial);
        rows.class_name.append_option(
            first
                .class_by_serial
                .get(&f.class_serial)
                .map(|&id| first.names.java_name(id)),
        );
        rows.line.append_value(f.line);
        rows.len += 1;
        *summary.rows.entry(table::STACK_FRAMES).or_default() += rows.flush_if_full(sink)?;
    }
    *summary.rows.entry(table::STACK_FRAMES).or_default() += rows.flush(sink)?;
    Ok(())
}

rows!(ClassRows, table::CLASSES, classes_schema(), {
    class_id: UInt64Builder,
    name: StringBuilder,
    super_id: UInt64Builder,
    loader_id: UInt64Builder,
    instance_size: UInt32Builder,
    field_count: UInt16Builder,
    static_field_count: UInt16Builder,
    class_serial: UInt32Builder,
});

/// `objects.kind`, by code.
const KINDS: [&str; 4] = ["instance", "object_array", "primitive_array", "class"];
const INSTANCE: u8 = 0;
const OBJECT_ARRAY: u8 = 1;
const PRIMITIVE_ARRAY: u8 = 2;
const CLASS: u8 = 3;

/// No heap name, no element type, no field name: a null string.
const NO_NAME: u32 = u32::MAX;

/// The columns of `objects`, one vector each; `class_id`, `array_length` and `element_type`
/// are null by `kind` (so no validity is kept per row), `heap` by code.
struct ObjectColumns {
    id: Vec<u64>,
    class_id: Vec<u64>,
    kind: Vec<u8>,
    shallow_size: Vec<u64>,
    array_length: Vec<u32>,
    /// Index in [`BasicType::ALL`], [`NO_NAME`] when not a primitive array.
    element_type: Vec<u8>,
    heap: Vec<u32>,
    offset: Vec<u64>,
    /// Heap names (Android's `HEAP_DUMP_INFO`), by code.
    heap_names: Vec<String>,
    /// The heap objects are in now.
    current_heap: u32,
}

impl Default for ObjectColumns {
    fn default() -> Self {
        ObjectColumns {
            id: Vec::new(),
            class_id: Vec::new(),
            kind: Vec::new(),
            shallow_size: Vec::new(),
            array_length: Vec::new(),
            element_type: Vec::new(),
            heap: Vec::new(),
            offset: Vec::new(),
            heap_names: Vec::new(),
            current_heap: NO_NAME,
        }
    }
}

impl ObjectColumns {
    /// Objects after this are in heap `name` (`None`: no heap name).
    fn set_heap(&mut self, name: Option<String>) {
        self.current_heap = match name {
            None => NO_NAME,
            Some(name) => match self.heap_names.iter().position(|h| *h == name) {
                Some(i) => i as u32,
                None => {
                    self.heap_names.push(name);
                    (self.heap_names.len() - 1) as u32
                }
            },
        };
    }

    /// One row; `array_length` and `element_type` are ignored unless `kind` says an array.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        id: Id,
        class_id: Id,
        kind: u8,
        shallow_size: u64,
        array_length: u32,
        element_type: Option<BasicType>,
        offset: u64,
    ) {
        self.id.push(id);
        self.class_id.push(class_id);
        self.kind.push(kind);
        self.shallow_size.push(shallow_size);
        self.array_length.push(array_length);
        self.element_type.push(
            element_type
                .and_then(|t| BasicType::ALL.iter().position(|&a| a == t))
                .map_or(u8::MAX, |i| i as u8),
        );
        self.heap.push(self.current_heap);
        self.offset.push(offset);
    }
}

fn take<T>(v: &mut Vec<T>) -> Vec<T> {
    std::mem::replace(v, Vec::with_capacity(BATCH_ROWS))
}

impl Rows for ObjectColumns {
    const TABLE: &'static str = table::OBJECTS;
    fn schema() -> SchemaRef {
        objects_schema()
    }
    fn len(&self) -> usize {
        self.id.len()
    }
    fn reset_len(&mut self) {}
    fn columns(&mut self) -> Result<Vec<ArrayRef>> {
        let kind = take(&mut self.kind);
        let element_names = BasicType::ALL.map(BasicType::java_name);
        let heap_names: Vec<&str> = self.heap_names.iter().map(String::as_str).collect();
        let class_id = take(&mut self.class_id);
        // Null for primitive arrays, and for class objects when the dump has no
        // `java.lang.Class` (their class id is pushed as 0).
        let class_id_nulls =
            plain::nulls(class_id.len(), |i| match (kind.get(i), class_id.get(i)) {
                (Some(&PRIMITIVE_ARRAY), _) | (Some(&CLASS), Some(&0)) => false,
                (Some(_), Some(_)) => true,
                _ => false,
            });
        let array_length_nulls =
            plain::nulls_of(&kind, |k| matches!(k, OBJECT_ARRAY | PRIMITIVE_ARRAY));
        Ok(vec![
            plain::primitive::<UInt64Type>(take(&mut self.id)),
            plain::with_nulls::<UInt64Type>(class_id, class_id_nulls),
            plain::strings(&kind, &KINDS)?,
            plain::primitive::<UInt64Type>(take(&mut self.shallow_size)),
            plain::with_nulls::<UInt32Type>(take(&mut self.array_length), array_length_nulls),
            plain::strings(&take(&mut self.element_type), &element_names)?,
            plain::strings(&take(&mut self.heap), &heap_names)?,
            plain::primitive::<UInt64Type>(take(&mut self.offset)),
        ])
    }
}

/// The columns of `references`, one vector each; `field` is a code into the interned field
/// names ([`NO_NAME`] for array elements), and `array_index` is null where `field` is not.
struct RefColumns {
    from_id: Vec<u64>,
    to_id: Vec<u64>,
    field: Vec<u32>,
    array_index: Vec<u32>,
    /// Field names, by code.
    names: Vec<String>,
    codes: HashMap<Vec<u8>, u32>,
}

/// The codes of the class-object references' own names, interned first.
const SUPER: u32 = 0;
const LOADER: u32 = 1;
const SIGNERS: u32 = 2;
const PROTECTION_DOMAIN: u32 = 3;

impl Default for RefColumns {
    fn default() -> Self {
        let mut r = RefColumns {
            from_id: Vec::new(),
            to_id: Vec::new(),
            field: Vec::new(),
            array_index: Vec::new(),
            names: Vec::new(),
            codes: HashMap::new(),
        };
        for name in ["<super>", "<loader>", "<signers>", "<protection_domain>"] {
            r.intern(name.as_bytes());
        }
        r
    }
}

impl RefColumns {
    /// The code of field name `name` (its bytes as the dump spells them).
    fn intern(&mut self, name: &[u8]) -> u32 {
        if let Some(&code) = self.codes.get(name) {
            return code;
        }
        let code = self.names.len() as u32;
        self.names.push(lossy(name).into_owned());
        self.codes.insert(name.to_vec(), code);
        code
    }

    /// A reference through field `field` (a code).
    fn push_field(&mut self, from: Id, to: Id, field: u32) {
        self.from_id.push(from);
        self.to_id.push(to);
        self.field.push(field);
        self.array_index.push(0);
    }

    /// A reference from element `index` of an object array.
    fn push_element(&mut self, from: Id, to: Id, index: u32) {
        self.from_id.push(from);
        self.to_id.push(to);
        self.field.push(NO_NAME);
        self.array_index.push(index);
    }
}

impl Rows for RefColumns {
    const TABLE: &'static str = table::REFERENCES;
    fn schema() -> SchemaRef {
        references_schema()
    }
    fn len(&self) -> usize {
        self.from_id.len()
    }
    fn reset_len(&mut self) {}
    fn columns(&mut self) -> Result<Vec<ArrayRef>> {
        let field = take(&mut self.field);
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let array_index = plain::with_nulls::<UInt32Type>(
            take(&mut self.array_index),
            plain::nulls_of(&field, |f| f == NO_NAME),
        );
        Ok(vec![
            plain::primitive::<UInt64Type>(take(&mut self.from_id)),
            plain::primitive::<UInt64Type>(take(&mut self.to_id)),
            plain::strings(&field, &names)?,
            array_index,
        ])
    }
}

rows!(RootRows, table::ROOTS, roots_schema(), {
    object_id: UInt64Builder,
    root_kind: StringBuilder,
    thread_serial: UInt32Builder,
    frame: Int32Builder,
    jni_global_ref_id: UInt64Builder,
    heap: StringBuilder,
});

impl RootRows {
    fn push(&mut self, root: &GcRoot, heap: Option<&str>) {
        let (thread, frame, jni) = match *root {
            GcRoot::JniGlobal {
                jni_global_ref_id, ..
            } => (None, None, Some(jni_global_ref_id)),
            GcRoot::JniLocal {
                thread_serial,
                frame_number,
                ..
            }
            | GcRoot::JavaFrame {
                thread_serial,
                frame_number,
                ..
            } => (Some(thread_serial), Some(frame_number), None),
            GcRoot::NativeStack { thread_serial, .. }
            | GcRoot::ThreadBlock { thread_serial, .. }
            | GcRoot::ThreadObject { thread_serial, .. } => (Some(thread_serial), None, None),
            GcRoot::JniMonitor {
                thread_serial,
                stack_depth,
                ..
            } => (Some(thread_serial), Some(stack_depth), None),
            _ => (None, None, None),
        };
        self.object_id.append_value(root.object_id());
        self.root_kind.append_value(root_kind(root));
        self.thread_serial.append_option(thread);
        self.frame.append_option(frame);
        self.jni_global_ref_id.append_option(jni);
        self.heap.append_option(heap);
        self.len += 1;
    }
}

rows!(StringsRows, table::STRINGS, strings_schema(), {
    id: UInt64Builder,
    value: StringBuilder,
});

impl StringsRows {
    fn push(&mut self, id: Id, value: &str) {
        self.id.append_value(id);
        self.value.append_value(value);
        self.len += 1;
    }
}

rows!(FrameRows, table::STACK_FRAMES, stack_frames_schema(), {
    frame_id: UInt64Builder,
    method_name: StringBuilder,
    method_signature: StringBuilder,
    source_file: StringBuilder,
    class_serial: UInt32Builder,
    class_name: StringBuilder,
    line: Int32Builder,
});

rows!(TraceRows, table::STACK_TRACES, stack_traces_schema(), {
    stack_trace_serial: UInt32Builder,
    thread_serial: UInt32Builder,
    depth: UInt32Builder,
    frame_id: UInt64Builder,
});

impl TraceRows {
    fn push(&mut self, serial: u32, thread: u32, depth: u32, frame_id: Id) {
        self.stack_trace_serial.append_value(serial);
        self.thread_serial.append_value(thread);
        self.depth.append_value(depth);
        self.frame_id.append_value(frame_id);
        self.len += 1;
    }
}
