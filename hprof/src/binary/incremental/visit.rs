//! Visitors of the decoder's events, and the fast path that hands them the object dumps of
//! a heap-dump body without building [`Event`]s.

use super::event::Event;
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::heap_dump::{
    InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord, SubRecordSink, sub_record_n,
};
use crate::binary::records::HeapDump;
use crate::binary::types::IdSize;

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

/// [`sub_records_into`] specialised for ids of `N` bytes (the histogram's inner loop).
#[inline(always)]
fn sub_records_into_n<'a, const N: usize, V: Visit<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    v: &mut V,
) -> Option<Error> {
    let mut sink = Visiting(v);
    while !c.is_empty() {
        let before = c.rest();
        if let Err(e) = sub_record_n::<N, _>(c, &mut sink) {
            c.rewind(before);
            return Some(e);
        }
    }
    None
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
