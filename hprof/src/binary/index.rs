//! An index built in one pass over a dump held in memory: the string table, classes
//! (`LOAD_CLASS` + `CLASS_DUMP`), class layouts along the superclass chain for decoding
//! `INSTANCE_DUMP` field values on demand, GC roots, stack frames and traces, threads, and
//! `java.lang.String` contents (`char[]` and `byte[]` + `coder` layouts).
//!
//! Everything borrows from the input; nothing is decoded until asked for.

use std::collections::HashMap;
use std::sync::Arc;

use super::cursor::Cursor;
use super::error::{Error, Result, Salvaged};
use super::header::Header;
use super::heap_dump::{
    ClassDump, FieldDescriptor, GcRoot, InstanceDump, PrimitiveArrayDump, SubRecord, SubRecords,
};
use super::histogram::{IdMap, java_class_name};
use super::records::{Frame, HeapDump, LoadClass, Record, Records, StartThread, Trace};
use super::types::{BasicType, Id, IdSize, Value};

/// One instance field of a class layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayoutField<'a> {
    /// The field name (modified UTF-8), or empty when its UTF8 record is missing.
    pub name: &'a [u8],
    /// The field's type.
    pub field_type: BasicType,
    /// The class that declares it.
    pub declaring_class_id: Id,
    /// Byte offset of its value in the instance's field data.
    pub offset: usize,
}

/// The full field layout of a class: its own fields first, then its superclass's, and so on
/// (the order of `INSTANCE_DUMP` field data).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassLayout<'a> {
    /// The class.
    pub class_id: Id,
    /// Every field in data order.
    pub fields: Vec<LayoutField<'a>>,
    /// Total bytes of field data.
    pub size: usize,
}

impl<'a> ClassLayout<'a> {
    /// Decodes every field value of an instance of this class.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the instance's data is shorter than the layout.
    pub fn decode(
        &self,
        instance: &InstanceDump<'_>,
        id_size: IdSize,
        data_offset: u64,
    ) -> Result<Vec<(&'a [u8], Value)>> {
        let mut c = Cursor::new(instance.data, data_offset, id_size);
        let mut out = Vec::with_capacity(self.fields.len());
        for f in &self.fields {
            let v = c
                .value(f.field_type, "an instance field value")
                .map_err(|_| Error::Invalid {
                    offset: data_offset,
                    message: format!(
                        "instance 0x{:x} has {} field byte(s), its class layout needs {}",
                        instance.object_id,
                        instance.data.len(),
                        self.size
                    ),
                })?;
            out.push((f.name, v));
        }
        Ok(out)
    }

    /// The value of the first field named `name` (searching the class's own fields first, so
    /// a shadowing field wins).
    pub fn field(&self, instance: &InstanceDump<'_>, id_size: IdSize, name: &str) -> Option<Value> {
        let f = self.fields.iter().find(|f| f.name == name.as_bytes())?;
        let bytes = instance.data.get(f.offset..)?;
        Cursor::new(bytes, 0, id_size)
            .value(f.field_type, "INSTANCE_DUMP field value")
            .ok()
    }
}

/// A stack frame with its strings resolved. The strings are shared (`Arc`): a dump may name
/// every frame of a deep stack with one long string, and each is converted once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ResolvedFrame {
    /// Class name in Java source form (empty when unknown).
    pub class_name: Arc<str>,
    /// Method name.
    pub method_name: Arc<str>,
    /// Method signature.
    pub method_signature: Arc<str>,
    /// Source file name.
    pub source_file: Arc<str>,
    /// Line (> 0), or 0 / negative codes as in [`Frame::line`].
    pub line: i32,
}

impl std::fmt::Display for ResolvedFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.class_name, self.method_name)?;
        match self.line {
            l if l > 0 => write!(f, " ({}:{})", self.source_file, l),
            -2 => write!(f, " (compiled method)"),
            -3 => write!(f, " (native method)"),
            _ => write!(f, " ({})", self.source_file),
        }
    }
}

