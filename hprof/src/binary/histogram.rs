//! The class histogram: instances and shallow bytes per class, counted from `INSTANCE_DUMP`,
//! `OBJ_ARRAY_DUMP`, `PRIM_ARRAY_DUMP` and `PRIMITIVE_ARRAY_NODATA` sub-records, with class
//! names from `LOAD_CLASS` + `UTF8` records in Java source form (`java.lang.String`, `int[]`,
//! `java.lang.Object[][]`).
//!
//! Shallow bytes are the recorded data size: an instance's field-byte count, an object array's
//! length × id size, a primitive array's length × element size.

use std::collections::HashMap;

use super::cursor::Cursor;
use super::error::Error;
use super::error::{Result, Salvaged};
use super::heap_dump::SubRecord;
use super::heap_dump::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump};
use super::incremental::{Decoder, Event, Fork, Visit, visit_pair, visit_sub_records};
use super::names::ClassNames;
use super::records::HeapDump;
use super::records::{Record, Records};
use super::types::{BasicType, Id, IdSize};

/// One line of a histogram.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HistogramRow {
    /// Number of objects.
    pub instances: u64,
    /// Sum of their recorded data sizes.
    pub shallow_bytes: u64,
    /// Class name in Java source form.
    pub class_name: String,
}

/// Open-addressing counters keyed by class id: one multiply and usually one probe per object
/// (the histogram's inner loop).
#[derive(Debug, Clone)]
struct ClassCounts {
    /// `(class id, instances, bytes)`; a slot with `instances == 0` is empty.
    slots: Vec<(Id, u64, u64)>,
    len: usize,
}

impl Default for ClassCounts {
    fn default() -> Self {
        ClassCounts {
            slots: vec![(Id::NULL, 0, 0); 1024],
            len: 0,
        }
    }
}

