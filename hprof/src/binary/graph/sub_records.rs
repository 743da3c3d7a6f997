//! The object index's pass over the heap-dump sub-records (`hprof.md` §1.5): the id of every
//! object (and its offset while the ids ascend, as a dump written in address order has
//! them), the instances of each class, the class dumps and the GC roots. The walk over the
//! records hands the heap-dump records to the threads in batches as it passes them; their
//! findings are joined in file order, so the index is the same whatever their number.

use std::collections::BTreeMap;
use std::sync::{Mutex, mpsc};

use super::super::cursor::Cursor;
use super::super::error::Error;
use super::super::hash::IdMap;
use super::super::heap_dump::{ClassDump, GcRoot, SubRecord, parse_sub_record};
use super::super::types::{Id, IdSize};
use super::join_all;

/// The body of one heap-dump record.
#[derive(Debug, Clone, Copy)]
pub(super) struct Body<'a> {
    /// Its place in the walk over the records (to tell which of two errors comes first).
    pub(super) record: usize,
    /// Its file offset.
    pub(super) offset: u64,
    /// Its bytes (all there are of it, for a record cut short).
    pub(super) bytes: &'a [u8],
}

/// What the sub-records hold.
pub(super) struct Found<'a> {
    /// Every object's id, in file order.
    pub(super) ids: Vec<u64>,
    /// When the ids ascend through the whole file: their sub-records' offsets, in the same
    /// order.
    pub(super) ascending: Option<Vec<u64>>,
    /// Per class id: the longest instance data (to bound flattened layouts) and the number
    /// of instances (to bound the references).
    pub(super) instances: IdMap<(u32, u64)>,
    /// The class dumps, in file order.
    pub(super) class_dumps: Vec<ClassDump<'a>>,
    /// The GC roots, in file order.
    pub(super) roots: Vec<GcRoot>,
    /// References of object arrays and class objects, at most.
    pub(super) other_refs: u64,
    /// References of instances, at most, by their lengths alone.
    pub(super) instance_refs_by_length: u64,
    /// The stretches of the file holding sub-records that decode.
    pub(super) stretches: Vec<(u64, u64)>,
    /// The first sub-record that does not decode, with its record's place in the walk.
    pub(super) error: Option<(usize, Error)>,
}

/// How many bytes of heap-dump records a thread is handed at once, for a dump of `len` bytes
/// read on `threads` threads: a quarter of a thread's share, so that the threads share the
/// work evenly, between 1 MiB and 256 MiB, so that the walk is never far ahead of the threads.
/// (Many small batches cost time of their own: `benches/README.md`.)
fn batch_bytes(len: usize, threads: usize) -> usize {
    (len / 4 / threads.max(1)).clamp(1 << 20, 256 << 20)
}