/// A thread with its stack trace (from `ROOT_THREAD_OBJECT` or `START_THREAD`, and `TRACE`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ThreadStack {
    /// Thread serial.
    pub thread_serial: u32,
    /// The thread object id (0 when unknown).
    pub thread_object_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: u32,
    /// Frames, innermost first (shared by the threads with the same trace).
    pub frames: Arc<[ResolvedFrame]>,
}

/// Strings of frames resolved once for a whole query (many frames share names, many threads
/// share traces), so the output is never larger than the dump by more than pointers.
struct FrameNames<'i, 'a> {
    index: &'i Index<'a>,
    strings: HashMap<Id, Arc<str>>,
    classes: HashMap<u32, Arc<str>>,
    traces: HashMap<u32, Arc<[ResolvedFrame]>>,
}

impl<'i, 'a> FrameNames<'i, 'a> {
    fn new(index: &'i Index<'a>) -> Self {
        FrameNames {
            index,
            strings: HashMap::new(),
            classes: HashMap::new(),
            traces: HashMap::new(),
        }
    }

    fn string(&mut self, id: Id) -> Arc<str> {
        let index = self.index;
        self.strings
            .entry(id)
            .or_insert_with(|| {
                index
                    .string(id)
                    .map(|b| Arc::from(String::from_utf8_lossy(b)))
                    .unwrap_or_else(|| Arc::from(""))
            })
            .clone()
    }

    fn class(&mut self, serial: u32) -> Arc<str> {
        let index = self.index;
        self.classes
            .entry(serial)
            .or_insert_with(|| {
                let name = index
                    .class_by_serial(serial)
                    .and_then(|c| index.class_name(c))
                    .unwrap_or_default();
                Arc::from(name)
            })
            .clone()
    }

    fn frame(&mut self, frame_id: Id) -> Option<ResolvedFrame> {
        let f = self.index.frames.get(&frame_id)?;
        Some(ResolvedFrame {
            class_name: self.class(f.class_serial),
            method_name: self.string(f.method_name_id),
            method_signature: self.string(f.method_signature_id),
            source_file: self.string(f.source_file_id),
            line: f.line,
        })
    }

    fn trace(&mut self, serial: u32) -> Option<Vec<ResolvedFrame>> {
        let t = self.index.traces.get(&serial)?;
        Some(t.frame_ids.iter().filter_map(|id| self.frame(id)).collect())
    }

    fn shared_trace(&mut self, serial: u32) -> Arc<[ResolvedFrame]> {
        if let Some(t) = self.traces.get(&serial) {
            return t.clone();
        }
        let t: Arc<[ResolvedFrame]> = self.trace(serial).unwrap_or_default().into();
        self.traces.insert(serial, t.clone());
        t
    }
}

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

/// The one-pass index of a dump held in memory.
///
/// ```
/// use hprof::binary::{GcRoot, Header, IdSize, LoadClass, Record, SubRecord, Utf8, Version};
/// use hprof::binary::index::Index;
/// use hprof::binary::write::Writer;
/// let header = Header { version: Version::V1_0_2, id_size: IdSize::Eight, timestamp_ms: 0 };
/// let mut w = Writer::new(Vec::new(), &header)?;
/// w.write_record(0, &Record::Utf8(Utf8 { id: 0x20, bytes: b"java/util/HashMap" }))?;
/// let load = LoadClass { class_serial: 1, class_id: 0x10, stack_trace_serial: 0, name_id: 0x20 };
/// w.write_record(0, &Record::LoadClass(load))?;
/// w.write_sub_record(&SubRecord::Root(GcRoot::StickyClass { object_id: 0x10 }))?;
/// let data = w.finish()?;
///
/// let index = Index::build(&data)?;
/// assert_eq!(index.class_name(0x10).as_deref(), Some("java.util.HashMap"));
/// assert_eq!(index.roots(), [GcRoot::StickyClass { object_id: 0x10 }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Index<'a> {
    header: Header,
    strings: IdMap<&'a [u8]>,
    load_classes: IdMap<LoadClass>,
    class_serials: HashMap<u32, Id>,
    class_dumps: IdMap<ClassDump<'a>>,
    /// File offset of each class's `CLASS_DUMP` (for error messages).
    class_dump_offsets: IdMap<u64>,
    class_by_name: HashMap<String, Vec<Id>>,
    roots: Vec<GcRoot>,
    frames: IdMap<Frame>,
    traces: HashMap<u32, Trace<'a>>,
    threads: Vec<StartThread>,
    heap_dumps: Vec<HeapDump<'a>>,
}

