//! Property tests: `decode(encode(x)) == x` for every record kind of the three dump formats, at
//! both identifier sizes and both identifier byte orders (and with HotSpot's big-endian
//! `void *` quirk), plus byte-level `encode(decode(b)) == b`, and serde round trips of events.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::collections::HashMap;

use jvmpi_types::dump::heap::{
    self, ClassDump, ConstantPoolEntry, FrameNumber, HeapDumpRecord, InstanceDump, Level0Record,
    ObjArrayDump, PrimArray, PrimArrayDump,
};
use jvmpi_types::dump::monitor::{self, JavaMonitor, MonitorDumpRecord, RawMonitor};
use jvmpi_types::dump::{ClassLayout, Value, object};
use jvmpi_types::{
    DumpLevel, DumpOptions, EnvId, IdOrder, IdSize, JniRef, ObjectId, Pointer, RawMonitorId,
    TypeCode,
};
use proptest::prelude::*;

fn options() -> impl Strategy<Value = DumpOptions> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(eight, big, hotspot)| {
        let o = DumpOptions::new(
            if eight { IdSize::Eight } else { IdSize::Four },
            if big { IdOrder::Big } else { IdOrder::Little },
        );
        if hotspot { o.hotspot() } else { o }
    })
}

fn id(o: DumpOptions) -> BoxedStrategy<u64> {
    match o.id_size {
        IdSize::Four => any::<u32>().prop_map(u64::from).boxed(),
        IdSize::Eight => any::<u64>().boxed(),
    }
}

fn oid(o: DumpOptions) -> impl Strategy<Value = ObjectId> {
    id(o).prop_map(ObjectId)
}

fn env(o: DumpOptions) -> impl Strategy<Value = EnvId> {
    id(o).prop_map(EnvId)
}

fn f32s() -> impl Strategy<Value = f32> {
    use proptest::num::f32::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE
}

fn f64s() -> impl Strategy<Value = f64> {
    use proptest::num::f64::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE
}

fn prim_type() -> impl Strategy<Value = TypeCode> {
    prop::sample::select(&TypeCode::ALL[2..])
}

fn any_type() -> impl Strategy<Value = TypeCode> {
    prop::sample::select(TypeCode::ALL)
}

fn value_of(ty: TypeCode, o: DumpOptions) -> BoxedStrategy<Value> {
    match ty {
        TypeCode::NormalObject | TypeCode::Class => oid(o).prop_map(Value::Object).boxed(),
        TypeCode::Boolean => any::<u8>().prop_map(Value::Boolean).boxed(),
        TypeCode::Byte => any::<i8>().prop_map(Value::Byte).boxed(),
        TypeCode::Char => any::<u16>().prop_map(Value::Char).boxed(),
        TypeCode::Short => any::<i16>().prop_map(Value::Short).boxed(),
        TypeCode::Int => any::<i32>().prop_map(Value::Int).boxed(),
        TypeCode::Long => any::<i64>().prop_map(Value::Long).boxed(),
        TypeCode::Float => f32s().prop_map(Value::Float).boxed(),
        TypeCode::Double => f64s().prop_map(Value::Double).boxed(),
    }
}

fn prim_array(ty: TypeCode) -> BoxedStrategy<PrimArray> {
    let n = 0..24usize;
    match ty {
        TypeCode::Boolean => prop::collection::vec(any::<u8>(), n)
            .prop_map(PrimArray::Boolean)
            .boxed(),
        TypeCode::Byte => prop::collection::vec(any::<i8>(), n)
            .prop_map(PrimArray::Byte)
            .boxed(),
        TypeCode::Char => prop::collection::vec(any::<u16>(), n)
            .prop_map(PrimArray::Char)
            .boxed(),
        TypeCode::Short => prop::collection::vec(any::<i16>(), n)
            .prop_map(PrimArray::Short)
            .boxed(),
        TypeCode::Int => prop::collection::vec(any::<i32>(), n)
            .prop_map(PrimArray::Int)
            .boxed(),
        TypeCode::Long => prop::collection::vec(any::<i64>(), n)
            .prop_map(PrimArray::Long)
            .boxed(),
        TypeCode::Float => prop::collection::vec(f32s(), n)
            .prop_map(PrimArray::Float)
            .boxed(),
        _ => prop::collection::vec(f64s(), n)
            .prop_map(PrimArray::Double)
            .boxed(),
    }
}

