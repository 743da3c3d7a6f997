//! Heap-dump sub-records (`hprof.md` §1.5), the body of `HEAP_DUMP` (0x0C) and
//! `HEAP_DUMP_SEGMENT` (0x1C): every `ROOT_*` kind, `CLASS_DUMP`, `INSTANCE_DUMP`,
//! `OBJ_ARRAY_DUMP`, `PRIM_ARRAY_DUMP`, and the Android additions (`HEAP_DUMP_INFO`,
//! `ROOT_INTERNED_STRING` … `ROOT_UNREACHABLE`, `PRIMITIVE_ARRAY_NODATA`).
//!
//! Sub-records carry no length: an unknown sub-tag ends decoding of its heap-dump record.

//!
//! | part | file |
//! |---|---|
//! | tags | `tags.rs` |
//! | sub-record types | `model.rs` |
//! | checked decoders | `decode.rs` |
//! | id-size-specialised decoders of the object dumps | `fast.rs` |
//! | the one dispatch on tags, the sub-records of a body | here |

mod decode;
mod fast;
pub(crate) use fast::{be_id, be32};
mod model;
mod tags;

pub use decode::{
    parse_instance_dump, parse_object_array_dump, parse_other_sub_record,
    parse_primitive_array_dump,
};
pub use model::{
    ClassDump, ConstantPoolEntry, FieldDescriptor, GcRoot, HeapDumpInfo, InstanceDump,
    ObjectArrayDump, PrimitiveArrayDump, PrimitiveArrayNoData, StaticField, SubRecord,
};
pub(crate) use tags::sub_record_what;
pub use tags::{is_known_sub_tag, sub_tag};

use crate::binary::cursor::Cursor;
use crate::binary::error::Result;
use crate::binary::types::IdSize;
use fast::{instance_dump_n, object_array_dump_n, primitive_array_dump_n};

/// Receives one decoded sub-record: the three object dumps through their own methods (the
/// hot path, no [`SubRecord`] built), any other sub-record whole.
pub(crate) trait SubRecordSink<'a> {
    /// What the sink makes of a sub-record.
    type Output;
    /// An `INSTANCE_DUMP` at file offset `at`.
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) -> Self::Output;
    /// An `OBJ_ARRAY_DUMP` at file offset `at`.
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) -> Self::Output;
    /// A `PRIM_ARRAY_DUMP` at file offset `at`.
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) -> Self::Output;
    /// Any other sub-record at file offset `at`.
    fn other(&mut self, at: u64, sub: SubRecord<'a>) -> Self::Output;
}

/// Decodes the sub-record at the cursor (tag byte included), whose ids are `N` bytes, into
/// `sink`: the one dispatch on sub-record tags, used by [`parse_sub_record`] and by the
/// visiting fast path of the incremental decoder.
///
/// # Errors
/// As [`parse_sub_record`].
#[inline(always)]
pub(crate) fn sub_record_n<'a, const N: usize, S: SubRecordSink<'a> + ?Sized>(
    c: &mut Cursor<'a>,
    sink: &mut S,
) -> Result<S::Output> {
    let at = c.offset();
    let t = c.u1("a heap dump sub-record tag")?;
    match t {
        sub_tag::INSTANCE_DUMP => instance_dump_n::<N>(c).map(|d| sink.instance_dump(at, d)),
        sub_tag::OBJ_ARRAY_DUMP => {
            object_array_dump_n::<N>(c).map(|d| sink.object_array_dump(at, d))
        }
        sub_tag::PRIM_ARRAY_DUMP => {
            primitive_array_dump_n::<N>(c).map(|d| sink.primitive_array_dump(at, d))
        }
        other => parse_other_sub_record(c, at, other).map(|s| sink.other(at, s)),
    }
}

/// The [`SubRecordSink`] that hands back the sub-record.
struct Whole;

impl<'a> SubRecordSink<'a> for Whole {
    type Output = SubRecord<'a>;
    #[inline]
    fn instance_dump(&mut self, _: u64, dump: InstanceDump<'a>) -> SubRecord<'a> {
        SubRecord::InstanceDump(dump)
    }
    #[inline]
    fn object_array_dump(&mut self, _: u64, dump: ObjectArrayDump<'a>) -> SubRecord<'a> {
        SubRecord::ObjectArrayDump(dump)
    }
    #[inline]
    fn primitive_array_dump(&mut self, _: u64, dump: PrimitiveArrayDump<'a>) -> SubRecord<'a> {
        SubRecord::PrimitiveArrayDump(dump)
    }
    #[inline]
    fn other(&mut self, _: u64, sub: SubRecord<'a>) -> SubRecord<'a> {
        sub
    }
}

/// Decodes one sub-record at the cursor (tag byte included).
///
/// # Errors
/// [`Error::Truncated`](crate::binary::Error::Truncated) when the input ends inside it, [`Error::UnknownSubTag`](crate::binary::Error::UnknownSubTag),
/// [`Error::BadBasicType`](crate::binary::Error::BadBasicType), [`Error::TooLong`](crate::binary::Error::TooLong).
#[inline]
pub fn parse_sub_record<'a>(c: &mut Cursor<'a>) -> Result<SubRecord<'a>> {
    match c.id_size() {
        IdSize::Four => sub_record_n::<4, _>(c, &mut Whole),
        IdSize::Eight => sub_record_n::<8, _>(c, &mut Whole),
    }
}

/// A lazy, fallible iterator over the sub-records of one heap-dump body. Stops at the end of
/// the body or after the first error.
#[derive(Debug, Clone)]
pub struct SubRecords<'a> {
    c: Cursor<'a>,
    done: bool,
}

impl<'a> SubRecords<'a> {
    /// Iterates over `body`, whose first byte is at file offset `offset`.
    #[inline]
    pub fn new(body: &'a [u8], offset: u64, id_size: IdSize) -> SubRecords<'a> {
        SubRecords {
            c: Cursor::new(body, offset, id_size),
            done: false,
        }
    }

    /// File offset of the next sub-record.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.c.offset()
    }
}

impl<'a> Iterator for SubRecords<'a> {
    type Item = Result<SubRecord<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.c.is_empty() {
            return None;
        }
        let r = parse_sub_record(&mut self.c);
        if r.is_err() {
            self.done = true;
        }
        Some(r)
    }
}