impl<'a> Index<'a> {
    /// Indexes a whole file in one pass.
    ///
    /// # Errors
    /// Any decoding error.
    pub fn build(data: &'a [u8]) -> Result<Index<'a>> {
        Index::salvage(data)?.into_result()
    }

    /// Indexes what a file holds even if it is cut off or damaged part-way: the strings,
    /// classes, roots, frames, traces, threads and heap-dump records read before the first
    /// error, and that error (with its offset and how many bytes are missing). A heap-dump
    /// record cut off by the end of the input is kept with the sub-records present.
    ///
    /// # Errors
    /// Only when the file header cannot be read.
    pub fn salvage(data: &'a [u8]) -> Result<Salvaged<Index<'a>>> {
        let (header, records) = Records::new(data)?;
        let mut records = records.salvaging();
        let mut ix = Index {
            header,
            strings: IdMap::default(),
            load_classes: IdMap::default(),
            class_serials: HashMap::new(),
            class_dumps: IdMap::default(),
            class_dump_offsets: IdMap::default(),
            class_by_name: HashMap::new(),
            roots: Vec::new(),
            frames: IdMap::default(),
            traces: HashMap::new(),
            threads: Vec::new(),
            heap_dumps: Vec::new(),
        };
        let mut error = None;
        while let Some(r) = records.next() {
            let record = match r {
                Ok((_, record)) => record,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            };
            match record {
                Record::Utf8(u) => {
                    ix.strings.insert(u.id, u.bytes);
                }
                Record::LoadClass(l) => {
                    ix.load_classes.insert(l.class_id, l);
                    ix.class_serials.insert(l.class_serial, l.class_id);
                }
                Record::Frame(f) => {
                    ix.frames.insert(f.frame_id, f);
                }
                Record::Trace(t) => {
                    ix.traces.insert(t.stack_trace_serial, t);
                }
                Record::StartThread(t) => ix.threads.push(t),
                Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                    ix.heap_dumps.push(d);
                    let mut subs = d.sub_records();
                    loop {
                        let at = subs.offset();
                        let Some(s) = subs.next() else { break };
                        match s {
                            Ok(SubRecord::ClassDump(c)) => {
                                ix.class_dumps.insert(c.class_id, c);
                                ix.class_dump_offsets.insert(c.class_id, at);
                            }
                            Ok(SubRecord::Root(root)) => ix.roots.push(root),
                            Ok(_) => {}
                            Err(e) => {
                                // A record cut off by the end of the input: say so, and where
                                // reading stopped.
                                error = Some(match records.next() {
                                    Some(Err(cut @ Error::PastEnd { .. })) => with_at(cut, at),
                                    _ => e,
                                });
                                break;
                            }
                        }
                    }
                    if error.is_some() {
                        break;
                    }
                }
                _ => {}
            }
        }
        // Convert each name once, however many classes share it.
        let mut by_name_id: IdMap<Vec<Id>> = IdMap::default();
        for (&id, l) in &ix.load_classes {
            by_name_id.entry(l.name_id).or_default().push(id);
        }
        for (name_id, ids) in by_name_id {
            if let Some(raw) = ix.string(name_id) {
                let name = java_class_name(&String::from_utf8_lossy(raw));
                ix.class_by_name.entry(name).or_default().extend(ids);
            }
        }
        Ok(Salvaged { value: ix, error })
    }

    /// The file header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The `UTF8` string with this id.
    pub fn string(&self, id: Id) -> Option<&'a [u8]> {
        self.strings.get(&id).copied()
    }

    /// Number of `UTF8` strings.
    pub fn string_count(&self) -> usize {
        self.strings.len()
    }

