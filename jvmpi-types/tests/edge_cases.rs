//! Hand-made buffers for the edges: truncation, absurd counts, unknown tags, level mismatches,
//! encoder refusals; plus every record kind at every (id size, id order), the instance-field
//! helper, class layouts from CLASS_LOAD events, and the event model's serde round trip.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use jvmpi_types::dump::heap::{
    self, ClassDump, ConstantPoolEntry, FrameNumber, HeapDumpRecord, InstanceDump, ObjArrayDump,
    PrimArray, PrimArrayDump,
};
use jvmpi_types::dump::monitor::{self, JavaMonitor, MonitorDumpRecord, RawMonitor};
use jvmpi_types::dump::{ClassLayout, Value, object};
use jvmpi_types::events::*;
use jvmpi_types::{
    ClassLayouts, DumpLevel, DumpOptions, EnvId, Error, Event, EventType, IdOrder, IdSize, JniRef,
    JvmpiEvent, MethodId, NoClasses, ObjectId, Pointer, RawMonitorId, ThreadState, ThreadStatus,
    TypeCode,
};

const LE4: DumpOptions = DumpOptions::new(IdSize::Four, IdOrder::Little);

fn all_options() -> [DumpOptions; 4] {
    [
        DumpOptions::new(IdSize::Four, IdOrder::Little),
        DumpOptions::new(IdSize::Four, IdOrder::Big),
        DumpOptions::new(IdSize::Eight, IdOrder::Little),
        DumpOptions::new(IdSize::Eight, IdOrder::Big),
    ]
}

