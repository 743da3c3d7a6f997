//! The checked decoders of every sub-record body (after its tag byte).

use super::fast::{instance_dump_n, object_array_dump_n, primitive_array_dump_n};
use super::model::*;
use super::tags::sub_tag;
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::types::{IdSize, StackTraceSerial, ThreadSerial};

/// Walks a class-dump list of `n` entries, returning its bytes.
fn class_list<'a>(
    c: &mut Cursor<'a>,
    n: u16,
    name: bool,
    index: bool,
    value: bool,
    what: &'static str,
) -> Result<&'a [u8]> {
    let start = c.rest();
    let before = c.remaining();
    for _ in 0..n {
        if index {
            c.u2(what)?;
        }
        if name {
            c.id(what)?;
        }
        let ty = c.basic_type(what)?;
        if value {
            c.skip(ty.size(c.id_size()), what)?;
        }
    }
    Ok(start.get(..before - c.remaining()).unwrap_or_default())
}

/// Decodes the body of an `INSTANCE_DUMP` (after its tag byte).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it.
#[inline]
pub fn parse_instance_dump<'a>(c: &mut Cursor<'a>) -> Result<InstanceDump<'a>> {
    match c.id_size() {
        IdSize::Four => instance_dump_n::<4>(c),
        IdSize::Eight => instance_dump_n::<8>(c),
    }
}

/// Decodes the body of an `OBJ_ARRAY_DUMP` (after its tag byte).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it.
#[inline]
pub fn parse_object_array_dump<'a>(c: &mut Cursor<'a>) -> Result<ObjectArrayDump<'a>> {
    match c.id_size() {
        IdSize::Four => object_array_dump_n::<4>(c),
        IdSize::Eight => object_array_dump_n::<8>(c),
    }
}

/// Decodes the body of a `PRIM_ARRAY_DUMP` (after its tag byte).
///
/// # Errors
/// [`Error::Truncated`] when the input ends inside it, [`Error::BadBasicType`].
#[inline]
pub fn parse_primitive_array_dump<'a>(c: &mut Cursor<'a>) -> Result<PrimitiveArrayDump<'a>> {
    match c.id_size() {
        IdSize::Four => primitive_array_dump_n::<4>(c),
        IdSize::Eight => primitive_array_dump_n::<8>(c),
    }
}

