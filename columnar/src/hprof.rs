//! HPROF binary heap dumps as tables: `classes`, `objects`, `references`, `roots`, `strings`,
//! `stack_frames` and `stack_traces` (schemas in the [crate docs](crate#hprof-tables)).
//!
//! One streaming pass over the dump (a memory map is the usual source): the records before the
//! first heap dump first (strings, class names, stack frames and traces), then the heap dumps,
//! one row per object, reference and root, class dumps kept as they come. Instances read
//! before their class's dump, or before a field name their layout needs, get their references
//! in a second pass. HotSpot's JDK 17 dumps (class dumps first) need none; ART's, which dump
//! some classes after instances of them, do. Memory holds the class dumps and class names,
//! never objects.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{
    Int32Builder, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::types::{UInt8Type, UInt32Type, UInt64Type};
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

/// A string column stored as a dictionary with `key` keys (Parquet: a UTF-8 column,
/// dictionary-encoded).
fn dictionary(key: DataType) -> DataType {
    DataType::Dictionary(Box::new(key), Box::new(DataType::Utf8))
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
        field("kind", dictionary(DataType::UInt8), false),
        field("shallow_size", DataType::UInt64, false),
        field("array_length", DataType::UInt32, true),
        field("element_type", dictionary(DataType::UInt8), true),
        field("heap", dictionary(DataType::UInt32), true),
        field("offset", DataType::UInt64, false),
    ]))
}

/// The `references` table's schema.
pub fn references_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        field("from_id", DataType::UInt64, false),
        field("to_id", DataType::UInt64, false),
        field("field", dictionary(DataType::UInt32), true),
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
/// the number of bytes read so far: up to `data.len()`, then up to `2 × data.len()` when a
/// second pass is needed (see the [module docs](self)).
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
    let (top, top_from) = TopLevel::before_heap_dumps(data, sink)?;
    let mut heap = HeapPass::new(top, top_from, id_size, data.len());
    let walked = heap.run(data, sink, progress, &mut summary)?;
    if walked.stopped.is_none() {
        if let Err(e) = walked.whole.check(data.len() as u64) {
            // The same judgement as hprof's readers: a file of only its header is cut short;
            // segments without HEAP_DUMP_END have a flag of their own.
            if walked.whole.records() == 0 {
                summary.stopped = Some(e);
            } else {
                summary.missing_heap_dump_end = true;
            }
        }
    }
    summary.stopped = summary.stopped.take().or(walked.stopped);
    if heap.defer() {
        let total = data.len() as u64;
        heap.run(data, sink, &mut |at| progress(total + at), &mut summary)?;
    }
    heap.top.finish(sink, &mut summary)?;
    write_classes(&heap, sink, &mut summary)?;
    write_frames(&heap.top, sink, &mut summary)?;
    Ok(summary)
}

