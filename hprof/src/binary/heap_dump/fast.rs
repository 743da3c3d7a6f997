//! The decoders of the three object dumps specialised for ids of `N` bytes: the hot path of
//! the histogram, the columnar export and the incremental decoder's visitors.

use super::model::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump};
use crate::binary::cursor::Cursor;
use crate::binary::error::Result;
use crate::binary::types::{BasicType, Id, IdList, IdSize, StackTraceSerial};

/// Reads an id of `N` bytes (4 or 8): the id-size-specialised read of the hot paths.
#[inline(always)]
fn id_n<const N: usize>(c: &mut Cursor<'_>, what: &'static str) -> Result<Id> {
    if N == 4 {
        c.u4(what).map(Id::from)
    } else {
        c.u8(what).map(Id)
    }
}

/// Big-endian `u32` at constant offset `i` of a fixed header (bounds checks fold away).
#[inline(always)]
pub(crate) fn be32<const L: usize>(h: &[u8; L], i: usize) -> u32 {
    let mut b = [0u8; 4];
    if let Some(s) = h.get(i..i + 4) {
        b.copy_from_slice(s);
    }
    u32::from_be_bytes(b)
}

/// An id of `N` bytes at constant offset `i` of a fixed header.
#[inline(always)]
pub(crate) fn be_id<const N: usize, const L: usize>(h: &[u8; L], i: usize) -> Id {
    if N == 4 {
        Id::from(be32(h, i))
    } else {
        let mut b = [0u8; 8];
        if let Some(s) = h.get(i..i + 8) {
            b.copy_from_slice(s);
        }
        Id(u64::from_be_bytes(b))
    }
}

/// [`parse_instance_dump`] for ids of `N` bytes.
#[inline(always)]
pub(crate) fn instance_dump_n<'a, const N: usize>(c: &mut Cursor<'a>) -> Result<InstanceDump<'a>> {
    // Fast path: the fixed part (id, u4, id, u4) read with one bounds check.
    let rest = c.rest();
    if let Some((h, _)) = rest.split_first_chunk::<24>() {
        let object_id = be_id::<N, 24>(h, 0);
        let stack_trace_serial = StackTraceSerial(be32(h, N));
        let class_id = be_id::<N, 24>(h, N + 4);
        let n = be32(h, 2 * N + 4);
        if let Some(data) = rest.get(2 * N + 8..).and_then(|r| r.get(..n as usize)) {
            c.rewind(rest.get(2 * N + 8 + n as usize..).unwrap_or_default());
            return Ok(InstanceDump {
                object_id,
                stack_trace_serial,
                class_id,
                data,
            });
        }
    }
    let object_id = id_n::<N>(c, "INSTANCE_DUMP object id")?;
    let stack_trace_serial = StackTraceSerial(c.u4("INSTANCE_DUMP stack trace serial")?);
    let class_id = id_n::<N>(c, "INSTANCE_DUMP class id")?;
    let n = c.u4("INSTANCE_DUMP field byte count")?;
    let data = c.bytes(n as usize, "INSTANCE_DUMP field values")?;
    Ok(InstanceDump {
        object_id,
        stack_trace_serial,
        class_id,
        data,
    })
}

/// [`parse_object_array_dump`] for ids of `N` bytes.
#[inline(always)]
pub(crate) fn object_array_dump_n<'a, const N: usize>(
    c: &mut Cursor<'a>,
) -> Result<ObjectArrayDump<'a>> {
    // Fast path: the fixed part (id, u4, u4, id) read with one bounds check.
    let rest = c.rest();
    if let Some((h, _)) = rest.split_first_chunk::<24>() {
        let array_id = be_id::<N, 24>(h, 0);
        let stack_trace_serial = StackTraceSerial(be32(h, N));
        let n = be32(h, N + 4);
        let array_class_id = be_id::<N, 24>(h, N + 8);
        let len = (n as usize).saturating_mul(N);
        if let Some(data) = rest.get(2 * N + 8..).and_then(|r| r.get(..len)) {
            c.rewind(rest.get(2 * N + 8 + len..).unwrap_or_default());
            return Ok(ObjectArrayDump {
                array_id,
                stack_trace_serial,
                array_class_id,
                elements: IdList::new(data, c.id_size()),
            });
        }
    }
    let array_id = id_n::<N>(c, "OBJ_ARRAY_DUMP array id")?;
    let stack_trace_serial = StackTraceSerial(c.u4("OBJ_ARRAY_DUMP stack trace serial")?);
    let at = c.offset();
    let n = c.u4("OBJ_ARRAY_DUMP element count")?;
    let array_class_id = id_n::<N>(c, "OBJ_ARRAY_DUMP array class id")?;
    let data = c.counted(n.into(), N, at, "OBJ_ARRAY_DUMP elements")?;
    Ok(ObjectArrayDump {
        array_id,
        stack_trace_serial,
        array_class_id,
        elements: IdList::new(data, c.id_size()),
    })
}

/// [`parse_primitive_array_dump`] for ids of `N` bytes.
#[inline(always)]
pub(crate) fn primitive_array_dump_n<'a, const N: usize>(
    c: &mut Cursor<'a>,
) -> Result<PrimitiveArrayDump<'a>> {
    // Fast path: the fixed part (id, u4, u4, u1) read with one bounds check.
    let rest = c.rest();
    if let Some((h, _)) = rest.split_first_chunk::<17>() {
        let code = h.get(N + 8).copied().unwrap_or(0);
        if let Some(element_type) = BasicType::from_code(code).filter(|t| *t != BasicType::Object) {
            let array_id = be_id::<N, 17>(h, 0);
            let stack_trace_serial = StackTraceSerial(be32(h, N));
            let n = be32(h, N + 4);
            let len = (n as usize).saturating_mul(element_type.size(IdSize::Four));
            if let Some(data) = rest.get(N + 9..).and_then(|r| r.get(..len)) {
                c.rewind(rest.get(N + 9 + len..).unwrap_or_default());
                return Ok(PrimitiveArrayDump {
                    array_id,
                    stack_trace_serial,
                    element_type,
                    data,
                });
            }
        }
    }
    let array_id = id_n::<N>(c, "PRIM_ARRAY_DUMP array id")?;
    let stack_trace_serial = StackTraceSerial(c.u4("PRIM_ARRAY_DUMP stack trace serial")?);
    let at = c.offset();
    let n = c.u4("PRIM_ARRAY_DUMP element count")?;
    let element_type = c.primitive_type("PRIM_ARRAY_DUMP element type")?;
    let data = c.counted(
        n.into(),
        element_type.size(c.id_size()),
        at,
        "PRIM_ARRAY_DUMP elements",
    )?;
    Ok(PrimitiveArrayDump {
        array_id,
        stack_trace_serial,
        element_type,
        data,
    })
}
