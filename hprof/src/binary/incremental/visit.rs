//! Visitors of the decoder's events, and the fast path that hands them the object dumps of
//! a heap-dump body without building [`Event`]s.

use super::event::Event;
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::heap_dump::{
    InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord, SubRecordSink, be_id, be32,
    sub_record_n, sub_tag,
};
use crate::binary::records::HeapDump;
use crate::binary::types::{BasicType, IdList, IdSize, StackTraceSerial};

/// Receives the events of [`Decoder::decode_with`](super::Decoder::decode_with). Only [`Visit::event`] is required; the
/// three per-kind methods let a hot consumer (a histogram, an index) take instance and array
/// dumps without going through the [`Event`] enum.
///
/// Every closure `FnMut(Event<'a>)` is a `Visit<'a>`.
pub trait Visit<'a> {
    /// Any event.
    fn event(&mut self, event: Event<'a>);

    /// An `INSTANCE_DUMP` at file offset `at`.
    #[inline]
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        self.event(Event::SubRecord(at, SubRecord::InstanceDump(dump)));
    }

    /// An `OBJ_ARRAY_DUMP` at file offset `at`.
    #[inline]
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.event(Event::SubRecord(at, SubRecord::ObjectArrayDump(dump)));
    }

    /// A `PRIM_ARRAY_DUMP` at file offset `at`.
    #[inline]
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.event(Event::SubRecord(at, SubRecord::PrimitiveArrayDump(dump)));
    }

    /// Called by the fast path before it decodes an instance or array dump, with the input
    /// from that dump's tag to the end of what is buffered (and of its heap-dump record).
    /// Does nothing by default. A hint only: dumps decoded another way (the last few bytes of
    /// a buffer, a dump cut off by its end) come without it.
    ///
    /// A hook for a caller that reads from memory the caches have not seen (a memory-mapped
    /// dump) to prefetch a few kilobytes ahead: where the next sub-record starts depends on
    /// the length read from this one, so every cache miss stalls the whole loop.
    #[inline]
    fn ahead(&mut self, input: &'a [u8]) {
        let _ = input;
    }
}

/// A [`Visit`]or that can be split in two and joined again, for
/// [`Decoder::decode_forked`](super::Decoder::decode_forked): while this one takes the rest
/// of a heap-dump record, a fork takes the sub-records at the start of the next, so that one
/// thread walks both at once; the fork's share is joined into this visitor when the first
/// record has ended without error, before the rest of the second is decoded.
///
/// For a visitor whose result does not depend on which of the two was given a sub-record
/// (counts, sums, sets: a histogram), or that puts what a fork was given after what it was
/// given itself (a list of events).
pub trait Fork<'a>: Visit<'a> + Sized {
    /// A visitor that has been given nothing yet, to take sub-records beside this one.
    fn fork(&self) -> Self;

    /// Takes what `fork` was given, as if it had been given to this visitor, and leaves
    /// `fork` as [`Fork::fork`] made it, to be used again.
    fn join(&mut self, fork: &mut Self);
}

impl<'a, F: FnMut(Event<'a>)> Visit<'a> for F {
    #[inline]
    fn event(&mut self, event: Event<'a>) {
        self(event);
    }
}

/// Decodes the sub-records of `c` into `v` until it is empty or a sub-record fails; on
/// failure returns the error and leaves `c` at the start of the failing sub-record.
#[inline(always)]
pub(super) fn sub_records_into<'a, V: Visit<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    v: &mut V,
) -> Option<Error> {
    match c.id_size() {
        IdSize::Four => sub_records_into_n::<4, V>(c, v),
        IdSize::Eight => sub_records_into_n::<8, V>(c, v),
    }
}

/// [`sub_records_into`] specialised for ids of `N` bytes (the histogram's inner loop): runs
/// of whole instance and array dumps go through [`objects_n`], anything else (roots, class
/// dumps, a sub-record cut by the end of the input, an error) through the one checked
/// dispatch, which says what is wrong and where.
#[inline(always)]
fn sub_records_into_n<'a, const N: usize, V: Visit<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    v: &mut V,
) -> Option<Error> {
    loop {
        let rest = objects_n::<N, V>(c.rest(), c.offset(), v);
        c.rewind(rest);
        if c.is_empty() {
            return None;
        }
        let before = c.rest();
        if let Err(e) = sub_record_n::<N, _>(c, &mut Visiting(&mut *v)) {
            c.rewind(before);
            return Some(e);
        }
    }
}

/// The longest fixed part of an object dump: tag, id, u4, u4 or id, id or u1 (25 bytes with
/// 8-byte ids).
const OBJECT_HEAD: usize = 25;