    /// The class name in Java source form (`java.lang.String`, `int[]`).
    pub fn class_name(&self, class_id: Id) -> Option<String> {
        let l = self.load_classes.get(&class_id)?;
        let raw = self.string(l.name_id)?;
        Some(java_class_name(&String::from_utf8_lossy(raw)))
    }

    /// The class ids with this name (Java source form); several with several loaders.
    pub fn classes_named(&self, name: &str) -> &[Id] {
        self.class_by_name
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The `LOAD_CLASS` record of a class.
    pub fn load_class(&self, class_id: Id) -> Option<&LoadClass> {
        self.load_classes.get(&class_id)
    }

    /// The class id with this class serial.
    pub fn class_by_serial(&self, serial: u32) -> Option<Id> {
        self.class_serials.get(&serial).copied()
    }

    /// The `CLASS_DUMP` of a class.
    pub fn class_dump(&self, class_id: Id) -> Option<&ClassDump<'a>> {
        self.class_dumps.get(&class_id)
    }

    /// Every `CLASS_DUMP`.
    pub fn class_dumps(&self) -> impl Iterator<Item = &ClassDump<'a>> {
        self.class_dumps.values()
    }

    /// The full field layout of a class along its superclass chain.
    ///
    /// # Errors
    /// [`Error::Invalid`] when a class in the chain has no `CLASS_DUMP` or the chain loops,
    /// at the offset of the `CLASS_DUMP` naming that superclass (0 when `class_id` itself
    /// has no `CLASS_DUMP`).
    pub fn layout(&self, class_id: Id) -> Result<ClassLayout<'a>> {
        let mut fields = Vec::new();
        let mut offset = 0usize;
        let mut id = class_id;
        let mut depth = 0;
        // Brent's cycle detection: a loop is found within a few laps of it, so a class in a
        // loop adds its fields a bounded number of times (never once per class in the file).
        let (mut tortoise, mut lap, mut power) = (0, 0usize, 1usize);
        // Offset of the CLASS_DUMP that named `id` as its superclass (0: `class_id` itself).
        let mut named_at = 0;
        while id != 0 {
            if id == tortoise {
                return Err(Error::Invalid {
                    offset: named_at,
                    message: format!("the superclass chain of class 0x{class_id:x} loops"),
                });
            }
            lap += 1;
            if lap == power {
                tortoise = id;
                power = power.saturating_mul(2);
                lap = 0;
            }
            let c = self.class_dumps.get(&id).ok_or_else(|| Error::Invalid {
                offset: named_at,
                message: format!(
                    "no CLASS_DUMP for class 0x{id:x} (in the superclass chain of 0x{class_id:x})"
                ),
            })?;
            for FieldDescriptor {
                name_id,
                field_type,
            } in c.instance_fields()
            {
                fields.push(LayoutField {
                    name: self.string(name_id).unwrap_or_default(),
                    field_type,
                    declaring_class_id: id,
                    offset,
                });
                offset += field_type.size(self.header.id_size);
            }
            named_at = self.class_dump_offsets.get(&id).copied().unwrap_or(0);
            id = c.super_class_id;
            depth += 1;
            if depth > self.class_dumps.len() {
                return Err(Error::Invalid {
                    offset: named_at,
                    message: format!("the superclass chain of class 0x{class_id:x} loops"),
                });
            }
        }
        Ok(ClassLayout {
            class_id,
            fields,
            size: offset,
        })
    }

    /// Decodes every field of an instance through its class layout: `(name, value)` pairs,
    /// own fields first. This builds the class's layout for the call; to decode many
    /// instances, use a [`LayoutCache`] ([`Index::layout_cache`]), which builds each class's
    /// layout once.
    ///
    /// # Errors
    /// As [`Index::layout`] and [`ClassLayout::decode`].
    pub fn instance_fields(&self, instance: &InstanceDump<'_>) -> Result<Vec<(&'a [u8], Value)>> {
        let layout = self.layout(instance.class_id)?;
        self.decode_instance(&layout, instance)
    }

    /// A cache of class layouts over this index, for decoding many instances.
    pub fn layout_cache(&self) -> LayoutCache<'_, 'a> {
        LayoutCache {
            index: self,
            layouts: IdMap::default(),
            cached_fields: 0,
            uncached: None,
        }
    }

    /// Decodes `instance` through `layout`, errors at the instance's offset in the file.
    fn decode_instance(
        &self,
        layout: &ClassLayout<'a>,
        instance: &InstanceDump<'_>,
    ) -> Result<Vec<(&'a [u8], Value)>> {
        layout
            .decode(instance, self.header.id_size, 0)
            .map_err(|e| match e {
                // Say where the instance's field bytes are in the file.
                Error::Invalid { message, .. } => Error::Invalid {
                    offset: self.offset_of(instance.data),
                    message,
                },
                e => e,
            })
    }

    /// The file offset of `bytes` when they lie in one of this dump's heap-dump records (as
    /// the slices of decoded sub-records do), else 0.
    pub fn offset_of(&self, bytes: &[u8]) -> u64 {
        let p = bytes.as_ptr() as usize;
        // Heap-dump bodies are in file order, so their addresses increase.
        let i = self
            .heap_dumps
            .partition_point(|d| d.body.as_ptr() as usize <= p);
        i.checked_sub(1)
            .and_then(|i| self.heap_dumps.get(i))
            .and_then(|d| {
                let within = p - d.body.as_ptr() as usize;
                (within <= d.body.len()).then(|| d.offset + within as u64)
            })
            .unwrap_or(0)
    }

    /// GC roots in file order.
    pub fn roots(&self) -> &[GcRoot] {
        &self.roots
    }

    /// Every heap-dump record body, in file order.
    pub fn heap_dumps(&self) -> &[HeapDump<'a>] {
        &self.heap_dumps
    }

    /// Every sub-record of every heap dump (decoded again on each call).
    pub fn sub_records(&self) -> impl Iterator<Item = Result<SubRecord<'a>>> + '_ {
        self.heap_dumps
            .iter()
            .flat_map(|d| -> SubRecords<'a> { d.sub_records() })
    }

    /// The `FRAME` with this id, resolved.
    pub fn frame(&self, frame_id: Id) -> Option<ResolvedFrame> {
        FrameNames::new(self).frame(frame_id)
    }

    /// The `TRACE` with this serial.
    pub fn trace(&self, serial: u32) -> Option<&Trace<'a>> {
        self.traces.get(&serial)
    }

    /// The frames of a trace, innermost first (frames without a `FRAME` record are left out).
    pub fn stack_trace(&self, serial: u32) -> Option<Vec<ResolvedFrame>> {
        FrameNames::new(self).trace(serial)
    }

    /// Every thread with its stack, from `ROOT_THREAD_OBJECT` roots (HotSpot, ART) and
    /// `START_THREAD` records (the JVMTI agent), ordered by thread serial.
    pub fn thread_stacks(&self) -> Vec<ThreadStack> {
        let mut out: Vec<ThreadStack> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let roots = self.roots.iter().filter_map(|r| match *r {
            GcRoot::ThreadObject {
                object_id,
                thread_serial,
                stack_trace_serial,
            } => Some((thread_serial, object_id, stack_trace_serial)),
            _ => None,
        });
        let started = self
            .threads
            .iter()
            .map(|t| (t.thread_serial, t.thread_object_id, t.stack_trace_serial));
        let mut names = FrameNames::new(self);
        for (thread_serial, thread_object_id, stack_trace_serial) in roots.chain(started) {
            if seen.insert(thread_serial) {
                out.push(ThreadStack {
                    thread_serial,
                    thread_object_id,
                    stack_trace_serial,
                    frames: names.shared_trace(stack_trace_serial),
                });
            }
        }
        out.sort_by_key(|t| t.thread_serial);
        out
    }

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
                        .unwrap_or(0);
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

