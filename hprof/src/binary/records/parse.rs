//! Decoding a record body by its tag.

use super::framing::RecordHeader;
use super::model::*;
use super::tags::tag;
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::types::{ClassSerial, IdList, IdSize, StackTraceSerial, ThreadSerial};

/// Decodes a record body. `body` holds exactly `header.length` bytes at file offset
/// `header.body_offset()`. Heap dumps are not descended into (see [`HeapDump::sub_records`]).
///
/// # Errors
/// [`Error::LengthMismatch`] when the fields do not fill the body exactly,
/// [`Error::RecordOverrun`] when they need more bytes than it has, [`Error::TooLong`] for
/// counts that cannot fit.
pub fn parse_body<'a>(
    header: &RecordHeader,
    body: &'a [u8],
    id_size: IdSize,
) -> Result<Record<'a>> {
    let mut c = Cursor::new(body, header.body_offset(), id_size);
    let record = match parse_fields(header.tag, &mut c) {
        Ok(r) => r,
        Err(Error::Truncated {
            expected, offset, ..
        }) => {
            return Err(Error::RecordOverrun {
                offset: header.offset,
                tag: header.tag,
                declared: header.length.into(),
                expected,
                at: offset,
            });
        }
        Err(e) => return Err(e),
    };
    if !c.is_empty() {
        return Err(Error::LengthMismatch {
            offset: header.offset,
            tag: header.tag,
            declared: header.length.into(),
            actual: (body.len() - c.remaining()) as u64,
        });
    }
    Ok(record)
}

fn parse_fields<'a>(t: u8, c: &mut Cursor<'a>) -> Result<Record<'a>> {
    let id_size = c.id_size();
    Ok(match t {
        tag::UTF8 => {
            let id = c.id("the UTF8 string id")?;
            Record::Utf8(Utf8 {
                id,
                bytes: c.bytes(c.remaining(), "the UTF8 string bytes")?,
            })
        }
        tag::LOAD_CLASS => Record::LoadClass(LoadClass {
            class_serial: ClassSerial(c.u4("LOAD_CLASS class serial")?),
            class_id: c.id("LOAD_CLASS class object id")?,
            stack_trace_serial: StackTraceSerial(c.u4("LOAD_CLASS stack trace serial")?),
            name_id: c.id("LOAD_CLASS class name id")?,
        }),
        tag::UNLOAD_CLASS => Record::UnloadClass(UnloadClass {
            class_serial: ClassSerial(c.u4("UNLOAD_CLASS class serial")?),
        }),
        tag::FRAME => Record::Frame(Frame {
            frame_id: c.id("FRAME frame id")?,
            method_name_id: c.id("FRAME method name id")?,
            method_signature_id: c.id("FRAME method signature id")?,
            source_file_id: c.id("FRAME source file id")?,
            class_serial: ClassSerial(c.u4("FRAME class serial")?),
            line: c.i4("FRAME line number")?,
        }),
        tag::TRACE => {
            let stack_trace_serial = StackTraceSerial(c.u4("TRACE stack trace serial")?);
            let thread_serial = ThreadSerial(c.u4("TRACE thread serial")?);
            let at = c.offset();
            let n = c.u4("TRACE frame count")?;
            let ids = c.counted(n.into(), id_size.bytes(), at, "TRACE frame ids")?;
            Record::Trace(Trace {
                stack_trace_serial,
                thread_serial,
                frame_ids: IdList::new(ids, id_size),
            })
        }
        tag::ALLOC_SITES => {
            let flags = c.u2("ALLOC_SITES flags")?;
            let cutoff_ratio = c.u4("ALLOC_SITES cutoff ratio")?;
            let total_live_bytes = c.u4("ALLOC_SITES total live bytes")?;
            let total_live_instances = c.u4("ALLOC_SITES total live instances")?;
            let total_bytes_allocated = c.u8("ALLOC_SITES total bytes allocated")?;
            let total_instances_allocated = c.u8("ALLOC_SITES total instances allocated")?;
            let at = c.offset();
            let n = c.u4("ALLOC_SITES site count")?;
            let sites = c.counted(n.into(), ALLOC_SITE_LEN, at, "ALLOC_SITES sites")?;
            Record::AllocSites(AllocSites {
                flags,
                cutoff_ratio,
                total_live_bytes,
                total_live_instances,
                total_bytes_allocated,
                total_instances_allocated,
                sites,
            })
        }
        tag::HEAP_SUMMARY => Record::HeapSummary(HeapSummary {
            live_bytes: c.u4("HEAP_SUMMARY live bytes")?,
            live_instances: c.u4("HEAP_SUMMARY live instances")?,
            bytes_allocated: c.u8("HEAP_SUMMARY bytes allocated")?,
            instances_allocated: c.u8("HEAP_SUMMARY instances allocated")?,
        }),
        tag::START_THREAD => Record::StartThread(StartThread {
            thread_serial: ThreadSerial(c.u4("START_THREAD thread serial")?),
            thread_object_id: c.id("START_THREAD thread object id")?,
            stack_trace_serial: StackTraceSerial(c.u4("START_THREAD stack trace serial")?),
            thread_name_id: c.id("START_THREAD thread name id")?,
            group_name_id: c.id("START_THREAD group name id")?,
            group_parent_name_id: c.id("START_THREAD parent group name id")?,
        }),
        tag::END_THREAD => Record::EndThread(EndThread {
            thread_serial: ThreadSerial(c.u4("END_THREAD thread serial")?),
        }),
        tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT => {
            let offset = c.offset();
            let body = c.bytes(c.remaining(), "the heap dump body")?;
            let dump = HeapDump {
                body,
                offset,
                id_size,
            };
            if t == tag::HEAP_DUMP {
                Record::HeapDump(dump)
            } else {
                Record::HeapDumpSegment(dump)
            }
        }
        tag::CPU_SAMPLES => {
            let total_samples = c.u4("CPU_SAMPLES total samples")?;
            let at = c.offset();
            let n = c.u4("CPU_SAMPLES trace count")?;
            let traces = c.counted(n.into(), 8, at, "CPU_SAMPLES traces")?;
            Record::CpuSamples(CpuSamples {
                total_samples,
                traces,
            })
        }
        tag::CONTROL_SETTINGS => Record::ControlSettings(ControlSettings {
            flags: c.u4("CONTROL_SETTINGS flags")?,
            stack_trace_depth: c.u2("CONTROL_SETTINGS stack trace depth")?,
        }),
        tag::HEAP_DUMP_END => Record::HeapDumpEnd,
        other => Record::Unknown {
            tag: other,
            body: c.bytes(c.remaining(), "the body of a record with an unknown tag")?,
        },
    })
}