/// Reads the sub-records of the heap-dump bodies (of a dump of `len` bytes) that `walk` hands
/// to its callback in file order, on up to `threads` threads while the walk goes on, and
/// returns what they hold, joined in file order (the same whatever the number of threads),
/// with what `walk` returned.
///
/// Each batch of bodies is read soon after the walk passed it, while its pages are still in
/// memory: a dump larger than the memory is read from the disk once for both. (Walking all the
/// records first touched a page of every heap-dump segment, 1 MiB apart in a HotSpot dump, so
/// the kernel's read-ahead read the whole file, and the threads read most of it again.)
pub(super) fn find_while<'a, R>(
    id_size: IdSize,
    threads: usize,
    len: usize,
    walk: impl FnOnce(&mut dyn FnMut(Body<'a>)) -> R,
) -> (Found<'a>, R) {
    find_in_batches(id_size, threads, batch_bytes(len, threads), walk)
}

/// [`find_while`] with batches of at least `batch_bytes` (the last may be smaller).
fn find_in_batches<'a, R>(
    id_size: IdSize,
    threads: usize,
    batch_bytes: usize,
    walk: impl FnOnce(&mut dyn FnMut(Body<'a>)) -> R,
) -> (Found<'a>, R) {
    let read = |batch: &[Body<'a>]| Part::new(batch).read(id_size).into_found();
    let mut batch = Vec::new();
    let mut bytes = 0usize;
    if threads <= 1 {
        let mut found = Found::empty();
        let r = walk(&mut |body| {
            bytes += body.bytes.len();
            batch.push(body);
            if bytes >= batch_bytes {
                found.append(read(&batch));
                batch.clear();
                bytes = 0;
            }
        });
        found.append(read(&batch));
        return (found, r);
    }
    let threads = threads.min(64);
    let joined = Mutex::new(Joined {
        next: 0,
        found: Found::empty(),
        waiting: BTreeMap::new(),
    });
    // At most one batch waiting per thread: the walk stays a few batches ahead.
    let (send, receive) = mpsc::sync_channel::<(usize, Vec<Body<'a>>)>(threads);
    let receive = Mutex::new(receive);
    let r = std::thread::scope(|scope| {
        let (receive, joined) = (&receive, &joined);
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    loop {
                        let job = lock(receive).recv();
                        let Ok((k, batch)) = job else { break };
                        let found = read(&batch);
                        drop(batch);
                        lock(joined).take(k, found);
                    }
                })
            })
            .collect();
        let mut k = 0usize;
        let r = walk(&mut |body| {
            bytes += body.bytes.len();
            batch.push(body);
            if bytes >= batch_bytes {
                // Fails only when every thread has panicked: the join below says so.
                let _ = send.send((k, std::mem::take(&mut batch)));
                k += 1;
                bytes = 0;
            }
        });
        if !batch.is_empty() {
            let _ = send.send((k, batch));
        }
        drop(send);
        join_all(workers);
        r
    });
    let joined = joined
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    (joined.found, r)
}

/// The batches read so far: those joined in file order, and those read before a batch ahead of
/// them.
struct Joined<'a> {
    /// The number of the next batch to join.
    next: usize,
    found: Found<'a>,
    waiting: BTreeMap<usize, Found<'a>>,
}

impl<'a> Joined<'a> {
    /// Batch `k`'s findings, joined with every batch after it that waited for it.
    fn take(&mut self, k: usize, found: Found<'a>) {
        self.waiting.insert(k, found);
        while let Some(f) = self.waiting.remove(&self.next) {
            self.found.append(f);
            self.next += 1;
        }
    }
}

/// The mutex's value, also after a thread panicked holding it (the panic is passed on when
/// the threads are joined).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `ids` in ascending order: sorted in place on one thread; on two, each half sorted by its
/// own and the halves merged into a new vector.
pub(super) fn sorted(mut ids: Vec<u64>, threads: usize) -> Vec<u64> {
    if threads < 2 || ids.len() < MIN_IDS_TO_SPLIT_SORT || ids.is_sorted() {
        ids.sort_unstable();
        return ids;
    }
    let half = ids.len() / 2;
    let (a, b) = ids.split_at_mut(half);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| b.sort_unstable());
        a.sort_unstable();
        if let Err(panic) = other.join() {
            std::panic::resume_unwind(panic);
        }
    });
    let (a, b) = ids.split_at(half);
    let mut merged = Vec::with_capacity(ids.len());
    let (mut a, mut b) = (a.iter().copied().peekable(), b.iter().copied().peekable());
    while let (Some(&x), Some(&y)) = (a.peek(), b.peek()) {
        if y < x {
            merged.push(y);
            b.next();
        } else {
            merged.push(x);
            a.next();
        }
    }
    merged.extend(a);
    merged.extend(b);
    merged
}

/// Fewer ids than this are sorted on one thread.
const MIN_IDS_TO_SPLIT_SORT: usize = 1 << 16;

/// One batch of heap-dump records, as a thread reads it.
struct Part<'a, 'b> {
    bodies: &'b [Body<'a>],
    ids: Vec<u64>,
    offsets: Vec<u64>,
    ascending: bool,
    instances: IdMap<(u32, u64)>,
    class_dumps: Vec<ClassDump<'a>>,
    roots: Vec<GcRoot>,
    other_refs: u64,
    instance_refs_by_length: u64,
    stretches: Vec<(u64, u64)>,
    error: Option<(usize, Error)>,
}