/// `e` (an [`Error::PastEnd`]) with `at`, the offset where decoding stopped, set.
fn with_at(e: Error, at: u64) -> Error {
    match e {
        Error::PastEnd {
            offset,
            what,
            needed,
            available,
            ..
        } => Error::PastEnd {
            offset,
            at,
            what,
            needed,
            available,
        },
        other => other,
    }
}

/// How many layout fields a [`LayoutCache`] keeps in all (about 10 MiB): past it, layouts
/// are built per call as by [`Index::layout`], so a dump of long superclass chains (whose
/// layouts repeat the superclasses' fields) cannot make the cache grow quadratically.
const CACHED_FIELDS: usize = 1 << 18;

/// Class layouts built once per class, from [`Index::layout_cache`]: decoding the fields of
/// many instances through it costs one lookup per instance, where [`Index::instance_fields`]
/// walks the superclass chain and looks up every field name again for each one.
///
/// ```
/// use hprof::binary::{BasicType, IdSize, Index, SubRecord, Value};
/// use hprof::binary::write::HeapBuilder;
///
/// // A dump's bytes (`std::fs::read` or a memory map); here 2,000 points of a known shape.
/// let mut heap = HeapBuilder::new(IdSize::Eight);
/// heap.class(0x10, "java.lang.Object", 0, &[])
///     .class(0x20, "com.example.Point", 0x10, &[("x", BasicType::Int), ("y", BasicType::Int)])
///     .class(0x30, "com.example.Point3", 0x20, &[("z", BasicType::Int)]);
/// for k in 0..1000 {
///     heap.instance(0x1000 + k, 0x20, &[Value::Int(1), Value::Int(2)])
///         .instance(0x9000 + k, 0x30, &[Value::Int(3), Value::Int(1), Value::Int(2)]);
/// }
/// let data = heap.build()?;
/// let index = Index::build(&data)?;
/// let mut layouts = index.layout_cache();
/// let mut decoded = 0;
/// for sub in index.sub_records() {
///     if let SubRecord::InstanceDump(instance) = sub? {
///         let fields = layouts.instance_fields(&instance)?;
///         assert_eq!(fields, index.instance_fields(&instance)?);
///         decoded += 1;
///     }
/// }
/// assert_eq!((decoded, layouts.len()), (2000, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LayoutCache<'i, 'a> {
    index: &'i Index<'a>,
    layouts: IdMap<ClassLayout<'a>>,
    /// Fields held by `layouts`.
    cached_fields: usize,
    /// The last layout built past [`CACHED_FIELDS`].
    uncached: Option<ClassLayout<'a>>,
}