/// Hands `v` the whole `INSTANCE_DUMP`, `OBJ_ARRAY_DUMP` and `PRIM_ARRAY_DUMP` sub-records
/// at the start of `body` (whose first byte is at file offset `offset`), and returns the rest
/// of `body` from the first sub-record that is of another kind, not whole, or invalid.
///
/// The position lives in a register for the whole run: the next sub-record's address depends
/// on this one's length, so every cycle on that chain counts once per object.
#[inline(always)]
fn objects_n<'a, const N: usize, V: Visit<'a> + ?Sized>(
    body: &'a [u8],
    offset: u64,
    v: &mut V,
) -> &'a [u8] {
    let end = offset + body.len() as u64;
    let mut rest = body;
    while let Some(tail) = object_n::<N, V>(rest, end, v) {
        rest = tail;
    }
    rest
}

/// [`objects_n`] over two bodies at once, one object dump of each in turn: `a`'s to `v`,
/// `b`'s to `w`, until either starts with anything but a whole object dump. Returns the rest
/// of each, and whether it was `b` that stopped.
///
/// The two chains of positions do not depend on each other, so the processor works on both
/// at once: one thread walks two bodies in little more time than one.
#[inline(always)]
fn objects_pair_n<'a, const N: usize, V: Visit<'a>>(
    (a, a_end): (&'a [u8], u64),
    (b, b_end): (&'a [u8], u64),
    v: &mut V,
    w: &mut V,
) -> (&'a [u8], &'a [u8], bool) {
    let (mut a, mut b) = (a, b);
    while let Some(tail) = object_n::<N, V>(a, a_end, v) {
        a = tail;
        let Some(tail) = object_n::<N, V>(b, b_end, w) else {
            return (a, b, true);
        };
        b = tail;
    }
    (a, b, false)
}

/// Decodes the sub-records of two heap-dump bodies at once, `a`'s into `v` and `b`'s into
/// `w` ([`objects_pair_n`] for the object dumps, the checked dispatch for anything else),
/// until `a` is empty or a sub-record of `a` fails: returns that error and leaves `a` at the
/// start of the failing sub-record. `b` is walked as far as it goes along: it stops, leaving
/// `b` at that sub-record, where one of its sub-records fails or is cut off, or where it
/// ends.
#[inline(always)]
pub(super) fn sub_records_pair<'a, V: Visit<'a>>(
    a: &mut Cursor<'a>,
    b: &mut Cursor<'a>,
    v: &mut V,
    w: &mut V,
) -> Option<Error> {
    match a.id_size() {
        IdSize::Four => sub_records_pair_n::<4, V>(a, b, v, w),
        IdSize::Eight => sub_records_pair_n::<8, V>(a, b, v, w),
    }
}

/// [`sub_records_pair`] for ids of `N` bytes.
#[inline(always)]
fn sub_records_pair_n<'a, const N: usize, V: Visit<'a>>(
    a: &mut Cursor<'a>,
    b: &mut Cursor<'a>,
    v: &mut V,
    w: &mut V,
) -> Option<Error> {
    loop {
        let a_end = a.offset() + a.remaining() as u64;
        let b_end = b.offset() + b.remaining() as u64;
        let (a_rest, b_rest, b_stopped) =
            objects_pair_n::<N, V>((a.rest(), a_end), (b.rest(), b_end), v, w);
        a.rewind(a_rest);
        b.rewind(b_rest);
        let (c, visitor) = match b_stopped {
            true => (&mut *b, &mut *w),
            false => (&mut *a, &mut *v),
        };
        if c.is_empty() {
            break;
        }
        let before = c.rest();
        if let Err(e) = sub_record_n::<N, _>(c, &mut Visiting(visitor)) {
            c.rewind(before);
            if !b_stopped {
                return Some(e);
            }
            break;
        }
    }
    // `a` or `b` has ended, or `b` stopped at a sub-record it cannot take: the rest of `a` alone.
    sub_records_into_n::<N, V>(a, v)
}

/// Hands `v` the object dump at the start of `rest` (whose end is at file offset `end`) and
/// returns the input after it; `None`, having handed over nothing, when `rest` does not
/// start with a whole instance, object array or primitive array dump. [`Visit::ahead`] is
/// called before the dump is sliced out of the input.
#[inline(always)]
fn object_n<'a, const N: usize, V: Visit<'a> + ?Sized>(
    rest: &'a [u8],
    end: u64,
    v: &mut V,
) -> Option<&'a [u8]> {
    let (h, _) = rest.split_first_chunk::<OBJECT_HEAD>()?;
    let at = end - rest.len() as u64;
    // One dispatch on the tag: each arm reads its length, slices the dump out of the input
    // and hands it over.
    match h[0] {
        sub_tag::INSTANCE_DUMP => {
            let len = be32(h, 2 * N + 5) as usize;
            v.ahead(rest);
            let (data, tail) = split(rest, 2 * N + 9, len)?;
            let dump = InstanceDump {
                object_id: be_id::<N, OBJECT_HEAD>(h, 1),
                stack_trace_serial: StackTraceSerial(be32(h, N + 1)),
                class_id: be_id::<N, OBJECT_HEAD>(h, N + 5),
                data,
            };
            v.instance_dump(at, dump);
            Some(tail)
        }
        sub_tag::OBJ_ARRAY_DUMP => {
            let len = (be32(h, N + 5) as usize).checked_mul(N)?;
            v.ahead(rest);
            let (data, tail) = split(rest, 2 * N + 9, len)?;
            let id_size = if N == 4 { IdSize::Four } else { IdSize::Eight };
            let dump = ObjectArrayDump {
                array_id: be_id::<N, OBJECT_HEAD>(h, 1),
                stack_trace_serial: StackTraceSerial(be32(h, N + 1)),
                array_class_id: be_id::<N, OBJECT_HEAD>(h, N + 9),
                elements: IdList::new(data, id_size),
            };
            v.object_array_dump(at, dump);
            Some(tail)
        }
        sub_tag::PRIM_ARRAY_DUMP => {
            let code = h.get(N + 9).copied().unwrap_or(0);
            let element_type = BasicType::from_code(code).filter(|t| *t != BasicType::Object)?;
            let size = element_type.size(IdSize::Four);
            let len = (be32(h, N + 5) as usize).checked_mul(size)?;
            v.ahead(rest);
            let (data, tail) = split(rest, N + 10, len)?;
            let dump = PrimitiveArrayDump {
                array_id: be_id::<N, OBJECT_HEAD>(h, 1),
                stack_trace_serial: StackTraceSerial(be32(h, N + 1)),
                element_type,
                data,
            };
            v.primitive_array_dump(at, dump);
            Some(tail)
        }
        _ => None,
    }
}

/// The `len` bytes after the first `fixed` of `input`, and what follows them; `None` when
/// `input` is shorter.
#[inline(always)]
fn split(input: &[u8], fixed: usize, len: usize) -> Option<(&[u8], &[u8])> {
    input.get(fixed..)?.split_at_checked(len)
}

/// A [`Visit`]or as the receiver of the sub-record dispatch.
struct Visiting<'v, V: ?Sized>(&'v mut V);