impl<'a, 'b> Part<'a, 'b> {
    fn new(bodies: &'b [Body<'a>]) -> Part<'a, 'b> {
        Part {
            bodies,
            ids: Vec::new(),
            offsets: Vec::new(),
            ascending: true,
            instances: IdMap::default(),
            class_dumps: Vec::new(),
            roots: Vec::new(),
            other_refs: 0,
            instance_refs_by_length: 0,
            stretches: Vec::new(),
            error: None,
        }
    }

    /// An object's id at `at`.
    #[inline(always)]
    fn id(&mut self, id: Id, at: u64) {
        let id = id.get();
        if self.ascending {
            if self.ids.last().is_some_and(|&p| p >= id) {
                self.ascending = false;
                self.offsets = Vec::new();
            } else {
                self.offsets.push(at);
            }
        }
        self.ids.push(id);
    }

    fn read(mut self, id_size: IdSize) -> Part<'a, 'b> {
        for body in self.bodies {
            // `parse_sub_record` on a cursor rather than the `SubRecords` iterator: this loop
            // is the hot part of building the index.
            let mut sc = Cursor::new(body.bytes, body.offset, id_size);
            let mut decoded = body.offset;
            while !sc.is_empty() {
                let at = sc.offset();
                let sub = match parse_sub_record(&mut sc) {
                    Ok(s) => s,
                    Err(e) => {
                        self.error.get_or_insert((body.record, e));
                        break;
                    }
                };
                decoded = sc.offset();
                match sub {
                    SubRecord::InstanceDump(i) => {
                        self.id(i.object_id, at);
                        let len = u32::try_from(i.data.len()).unwrap_or(u32::MAX);
                        let e = self.instances.entry(i.class_id).or_insert((0, 0));
                        e.0 = e.0.max(len);
                        e.1 += 1;
                        self.instance_refs_by_length += (i.data.len() / id_size.bytes()) as u64 + 1;
                    }
                    SubRecord::ObjectArrayDump(a) => {
                        self.id(a.array_id, at);
                        self.other_refs += a.elements.len() as u64 + 1;
                    }
                    SubRecord::PrimitiveArrayDump(a) => self.id(a.array_id, at),
                    SubRecord::PrimitiveArrayNoData(a) => self.id(a.array_id, at),
                    SubRecord::ClassDump(cd) => {
                        self.id(cd.class_id, at);
                        self.other_refs += 4
                            + cd.static_fields().count() as u64
                            + cd.constant_pool().count() as u64;
                        self.class_dumps.push(cd);
                    }
                    SubRecord::Root(root) => self.roots.push(root),
                    SubRecord::HeapDumpInfo(_) => {}
                }
            }
            if decoded > body.offset {
                self.stretches.push((body.offset, decoded));
            }
        }
        self
    }

    fn into_found(self) -> Found<'a> {
        Found {
            ids: self.ids,
            ascending: self.ascending.then_some(self.offsets),
            instances: self.instances,
            class_dumps: self.class_dumps,
            roots: self.roots,
            other_refs: self.other_refs,
            instance_refs_by_length: self.instance_refs_by_length,
            stretches: self.stretches,
            error: self.error,
        }
    }
}

