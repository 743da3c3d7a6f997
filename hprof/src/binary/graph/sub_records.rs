//! The object index's pass over the heap-dump sub-records (`hprof.md` §1.5): the id of every
//! object (and its offset while the ids ascend, as a dump written in address order has
//! them), the instances of each class, the class dumps and the GC roots. Several threads
//! take a run of heap-dump records each; their findings are joined in file order, so the
//! index is the same whatever their number.

use super::super::cursor::Cursor;
use super::super::error::Error;
use super::super::hash::IdMap;
use super::super::heap_dump::{ClassDump, GcRoot, SubRecord, parse_sub_record};
use super::super::types::{Id, IdSize};

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

/// Fewer bytes than this per thread are not worth a thread.
const MIN_BYTES_PER_THREAD: usize = 64 << 10;

/// Reads the sub-records of `bodies` on up to `threads` threads (the calling one included).
pub(super) fn find<'a>(bodies: &[Body<'a>], id_size: IdSize, threads: usize) -> Found<'a> {
    let total: usize = bodies.iter().map(|b| b.bytes.len()).sum();
    let runs = threads
        .clamp(1, 64)
        .min(total / MIN_BYTES_PER_THREAD)
        .min(bodies.len())
        .max(1);
    // Runs of records of about equal bytes, joined in file order.
    let mut cuts = vec![0usize];
    let mut seen = 0usize;
    for (k, b) in bodies.iter().enumerate() {
        seen += b.bytes.len();
        if cuts.len() < runs && seen * runs >= total * cuts.len() {
            cuts.push(k + 1);
        }
    }
    cuts.push(bodies.len());
    cuts.dedup();
    let parts: Vec<Part<'a, '_>> = cuts
        .iter()
        .zip(cuts.iter().skip(1))
        .map(|(&a, &b)| Part::new(bodies.get(a..b).unwrap_or_default()))
        .collect();
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        return Part::new(&[]).into_found();
    };
    let done = std::thread::scope(|scope| {
        let others: Vec<_> = parts
            .map(|p| scope.spawn(move || p.read(id_size)))
            .collect();
        let mut done = vec![first.read(id_size)];
        for h in others {
            match h.join() {
                Ok(p) => done.push(p),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    });
    let mut done = done.into_iter();
    let Some(mut found) = done.next().map(Part::into_found) else {
        return Part::new(&[]).into_found();
    };
    for p in done {
        found.append(p);
    }
    found
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

/// One thread's run of heap-dump records.
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
    /// Appends what a later run of records holds.
    fn append(&mut self, p: Part<'a, '_>) {
        // The ids still ascend if they ascend in `p` and across the seam.
        let seam = match (self.ids.last(), p.ids.first()) {
            (Some(last), Some(first)) => last < first,
            _ => true,
        };
        self.ascending = match self.ascending.take() {
            Some(mut offsets) if p.ascending && seam => {
                offsets.extend_from_slice(&p.offsets);
                Some(offsets)
            }
            _ => None,
        };
        // Each of `p`'s vectors is dropped as soon as it is appended: the peak stays at the
        // whole of one array and half of the other.
        drop(p.offsets);
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
    use super::*;

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