impl ClassCounts {
    #[inline]
    fn slot_of(id: Id, mask: usize) -> usize {
        (id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask
    }

    #[inline]
    fn add(&mut self, id: Id, n: u64, bytes: u64) {
        // The table always has slots (a power of two of them), so the mask never wraps.
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = Self::slot_of(id, mask);
        while let Some(slot) = self.slots.get_mut(i) {
            if slot.0 == id && slot.1 != 0 {
                match (slot.1.checked_add(n), slot.2.checked_add(bytes)) {
                    (Some(instances), Some(total)) => (slot.1, slot.2) = (instances, total),
                    _ => Self::saturate(slot, n, bytes),
                }
                return;
            }
            if slot.1 == 0 {
                *slot = (id, n, bytes);
                self.len += 1;
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `n` and `bytes` to a slot's counts, stopping at `u64::MAX`: off the hot path,
    /// where the two checked additions cost two branches never taken rather than the
    /// conditional moves of saturating ones.
    #[cold]
    fn saturate(slot: &mut (Id, u64, u64), n: u64, bytes: u64) {
        slot.1 = slot.1.saturating_add(n);
        slot.2 = slot.2.saturating_add(bytes);
    }

    #[cold]
    fn grow(&mut self) {
        let bigger = vec![(Id::NULL, 0, 0); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        self.len = 0;
        for (id, n, b) in old {
            if n != 0 {
                self.add(id, n, b);
            }
        }
    }

    /// Adds every count of `other` to these, and empties `other` (keeping its slots).
    fn take_from(&mut self, other: &mut ClassCounts) {
        if other.len == 0 {
            return;
        }
        for slot in &mut other.slots {
            if slot.1 != 0 {
                self.add(slot.0, slot.1, slot.2);
                *slot = (Id::NULL, 0, 0);
            }
        }
        other.len = 0;
    }

    fn iter(&self) -> impl Iterator<Item = (Id, u64, u64)> + '_ {
        self.slots.iter().copied().filter(|s| s.1 != 0)
    }
}

/// Per-class counters, fed records or incremental events (it is a [`Visit`]or for
/// [`Decoder::decode_with`](super::incremental::Decoder::decode_with), the fast path, and a
/// [`Fork`] for [`Decoder::decode_forked`], which walks two heap-dump records at once).
///
/// ```
/// use hprof::binary::{Header, Id, IdSize, LoadClass, PrimitiveArrayDump, Record, SubRecord};
/// use hprof::binary::{BasicType, StackTraceSerial, Utf8, Version};
/// use hprof::binary::write::Writer;
/// let header = Header { version: Version::V1_0_2, id_size: IdSize::Four, timestamp_ms: 0 };
/// let mut w = Writer::new(Vec::new(), &header)?;
/// let array = PrimitiveArrayDump {
///     array_id: Id(1),
///     stack_trace_serial: StackTraceSerial(0),
///     element_type: BasicType::Int,
///     data: &[0; 8],
/// };
/// w.write_sub_record(&SubRecord::PrimitiveArrayDump(array))?;
/// let data = w.finish()?;
///
/// let hist = hprof::binary::histogram::Histogram::parse(&data)?;
/// let rows = hist.rows();
/// assert_eq!((rows[0].class_name.as_str(), rows[0].instances, rows[0].shallow_bytes),
///     ("int[]", 1, 8));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    classes: ClassCounts,
    primitives: [(u64, u64); 12],
    id_size: Option<IdSize>,
    names: ClassNames,
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram::default()
    }

    /// Counts every object of a whole file held in memory. Each heap-dump record is walked
    /// beside the one before it, on one thread ([`Fork`]).
    ///
    /// # Errors
    /// Any decoding error.
    pub fn parse(data: &[u8]) -> Result<Histogram> {
        let (header, records) = Records::parse(data)?;
        let mut h = Histogram::new();
        h.id_size = Some(header.id_size);
        let mut fork = h.fork();
        // The heap-dump body being walked, when the record after it may be walked beside it.
        let mut current: Option<Cursor<'_>> = None;
        for r in records {
            let record = match r {
                Ok((_, record)) => record,
                Err(e) => {
                    // The body before a record that cannot be read may hold an earlier error.
                    h.finish_body(current)?;
                    return Err(e);
                }
            };
            match record {
                Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                    h.count_beside(&mut fork, &mut current, &d)?;
                }
                other => {
                    h.finish_body(current.take())?;
                    h.names.add_record(&other);
                }
            }
        }
        h.finish_body(current)?;
        Ok(h)
    }

    /// Counts the heap-dump body `d` beside the rest of `current` (the body before it, whose
    /// count ends here, `fork` taking `d`'s share until then), and makes `d` the current one.
    fn count_beside<'a>(
        &mut self,
        fork: &mut Histogram,
        current: &mut Option<Cursor<'a>>,
        d: &HeapDump<'a>,
    ) -> Result<()> {
        let mut next = Cursor::new(d.body, d.offset, d.id_size);
        if let Some(mut c) = current.take() {
            visit_pair(&mut c, &mut next, self, fork)?;
        }
        *current = Some(next);
        Ok(())
    }

    /// Counts the rest of a heap-dump body, if there is one.
    fn finish_body(&mut self, body: Option<Cursor<'_>>) -> Result<()> {
        let Some(c) = body else {
            return Ok(());
        };
        let dump = HeapDump {
            body: c.rest(),
            offset: c.offset(),
            id_size: c.id_size(),
        };
        visit_sub_records(&dump, self)
    }

    /// Counts every object a file held in memory holds even if it is cut off or damaged
    /// part-way: the histogram of every sub-record read before the first error, and that
    /// error (its offset, the record, how many bytes are missing). A file with no record
    /// after its header, or with `HEAP_DUMP_SEGMENT`s and no `HEAP_DUMP_END`, is incomplete
    /// too.
    ///
    /// # Errors
    /// Only when the file header cannot be read.
    pub fn salvage(data: &[u8]) -> Result<Salvaged<Histogram>> {
        let mut decoder = Decoder::new().input_len(data.len() as u64);
        let mut h = Histogram::new();
        let error = match decoder.decode_forked(data, &mut h) {
            Ok((consumed, _)) => decoder
                .finish(data.get(consumed..).unwrap_or_default())
                .err(),
            Err(e) => Some(e),
        };
        match (h.id_size, error) {
            (None, Some(e)) => Err(e),
            (_, error) => Ok(Salvaged { value: h, error }),
        }
    }

