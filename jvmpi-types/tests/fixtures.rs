//! The buffers in `tests/data/` (built by `make_fixtures.py`, an independent Python writer,
//! from the real heap of `optimization_java.hprof.txt`; see `tests/data/README.md`): decoded
//! record counts match what the writer recorded, and re-encoding gives the same bytes.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod common;

use common::{data, layouts};
use jvmpi_types::dump::heap::{self, HeapDumpRecord, PrimArray};
use jvmpi_types::dump::{monitor, object};
use jvmpi_types::{
    ClassLayouts, DumpLevel, DumpOptions, IdOrder, IdSize, JniRef, NoClasses, ObjectId,
};

fn text(name: &str) -> String {
    String::from_utf8(data(name)).unwrap()
}

/// Options and classes for a fixture's flavour (`hs32le` or `sparc64be`).
fn flavour(tag: &str) -> (DumpOptions, ClassLayouts) {
    let options = match tag {
        "hs32le" => DumpOptions::new(IdSize::Four, IdOrder::Little).hotspot(),
        "sparc64be" => DumpOptions::new(IdSize::Eight, IdOrder::Big),
        _ => unreachable!(),
    };
    (options, layouts(&text(&format!("heap-classes-{tag}.json"))))
}

/// The crate's own reading of the same file (`ClassTable`, behind the `serde` feature)
/// agrees with the one above.
#[cfg(feature = "serde")]
#[test]
fn class_tables_read_the_same_through_serde() {
    for tag in ["hs32le", "sparc64be"] {
        let json = text(&format!("heap-classes-{tag}.json"));
        let table: jvmpi_types::ClassTable = serde_json::from_str(&json).unwrap();
        assert_eq!(table.layouts().unwrap(), layouts(&json));
    }
}

fn summary(names: impl IntoIterator<Item = &'static str>) -> String {
    let mut counts: Vec<(&str, u64)> = Vec::new();
    for n in names {
        match counts.iter_mut().find(|(m, _)| *m == n) {
            Some((_, c)) => *c += 1,
            None => counts.push((n, 1)),
        }
    }
    let total: u64 = counts.iter().map(|(_, c)| c).sum();
    counts
        .iter()
        .map(|(n, c)| format!("{n}\t{c}\n"))
        .collect::<String>()
        + &format!("total\t{total}\n")
}

#[test]
fn heap_dumps_decode_to_the_writers_counts_and_re_encode_identically() {
    for (level, tag) in [(1, "hs32le"), (2, "hs32le"), (1, "sparc64be")] {
        let name = format!("heap-l{level}-{tag}");
        let (options, classes) = flavour(tag);
        let level = DumpLevel::try_from(level).unwrap();
        let buf = data(&format!("{name}.bin"));
        let records = heap::parse(&buf, options, level, &classes).unwrap();
        assert_eq!(
            summary(records.iter().map(|r| r.tag().name())),
            text(&format!("{name}.expected")),
            "{name}"
        );
        let mut out = Vec::new();
        heap::write(&records, options, level, &mut out).unwrap();
        assert!(out == buf, "{name} re-encodes differently");
    }
}

#[test]
fn level0_dumps_decode_and_re_encode() {
    for tag in ["hs32le", "sparc64be"] {
        let name = format!("heap-l0-{tag}");
        let (options, _) = flavour(tag);
        let buf = data(&format!("{name}.bin"));
        let records = heap::parse_level0(&buf, options).unwrap();
        assert_eq!(
            summary(records.iter().map(|r| r.ty.name())),
            text(&format!("{name}.expected"))
        );
        let mut out = Vec::new();
        heap::write_level0(&records, options, &mut out).unwrap();
        assert_eq!(out, buf);
    }
}