/// A class dump, its layout, consistent with `level`.
fn class_dump(o: DumpOptions, level: DumpLevel) -> impl Strategy<Value = (ClassDump, ClassLayout)> {
    let cp_entry = (any::<u16>(), any_type()).prop_flat_map(move |(index, ty)| {
        value_of(ty, o).prop_map(move |value| ConstantPoolEntry { index, ty, value })
    });
    let statics = prop::collection::vec(any_type(), 0..6).prop_flat_map(move |types| {
        let values: Vec<_> = types.iter().map(|&t| value_of(t, o)).collect();
        (Just(types), values)
    });
    (
        prop::collection::vec(oid(o), 7),
        any::<u32>(),
        prop::collection::vec(oid(o), 0..4),
        prop::collection::vec(cp_entry, 0..5),
        statics,
    )
        .prop_map(
            move |(ids, instance_size, interfaces, constant_pool, (types, values))| {
                let statics = values
                    .into_iter()
                    .filter(|v| level == DumpLevel::Level2 || matches!(v, Value::Object(_)))
                    .collect();
                let layout = ClassLayout {
                    interfaces: interfaces.len() as u32,
                    statics: types,
                };
                let dump = ClassDump {
                    class: ids[0],
                    super_class: ids[1],
                    class_loader: ids[2],
                    signers: ids[3],
                    protection_domain: ids[4],
                    class_name: ids[5],
                    reserved: Pointer(ids[6].0),
                    instance_size,
                    interfaces,
                    constant_pool,
                    statics,
                };
                (dump, layout)
            },
        )
}

fn object_record(
    o: DumpOptions,
    level: DumpLevel,
) -> BoxedStrategy<(HeapDumpRecord, Option<ClassLayout>)> {
    prop_oneof![
        class_dump(o, level).prop_map(|(c, l)| (HeapDumpRecord::ClassDump(Box::new(c)), Some(l))),
        (oid(o), oid(o), prop::collection::vec(any::<u8>(), 0..40)).prop_map(
            |(object, class, values)| (
                HeapDumpRecord::InstanceDump(InstanceDump {
                    object,
                    class,
                    values
                }),
                None
            )
        ),
        (oid(o), oid(o), prop::collection::vec(oid(o), 0..10)).prop_map(
            |(array, element_class, elements)| (
                HeapDumpRecord::ObjArrayDump(ObjArrayDump {
                    array,
                    element_class,
                    elements
                }),
                None
            )
        ),
        (oid(o), prim_type(), any::<u32>()).prop_flat_map(move |(array, ty, len1)| prim_array(ty)
            .prop_map(move |elements| {
                let rec = if level == DumpLevel::Level2 {
                    PrimArrayDump {
                        array,
                        length: elements.len() as u32,
                        element_type: ty,
                        elements: Some(elements),
                    }
                } else {
                    PrimArrayDump {
                        array,
                        length: len1,
                        element_type: ty,
                        elements: None,
                    }
                };
                (HeapDumpRecord::PrimArrayDump(rec), None)
            })),
    ]
    .boxed()
}

fn root_record(o: DumpOptions) -> BoxedStrategy<HeapDumpRecord> {
    let frame = any::<u32>().prop_map(FrameNumber);
    prop_oneof![
        oid(o).prop_map(|object| HeapDumpRecord::RootUnknown { object }),
        (oid(o), id(o)).prop_map(|(object, r)| HeapDumpRecord::RootJniGlobal {
            object,
            global_ref: JniRef(r)
        }),
        (oid(o), env(o), frame.clone()).prop_map(|(object, thread, frame)| {
            HeapDumpRecord::RootJniLocal {
                object,
                thread,
                frame,
            }
        }),
        (oid(o), env(o), frame).prop_map(|(object, thread, frame)| HeapDumpRecord::RootJavaFrame {
            object,
            thread,
            frame
        }),
        (oid(o), env(o))
            .prop_map(|(object, thread)| HeapDumpRecord::RootNativeStack { object, thread }),
        oid(o).prop_map(|class| HeapDumpRecord::RootStickyClass { class }),
        (oid(o), env(o)).prop_map(|(thread_object, thread)| HeapDumpRecord::RootThreadBlock {
            thread_object,
            thread
        }),
        oid(o).prop_map(|object| HeapDumpRecord::RootMonitorUsed { object }),
    ]
    .boxed()
}