    /// Counts every object of a whole file held in memory on `threads` threads: heap-dump
    /// records are split into `threads` byte-balanced groups, counted in parallel (each record
    /// beside the one before it, as [`Histogram::parse`] does), and merged.
    /// (A 1.0.1 dump with one `HEAP_DUMP` record is counted on one thread.)
    ///
    /// # Errors
    /// Any decoding error.
    pub fn parse_parallel(data: &[u8], threads: usize) -> Result<Histogram> {
        let (header, records) = Records::parse(data)?;
        let mut h = Histogram::new();
        h.id_size = Some(header.id_size);
        let mut dumps: Vec<HeapDump<'_>> = Vec::new();
        for r in records {
            match r? {
                (_, Record::HeapDump(d) | Record::HeapDumpSegment(d)) => dumps.push(d),
                (_, other) => h.names.add_record(&other),
            }
        }
        let threads = threads.clamp(1, dumps.len().max(1));
        let total: usize = dumps.iter().map(|d| d.body.len()).sum();
        let share = total / threads + 1;
        let mut groups: Vec<&[HeapDump<'_>]> = Vec::new();
        let (mut start, mut acc) = (0, 0);
        for (i, d) in dumps.iter().enumerate() {
            acc += d.body.len();
            if acc >= share * (groups.len() + 1) {
                groups.push(dumps.get(start..=i).unwrap_or_default());
                start = i + 1;
            }
        }
        groups.push(dumps.get(start..).unwrap_or_default());
        let parts: Vec<Result<Histogram>> = std::thread::scope(|s| {
            let handles: Vec<_> = groups
                .iter()
                .map(|group| {
                    s.spawn(move || -> Result<Histogram> {
                        let mut part = Histogram::new();
                        let mut fork = part.fork();
                        let mut current: Option<Cursor<'_>> = None;
                        for d in *group {
                            part.count_beside(&mut fork, &mut current, d)?;
                        }
                        part.finish_body(current)?;
                        Ok(part)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|t| {
                    t.join().unwrap_or_else(|_| {
                        Err(Error::Invalid {
                            offset: 0,
                            message: "a histogram worker thread failed".into(),
                        })
                    })
                })
                .collect()
        });
        for p in parts {
            h.merge(p?);
        }
        Ok(h)
    }

    /// Takes a top-level record (names, and the objects of heap dumps).
    ///
    /// # Errors
    /// Errors decoding the sub-records of a heap dump.
    pub fn add_record(&mut self, record: &Record<'_>) -> Result<()> {
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                self.id_size = Some(d.id_size);
                visit_sub_records(d, self)?;
            }
            other => self.names.add_record(other),
        }
        Ok(())
    }

    /// Takes an incremental-decoder event.
    #[inline]
    pub fn add_event(&mut self, event: &Event<'_>) {
        match event {
            Event::SubRecord(_, s) => self.add_sub_record(s),
            Event::Record(_, r) => self.names.add_record(r),
            Event::Header(h) => self.id_size = Some(h.id_size),
            Event::HeapDumpStart(_) | Event::HeapDumpBodyEnd(_) => {}
        }
    }

    /// Counts one sub-record (non-objects are ignored).
    #[inline]
    pub fn add_sub_record(&mut self, s: &SubRecord<'_>) {
        match s {
            SubRecord::InstanceDump(i) => self.add_object(i.class_id, i.data.len() as u64),
            SubRecord::ObjectArrayDump(a) => {
                self.add_object(a.array_class_id, a.elements.bytes().len() as u64);
            }
            SubRecord::PrimitiveArrayDump(a) => {
                self.add_primitive_array(a.element_type, a.data.len() as u64);
            }
            SubRecord::PrimitiveArrayNoData(a) => {
                let size = a.element_type.size(IdSize::Four) as u64;
                self.add_primitive_array(a.element_type, u64::from(a.length) * size);
            }
            SubRecord::Root(_) | SubRecord::ClassDump(_) | SubRecord::HeapDumpInfo(_) => {}
        }
    }

    /// Counts one instance or object array of class `class_id` with `bytes` of data.
    #[inline]
    pub fn add_object(&mut self, class_id: Id, bytes: u64) {
        self.classes.add(class_id, 1, bytes);
    }

    /// Counts one primitive array.
    #[inline]
    pub fn add_primitive_array(&mut self, element_type: BasicType, bytes: u64) {
        if let Some(e) = self.primitives.get_mut(element_type.code() as usize) {
            e.0 = e.0.saturating_add(1);
            e.1 = e.1.saturating_add(bytes);
        }
    }

    /// Adds another histogram's counts and names (for parallel decoding).
    pub fn merge(&mut self, other: Histogram) {
        for (id, n, b) in other.classes.iter() {
            self.classes.add(id, n, b);
        }
        for (a, b) in self.primitives.iter_mut().zip(other.primitives) {
            a.0 = a.0.saturating_add(b.0);
            a.1 = a.1.saturating_add(b.1);
        }
        self.names.extend(&other.names);
        if self.id_size.is_none() {
            self.id_size = other.id_size;
        }
    }

    /// The class names seen so far.
    pub fn names(&self) -> &ClassNames {
        &self.names
    }

    /// Mutable access to the names (to share one table across parallel workers).
    pub fn names_mut(&mut self) -> &mut ClassNames {
        &mut self.names
    }

    /// Total number of objects counted.
    pub fn total_instances(&self) -> u64 {
        self.classes.iter().map(|c| c.1).sum::<u64>()
            + self.primitives.iter().map(|c| c.0).sum::<u64>()
    }

    /// Objects and bytes per class id (instances and object arrays; primitive arrays are in
    /// [`Histogram::rows`] only).
    pub(crate) fn class_counts(&self) -> impl Iterator<Item = (Id, u64, u64)> + '_ {
        self.classes.iter()
    }

    /// Primitive-array rows: `(name, instances, bytes)`.
    pub(crate) fn primitive_counts(&self) -> impl Iterator<Item = (String, u64, u64)> + '_ {
        BasicType::ALL.into_iter().filter_map(|ty| {
            let &(n, b) = self.primitives.get(ty.code() as usize)?;
            (n > 0).then(|| (format!("{}[]", ty.java_name()), n, b))
        })
    }