/// What a pass does with what [`walk`] finds: records outside heap dumps through
/// [`Pass::record`], heap-dump sub-records through `hprof`'s [`Visit`] (instance and array
/// dumps by their own methods, the others as [`Event::SubRecord`]). A sink error met inside
/// a visit is kept and handed back by [`Pass::failed`].
trait Pass<'a>: Visit<'a> {
    /// A record outside heap dumps, at byte offset `at`.
    fn record(&mut self, at: u64, record: Record<'a>);
    /// The first sink error, if any (the walk stops there).
    fn failed(&mut self) -> Option<Error>;
}

/// How a walk ended.
#[derive(Default)]
struct Walked {
    stopped: Option<hprof::binary::error::Error>,
    /// The file-level checks every reader of a dump shares.
    whole: hprof::binary::Wholeness,
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
        walked.whole.see(rh.tag);
        if rh.offset >= next_progress {
            progress(rh.offset);
            next_progress = rh.offset + (16 << 20);
        }
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                let visited = visit_sub_records(&d, pass);
                check(pass)?;
                if let Err(e) = visited {
                    walked.stopped = Some(e);
                    return Ok(walked);
                }
            }
            Record::HeapDumpEnd => {}
            other => {
                pass.record(rh.offset, other);
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

/// The records outside heap dumps: what they say (names, load classes, frames), and the
/// `strings` and `stack_traces` rows they give.
struct TopLevel {
    names: ClassNames,
    load_classes: IdMap<u32>,
    class_by_serial: HashMap<u32, Id>,
    frames: Vec<Frame>,
    strings: StringsRows,
    traces: TraceRows,
    /// Rows sent of `strings` and `stack_traces`.
    sent: [u64; 2],
}

fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

impl TopLevel {
    /// Reads the records before the first heap dump, so the names they give (all of them,
    /// in the dumps HotSpot and ART write) are known before the first object is read. The
    /// offset of that heap dump is where the heap pass takes over the other records.
    fn before_heap_dumps(data: &[u8], sink: &mut dyn BatchSink) -> Result<(TopLevel, u64)> {
        let (_, records) = Records::new(data).map_err(Error::Hprof)?;
        let mut top = TopLevel {
            names: ClassNames::new(),
            load_classes: IdMap::default(),
            class_by_serial: HashMap::new(),
            frames: Vec::new(),
            strings: StringsRows::default(),
            traces: TraceRows::default(),
            sent: [0; 2],
        };
        for r in records {
            // A damaged record: the heap pass reports it.
            let Ok((rh, record)) = r else { break };
            if matches!(record, Record::HeapDump(_) | Record::HeapDumpSegment(_)) {
                return Ok((top, rh.offset));
            }
            top.record(record, sink)?;
        }
        Ok((top, data.len() as u64))
    }

    /// Takes in one record outside heap dumps.
    fn record(&mut self, record: Record<'_>, sink: &mut dyn BatchSink) -> Result<()> {
        match record {
            Record::Utf8(u) => {
                self.names.add_string(u.id, u.bytes);
                self.strings.push(u.id, &lossy(u.bytes));
                self.sent[0] += self.strings.flush_if_full(sink)?;
            }
            Record::LoadClass(l) => {
                self.names.add_class(l.class_id, l.name_id);
                self.load_classes.insert(l.class_id, l.class_serial);
                self.class_by_serial.insert(l.class_serial, l.class_id);
            }
            Record::Frame(f) => self.frames.push(f),
            Record::Trace(t) => {
                for (depth, frame_id) in t.frame_ids.iter().enumerate() {
                    self.traces.push(
                        t.stack_trace_serial,
                        t.thread_serial,
                        depth as u32,
                        frame_id,
                    );
                }
                self.sent[1] += self.traces.flush_if_full(sink)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Sends the last `strings` and `stack_traces` rows.
    fn finish(&mut self, sink: &mut dyn BatchSink, summary: &mut Summary) -> Result<()> {
        let [strings, traces] = self.sent;
        *summary.rows.entry(table::STRINGS).or_default() += strings + self.strings.flush(sink)?;
        *summary.rows.entry(table::STACK_TRACES).or_default() +=
            traces + self.traces.flush(sink)?;
        Ok(())
    }
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

/// Which instances a walk over the heap dumps writes references for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The one pass over the heap dumps: every row of `objects` and `roots`, and the
    /// references of every instance whose class layout is known by then.
    Heap,
    /// After it, only when a class dump came after instances of its class: the references of
    /// those instances.
    Deferred,
}

/// The walk over the heap dumps: class dumps, roots, objects and references.
struct HeapPass<'a> {
    top: TopLevel,
    /// Where the records outside heap dumps not yet read by [`TopLevel`] begin.
    top_from: u64,
    id_size: IdSize,
    step: Step,
    /// The first `CLASS_DUMP` of each class, in the order met.
    class_dumps: IdMap<ClassDump<'a>>,
    class_order: Vec<Id>,
    /// Per class: where the object fields of its full layout are in `fields` (`None`: no
    /// usable layout, or not yet in this step).
    layouts: IdMap<Option<(u32, u32)>>,
    /// The layout looked up last, by class.
    last_layout: Option<(Id, Option<(u32, u32)>)>,
    /// The object fields of every layout met, one layout after another.
    fields: Vec<RefField>,
    /// At most this many fields are kept in `fields`: half the dump's length, so 4 bytes of
    /// memory per byte of the dump (a real dump's layouts need a small part of that).
    fields_budget: usize,
    /// Scratch: the classes between a class and the first superclass with a known layout.
    chain: Vec<Id>,
    /// Classes of object arrays, and the last one added.
    array_classes: HashSet<Id, IdState>,
    last_array_class: Option<Id>,
    /// Classes of instances read without a layout.
    deferred: HashSet<Id, IdState>,
    class_class_id: Option<Id>,
    heap: Option<String>,
    objects: ObjectColumns,
    refs: RefColumns,
    roots: RootRows,
}

impl<'a> HeapPass<'a> {
    fn new(top: TopLevel, top_from: u64, id_size: IdSize, dump_len: usize) -> Self {
        let class_class_id = top
            .names
            .class_ids()
            .filter(|&id| top.names.raw_name(id) == Some(b"java/lang/Class"))
            .min();
        HeapPass {
            top,
            top_from,
            id_size,
            step: Step::Heap,
            class_dumps: IdMap::default(),
            class_order: Vec::new(),
            layouts: IdMap::default(),
            last_layout: None,
            fields: Vec::new(),
            fields_budget: dump_len / 2,
            chain: Vec::new(),
            array_classes: HashSet::default(),
            last_array_class: None,
            deferred: HashSet::default(),
            class_class_id,
            heap: None,
            objects: ObjectColumns::default(),
            refs: RefColumns::default(),
            roots: RootRows::default(),
        }
    }

    /// The object fields of `class_id`'s layout along its superclass chain; `None` when a
    /// class of the chain has no `CLASS_DUMP` (yet), the chain loops, or (in the heap pass) a
    /// field name is not known yet. Each class's layout
    /// is built once, from its superclass's: its own fields come first in an instance's
    /// data, then its superclass's.
    #[inline]
    fn layout(&mut self, class_id: Id) -> Option<(u32, u32)> {
        // Instances of one class often come in a row.
        if let Some((id, l)) = self.last_layout {
            if id == class_id {
                return l;
            }
        }
        let l = self.layout_of(class_id);
        self.last_layout = Some((class_id, l));
        l
    }

    /// [`HeapPass::layout`] without the one-class cache.
    fn layout_of(&mut self, class_id: Id) -> Option<(u32, u32)> {
        if let Some(&l) = self.layouts.get(&class_id) {
            return l;
        }
        // Up to the first class whose layout is known, or the root, or a class without a
        // dump, or a loop (a chain longer than there are classes).
        self.chain.clear();
        let mut id = class_id;
        let mut base = loop {
            if id == 0 {
                break Some((0, 0));
            }
            if let Some(&l) = self.layouts.get(&id) {
                break l;
            }
            let Some(c) = self.class_dumps.get(&id) else {
                break None;
            };
            if self.chain.len() >= self.class_dumps.len() {
                break None;
            }
            self.chain.push(id);
            id = c.super_class_id;
        };
        // Then down again, each class's layout from its superclass's.
        while let Some(id) = self.chain.pop() {
            base = base.and_then(|super_layout| self.extend_layout(id, super_layout));
            self.layouts.insert(id, base);
        }
        base
    }

    /// The layout of class `id`: its own object fields, then those of `super_layout` moved
    /// past its own field bytes. `None` (and nothing kept) past [`HeapPass::fields_budget`].
    fn extend_layout(&mut self, id: Id, super_layout: (u32, u32)) -> Option<(u32, u32)> {
        let from = self.fields.len();
        let layout = self.push_layout(id, super_layout);
        if layout.is_none() {
            self.fields.truncate(from);
        }
        layout
    }

    fn push_layout(&mut self, id: Id, (start, end): (u32, u32)) -> Option<(u32, u32)> {
        let c = self.class_dumps.get(&id)?;
        let from = self.fields.len();
        // Every class keeps a copy of its superclasses' fields: a dump of deep hierarchies
        // (a hostile one: a chain of thousands of classes) must not make that quadratic.
        let own_fields = usize::from(c.instance_fields_len);
        let inherited = (end as usize).saturating_sub(start as usize);
        if from + own_fields + inherited > self.fields_budget {
            return None;
        }
        let mut offset = 0usize;
        for f in c.instance_fields() {
            if f.field_type == BasicType::Object {
                // A name the dump has not given yet may still come (in the heap pass, the
                // layout waits for the deferred pass); one it never gives is empty.
                let name = match self.top.names.string(f.name_id) {
                    Some(name) => name,
                    None if self.step == Step::Heap => return None,
                    None => b"",
                };
                let name = self.refs.intern(name);
                self.fields.push(RefField {
                    offset: u32::try_from(offset).ok()?,
                    name,
                });
            }
            offset = offset.saturating_add(f.field_type.size(self.id_size));
        }
        let own = u32::try_from(offset).ok()?;
        for i in start..end {
            let f = *self.fields.get(i as usize)?;
            self.fields.push(RefField {
                offset: f.offset.checked_add(own)?,
                name: f.name,
            });
        }
        let to = u32::try_from(self.fields.len()).ok()?;
        Some((u32::try_from(from).ok()?, to))
    }

    fn run(
        &mut self,
        data: &'a [u8],
        sink: &mut dyn BatchSink,
        progress: &mut dyn FnMut(u64),
        summary: &mut Summary,
    ) -> Result<Walked> {
        let mut v = HeapVisitor {
            pass: self,
            sink,
            summary,
            failed: None,
            sent: [0; 3],
        };
        let walked = walk(data, progress, &mut v)?;
        let [objects, refs, roots] = v.sent;
        let objects = objects + v.pass.objects.flush(v.sink)?;
        let refs = refs + v.pass.refs.flush(v.sink)?;
        let roots = roots + v.pass.roots.flush(v.sink)?;
        *v.summary.rows.entry(table::OBJECTS).or_default() += objects;
        *v.summary.rows.entry(table::REFERENCES).or_default() += refs;
        *v.summary.rows.entry(table::ROOTS).or_default() += roots;
        Ok(walked)
    }

    /// Readies the [`Step::Deferred`] walk: every layout again, now that all class dumps are
    /// known. Whether any instance read without a layout has one now (else the walk is not
    /// needed).
    fn defer(&mut self) -> bool {
        self.step = Step::Deferred;
        self.layouts.clear();
        self.last_layout = None;
        self.fields.clear();
        let deferred: Vec<Id> = self.deferred.iter().copied().collect();
        let mut any = false;
        for id in deferred {
            any |= self.layout(id).is_some();
        }
        any
    }

    /// Classes objects name that the dump never describes (no `LOAD CLASS`, no
    /// `CLASS_DUMP`): listed in `classes` at the end, as the histogram names them.
    fn unknown_classes(&self) -> Vec<Id> {
        let known = |id: &Id| {
            *id == 0 || self.top.load_classes.contains_key(id) || self.class_dumps.contains_key(id)
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

    #[inline]
    fn instance(&mut self, at: u64, i: &InstanceDump<'_>, summary: &mut Summary) {
        if self.step == Step::Deferred {
            if self.deferred.contains(&i.class_id) {
                if let Some(layout) = self.layout(i.class_id) {
                    self.instance_refs(i, layout);
                    summary.instances_without_layout =
                        summary.instances_without_layout.saturating_sub(1);
                }
            }
            return;
        }
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
            Some(layout) => self.instance_refs(i, layout),
            None => {
                summary.instances_without_layout += 1;
                self.deferred.insert(i.class_id);
            }
        }
    }

    #[inline]
    fn instance_refs(&mut self, i: &InstanceDump<'_>, (start, end): (u32, u32)) {
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

    #[inline]
    fn object_array(&mut self, at: u64, a: &ObjectArrayDump<'_>) {
        if self.step == Step::Deferred {
            return;
        }
        if self.last_array_class != Some(a.array_class_id) {
            self.array_classes.insert(a.array_class_id);
            self.last_array_class = Some(a.array_class_id);
        }
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
        if self.step == Step::Deferred {
            return;
        }
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
    fn sub_record(&mut self, s: SubRecord<'a>, at: u64, summary: &mut Summary) {
        if self.step == Step::Deferred {
            if let SubRecord::InstanceDump(i) = s {
                self.instance(at, &i, summary);
            }
            return;
        }
        match s {
            SubRecord::InstanceDump(i) => self.instance(at, &i, summary),
            SubRecord::ObjectArrayDump(a) => self.object_array(at, &a),
            SubRecord::PrimitiveArrayDump(a) => self.primitive_array(at, &a),
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
                        .intern(self.top.names.string(st.name_id).unwrap_or_default());
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
        if let std::collections::hash_map::Entry::Vacant(e) = self.class_dumps.entry(c.class_id) {
            e.insert(c);
            self.class_order.push(c.class_id);
        }
    }
}

/// The heap pass's visitor: one row per object, reference and root.
struct HeapVisitor<'p, 'a, 's> {
    pass: &'p mut HeapPass<'a>,
    sink: &'s mut dyn BatchSink,
    summary: &'p mut Summary,
    failed: Option<Error>,
    /// Rows sent of `objects`, `references`, `roots`.
    sent: [u64; 3],
}

impl HeapVisitor<'_, '_, '_> {
    /// Sends full batches to the sink.
    #[inline]
    fn flush_full(&mut self) {
        if self.pass.objects.len() >= BATCH_ROWS {
            let r = self.pass.objects.flush(self.sink);
            self.sent(0, r);
        }
        if self.pass.refs.len() >= BATCH_ROWS {
            let r = self.pass.refs.flush(self.sink);
            self.sent(1, r);
        }
        if self.pass.roots.len() >= BATCH_ROWS {
            let r = self.pass.roots.flush(self.sink);
            self.sent(2, r);
        }
    }

    /// Counts the rows a flush sent to table `i` of [`HeapVisitor::sent`], or keeps its error.
    #[cold]
    fn sent(&mut self, i: usize, r: Result<u64>) {
        match r {
            Ok(n) => {
                if let Some(sent) = self.sent.get_mut(i) {
                    *sent += n;
                }
            }
            Err(e) => {
                self.failed.get_or_insert(e);
            }
        }
    }
}

impl<'a> Visit<'a> for HeapVisitor<'_, 'a, '_> {
    fn event(&mut self, event: Event<'a>) {
        if let Event::SubRecord(at, s) = event {
            self.pass.sub_record(s, at, self.summary);
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

impl<'a> Pass<'a> for HeapVisitor<'_, 'a, '_> {
    fn record(&mut self, at: u64, record: Record<'a>) {
        if self.pass.step == Step::Heap && at >= self.pass.top_from {
            if let Err(e) = self.pass.top.record(record, self.sink) {
                self.failed.get_or_insert(e);
            }
        }
    }

    fn failed(&mut self) -> Option<Error> {
        self.failed.take()
    }
}

fn write_classes(
    heap: &HeapPass<'_>,
    sink: &mut dyn BatchSink,
    summary: &mut Summary,
) -> Result<()> {
    let mut rows = ClassRows::default();
    let names = &heap.top;
    let mut ids: Vec<Id> = heap.class_order.clone();
    let mut extra: Vec<Id> = names
        .load_classes
        .keys()
        .copied()
        .filter(|id| !heap.class_dumps.contains_key(id))
        .collect();
    extra.sort_unstable();
    ids.extend(extra);
    ids.extend(heap.unknown_classes());
    for id in ids {
        let dump = heap.class_dumps.get(&id);
        rows.class_id.append_value(id);
        rows.name.append_value(names.names.java_name(id));
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
            .append_option(names.load_classes.get(&id).copied());
        rows.len += 1;
        *summary.rows.entry(table::CLASSES).or_default() += rows.flush_if_full(sink)?;
    }
    *summary.rows.entry(table::CLASSES).or_default() += rows.flush(sink)?;
    Ok(())
}

fn write_frames(names: &TopLevel, sink: &mut dyn BatchSink, summary: &mut Summary) -> Result<()> {
    let mut rows = FrameRows::default();
    let string = |id: Id| names.names.string(id).map(|b| lossy(b).into_owned());
    for f in &names.frames {
        rows.frame_id.append_value(f.frame_id);
        rows.method_name.append_option(string(f.method_name_id));
        rows.method_signature
            .append_option(string(f.method_signature_id));
        rows.source_file.append_option(string(f.source_file_id));
        rows.class_serial.append_value(f.class_serial);
        rows.class_name.append_option(
            names
                .class_by_serial
                .get(&f.class_serial)
                .map(|&id| names.names.java_name(id)),
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
    /// The dictionaries of `kind`, `element_type` and `heap`.
    kind_names: ArrayRef,
    element_names: ArrayRef,
    heap_dictionary: ArrayRef,
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
            kind_names: plain::names(KINDS),
            element_names: plain::names(BasicType::ALL.map(BasicType::java_name)),
            heap_dictionary: plain::names([]),
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
                    self.heap_dictionary = plain::names(self.heap_names.iter().map(String::as_str));
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

/// Rows a column vector holds past [`BATCH_ROWS`] before it grows: the batch is sent once an
/// object is done, and an instance's references (or a short array's elements) still fit.
const BATCH_SLACK: usize = 4096;

/// The column so far, leaving an empty one with room for the next batch.
fn take<T>(v: &mut Vec<T>) -> Vec<T> {
    std::mem::replace(v, Vec::with_capacity(BATCH_ROWS + BATCH_SLACK))
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
            plain::dictionary::<UInt8Type>(kind, &self.kind_names)?,
            plain::primitive::<UInt64Type>(take(&mut self.shallow_size)),
            plain::with_nulls::<UInt32Type>(take(&mut self.array_length), array_length_nulls),
            plain::dictionary::<UInt8Type>(take(&mut self.element_type), &self.element_names)?,
            plain::dictionary::<UInt32Type>(take(&mut self.heap), &self.heap_dictionary)?,
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
    /// `names` as the dictionary of `field` (`None` after a name was added).
    dictionary: Option<ArrayRef>,
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
            dictionary: None,
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
        self.dictionary = None;
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
        let names = self
            .dictionary
            .get_or_insert_with(|| plain::names(self.names.iter().map(String::as_str)));
        let array_index = plain::with_nulls::<UInt32Type>(
            take(&mut self.array_index),
            plain::nulls_of(&field, |f| f == NO_NAME),
        );
        Ok(vec![
            plain::primitive::<UInt64Type>(take(&mut self.from_id)),
            plain::primitive::<UInt64Type>(take(&mut self.to_id)),
            plain::dictionary::<UInt32Type>(field, names)?,
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
