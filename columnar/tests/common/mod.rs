//! Helpers shared by the columnar tests: an in-memory part store, and small dumps written
//! through `hprof`'s own encoder.
#![allow(dead_code, clippy::unwrap_used)] // each test binary uses a part of it

use std::collections::BTreeMap;

use columnar::PartStore;
use hprof::binary::header::{Header, Version};
use hprof::binary::heap_dump::{ClassDump, InstanceDump, ObjectArrayDump, SubRecord};
use hprof::binary::records::{Record, Utf8};
use hprof::binary::types::IdSize;
use hprof::binary::types::{Id, IdList, StackTraceSerial};
use hprof::binary::write::Writer;

/// Parts kept in memory once committed; `fail_create` makes creating a part fail.
#[derive(Default)]
pub(crate) struct MemStore {
    pub(crate) fail_create: bool,
    pub(crate) committed: BTreeMap<(String, u32), Vec<u8>>,
}

impl PartStore for MemStore {
    type Part = Vec<u8>;
    fn create(&mut self, table: &str, part: u32) -> std::io::Result<Vec<u8>> {
        if self.fail_create {
            return Err(std::io::Error::other(format!("no room for {table} {part}")));
        }
        Ok(Vec::new())
    }
    fn commit(&mut self, table: &str, part: u32, file: Vec<u8>) -> std::io::Result<()> {
        self.committed.insert((table.to_owned(), part), file);
        Ok(())
    }
}

/// A JDK-style dump (1.0.2, 8-byte ids): the `UTF8` records `strings`, then one heap dump of
/// `sub_records`, then `HEAP DUMP END`.
pub(crate) fn dump(strings: &[(u64, &[u8])], sub_records: &[SubRecord<'_>]) -> Vec<u8> {
    let header = Header {
        version: Version::V1_0_2,
        id_size: IdSize::Eight,
        timestamp_ms: 0,
    };
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    for &(id, bytes) in strings {
        w.write_record(0, &Record::Utf8(Utf8 { id: Id(id), bytes }))
            .unwrap();
    }
    for s in sub_records {
        w.write_sub_record(s).unwrap();
    }
    w.end_heap_dump().unwrap();
    w.finish().unwrap()
}

/// The encoded instance-field descriptors of object fields named by the strings `names`.
pub(crate) fn object_fields(names: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &name in names {
        out.extend_from_slice(&name.to_be_bytes());
        out.push(2); // an object
    }
    out
}

/// A class dump with no constants and no statics; `fields` from [`object_fields`].
pub(crate) fn class_dump(class_id: u64, super_class_id: u64, fields: &[u8]) -> SubRecord<'_> {
    SubRecord::ClassDump(ClassDump {
        class_id: Id(class_id),
        stack_trace_serial: StackTraceSerial(0),
        super_class_id: Id(super_class_id),
        class_loader_id: Id::NULL,
        signers_id: Id::NULL,
        protection_domain_id: Id::NULL,
        reserved1: Id::NULL,
        reserved2: Id::NULL,
        instance_size: u32::try_from(fields.len() / 9 * 8).unwrap(),
        constant_pool_len: 0,
        constant_pool: &[],
        static_fields_len: 0,
        static_fields: &[],
        instance_fields_len: u16::try_from(fields.len() / 9).unwrap(),
        instance_fields: fields,
        id_size: IdSize::Eight,
    })
}

/// An instance of `class_id` with the field bytes `data`.
pub(crate) fn instance(object_id: u64, class_id: u64, data: &[u8]) -> SubRecord<'_> {
    SubRecord::InstanceDump(InstanceDump {
        object_id: Id(object_id),
        stack_trace_serial: StackTraceSerial(0),
        class_id: Id(class_id),
        data,
    })
}

/// An object array of `array_class_id` holding the big-endian 8-byte ids `elements`.
pub(crate) fn object_array(array_id: u64, array_class_id: u64, elements: &[u8]) -> SubRecord<'_> {
    SubRecord::ObjectArrayDump(ObjectArrayDump {
        array_id: Id(array_id),
        stack_trace_serial: StackTraceSerial(0),
        array_class_id: Id(array_class_id),
        elements: IdList::new(elements, IdSize::Eight),
    })
}