#[test]
fn the_same_heap_at_every_level_and_width_agrees() {
    let (o32, c32) = flavour("hs32le");
    let (o64, c64) = flavour("sparc64be");
    let l1 = heap::parse(&data("heap-l1-hs32le.bin"), o32, DumpLevel::Level1, &c32).unwrap();
    let l2 = heap::parse(&data("heap-l2-hs32le.bin"), o32, DumpLevel::Level2, &c32).unwrap();
    let w1 = heap::parse(&data("heap-l1-sparc64be.bin"), o64, DumpLevel::Level1, &c64).unwrap();
    let l0 = heap::parse_level0(&data("heap-l0-hs32le.bin"), o32).unwrap();
    assert_eq!(l1.len(), l2.len());
    assert_eq!(l1.len(), w1.len());
    let objects: Vec<ObjectId> = l2
        .iter()
        .filter_map(|r| match r {
            HeapDumpRecord::ClassDump(c) => Some(c.class),
            HeapDumpRecord::InstanceDump(i) => Some(i.object),
            HeapDumpRecord::ObjArrayDump(a) => Some(a.array),
            HeapDumpRecord::PrimArrayDump(a) => Some(a.array),
            _ => None,
        })
        .collect();
    assert_eq!(
        objects,
        l0.iter().map(|r| r.object).collect::<Vec<_>>(),
        "level 0 lists the same objects"
    );
    for (a, b) in l1.iter().zip(&l2) {
        assert_eq!(a.tag(), b.tag());
        match (a, b) {
            (HeapDumpRecord::PrimArrayDump(a), HeapDumpRecord::PrimArrayDump(b)) => {
                assert_eq!(
                    (a.array, a.length, a.element_type),
                    (b.array, b.length, b.element_type)
                );
                assert!(a.elements.is_none());
                assert_eq!(
                    b.elements.as_ref().map(PrimArray::len),
                    Some(b.length as usize)
                );
            }
            (HeapDumpRecord::InstanceDump(a), HeapDumpRecord::InstanceDump(b)) => {
                // Level 1 keeps only the references, which lead the level-2 values here.
                assert_eq!((a.object, a.class), (b.object, b.class));
                assert!(b.values.starts_with(&a.values));
            }
            _ => assert_eq!(a, b),
        }
    }
    // Widths differ only in the ids; structure is identical.
    for (a, b) in l1.iter().zip(&w1) {
        assert_eq!(a.tag(), b.tag());
        if let (HeapDumpRecord::ObjArrayDump(a), HeapDumpRecord::ObjArrayDump(b)) = (a, b) {
            assert_eq!(a.elements.len(), b.elements.len());
            assert_eq!(
                a.elements.iter().map(|e| e.is_null()).collect::<Vec<_>>(),
                b.elements.iter().map(|e| e.is_null()).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn known_records_of_the_real_heap() {
    let (o, classes) = flavour("hs32le");
    let recs = heap::parse(&data("heap-l2-hs32le.bin"), o, DumpLevel::Level2, &classes).unwrap();
    // java.lang.String (CLS 500001cd): super java.lang.Object, two reference statics.
    let string = recs
        .iter()
        .find_map(|r| match r {
            HeapDumpRecord::ClassDump(c) if c.class == ObjectId(0x5000_01cd) => Some(c),
            _ => None,
        })
        .unwrap();
    assert_eq!(string.super_class, ObjectId(0x5000_01d1));
    assert_eq!(
        string.statics,
        [
            jvmpi_types::Value::Object(ObjectId(0x5000_03f1)),
            jvmpi_types::Value::Object(ObjectId(0x5000_03f0))
        ]
    );
    assert_eq!(
        string.constant_pool.len(),
        23,
        "as listed under CLS 500001cd"
    );
    assert_eq!(string.constant_pool[0].index, 549);
    // ARR 500001e3: ObjectStreamField[3] of java.io.ObjectStreamField (5000015b).
    let arr = recs
        .iter()
        .find_map(|r| match r {
            HeapDumpRecord::ObjArrayDump(a) if a.array == ObjectId(0x5000_01e3) => Some(a),
            _ => None,
        })
        .unwrap();
    assert_eq!(arr.element_class, ObjectId(0x5000_015b));
    assert_eq!(
        arr.elements,
        [
            ObjectId(0x5000_01e4),
            ObjectId(0x5000_01f2),
            ObjectId(0x5000_01ff)
        ]
    );
    // The first JNI global (hprof id 1 -> java.lang.String's class) with HotSpot's big-endian handle.
    let first_global = recs
        .iter()
        .find(|r| matches!(r, HeapDumpRecord::RootJniGlobal { .. }))
        .unwrap();
    let HeapDumpRecord::RootJniGlobal { global_ref, .. } = first_global else {
        unreachable!()
    };
    assert_eq!(
        global_ref.0 & 0xffff_0000,
        0x0806_0000,
        "handle read big-endian: {global_ref}"
    );
}

#[test]
fn hotspot_jni_global_quirk_matters() {
    let (hs, classes) = flavour("hs32le");
    let plain = DumpOptions::new(IdSize::Four, IdOrder::Little);
    let buf = data("heap-l1-hs32le.bin");
    let a = heap::parse(&buf, hs, DumpLevel::Level1, &classes).unwrap();
    let b = heap::parse(&buf, plain, DumpLevel::Level1, &classes).unwrap();
    let refs = |v: &[HeapDumpRecord]| -> Vec<JniRef> {
        v.iter()
            .filter_map(|r| match r {
                HeapDumpRecord::RootJniGlobal { global_ref, .. } => Some(*global_ref),
                _ => None,
            })
            .collect()
    };
    let (ra, rb) = (refs(&a), refs(&b));
    assert_eq!(ra.len(), 570);
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(x.0 as u32, (y.0 as u32).swap_bytes());
    }
}

#[test]
fn class_dumps_need_the_resolver() {
    let (o, _) = flavour("hs32le");
    let buf = data("heap-l2-hs32le.bin");
    let err = heap::parse(&buf, o, DumpLevel::Level2, &NoClasses).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("JVMPI_GC_CLASS_DUMP of class id 0x"), "{msg}");
    assert!(msg.starts_with("at byte offset "), "{msg}");
    // The offset named is that of a 0x20 tag byte.
    let jvmpi_types::Error::MissingClassInfo { offset, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(buf[offset], 0x20);
}

#[test]
fn object_dumps_decode() {
    let (o, classes) = flavour("hs32le");
    for kind in ["class", "instance", "objarray", "primarray"] {
        let name = format!("object-{kind}-hs32le");
        let buf = data(&format!("{name}.bin"));
        let rec = object::parse(&buf, o, &classes).unwrap();
        assert_eq!(
            summary([rec.tag().name()]),
            text(&format!("{name}.expected"))
        );
        let mut out = Vec::new();
        object::write(&rec, o, &mut out).unwrap();
        assert_eq!(out, buf);
    }
}

#[test]
fn monitor_dumps_decode() {
    for (tag, options) in [
        ("hs32le", DumpOptions::new(IdSize::Four, IdOrder::Little)),
        ("sparc64be", DumpOptions::new(IdSize::Eight, IdOrder::Big)),
    ] {
        let buf = data(&format!("monitor-{tag}.bin"));
        let recs = monitor::parse(&buf, options).unwrap();
        assert_eq!(
            summary(recs.iter().map(|r| r.tag().name())),
            text(&format!("monitor-{tag}.expected"))
        );
        let mut out = Vec::new();
        monitor::write(&recs, options, &mut out).unwrap();
        assert_eq!(out, buf);
        // Reading with the wrong id size fails or gives a different structure.
        let wrong = DumpOptions::new(
            if options.id_size == IdSize::Four {
                IdSize::Eight
            } else {
                IdSize::Four
            },
            options.id_order,
        );
        assert!(monitor::parse(&buf, wrong).map_or(true, |r| r != recs));
    }
}
