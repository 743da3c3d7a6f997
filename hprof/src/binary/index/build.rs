//! The index itself and its one pass over the dump: strings, classes, roots, frames, traces,
//! threads and the heap-dump records, salvaged from a cut-off file.

use std::collections::HashMap;

use crate::binary::error::{Error, Result, Salvaged};
use crate::binary::hash::IdMap;
use crate::binary::header::Header;
use crate::binary::heap_dump::{ClassDump, GcRoot, SubRecord, SubRecords};
use crate::binary::names::{BorrowedStrings, ClassNames, java_class_name};
use crate::binary::records::{Frame, HeapDump, LoadClass, Record, Records, StartThread, Trace};
use crate::binary::types::{ClassSerial, Id, StackTraceSerial};

/// The one-pass index of a dump held in memory.
///
/// ```
/// use hprof::binary::{ClassSerial, GcRoot, Header, Id, IdSize, LoadClass, Record, StackTraceSerial};
/// use hprof::binary::{SubRecord, Utf8, Version};
/// use hprof::binary::index::Index;
/// use hprof::binary::write::Writer;
/// let header = Header { version: Version::V1_0_2, id_size: IdSize::Eight, timestamp_ms: 0 };
/// let mut w = Writer::new(Vec::new(), &header)?;
/// w.write_record(0, &Record::Utf8(Utf8 { id: Id(0x20), bytes: b"java/util/HashMap" }))?;
/// let (class_serial, stack_trace_serial) = (ClassSerial(1), StackTraceSerial(0));
/// let load = LoadClass { class_serial, class_id: Id(0x10), stack_trace_serial, name_id: Id(0x20) };
/// w.write_record(0, &Record::LoadClass(load))?;
/// w.write_sub_record(&SubRecord::Root(GcRoot::StickyClass { object_id: Id(0x10) }))?;
/// let data = w.finish()?;
///
/// let index = Index::build(&data)?;
/// assert_eq!(index.class_name(Id(0x10)).as_deref(), Some("java.util.HashMap"));
/// assert_eq!(index.roots(), [GcRoot::StickyClass { object_id: Id(0x10) }]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Index<'a> {
    pub(super) header: Header,
    pub(super) names: ClassNames<BorrowedStrings<'a>>,
    pub(super) load_classes: IdMap<LoadClass>,
    pub(super) class_serials: HashMap<ClassSerial, Id>,
    pub(super) class_dumps: IdMap<ClassDump<'a>>,
    /// File offset of each class's `CLASS_DUMP` (for error messages).
    pub(super) class_dump_offsets: IdMap<u64>,
    pub(super) class_by_name: HashMap<String, Vec<Id>>,
    pub(super) roots: Vec<GcRoot>,
    pub(super) frames: IdMap<Frame>,
    pub(super) traces: HashMap<StackTraceSerial, Trace<'a>>,
    pub(super) threads: Vec<StartThread>,
    pub(super) heap_dumps: Vec<HeapDump<'a>>,
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
        let (header, records) = Records::parse(data)?;
        let mut records = records.salvaging();
        let mut ix = Index {
            header,
            names: ClassNames::borrowing(),
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
                Record::Utf8(u) => ix.names.add_string(u.id, u.bytes),
                Record::LoadClass(l) => {
                    ix.names.add_class(l.class_id, l.name_id);
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
        self.names.strings().get(id)
    }

    /// Number of `UTF8` strings.
    pub fn string_count(&self) -> usize {
        self.names.strings().len()
    }

    /// The class name in Java source form (`java.lang.String`, `int[]`).
    pub fn class_name(&self, class_id: Id) -> Option<String> {
        self.names.class_name(class_id)
    }

    /// The class-name table.
    pub fn names(&self) -> &ClassNames<BorrowedStrings<'a>> {
        &self.names
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
    pub fn class_by_serial(&self, serial: ClassSerial) -> Option<Id> {
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

    /// The `TRACE` with this serial.
    pub fn trace(&self, serial: StackTraceSerial) -> Option<&Trace<'a>> {
        self.traces.get(&serial)
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