impl<'a> Found<'a> {
    /// Nothing found yet.
    fn empty() -> Found<'a> {
        Part::new(&[]).into_found()
    }

    /// Appends what a later run of records holds.
    fn append(&mut self, p: Found<'a>) {
        // The ids still ascend if they ascend in `p` and across the seam.
        let seam = match (self.ids.last(), p.ids.first()) {
            (Some(last), Some(first)) => last < first,
            _ => true,
        };
        self.ascending = match (self.ascending.take(), p.ascending) {
            (Some(mut offsets), Some(more)) if seam => {
                offsets.extend_from_slice(&more);
                Some(offsets)
            }
            _ => None,
        };
        self.ids.extend_from_slice(&p.ids);
        drop(p.ids);
        for (class_id, (len, count)) in p.instances {
            let e = self.instances.entry(class_id).or_insert((0, 0));
            e.0 = e.0.max(len);
            e.1 += count;
        }
        self.class_dumps.extend(p.class_dumps);
        self.roots.extend(p.roots);
        self.other_refs += p.other_refs;
        self.instance_refs_by_length += p.instance_refs_by_length;
        self.stretches.extend(p.stretches);
        if self.error.is_none() {
            self.error = p.error;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::heap_dump::{InstanceDump, PrimitiveArrayDump};
    use super::super::super::types::{BasicType, StackTraceSerial};
    use super::super::super::write::encode_sub_record;
    use super::*;

    /// Forty heap-dump bodies of a few sub-records each: object ids ascending but for a step
    /// back in body 20, a GC root in each, and in body 31 a byte that is no sub-record's tag
    /// after its first object and root.
    fn bodies() -> Vec<Vec<u8>> {
        let id_size = IdSize::Eight;
        (0..40u64)
            .map(|k| {
                let mut out = Vec::new();
                for j in 0..3u64 {
                    let id = if k == 20 { 5 + j } else { 1000 * (k + 1) + j };
                    let sub = if j == 1 {
                        SubRecord::PrimitiveArrayDump(PrimitiveArrayDump {
                            array_id: Id(id),
                            stack_trace_serial: StackTraceSerial(0),
                            element_type: BasicType::Byte,
                            data: &[1, 2, 3],
                        })
                    } else {
                        SubRecord::InstanceDump(InstanceDump {
                            object_id: Id(id),
                            stack_trace_serial: StackTraceSerial(0),
                            class_id: Id(7 + k % 3),
                            data: &[0; 8],
                        })
                    };
                    encode_sub_record(&sub, id_size, &mut out).unwrap();
                    if j == 0 {
                        let root = GcRoot::StickyClass { object_id: Id(id) };
                        encode_sub_record(&SubRecord::Root(root), id_size, &mut out).unwrap();
                    }
                    if k == 31 && j == 0 {
                        out.push(0x77);
                    }
                }
                out
            })
            .collect()
    }

    /// What [`find_in_batches`] finds, as plain values to compare.
    fn findings(threads: usize, batch: usize, data: &[Vec<u8>]) -> String {
        let mut offset = 0;
        let (found, walked) = find_in_batches(IdSize::Eight, threads, batch, |take| {
            for (k, bytes) in data.iter().enumerate() {
                take(Body {
                    record: k,
                    offset,
                    bytes,
                });
                offset += bytes.len() as u64 + 9;
            }
            data.len()
        });
        assert_eq!(walked, data.len());
        let mut instances: Vec<_> = found.instances.iter().collect();
        instances.sort();
        format!(
            "{:?} {:?} {instances:?} {:?} {} {} {:?} {:?}",
            found.ids,
            found.ascending,
            found.roots,
            found.other_refs,
            found.instance_refs_by_length,
            found.stretches,
            found.error.map(|(k, e)| (k, e.to_string())),
        )
    }

    #[test]
    fn batches_on_any_number_of_threads_join_in_file_order() {
        let data = bodies();
        let whole = findings(1, usize::MAX, &data);
        // The error is the one of body 31, where reading that body stopped.
        assert!(whole.contains("Some((31, "), "{whole}");
        assert!(
            whole.contains(" None "),
            "the ids step back in body 20: {whole}"
        );
        for threads in 1..=4 {
            for batch in [1, 50, 200, 1 << 20] {
                assert_eq!(findings(threads, batch, &data), whole, "{threads} {batch}");
            }
        }
        // Without the step back, the offsets are kept, in file order, across the batches.
        let mut data = data;
        data.remove(20);
        let whole = findings(1, usize::MAX, &data);
        assert!(whole.contains(" Some(["), "{whole}");
        assert_eq!(findings(3, 1, &data), whole);
    }

    #[test]
    fn ids_sorted_on_two_threads_are_sorted() {
        // A fixed pseudo-random sequence with repeats, longer than the split threshold.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let ids: Vec<u64> = (0..MIN_IDS_TO_SPLIT_SORT * 3 + 7)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % 100_000
            })
            .collect();
        let mut want = ids.clone();
        want.sort_unstable();
        assert_eq!(sorted(ids.clone(), 2), want);
        assert_eq!(sorted(ids, 1), want);
    }
}