fn heap_case() -> impl Strategy<
    Value = (
        DumpOptions,
        DumpLevel,
        Vec<HeapDumpRecord>,
        HashMap<ObjectId, ClassLayout>,
    ),
> {
    (options(), prop::bool::ANY).prop_flat_map(|(o, two)| {
        let level = if two {
            DumpLevel::Level2
        } else {
            DumpLevel::Level1
        };
        let rec = prop_oneof![
            root_record(o).prop_map(|r| (r, None)),
            object_record(o, level)
        ];
        prop::collection::vec(rec, 0..30).prop_map(move |recs| {
            let mut layouts = HashMap::new();
            let mut out = Vec::new();
            for (r, layout) in recs {
                if let (HeapDumpRecord::ClassDump(c), Some(l)) = (&r, layout) {
                    // Class ids must name one layout each.
                    if layouts.insert(c.class, l).is_some() {
                        continue;
                    }
                }
                out.push(r);
            }
            (o, level, out, layouts)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn heap_dump_levels_1_and_2_round_trip((o, level, records, layouts) in heap_case()) {
        let mut buf = Vec::new();
        heap::write(&records, o, level, &mut buf).unwrap();
        let back = heap::parse(&buf, o, level, &layouts).unwrap();
        prop_assert_eq!(&back, &records);
        // Locating records without decoding finds the same boundaries.
        let mut it = heap::HeapDumpRecords::new(&buf, o, level, &layouts).unwrap();
        let mut end = 0;
        for r in &records {
            let raw = it.next_raw().unwrap().unwrap();
            prop_assert_eq!(raw.offset, end);
            end += raw.bytes.len();
            prop_assert_eq!(raw.tag, r.tag());
            prop_assert_eq!(&raw.parse(o, level, &layouts).unwrap(), r);
        }
        prop_assert!(it.next_raw().unwrap().is_none());
        prop_assert_eq!(end, buf.len());
        let mut again = Vec::new();
        heap::write(&back, o, level, &mut again).unwrap();
        prop_assert_eq!(again, buf);
    }

    #[test]
    fn heap_dump_level_0_round_trips(
        (o, records) in options().prop_flat_map(|o| {
            let rec = (prop::sample::select(TypeCode::ALL), oid(o))
                .prop_map(|(ty, object)| Level0Record { ty, object });
            (Just(o), prop::collection::vec(rec, 0..40))
        })
    ) {
        let mut buf = Vec::new();
        heap::write_level0(&records, o, &mut buf).unwrap();
        prop_assert_eq!(buf.len(), records.len() * (1 + o.id_bytes()));
        prop_assert_eq!(heap::parse_level0(&buf, o).unwrap(), records);
    }

    #[test]
    fn object_dump_round_trips(
        (o, (record, layout)) in options().prop_flat_map(|o| (Just(o), object_record(o, DumpLevel::Level2)))
    ) {
        let mut layouts = HashMap::new();
        if let (HeapDumpRecord::ClassDump(c), Some(l)) = (&record, layout) {
            layouts.insert(c.class, l);
        }
        let mut buf = Vec::new();
        object::write(&record, o, &mut buf).unwrap();
        prop_assert_eq!(object::parse(&buf, o, &layouts).unwrap(), record);
        // One byte more is trailing garbage; one byte less is truncation.
        buf.push(0);
        prop_assert!(object::parse(&buf, o, &layouts).is_err());
        buf.truncate(buf.len() - 2);
        prop_assert!(object::parse(&buf, o, &layouts).is_err());
    }

    #[test]
    fn monitor_dump_round_trips(
        (o, records) in options().prop_flat_map(|o| {
            let threads = || prop::collection::vec(env(o), 0..6);
            let java = (oid(o), env(o), any::<u32>(), threads(), threads()).prop_map(|(object, owner, entry_count, e, n)| {
                MonitorDumpRecord::Java(JavaMonitor { object, owner, entry_count, waiting_to_enter: e, waiting_to_be_notified: n })
            });
            let raw = (id(o), id(o), env(o), any::<u32>(), threads(), threads()).prop_map(|(name, rid, owner, entry_count, e, n)| {
                MonitorDumpRecord::Raw(RawMonitor {
                    name: Pointer(name), id: RawMonitorId(rid), owner, entry_count,
                    waiting_to_enter: e, waiting_to_be_notified: n,
                })
            });
            (Just(o), prop::collection::vec(prop_oneof![java, raw], 0..20))
        })
    ) {
        let mut buf = Vec::new();
        monitor::write(&records, o, &mut buf).unwrap();
        prop_assert_eq!(monitor::parse(&buf, o).unwrap(), records);
    }

    /// Byte level: whatever decodes re-encodes to the same bytes (NaN payloads included).
    #[test]
    fn decoded_bytes_re_encode_identically(data in prop::collection::vec(any::<u8>(), 0..200), o in options()) {
        if let Ok(recs) = monitor::parse(&data, o) {
            let mut out = Vec::new();
            monitor::write(&recs, o, &mut out).unwrap();
            prop_assert_eq!(&out, &data);
        }
        for level in [DumpLevel::Level1, DumpLevel::Level2] {
            if let Ok(recs) = heap::parse(&data, o, level, &jvmpi_types::NoClasses) {
                let mut out = Vec::new();
                heap::write(&recs, o, level, &mut out).unwrap();
                prop_assert_eq!(&out, &data);
            }
        }
        if let Ok(recs) = heap::parse_level0(&data, o) {
            let mut out = Vec::new();
            heap::write_level0(&recs, o, &mut out).unwrap();
            prop_assert_eq!(&out, &data);
        }
    }

    /// Truncating a valid buffer anywhere inside a record is an error, never a panic.
    #[test]
    fn truncation_is_an_error((o, level, records, layouts) in heap_case(), cut in any::<prop::sample::Index>()) {
        let mut buf = Vec::new();
        heap::write(&records, o, level, &mut buf).unwrap();
        if !buf.is_empty() {
            let at = cut.index(buf.len());
            let res = heap::parse(&buf[..at], o, level, &layouts);
            // Cutting exactly at a record boundary decodes the prefix; elsewhere it fails.
            if let Ok(prefix) = &res {
                prop_assert!(records.starts_with(prefix));
            }
            // The non-allocating scan agrees on success or failure (its errors may name a
            // group of fields where decoding names the first one).
            let mut it = heap::HeapDumpRecords::new(&buf[..at], o, level, &layouts).unwrap();
            let scanned = std::iter::from_fn(|| it.next_raw().transpose()).collect::<Result<Vec<_>, _>>();
            prop_assert_eq!(res.as_ref().map(Vec::len).ok(), scanned.as_ref().map(Vec::len).ok());
        }
    }
}

#[test]
fn nan_payloads_survive() {
    let o = DumpOptions::new(IdSize::Four, IdOrder::Little);
    let mut buf = vec![0x23, 1, 0, 0, 0, 0, 0, 0, 2, 6];
    buf.extend_from_slice(&0x7fc0_1234u32.to_be_bytes());
    buf.extend_from_slice(&0xffa0_0001u32.to_be_bytes());
    let recs = heap::parse(&buf, o, DumpLevel::Level2, &jvmpi_types::NoClasses).unwrap();
    let mut out = Vec::new();
    heap::write(&recs, o, DumpLevel::Level2, &mut out).unwrap();
    assert_eq!(out, buf);
}