    /// One row per class with at least one object, sorted by instances descending, then name
    /// ascending. Classes with the same name (several class loaders) are merged.
    pub fn rows(&self) -> Vec<HistogramRow> {
        let mut by_name: HashMap<String, (u64, u64)> = HashMap::new();
        for (id, n, b) in self.classes.iter() {
            let e = by_name.entry(self.names.java_name(id)).or_insert((0, 0));
            e.0 = e.0.saturating_add(n);
            e.1 = e.1.saturating_add(b);
        }
        for ty in BasicType::ALL {
            if let Some(&(n, b)) = self.primitives.get(ty.code() as usize) {
                if n > 0 {
                    let e = by_name
                        .entry(format!("{}[]", ty.java_name()))
                        .or_insert((0, 0));
                    e.0 = e.0.saturating_add(n);
                    e.1 = e.1.saturating_add(b);
                }
            }
        }
        let mut rows: Vec<HistogramRow> = by_name
            .into_iter()
            .map(|(class_name, (instances, shallow_bytes))| HistogramRow {
                instances,
                shallow_bytes,
                class_name,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.instances
                .cmp(&a.instances)
                .then_with(|| a.class_name.cmp(&b.class_name))
        });
        rows
    }
}

/// Counts are the same in any order: [`Decoder::decode_forked`] walks two heap-dump records at
/// once into a histogram and its fork.
impl<'a> Fork<'a> for Histogram {
    fn fork(&self) -> Histogram {
        Histogram {
            id_size: self.id_size,
            ..Histogram::default()
        }
    }

    fn join(&mut self, fork: &mut Histogram) {
        self.classes.take_from(&mut fork.classes);
        for (a, b) in self.primitives.iter_mut().zip(&mut fork.primitives) {
            a.0 = a.0.saturating_add(b.0);
            a.1 = a.1.saturating_add(b.1);
            *b = (0, 0);
        }
        // A fork is only given sub-records: it has no names to take.
    }
}

impl<'a> Visit<'a> for Histogram {
    #[inline]
    fn event(&mut self, event: Event<'a>) {
        self.add_event(&event);
    }

    #[inline]
    fn instance_dump(&mut self, _at: u64, dump: InstanceDump<'a>) {
        self.add_object(dump.class_id, dump.data.len() as u64);
    }

    #[inline]
    fn object_array_dump(&mut self, _at: u64, dump: ObjectArrayDump<'a>) {
        self.add_object(dump.array_class_id, dump.elements.bytes().len() as u64);
    }

    #[inline]
    fn primitive_array_dump(&mut self, _at: u64, dump: PrimitiveArrayDump<'a>) {
        self.add_primitive_array(dump.element_type, dump.data.len() as u64);
    }
}
