//! Object dump buffers (`JVMPI_EVENT_OBJECT_DUMP`, spec §4.3 "object dump format"): exactly one
//! level-2 object record (`JVMPI_GC_CLASS_DUMP`, `_INSTANCE_DUMP`, `_OBJ_ARRAY_DUMP` or
//! `_PRIM_ARRAY_DUMP`), laid out as in the heap dump. The buffer is `object_dump.data[0 ..
//! data_len)` — except on HotSpot 5.0, whose `data_len` is garbage: use `heap_dump.end - begin`.
//!
//! ```
//! use jvmpi_types::dump::heap::{HeapDumpRecord, InstanceDump};
//! use jvmpi_types::dump::object;
//! use jvmpi_types::{DumpOptions, IdOrder, IdSize, NoClasses, ObjectId};
//!
//! // An instance with one reference field, from a 32-bit big-endian VM.
//! let o = DumpOptions::new(IdSize::Four, IdOrder::Big);
//! let buf = [0x21, 0x50, 0, 0x02, 0x08, 0x50, 0, 0x01, 0xe0, 0, 0, 0, 4, 0x50, 0, 0x02, 0xed];
//! let record = object::parse(&buf, o, &NoClasses)?;
//! assert_eq!(
//!     record,
//!     HeapDumpRecord::InstanceDump(InstanceDump {
//!         object: ObjectId(0x5000_0208),
//!         class: ObjectId(0x5000_01e0),
//!         values: vec![0x50, 0, 0x02, 0xed],
//!     })
//! );
//! let mut out = Vec::new();
//! object::write(&record, o, &mut out)?;
//! assert_eq!(out, buf);
//! # Ok::<(), jvmpi_types::Error>(())
//! ```

use crate::constants::{DumpLevel, HeapDumpTag};
use crate::cursor::{Cursor, DumpOptions, Writer};
use crate::dump::ClassResolver;
use crate::dump::heap::HeapDumpRecord;
use crate::error::{Error, Result};

/// Decodes an object dump: one object record and nothing after it. GC root tags are errors.
pub fn parse(
    data: &[u8],
    options: DumpOptions,
    resolver: &dyn ClassResolver,
) -> Result<HeapDumpRecord> {
    let mut cur = Cursor::new(data, options);
    let offset = cur.offset();
    let raw = cur.u1("object dump record tag")?;
    let Ok(
        tag @ (HeapDumpTag::ClassDump
        | HeapDumpTag::InstanceDump
        | HeapDumpTag::ObjArrayDump
        | HeapDumpTag::PrimArrayDump),
    ) = HeapDumpTag::try_from(raw)
    else {
        return Err(Error::UnknownTag {
            offset,
            context: "object dump (0x20-0x23)",
            tag: raw,
        });
    };
    let record =
        HeapDumpRecord::read_body(&mut cur, tag, offset, DumpLevel::Level2, resolver, None)?;
    if !cur.is_empty() {
        return Err(Error::TrailingBytes {
            offset: cur.offset(),
            remaining: cur.remaining(),
        });
    }
    Ok(record)
}

/// Encodes an object dump (level 2), appending to `out`. Fails for GC root records.
pub fn write(record: &HeapDumpRecord, options: DumpOptions, out: &mut Vec<u8>) -> Result<()> {
    if record.is_root() {
        return Err(Error::Inconsistent {
            what: "object dump",
            reason: format!("{} is a GC root, not an object record", record.tag()),
        });
    }
    record.write(&mut Writer::new(out, options), DumpLevel::Level2)
}