impl<'a> LayoutCache<'_, 'a> {
    /// The layout of `class_id`, as [`Index::layout`] gives it, built on the first call for
    /// the class. Errors are not cached.
    ///
    /// # Errors
    /// As [`Index::layout`].
    pub fn layout(&mut self, class_id: Id) -> Result<&ClassLayout<'a>> {
        if !self.layouts.contains_key(&class_id) {
            let layout = self.index.layout(class_id)?;
            if self.cached_fields.saturating_add(layout.fields.len()) > CACHED_FIELDS {
                return Ok(self.uncached.insert(layout));
            }
            self.cached_fields += layout.fields.len();
            self.layouts.insert(class_id, layout);
        }
        self.layouts.get(&class_id).ok_or_else(|| Error::Invalid {
            offset: 0,
            message: format!("class 0x{class_id:x} left the layout cache"),
        })
    }

    /// Decodes every field of an instance, as [`Index::instance_fields`] does, through the
    /// cached layout of its class.
    ///
    /// # Errors
    /// As [`Index::instance_fields`].
    pub fn instance_fields(
        &mut self,
        instance: &InstanceDump<'_>,
    ) -> Result<Vec<(&'a [u8], Value)>> {
        let index = self.index;
        let layout = self.layout(instance.class_id)?;
        index.decode_instance(layout, instance)
    }

    /// The number of classes whose layout is cached.
    pub fn len(&self) -> usize {
        self.layouts.len()
    }

    /// True when no layout is cached.
    pub fn is_empty(&self) -> bool {
        self.layouts.is_empty()
    }
}
