//! Hostile dump buffers that decode without error but must not make the decoder allocate far
//! more than the buffer's size. A per-thread counting allocator (`testkit`) measures the heap use of each
//! call.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::collections::HashMap;

use jvmpi_types::dump::heap;
use jvmpi_types::{
    ClassLayout, ClassResolver, DumpLevel, DumpOptions, IdOrder, IdSize, ObjectId, TypeCode,
};

use testkit::peak_of;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

const LE4: DumpOptions = DumpOptions::new(IdSize::Four, IdOrder::Little);

/// `count` level-1 class dumps of class 7 (4-byte ids, no interfaces, no constant pool) with
/// one reference static each.
fn level1_class_dumps(count: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    for i in 0..count as u32 {
        buf.push(0x20); // JVMPI_GC_CLASS_DUMP
        buf.extend_from_slice(&7u32.to_le_bytes()); // class
        buf.extend_from_slice(&[0; 6 * 4]); // super, loader, signers, domain, name, reserved
        buf.extend_from_slice(&[0; 4]); // instance size
        buf.extend_from_slice(&[0; 2]); // no constant pool entries
        buf.extend_from_slice(&(0x100 + i).to_le_bytes()); // the reference static
    }
    buf
}

/// A resolver that counts its look-ups.
struct Counted<'a>(&'a HashMap<ObjectId, ClassLayout>, Cell<usize>);

impl ClassResolver for Counted<'_> {
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout> {
        self.1.set(self.1.get() + 1);
        self.0.get(&class)
    }
}

#[test]
fn level1_class_dumps_walk_a_class_layout_once() {
    // At level 1 the primitive statics of a class dump take no bytes, so a 39-byte record of
    // a class with 60 000 statics used to walk all 60 000 types: 2 000 records (78 KB) cost
    // 120 million steps, and a 1 MB buffer billions. The record iterators now walk each
    // class's layout once (each look-up counted here walks it).
    let mut statics = vec![TypeCode::Int; 60_000];
    statics[30_000] = TypeCode::Class;
    let mut layouts = HashMap::new();
    layouts.insert(
        ObjectId(7),
        ClassLayout {
            interfaces: 0,
            statics,
        },
    );
    let buf = level1_class_dumps(2_000);
    let resolver = Counted(&layouts, Cell::new(0));
    let records = heap::parse(&buf, LE4, DumpLevel::Level1, &resolver).unwrap();
    assert_eq!(records.len(), 2_000);
    match &records[1_999] {
        heap::HeapDumpRecord::ClassDump(c) => {
            assert_eq!(
                c.statics,
                [jvmpi_types::dump::Value::Object(ObjectId(0x100 + 1_999))]
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(resolver.1.get(), 1, "layout look-ups while decoding");

    let resolver = Counted(&layouts, Cell::new(0));
    let mut scan = heap::HeapDumpRecords::new(&buf, LE4, DumpLevel::Level1, &resolver).unwrap();
    let mut n = 0;
    while let Some(raw) = scan.next_raw().unwrap() {
        assert_eq!(raw.bytes.len(), 39);
        n += 1;
    }
    assert_eq!(n, 2_000);
    assert_eq!(resolver.1.get(), 1, "layout look-ups while scanning");

    // A record cut short in its reference statics is still an error.
    let short = &buf[..buf.len() - 1];
    assert!(heap::parse(short, LE4, DumpLevel::Level1, &resolver).is_err());
}

#[test]
fn level1_class_dumps_do_not_reserve_for_absent_primitive_statics() {
    // A class whose CLASS_LOAD declared 50 000 int statics: at level 1 the VM writes none of
    // them, so each of its 35-byte class dumps decodes to an empty `statics`. Decoding must not
    // keep room for them (it used to reserve min(statics, bytes left in the buffer) values in
    // every record: about 70 MB for this 17.5 KB buffer).
    let class = ObjectId(7);
    let mut resolver = HashMap::new();
    resolver.insert(
        class,
        ClassLayout {
            interfaces: 0,
            statics: vec![TypeCode::Int; 50_000],
        },
    );
    let mut buf = Vec::new();
    for _ in 0..500 {
        buf.push(0x20); // JVMPI_GC_CLASS_DUMP
        buf.extend_from_slice(&7u32.to_le_bytes()); // class
        buf.extend_from_slice(&[0; 6 * 4]); // super, loader, signers, domain, name, reserved
        buf.extend_from_slice(&[0; 4]); // instance size
        buf.extend_from_slice(&[0; 2]); // no constant pool entries
    }
    assert_eq!(buf.len(), 500 * 35);
    let (records, peak) = peak_of(|| heap::parse(&buf, LE4, DumpLevel::Level1, &resolver));
    let records = records.unwrap();
    assert_eq!(records.len(), 500);
    assert!(records.iter().all(|r| matches!(
        r,
        heap::HeapDumpRecord::ClassDump(c) if c.statics.is_empty()
    )));
    // The records themselves (about 150 bytes each) are the bulk; 64× the input is generous.
    assert!(
        peak < 64 * buf.len(),
        "decoding {} bytes peaked at {peak} bytes",
        buf.len()
    );
}