#[test]
fn identifiers_native_counts_big_endian() {
    // JAVA_FRAME root: id, JNIEnv*, u4 frame.
    let le = [
        0x03, 0x78, 0x56, 0x34, 0x12, 0xe4, 0xa0, 0x06, 0x08, 0, 0, 0, 7,
    ];
    let be = [
        0x03, 0x12, 0x34, 0x56, 0x78, 0x08, 0x06, 0xa0, 0xe4, 0, 0, 0, 7,
    ];
    let want = HeapDumpRecord::RootJavaFrame {
        object: ObjectId(0x1234_5678),
        thread: EnvId(0x0806_a0e4),
        frame: FrameNumber(7),
    };
    assert_eq!(
        heap::parse(&le, LE4, DumpLevel::Level2, &NoClasses).unwrap(),
        std::slice::from_ref(&want)
    );
    let be4 = DumpOptions::new(IdSize::Four, IdOrder::Big);
    assert_eq!(
        heap::parse(&be, be4, DumpLevel::Level2, &NoClasses).unwrap(),
        [want]
    );
    // Empty-stack sentinel.
    let empty = [0x02, 1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    let r = heap::parse(&empty, LE4, DumpLevel::Level1, &NoClasses).unwrap();
    let HeapDumpRecord::RootJniLocal { frame, .. } = r[0] else {
        panic!()
    };
    assert!(frame.is_empty());
}

#[test]
fn truncation_names_offset_and_item() {
    // OBJ_ARRAY_DUMP claiming 2 elements with only one present.
    let buf = [
        0x05, 9, 0, 0, 0, 0x22, 1, 0, 0, 0, 0, 0, 0, 2, 7, 0, 0, 0, 8, 0, 0, 0,
    ];
    let err = heap::parse(&buf, LE4, DumpLevel::Level2, &NoClasses).unwrap_err();
    assert_eq!(
        err,
        Error::Truncated {
            offset: 18,
            what: "array elements",
            needed: 8,
            available: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "at byte offset 18: expected array elements (8 bytes), found only 4 bytes before the end of the buffer"
    );
    // Cut inside an id.
    let err = heap::parse(&buf[..3], LE4, DumpLevel::Level2, &NoClasses).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Truncated {
                offset: 1,
                needed: 4,
                available: 2,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn absurd_counts_fail_before_allocating() {
    // u4 counts of 0xFFFFFFFF in a 20-byte buffer: errors, no huge allocation.
    let mut arr = vec![0x22, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
    arr.extend_from_slice(&[0; 8]);
    assert!(matches!(
        heap::parse(&arr, LE4, DumpLevel::Level2, &NoClasses),
        Err(Error::Truncated {
            needed: 0x3_ffff_fffc,
            ..
        })
    ));
    let prim = [0x23, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 11, 0, 0];
    assert!(heap::parse(&prim, LE4, DumpLevel::Level2, &NoClasses).is_err());
    // ... but at level 1 the elements are absent, so the same record is fine.
    let r = heap::parse(&prim[..10], LE4, DumpLevel::Level1, &NoClasses).unwrap();
    assert_eq!(
        r,
        [HeapDumpRecord::PrimArrayDump(PrimArrayDump {
            array: ObjectId(1),
            length: u32::MAX,
            element_type: TypeCode::Long,
            elements: None
        })]
    );
    let inst = [0x21, 1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    assert!(heap::parse(&inst, LE4, DumpLevel::Level2, &NoClasses).is_err());
    let mon = [
        0x01, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff,
    ];
    assert!(matches!(
        monitor::parse(&mon, LE4),
        Err(Error::Truncated { offset: 17, .. })
    ));
    // A class whose CLASS_LOAD claims a billion interfaces.
    let mut classes = ClassLayouts::new();
    classes.insert(
        ObjectId(1),
        ClassLayout {
            interfaces: 1_000_000_000,
            statics: vec![],
        },
    );
    let mut cls = vec![0x20, 1, 0, 0, 0];
    cls.extend_from_slice(&[0; 24 + 4 + 2]);
    assert!(matches!(
        heap::parse(&cls, LE4, DumpLevel::Level2, &classes),
        Err(Error::Truncated {
            what: "interface ids",
            ..
        })
    ));
}

#[test]
fn bad_tags_and_types() {
    let err = heap::parse(
        &[0x05, 1, 0, 0, 0, 0x42],
        LE4,
        DumpLevel::Level2,
        &NoClasses,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "at byte offset 5: expected a heap dump record tag, found 0x42"
    );
    let err = heap::parse(&[0x08, 1, 0, 0, 0], LE4, DumpLevel::Level2, &NoClasses).unwrap_err();
    assert!(
        matches!(
            err,
            Error::UnsupportedRecord {
                offset: 0,
                tag: 8,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("JVMPI_GC_ROOT_THREAD_OBJ"));
    // Primitive array of element type JVMPI_CLASS.
    let err = heap::parse(
        &[0x23, 1, 0, 0, 0, 0, 0, 0, 0, 2],
        LE4,
        DumpLevel::Level2,
        &NoClasses,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::BadTypeCode {
                offset: 9,
                found: 2,
                ..
            }
        ),
        "{err}"
    );
    // Level 0 type 1 (unused) and 3 (unused).
    for t in [1u8, 3, 12] {
        let err = heap::parse_level0(&[0, 1, 0, 0, 0, t, 1, 0, 0, 0], LE4).unwrap_err();
        assert!(matches!(err, Error::BadTypeCode { offset: 5, .. }), "{err}");
    }
    // Monitor tag 3.
    let err = monitor::parse(&[3], LE4).unwrap_err();
    assert_eq!(
        err.to_string(),
        "at byte offset 0: expected a monitor dump record tag, found 0x03"
    );
    // Object dumps hold one object record, not roots, and nothing after it.
    assert!(matches!(
        object::parse(&[0x05, 1, 0, 0, 0], LE4, &NoClasses),
        Err(Error::UnknownTag { .. })
    ));
    let one = [0x23, 1, 0, 0, 0, 0, 0, 0, 1, 8, 0x7f];
    assert!(object::parse(&one, LE4, &NoClasses).is_ok());
    let mut two = one.to_vec();
    two.push(0);
    assert_eq!(
        object::parse(&two, LE4, &NoClasses).unwrap_err(),
        Error::TrailingBytes {
            offset: 11,
            remaining: 1
        }
    );
    assert!(object::parse(&[], LE4, &NoClasses).is_err());
}

#[test]
fn scanning_and_decoding_report_the_same_bad_tags_and_types() {
    // The non-allocating scan (`next_raw`) and the decoder share their tag and type readers.
    let mut layouts = std::collections::HashMap::new();
    layouts.insert(ObjectId(1), ClassLayout::default());
    let class_dump_bad_cp_type = [
        0x20, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 1, 0, 7, 3, 0,
    ];
    let cases: [&[u8]; 4] = [
        &[0x42],
        &[0x08, 1, 0, 0, 0],
        &[0x23, 1, 0, 0, 0, 0, 0, 0, 0, 2],
        &class_dump_bad_cp_type,
    ];
    for buf in cases {
        let decoded = heap::parse(buf, LE4, DumpLevel::Level2, &layouts).unwrap_err();
        let mut it = heap::HeapDumpRecords::new(buf, LE4, DumpLevel::Level2, &layouts).unwrap();
        assert_eq!(it.next_raw().unwrap_err(), decoded, "{buf:?}");
    }
    assert!(matches!(
        heap::parse(&class_dump_bad_cp_type, LE4, DumpLevel::Level2, &layouts),
        Err(Error::BadTypeCode {
            offset: 37,
            found: 3,
            ..
        })
    ));
}

#[test]
fn iterators_are_lazy_and_stop_after_an_error() {
    let buf = [0x07, 1, 0, 0, 0, 0x99, 0x07, 2, 0, 0, 0];
    let mut it = heap::HeapDumpRecords::new(&buf, LE4, DumpLevel::Level2, &NoClasses).unwrap();
    assert_eq!(
        it.next_record().unwrap(),
        Some(HeapDumpRecord::RootMonitorUsed {
            object: ObjectId(1)
        })
    );
    assert_eq!(it.offset(), 5);
    assert!(it.next_record().is_err());
    assert_eq!(it.next_record().unwrap(), None);
    assert!(it.next().is_none());
    assert!(heap::HeapDumpRecords::new(&buf, LE4, DumpLevel::Level0, &NoClasses).is_err());
    assert!(heap::write(&[], LE4, DumpLevel::Level0, &mut Vec::new()).is_err());
}

#[test]
fn encoder_refuses_what_it_cannot_write() {
    let mut out = Vec::new();
    let big = HeapDumpRecord::RootUnknown {
        object: ObjectId(1 << 32),
    };
    assert!(matches!(
        heap::write(std::slice::from_ref(&big), LE4, DumpLevel::Level2, &mut out),
        Err(Error::IdTooLarge { id_size: 4, .. })
    ));
    let o8 = DumpOptions::new(IdSize::Eight, IdOrder::Little);
    out.clear();
    heap::write(&[big], o8, DumpLevel::Level2, &mut out).unwrap();
    assert_eq!(out, [0xff, 0, 0, 0, 0, 1, 0, 0, 0]);
    let prim = |elements| {
        HeapDumpRecord::PrimArrayDump(PrimArrayDump {
            array: ObjectId(1),
            length: 2,
            element_type: TypeCode::Int,
            elements,
        })
    };
    let ok = prim(Some(PrimArray::Int(vec![1, 2])));
    assert!(
        heap::write(
            std::slice::from_ref(&ok),
            LE4,
            DumpLevel::Level1,
            &mut Vec::new()
        )
        .is_err()
    );
    assert!(heap::write(&[prim(None)], LE4, DumpLevel::Level2, &mut Vec::new()).is_err());
    assert!(
        heap::write(
            &[prim(Some(PrimArray::Int(vec![1])))],
            LE4,
            DumpLevel::Level2,
            &mut Vec::new()
        )
        .is_err()
    );
    assert!(
        heap::write(
            &[prim(Some(PrimArray::Long(vec![1, 2])))],
            LE4,
            DumpLevel::Level2,
            &mut Vec::new()
        )
        .is_err()
    );
    assert!(heap::write(&[prim(None)], LE4, DumpLevel::Level1, &mut Vec::new()).is_ok());
    assert!(
        object::write(
            &HeapDumpRecord::RootMonitorUsed {
                object: ObjectId(1)
            },
            LE4,
            &mut Vec::new()
        )
        .is_err()
    );
    let mut class = class_dump(LE4);
    class.statics.push(Value::Int(5));
    let rec = HeapDumpRecord::ClassDump(Box::new(class.clone()));
    assert!(
        heap::write(
            std::slice::from_ref(&rec),
            LE4,
            DumpLevel::Level1,
            &mut Vec::new()
        )
        .is_err()
    );
    assert!(heap::write(&[rec], LE4, DumpLevel::Level2, &mut Vec::new()).is_ok());
    class.constant_pool.push(ConstantPoolEntry {
        index: 1,
        ty: TypeCode::Int,
        value: Value::Long(1),
    });
    assert!(
        heap::write(
            &[HeapDumpRecord::ClassDump(Box::new(class))],
            LE4,
            DumpLevel::Level2,
            &mut Vec::new()
        )
        .is_err()
    );
}

fn class_dump(o: DumpOptions) -> ClassDump {
    let wide = |v: u64| {
        if o.id_size == IdSize::Eight {
            v << 24 | 0xab
        } else {
            v
        }
    };
    ClassDump {
        class: ObjectId(wide(0x5000_01cd)),
        super_class: ObjectId(wide(0x5000_01d1)),
        class_loader: ObjectId::NULL,
        signers: ObjectId::NULL,
        protection_domain: ObjectId(wide(0x5000_0ff7)),
        class_name: ObjectId(wide(0x5000_0300)),
        reserved: Pointer::NULL,
        instance_size: 24,
        interfaces: vec![ObjectId(wide(0x5000_0101)), ObjectId(wide(0x5000_0102))],
        constant_pool: vec![
            ConstantPoolEntry {
                index: 7,
                ty: TypeCode::Class,
                value: Value::Object(ObjectId(wide(9))),
            },
            ConstantPoolEntry {
                index: 8,
                ty: TypeCode::NormalObject,
                value: Value::Object(ObjectId(3)),
            },
            ConstantPoolEntry {
                index: 9,
                ty: TypeCode::Double,
                value: Value::Double(2.5),
            },
        ],
        statics: vec![Value::Object(ObjectId(wide(0x5000_03f1))), Value::Long(-2)],
    }
}

/// Every record kind of every format, at each identifier size and order, round-trips, and its
/// encoded size is the one `jvmpi.md` gives.
#[test]
fn every_record_kind_at_every_size_and_order() {
    for o in all_options() {
        let i = o.id_bytes();
        let class = class_dump(o);
        let mut classes = ClassLayouts::new();
        classes.insert(
            class.class,
            ClassLayout {
                interfaces: 2,
                statics: vec![TypeCode::Class, TypeCode::Long],
            },
        );
        let recs: Vec<(HeapDumpRecord, usize)> = vec![
            (
                HeapDumpRecord::RootUnknown {
                    object: ObjectId(1),
                },
                1 + i,
            ),
            (
                HeapDumpRecord::RootJniGlobal {
                    object: ObjectId(1),
                    global_ref: JniRef(0x0806_5f04),
                },
                1 + 2 * i,
            ),
            (
                HeapDumpRecord::RootJniLocal {
                    object: ObjectId(1),
                    thread: EnvId(2),
                    frame: FrameNumber::EMPTY,
                },
                1 + 2 * i + 4,
            ),
            (
                HeapDumpRecord::RootJavaFrame {
                    object: ObjectId(1),
                    thread: EnvId(2),
                    frame: FrameNumber(3),
                },
                1 + 2 * i + 4,
            ),
            (
                HeapDumpRecord::RootNativeStack {
                    object: ObjectId(1),
                    thread: EnvId(2),
                },
                1 + 2 * i,
            ),
            (
                HeapDumpRecord::RootStickyClass { class: ObjectId(1) },
                1 + i,
            ),
            (
                HeapDumpRecord::RootThreadBlock {
                    thread_object: ObjectId(1),
                    thread: EnvId(2),
                },
                1 + 2 * i,
            ),
            (
                HeapDumpRecord::RootMonitorUsed {
                    object: ObjectId(1),
                },
                1 + i,
            ),
            (
                HeapDumpRecord::ClassDump(Box::new(class.clone())),
                1 + 7 * i + 4 + 2 * i + 2 + (3 + i) + (3 + i) + (3 + 8) + i + 8,
            ),
            (
                HeapDumpRecord::InstanceDump(InstanceDump {
                    object: ObjectId(4),
                    class: class.class,
                    values: vec![1, 2, 3],
                }),
                1 + 2 * i + 4 + 3,
            ),
            (
                HeapDumpRecord::ObjArrayDump(ObjArrayDump {
                    array: ObjectId(5),
                    element_class: class.class,
                    elements: vec![ObjectId(4), ObjectId::NULL],
                }),
                1 + 2 * i + 4 + 2 * i,
            ),
            (
                HeapDumpRecord::PrimArrayDump(PrimArrayDump {
                    array: ObjectId(6),
                    length: 3,
                    element_type: TypeCode::Char,
                    elements: Some(PrimArray::Char(vec![0x41, 0x42, 0xffff])),
                }),
                1 + i + 4 + 1 + 6,
            ),
        ];
        for hotspot in [false, true] {
            let o = if hotspot { o.hotspot() } else { o };
            for (rec, size) in &recs {
                let mut buf = Vec::new();
                heap::write(std::slice::from_ref(rec), o, DumpLevel::Level2, &mut buf).unwrap();
                assert_eq!(buf.len(), *size, "{} at {o:?}", rec.tag());
                assert_eq!(
                    heap::parse(&buf, o, DumpLevel::Level2, &classes).unwrap(),
                    std::slice::from_ref(rec)
                );
                if !rec.is_root() {
                    assert_eq!(&object::parse(&buf, o, &classes).unwrap(), rec);
                }
            }
        }
        // Level-2 primitive values are big-endian whatever the id order.
        let mut buf = Vec::new();
        heap::write(&[recs[11].0.clone()], o, DumpLevel::Level2, &mut buf).unwrap();
        assert_eq!(&buf[buf.len() - 6..], [0, 0x41, 0, 0x42, 0xff, 0xff]);
        // HotSpot's JNI-global jobject is big-endian even on little-endian hosts.
        let mut buf = Vec::new();
        heap::write(
            &[recs[1].0.clone()],
            o.hotspot(),
            DumpLevel::Level2,
            &mut buf,
        )
        .unwrap();
        assert_eq!(&buf[buf.len() - 4..], [0x08, 0x06, 0x5f, 0x04]);

        let monitors = vec![
            MonitorDumpRecord::Java(JavaMonitor {
                object: ObjectId(0x6f13a8),
                owner: EnvId::NULL,
                entry_count: 1,
                waiting_to_enter: vec![],
                waiting_to_be_notified: vec![EnvId(0x2a1e8)],
            }),
            MonitorDumpRecord::Raw(RawMonitor {
                name: Pointer(0x4001_2a40),
                id: RawMonitorId(0x0809_1c28),
                owner: EnvId(0x2a4c8),
                entry_count: 1,
                waiting_to_enter: vec![EnvId(0x2a1e8), EnvId(0x2a7a8)],
                waiting_to_be_notified: vec![],
            }),
        ];
        let mut buf = Vec::new();
        monitor::write(&monitors, o, &mut buf).unwrap();
        assert_eq!(buf.len(), (1 + 2 * i + 12 + i) + (1 + 3 * i + 12 + 2 * i));
        assert_eq!(monitor::parse(&buf, o).unwrap(), monitors);
    }
}

#[test]
fn instance_fields_decode_with_types() {
    // Own fields (int, Object), then the superclass's (long, boolean).
    let types = [
        TypeCode::Int,
        TypeCode::Class,
        TypeCode::Long,
        TypeCode::Boolean,
    ];
    let mut v = vec![0, 0, 0, 42, 0x10, 0x20, 0, 0];
    v.extend_from_slice(&(-1i64).to_be_bytes());
    v.push(1);
    let inst = InstanceDump {
        object: ObjectId(1),
        class: ObjectId(2),
        values: v,
    };
    assert_eq!(
        inst.fields(types, LE4, DumpLevel::Level2).unwrap(),
        [
            Value::Int(42),
            Value::Object(ObjectId(0x2010)),
            Value::Long(-1),
            Value::Boolean(1)
        ]
    );
    let refs_only = InstanceDump {
        values: vec![0x10, 0x20, 0, 0],
        ..inst.clone()
    };
    assert_eq!(
        refs_only.fields(types, LE4, DumpLevel::Level1).unwrap(),
        [Value::Object(ObjectId(0x2010))]
    );
    assert!(
        inst.fields(types, LE4, DumpLevel::Level1).is_err(),
        "bytes left over"
    );
    assert!(
        inst.fields(types[..2].iter().copied(), LE4, DumpLevel::Level2)
            .is_err()
    );
}

fn class_load() -> ClassLoad {
    ClassLoad {
        class_name: "java/lang/String".into(),
        source_name: Some("String.java".into()),
        num_interfaces: 3,
        methods: vec![Method {
            method_name: "hashCode".into(),
            method_signature: "()I".into(),
            start_lineno: 1494,
            end_lineno: 1507,
            method_id: MethodId(0x0809_3a10),
        }],
        // HotSpot order: reverse declaration order.
        statics: vec![
            Field {
                field_name: "CASE_INSENSITIVE_ORDER".into(),
                field_signature: "Ljava/util/Comparator;".into(),
            },
            Field {
                field_name: "serialPersistentFields".into(),
                field_signature: "[Ljava/io/ObjectStreamField;".into(),
            },
            Field {
                field_name: "serialVersionUID".into(),
                field_signature: "J".into(),
            },
        ],
        instances: vec![
            Field {
                field_name: "hash".into(),
                field_signature: "I".into(),
            },
            Field {
                field_name: "value".into(),
                field_signature: "[C".into(),
            },
        ],
        class_id: ObjectId(0x5000_01cd),
    }
}

#[test]
fn layouts_come_from_class_load_events() {
    let mut classes = ClassLayouts::new();
    classes.insert_class_load(&class_load()).unwrap();
    let layout = jvmpi_types::ClassResolver::class_layout(&classes, ObjectId(0x5000_01cd)).unwrap();
    assert_eq!(layout.interfaces, 3);
    assert_eq!(
        layout.statics,
        [TypeCode::Class, TypeCode::Class, TypeCode::Long]
    );
    let mut bad = class_load();
    bad.statics[0].field_signature = "V".into();
    assert!(ClassLayout::from_class_load(&bad).is_err());
    bad = class_load();
    bad.num_interfaces = -1;
    assert!(ClassLayout::from_class_load(&bad).is_err());
    // The same layout through the JSON class table (the `serde` feature).
    #[cfg(feature = "serde")]
    {
        let table: jvmpi_types::ClassTable = serde_json::from_str(
            r#"{"classes":[{"id":1342177741,"interfaces":3,"statics":["Ljava/util/Comparator;","[Ljava/io/ObjectStreamField;","J"]}]}"#,
        )
        .unwrap();
        let from_table = table.layouts().unwrap();
        assert_eq!(
            jvmpi_types::ClassResolver::class_layout(&from_table, ObjectId(0x5000_01cd)),
            Some(layout)
        );
        let from_event = jvmpi_types::ClassTable {
            classes: vec![
                jvmpi_types::dump::ClassTableEntry::from_class_load(&class_load()).unwrap(),
            ],
        };
        assert_eq!(from_event, table);
    }
}

#[test]
fn instance_values_follow_class_load_fields_up_the_superclass_chain() {
    let mut classes = ClassLayouts::new();
    classes.insert_class_load(&class_load()).unwrap(); // String: int hash, char[] value
    let object = ClassLoad {
        class_name: "java/lang/Object".into(),
        source_name: Some("Object.java".into()),
        num_interfaces: 0,
        methods: vec![],
        statics: vec![],
        instances: vec![],
        class_id: ObjectId(0x5000_01d1),
    };
    classes.insert_class_load(&object).unwrap();
    let string = ObjectId(0x5000_01cd);
    assert_eq!(
        classes.instance_field_types(string),
        None,
        "superclass not known yet"
    );
    // Superclasses come from the class dumps.
    let dump = HeapDumpRecord::ClassDump(Box::new(ClassDump {
        super_class: ObjectId(0x5000_01d1),
        interfaces: vec![],
        statics: vec![],
        constant_pool: vec![],
        ..class_dump(LE4)
    }));
    let root = HeapDumpRecord::ClassDump(Box::new(ClassDump {
        class: ObjectId(0x5000_01d1),
        super_class: ObjectId::NULL,
        interfaces: vec![],
        statics: vec![],
        constant_pool: vec![],
        ..class_dump(LE4)
    }));
    classes.insert_supers([&dump, &root]);
    assert_eq!(
        classes.instance_field_types(string),
        Some(vec![TypeCode::Int, TypeCode::Class])
    );
    let inst = InstanceDump {
        object: ObjectId(0x5000_0203),
        class: string,
        values: vec![0x7f, 0, 0, 1, 0x0c, 0x02, 0, 0x50],
    };
    assert_eq!(
        inst.fields_from(&classes, LE4, DumpLevel::Level2)
            .unwrap()
            .unwrap(),
        [
            Value::Int(0x7f00_0001),
            Value::Object(ObjectId(0x5000_020c))
        ]
    );
    // The cache gives the same, gathering the types once per class.
    {
        let mut cache = classes.instance_layout_cache();
        for _ in 0..3 {
            assert_eq!(
                inst.fields_with(&mut cache, LE4, DumpLevel::Level2),
                inst.fields_from(&classes, LE4, DumpLevel::Level2)
            );
        }
        assert_eq!(cache.len(), 1);
        assert_eq!(
            cache.field_types(string),
            Some(&[TypeCode::Int, TypeCode::Class][..])
        );
        assert_eq!(cache.field_types(ObjectId(99)), None);
        assert_eq!(cache.len(), 2);
    }
    // A loop in the superclass chain gives up instead of spinning.
    classes.insert_super(ObjectId(0x5000_01d1), string);
    assert_eq!(classes.instance_field_types(string), None);
    assert_eq!(classes.instance_layout_cache().field_types(string), None);
    let unknown = InstanceDump {
        class: ObjectId(99),
        ..inst
    };
    assert!(
        unknown
            .fields_from(&classes, LE4, DumpLevel::Level2)
            .is_none()
    );
}

fn every_event() -> Vec<Event> {
    let trace = CallTrace {
        env_id: EnvId(0x2a1e8),
        frames: vec![
            CallFrame {
                lineno: -3,
                method_id: MethodId(9),
            },
            CallFrame {
                lineno: 42,
                method_id: MethodId(8),
            },
        ],
    };
    let thread = ThreadStart {
        thread_name: "main".into(),
        group_name: "main".into(),
        parent_name: None,
        thread_id: ObjectId(0x6f1260),
        thread_env_id: EnvId(0x2a1e8),
    };
    let raw_mon = RawMonitorEvent {
        name: "_hprof_dump_lock".into(),
        id: RawMonitorId(0x0809_1c28),
    };
    let mon = MonitorEvent {
        object: ObjectId(0x6f13a8),
    };
    let wait = MonitorWait {
        object: ObjectId(0x6f13a8),
        timeout: 0,
    };
    let gref = JniGlobalrefAlloc {
        obj_id: ObjectId(1),
        ref_id: JniRef(0x0806_5f04),
    };
    let gfree = JniGlobalrefFree {
        ref_id: JniRef(0x0806_5f04),
    };
    vec![
        Event::MethodEntry(MethodEvent {
            method_id: MethodId(1),
        }),
        Event::MethodEntry2(MethodEntry2 {
            method_id: MethodId(1),
            obj_id: ObjectId::NULL,
        }),
        Event::MethodExit(MethodEvent {
            method_id: MethodId(1),
        }),
        Event::ObjectAlloc(ObjAlloc {
            arena_id: 1,
            class_id: ObjectId::NULL,
            is_array: TypeCode::Char,
            size: 48,
            obj_id: ObjectId(0x5000_0202),
        }),
        Event::ObjectFree(ObjFree {
            obj_id: ObjectId(2),
        }),
        Event::ObjectMove(ObjMove {
            arena_id: 1,
            obj_id: ObjectId(2),
            new_arena_id: 2,
            new_obj_id: ObjectId(3),
        }),
        Event::CompiledMethodLoad(CompiledMethodLoad {
            method_id: MethodId(1),
            code_addr: Pointer(0xf900_1000),
            code_size: 512,
            lineno_table: vec![
                Lineno {
                    offset: 0,
                    lineno: 10,
                },
                Lineno {
                    offset: 24,
                    lineno: 11,
                },
            ],
        }),
        Event::CompiledMethodUnload(CompiledMethodUnload {
            method_id: MethodId(1),
        }),
        Event::InstructionStart(InstructionStart {
            method_id: MethodId(1),
            offset: 7,
            info: InstructionInfo::Lookupswitch {
                chosen_pair_index: 3,
                pairs_total: 3,
            },
        }),
        Event::ThreadStart(thread.clone()),
        Event::ThreadEnd(thread),
        Event::ClassLoadHook(ClassLoadHook {
            class_data: vec![0xca, 0xfe, 0xba, 0xbe],
            new_class_data: vec![],
        }),
        Event::HeapDump(HeapDump {
            dump_level: DumpLevel::Level0,
            data: vec![0, 1, 0, 0, 0],
            traces: vec![trace.clone()],
        }),
        Event::JniGlobalrefAlloc(gref),
        Event::JniGlobalrefFree(gfree),
        Event::JniWeakGlobalrefAlloc(gref),
        Event::JniWeakGlobalrefFree(gfree),
        Event::ClassLoad(class_load()),
        Event::ClassUnload(ClassUnload {
            class_id: ObjectId(0x5000_01cd),
        }),
        Event::DataDumpRequest,
        Event::DataResetRequest,
        Event::JvmInitDone,
        Event::JvmShutDown,
        Event::ArenaNew(NewArena {
            arena_id: 1,
            arena_name: "Java heap".into(),
        }),
        Event::ArenaDelete(DeleteArena { arena_id: 1 }),
        Event::ObjectDump(ObjectDump {
            data: vec![0x22, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        }),
        Event::RawMonitorContendedEnter(raw_mon.clone()),
        Event::RawMonitorContendedEntered(raw_mon.clone()),
        Event::RawMonitorContendedExit(raw_mon),
        Event::MonitorContendedEnter(mon),
        Event::MonitorContendedEntered(mon),
        Event::MonitorContendedExit(mon),
        Event::MonitorWait(wait),
        Event::MonitorWaited(MonitorWait {
            timeout: 1500,
            ..wait
        }),
        Event::MonitorDump(MonitorDump {
            data: vec![],
            traces: vec![trace],
            threads_status: vec![ThreadStatus {
                state: ThreadState::CondvarWait,
                suspended: false,
                interrupted: true,
            }],
        }),
        Event::GcStart,
        Event::GcFinish(GcInfo {
            used_objects: 841,
            used_object_space: 427_592,
            total_object_space: 2_031_616,
        }),
    ]
}

#[test]
fn one_event_variant_per_event_type_and_serde_round_trips() {
    let events = every_event();
    let types: Vec<EventType> = events.iter().map(Event::event_type).collect();
    assert_eq!(
        types,
        EventType::ALL,
        "one variant per event type, in header order"
    );
    for (k, event) in events.into_iter().enumerate() {
        let e = JvmpiEvent {
            env_id: EnvId(0x2a1e8),
            requested: k % 2 == 0,
            event,
        };
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&e).unwrap();
            let back: JvmpiEvent = serde_json::from_str(&json).unwrap();
            assert_eq!(back, e, "{json}");
        }
        let (t, req) = EventType::split(e.raw_event_type()).unwrap();
        assert_eq!((t, req), (e.event.event_type(), e.requested));
    }
}

#[cfg(feature = "serde")]
#[test]
fn dump_records_serialize_to_json() {
    let recs = vec![
        HeapDumpRecord::ClassDump(Box::new(class_dump(LE4))),
        HeapDumpRecord::RootJniGlobal {
            object: ObjectId(1),
            global_ref: JniRef(2),
        },
    ];
    let json = serde_json::to_string(&recs).unwrap();
    assert!(json.contains("\"RootJniGlobal\""), "{json}");
    let back: Vec<HeapDumpRecord> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, recs);
}

#[test]
fn superclass_loop_among_many_classes_gives_none_without_walking_them_all() {
    // 50,000 unrelated classes, plus two that name each other as superclass: the loop is found
    // at the first repeated class (it used to be walked once per known class, building a list
    // of 2 × 50,000 × 64 field types first).
    let mut classes = ClassLayouts::new();
    for i in 0..50_000u64 {
        classes.insert_instance_fields(ObjectId(0x1000 + i), vec![TypeCode::Int; 64]);
        classes.insert_super(ObjectId(0x1000 + i), ObjectId::NULL);
    }
    let (a, b) = (ObjectId(1), ObjectId(2));
    classes.insert_instance_fields(a, vec![TypeCode::Long; 64]);
    classes.insert_instance_fields(b, vec![TypeCode::Int; 64]);
    classes.insert_super(a, b);
    classes.insert_super(b, a);
    assert_eq!(classes.instance_field_types(a), None);
    classes.insert_super(b, b);
    assert_eq!(classes.instance_field_types(a), None);
    // A chain that ends in NULL still concatenates own fields first.
    classes.insert_super(b, ObjectId(0x1000));
    let types = classes.instance_field_types(a).unwrap();
    assert_eq!(types.len(), 3 * 64);
    assert_eq!(types[0], TypeCode::Long);
    assert_eq!(types[64], TypeCode::Int);
}