impl<'a, V: Visit<'a> + ?Sized> SubRecordSink<'a> for Visiting<'_, V> {
    type Output = ();
    #[inline(always)]
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        self.0.instance_dump(at, dump);
    }
    #[inline(always)]
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.0.object_array_dump(at, dump);
    }
    #[inline(always)]
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.0.primitive_array_dump(at, dump);
    }
    #[inline(always)]
    fn other(&mut self, at: u64, sub: SubRecord<'a>) {
        self.0.event(Event::SubRecord(at, sub));
    }
}

/// Decodes the rest of the heap-dump body `current` into `v` and, beside it, the sub-records
/// at the start of the next body `next` into `w` ([`sub_records_pair`]); once `current` has
/// ended without error, joins `w` into `v`. `next` is left after what `w` took.
///
/// # Errors
/// The first sub-record error of `current` (and `w` is not joined).
pub(crate) fn visit_pair<'a, V: Fork<'a>>(
    current: &mut Cursor<'a>,
    next: &mut Cursor<'a>,
    v: &mut V,
    w: &mut V,
) -> Result<()> {
    match sub_records_pair(current, next, v, w) {
        Some(e) => Err(e),
        None => {
            v.join(w);
            Ok(())
        }
    }
}

/// Decodes every sub-record of a heap-dump body held in memory into `v`, through the same
/// fast path as [`Decoder::decode_with`](super::Decoder::decode_with).
///
/// # Errors
/// The first sub-record error ([`Error::Truncated`] when a sub-record runs past the
/// end of the body).
#[inline]
pub fn visit_sub_records<'a, V: Visit<'a> + ?Sized>(dump: &HeapDump<'a>, v: &mut V) -> Result<()> {
    let mut c = Cursor::new(dump.body, dump.offset, dump.id_size);
    match sub_records_into(&mut c, v) {
        None => Ok(()),
        Some(e) => Err(e),
    }
}