/// Decodes a sub-record other than instance and array dumps (class dumps, roots, Android
/// records) whose tag byte `t`, at file offset `offset`, was just read.
///
/// # Errors
/// As [`parse_sub_record`](super::parse_sub_record).
#[inline(never)]
pub fn parse_other_sub_record<'a>(c: &mut Cursor<'a>, offset: u64, t: u8) -> Result<SubRecord<'a>> {
    use sub_tag::*;
    let id_size = c.id_size();
    Ok(match t {
        CLASS_DUMP => {
            let class_id = c.id("CLASS_DUMP class id")?;
            let stack_trace_serial = StackTraceSerial(c.u4("CLASS_DUMP stack trace serial")?);
            let super_class_id = c.id("CLASS_DUMP super class id")?;
            let class_loader_id = c.id("CLASS_DUMP class loader id")?;
            let signers_id = c.id("CLASS_DUMP signers id")?;
            let protection_domain_id = c.id("CLASS_DUMP protection domain id")?;
            let reserved1 = c.id("CLASS_DUMP reserved id")?;
            let reserved2 = c.id("CLASS_DUMP reserved id")?;
            let instance_size = c.u4("CLASS_DUMP instance size")?;
            let constant_pool_len = c.u2("CLASS_DUMP constant pool size")?;
            let constant_pool = class_list(
                c,
                constant_pool_len,
                false,
                true,
                true,
                "CLASS_DUMP constant pool entry",
            )?;
            let static_fields_len = c.u2("CLASS_DUMP static field count")?;
            let static_fields = class_list(
                c,
                static_fields_len,
                true,
                false,
                true,
                "CLASS_DUMP static field",
            )?;
            let instance_fields_len = c.u2("CLASS_DUMP instance field count")?;
            let instance_fields = class_list(
                c,
                instance_fields_len,
                true,
                false,
                false,
                "CLASS_DUMP instance field",
            )?;
            SubRecord::ClassDump(ClassDump {
                class_id,
                stack_trace_serial,
                super_class_id,
                class_loader_id,
                signers_id,
                protection_domain_id,
                reserved1,
                reserved2,
                instance_size,
                constant_pool_len,
                constant_pool,
                static_fields_len,
                static_fields,
                instance_fields_len,
                instance_fields,
                id_size,
            })
        }
        ROOT_UNKNOWN => SubRecord::Root(GcRoot::Unknown {
            object_id: c.id("ROOT_UNKNOWN object id")?,
        }),
        ROOT_JNI_GLOBAL => SubRecord::Root(GcRoot::JniGlobal {
            object_id: c.id("ROOT_JNI_GLOBAL object id")?,
            jni_global_ref_id: c.id("ROOT_JNI_GLOBAL reference id")?,
        }),
        ROOT_JNI_LOCAL => SubRecord::Root(GcRoot::JniLocal {
            object_id: c.id("ROOT_JNI_LOCAL object id")?,
            thread_serial: ThreadSerial(c.u4("ROOT_JNI_LOCAL thread serial")?),
            frame_number: c.i4("ROOT_JNI_LOCAL frame number")?,
        }),
        ROOT_JAVA_FRAME => SubRecord::Root(GcRoot::JavaFrame {
            object_id: c.id("ROOT_JAVA_FRAME object id")?,
            thread_serial: ThreadSerial(c.u4("ROOT_JAVA_FRAME thread serial")?),
            frame_number: c.i4("ROOT_JAVA_FRAME frame number")?,
        }),
        ROOT_NATIVE_STACK => SubRecord::Root(GcRoot::NativeStack {
            object_id: c.id("ROOT_NATIVE_STACK object id")?,
            thread_serial: ThreadSerial(c.u4("ROOT_NATIVE_STACK thread serial")?),
        }),
        ROOT_STICKY_CLASS => SubRecord::Root(GcRoot::StickyClass {
            object_id: c.id("ROOT_STICKY_CLASS object id")?,
        }),
        ROOT_THREAD_BLOCK => SubRecord::Root(GcRoot::ThreadBlock {
            object_id: c.id("ROOT_THREAD_BLOCK object id")?,
            thread_serial: ThreadSerial(c.u4("ROOT_THREAD_BLOCK thread serial")?),
        }),
        ROOT_MONITOR_USED => SubRecord::Root(GcRoot::MonitorUsed {
            object_id: c.id("ROOT_MONITOR_USED object id")?,
        }),
        ROOT_THREAD_OBJECT => SubRecord::Root(GcRoot::ThreadObject {
            object_id: c.id("ROOT_THREAD_OBJECT thread object id")?,
            thread_serial: ThreadSerial(c.u4("ROOT_THREAD_OBJECT thread serial")?),
            stack_trace_serial: StackTraceSerial(c.u4("ROOT_THREAD_OBJECT stack trace serial")?),
        }),
        ROOT_INTERNED_STRING => SubRecord::Root(GcRoot::InternedString {
            object_id: c.id("ROOT_INTERNED_STRING object id")?,
        }),
        ROOT_FINALIZING => SubRecord::Root(GcRoot::Finalizing {
            object_id: c.id("ROOT_FINALIZING object id")?,
        }),
        ROOT_DEBUGGER => SubRecord::Root(GcRoot::Debugger {
            object_id: c.id("ROOT_DEBUGGER object id")?,
        }),
        ROOT_REFERENCE_CLEANUP => SubRecord::Root(GcRoot::ReferenceCleanup {
            object_id: c.id("ROOT_REFERENCE_CLEANUP object id")?,
        }),
        ROOT_VM_INTERNAL => SubRecord::Root(GcRoot::VmInternal {
            object_id: c.id("ROOT_VM_INTERNAL object id")?,
        }),
        ROOT_JNI_MONITOR => SubRecord::Root(GcRoot::JniMonitor {
            object_id: c.id("ROOT_JNI_MONITOR object id")?,
            thread_serial: ThreadSerial(c.u4("ROOT_JNI_MONITOR thread serial")?),
            stack_depth: c.i4("ROOT_JNI_MONITOR stack depth")?,
        }),
        ROOT_UNREACHABLE => SubRecord::Root(GcRoot::Unreachable {
            object_id: c.id("ROOT_UNREACHABLE object id")?,
        }),
        PRIMITIVE_ARRAY_NODATA => SubRecord::PrimitiveArrayNoData(PrimitiveArrayNoData {
            array_id: c.id("PRIMITIVE_ARRAY_NODATA array id")?,
            stack_trace_serial: StackTraceSerial(
                c.u4("PRIMITIVE_ARRAY_NODATA stack trace serial")?,
            ),
            length: c.u4("PRIMITIVE_ARRAY_NODATA element count")?,
            element_type: c.primitive_type("PRIMITIVE_ARRAY_NODATA element type")?,
        }),
        HEAP_DUMP_INFO => SubRecord::HeapDumpInfo(HeapDumpInfo {
            heap_id: c.u4("HEAP_DUMP_INFO heap id")?,
            name_id: c.id("HEAP_DUMP_INFO heap name id")?,
        }),
        other => return Err(Error::UnknownSubTag { offset, tag: other }),
    })
}
