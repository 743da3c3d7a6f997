//! Property tests: synthetic records and sub-records of every kind, at id sizes 4 and 8,
//! survive encode → decode → encode; and decoding in random chunks gives exactly the events
//! of decoding at once (synthetic dumps and a real one).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use hprof::binary::histogram::{Histogram, HistogramRow};
use hprof::binary::incremental::{BufferedDecoder, Decoder, Event};
use hprof::binary::write::Writer;
use hprof::binary::*;
use proptest::prelude::*;

mod forking;

#[derive(Debug, Clone)]
enum OwnedSub {
    Root(GcRoot),
    Class {
        ids: [u64; 7],
        serial: u32,
        size: u32,
        cpool: Vec<(u16, Value)>,
        statics: Vec<(Id, Value)>,
        fields: Vec<(Id, BasicType)>,
    },
    Instance(Id, u32, Id, Vec<u8>),
    ObjArray(Id, u32, Id, Vec<Id>),
    PrimArray(Id, u32, BasicType, Vec<u8>),
    NoData(Id, u32, u32, BasicType),
    Info(u32, Id),
}

#[derive(Debug, Clone)]
enum OwnedRec {
    Utf8(Id, Vec<u8>),
    LoadClass(LoadClass),
    UnloadClass(u32),
    Frame(Frame),
    Trace(u32, u32, Vec<Id>),
    AllocSites(u16, u32, u32, u32, u64, u64, Vec<AllocSite>),
    HeapSummary(HeapSummary),
    StartThread(StartThread),
    EndThread(u32),
    CpuSamples(u32, Vec<CpuSample>),
    Control(u32, u16),
    Heap(u8, Vec<OwnedSub>),
    Unknown(u8, Vec<u8>),
}

fn primitive() -> impl Strategy<Value = BasicType> {
    prop::sample::select(&BasicType::ALL[1..])
}

fn id() -> impl Strategy<Value = Id> {
    any::<u64>().prop_map(Id)
}

fn basic() -> impl Strategy<Value = BasicType> {
    prop::sample::select(&BasicType::ALL[..])
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u64>().prop_map(|n| Value::Object(Id(n))),
        any::<u8>().prop_map(Value::Boolean),
        any::<u16>().prop_map(Value::Char),
        any::<u32>().prop_map(Value::Float),
        any::<u64>().prop_map(Value::Double),
        any::<i8>().prop_map(Value::Byte),
        any::<i16>().prop_map(Value::Short),
        any::<i32>().prop_map(Value::Int),
        any::<i64>().prop_map(Value::Long),
    ]
}

fn root() -> impl Strategy<Value = GcRoot> {
    prop_oneof![
        id().prop_map(|object_id| GcRoot::Unknown { object_id }),
        (id(), id()).prop_map(|(object_id, jni_global_ref_id)| GcRoot::JniGlobal {
            object_id,
            jni_global_ref_id
        }),
        (id(), any::<u32>(), any::<i32>()).prop_map(|(object_id, thread_serial, frame_number)| {
            GcRoot::JniLocal {
                object_id,
                thread_serial: ThreadSerial(thread_serial),
                frame_number,
            }
        }),
        (id(), any::<u32>(), any::<i32>()).prop_map(|(object_id, thread_serial, frame_number)| {
            GcRoot::JavaFrame {
                object_id,
                thread_serial: ThreadSerial(thread_serial),
                frame_number,
            }
        }),
        (id(), any::<u32>()).prop_map(|(object_id, thread_serial)| GcRoot::NativeStack {
            object_id,
            thread_serial: ThreadSerial(thread_serial)
        }),
        id().prop_map(|object_id| GcRoot::StickyClass { object_id }),
        (id(), any::<u32>()).prop_map(|(object_id, thread_serial)| GcRoot::ThreadBlock {
            object_id,
            thread_serial: ThreadSerial(thread_serial)
        }),
        id().prop_map(|object_id| GcRoot::MonitorUsed { object_id }),
        (id(), any::<u32>(), any::<u32>()).prop_map(
            |(object_id, thread_serial, stack_trace_serial)| {
                GcRoot::ThreadObject {
                    object_id,
                    thread_serial: ThreadSerial(thread_serial),
                    stack_trace_serial: StackTraceSerial(stack_trace_serial),
                }
            }
        ),
        id().prop_map(|object_id| GcRoot::InternedString { object_id }),
        id().prop_map(|object_id| GcRoot::Finalizing { object_id }),
        id().prop_map(|object_id| GcRoot::Debugger { object_id }),
        id().prop_map(|object_id| GcRoot::ReferenceCleanup { object_id }),
        id().prop_map(|object_id| GcRoot::VmInternal { object_id }),
        (id(), any::<u32>(), any::<i32>()).prop_map(|(object_id, thread_serial, stack_depth)| {
            GcRoot::JniMonitor {
                object_id,
                thread_serial: ThreadSerial(thread_serial),
                stack_depth,
            }
        }),
        id().prop_map(|object_id| GcRoot::Unreachable { object_id }),
    ]
}

fn sub() -> impl Strategy<Value = OwnedSub> {
    prop_oneof![
        root().prop_map(OwnedSub::Root),
        (
            any::<[u64; 7]>(),
            any::<u32>(),
            any::<u32>(),
            prop::collection::vec((any::<u16>(), value()), 0..4),
            prop::collection::vec((id(), value()), 0..4),
            prop::collection::vec((id(), basic()), 0..6),
        )
            .prop_map(
                |(ids, serial, size, cpool, statics, fields)| OwnedSub::Class {
                    ids,
                    serial,
                    size,
                    cpool,
                    statics,
                    fields
                }
            ),
        (
            id(),
            any::<u32>(),
            id(),
            prop::collection::vec(any::<u8>(), 0..40)
        )
            .prop_map(|(a, b, c, d)| OwnedSub::Instance(a, b, c, d)),
        (id(), any::<u32>(), id(), prop::collection::vec(id(), 0..8))
            .prop_map(|(a, b, c, d)| OwnedSub::ObjArray(a, b, c, d)),
        (id(), any::<u32>(), primitive(), 0usize..10, any::<u64>()).prop_map(
            |(a, b, t, n, seed)| {
                let size = t.size(IdSize::Four);
                let data = (0..n * size)
                    .map(|i| (seed >> (i % 8)) as u8 ^ i as u8)
                    .collect();
                OwnedSub::PrimArray(a, b, t, data)
            }
        ),
        (id(), any::<u32>(), any::<u32>(), primitive())
            .prop_map(|(a, b, c, d)| OwnedSub::NoData(a, b, c, d)),
        (any::<u32>(), id()).prop_map(|(a, b)| OwnedSub::Info(a, b)),
    ]
}

fn rec() -> impl Strategy<Value = OwnedRec> {
    let site = (any::<u8>(), any::<[u32; 6]>()).prop_map(|(is_array, v)| AllocSite {
        is_array,
        class_serial: ClassSerial(v[0]),
        stack_trace_serial: StackTraceSerial(v[1]),
        bytes_alive: v[2],
        instances_alive: v[3],
        bytes_allocated: v[4],
        instances_allocated: v[5],
    });
    prop_oneof![
        (id(), prop::collection::vec(any::<u8>(), 0..20)).prop_map(|(a, b)| OwnedRec::Utf8(a, b)),
        (any::<u32>(), id(), any::<u32>(), id()).prop_map(|(a, b, c, d)| OwnedRec::LoadClass(
            LoadClass {
                class_serial: ClassSerial(a),
                class_id: b,
                stack_trace_serial: StackTraceSerial(c),
                name_id: d
            }
        )),
        any::<u32>().prop_map(OwnedRec::UnloadClass),
        (any::<[u64; 4]>(), any::<u32>(), any::<i32>()).prop_map(|(i, class_serial, line)| {
            OwnedRec::Frame(Frame {
                frame_id: Id(i[0]),
                method_name_id: Id(i[1]),
                method_signature_id: Id(i[2]),
                source_file_id: Id(i[3]),
                class_serial: ClassSerial(class_serial),
                line,
            })
        }),
        (
            any::<u32>(),
            any::<u32>(),
            prop::collection::vec(id(), 0..6)
        )
            .prop_map(|(a, b, c)| OwnedRec::Trace(a, b, c)),
        (
            any::<u16>(),
            any::<[u32; 3]>(),
            any::<u64>(),
            any::<u64>(),
            prop::collection::vec(site, 0..4)
        )
            .prop_map(|(f, v, a, b, s)| OwnedRec::AllocSites(f, v[0], v[1], v[2], a, b, s)),
        (any::<u32>(), any::<u32>(), any::<u64>(), any::<u64>()).prop_map(|(a, b, c, d)| {
            OwnedRec::HeapSummary(HeapSummary {
                live_bytes: a,
                live_instances: b,
                bytes_allocated: c,
                instances_allocated: d,
            })
        }),
        (any::<u32>(), any::<[u64; 4]>(), any::<u32>()).prop_map(|(a, i, c)| {
            OwnedRec::StartThread(StartThread {
                thread_serial: ThreadSerial(a),
                thread_object_id: Id(i[0]),
                stack_trace_serial: StackTraceSerial(c),
                thread_name_id: Id(i[1]),
                group_name_id: Id(i[2]),
                group_parent_name_id: Id(i[3]),
            })
        }),
        any::<u32>().prop_map(OwnedRec::EndThread),
        (
            any::<u32>(),
            prop::collection::vec(
                (any::<u32>(), any::<u32>()).prop_map(|(samples, stack_trace_serial)| CpuSample {
                    samples,
                    stack_trace_serial: StackTraceSerial(stack_trace_serial)
                }),
                0..4
            )
        )
            .prop_map(|(a, b)| OwnedRec::CpuSamples(a, b)),
        (any::<u32>(), any::<u16>()).prop_map(|(a, b)| OwnedRec::Control(a, b)),
        (prop::bool::ANY, prop::collection::vec(sub(), 0..12))
            .prop_map(|(seg, s)| OwnedRec::Heap(if seg { 0x1C } else { 0x0C }, s)),
        (
            any::<u8>().prop_filter("unknown tag", |t| !matches!(
                t,
                0x01..=0x07 | 0x0A..=0x0E | 0x1C | 0x2C
            )),
            prop::collection::vec(any::<u8>(), 0..16)
        )
            .prop_map(|(t, b)| OwnedRec::Unknown(t, b)),
    ]
}

fn mask(id: Id, id_size: IdSize) -> Id {
    if id_size == IdSize::Four {
        Id(id.get() & 0xFFFF_FFFF)
    } else {
        id
    }
}

fn mask_value(v: Value, id_size: IdSize) -> Value {
    match v {
        Value::Object(id) => Value::Object(mask(id, id_size)),
        other => other,
    }
}

fn mask_root(r: GcRoot, s: IdSize) -> GcRoot {
    use GcRoot::*;
    match r {
        Unknown { object_id } => Unknown {
            object_id: mask(object_id, s),
        },
        JniGlobal {
            object_id,
            jni_global_ref_id,
        } => JniGlobal {
            object_id: mask(object_id, s),
            jni_global_ref_id: mask(jni_global_ref_id, s),
        },
        JniLocal {
            object_id,
            thread_serial,
            frame_number,
        } => JniLocal {
            object_id: mask(object_id, s),
            thread_serial,
            frame_number,
        },
        JavaFrame {
            object_id,
            thread_serial,
            frame_number,
        } => JavaFrame {
            object_id: mask(object_id, s),
            thread_serial,
            frame_number,
        },
        NativeStack {
            object_id,
            thread_serial,
        } => NativeStack {
            object_id: mask(object_id, s),
            thread_serial,
        },
        StickyClass { object_id } => StickyClass {
            object_id: mask(object_id, s),
        },
        ThreadBlock {
            object_id,
            thread_serial,
        } => ThreadBlock {
            object_id: mask(object_id, s),
            thread_serial,
        },
        MonitorUsed { object_id } => MonitorUsed {
            object_id: mask(object_id, s),
        },
        ThreadObject {
            object_id,
            thread_serial,
            stack_trace_serial,
        } => ThreadObject {
            object_id: mask(object_id, s),
            thread_serial,
            stack_trace_serial,
        },
        InternedString { object_id } => InternedString {
            object_id: mask(object_id, s),
        },
        Finalizing { object_id } => Finalizing {
            object_id: mask(object_id, s),
        },
        Debugger { object_id } => Debugger {
            object_id: mask(object_id, s),
        },
        ReferenceCleanup { object_id } => ReferenceCleanup {
            object_id: mask(object_id, s),
        },
        VmInternal { object_id } => VmInternal {
            object_id: mask(object_id, s),
        },
        JniMonitor {
            object_id,
            thread_serial,
            stack_depth,
        } => JniMonitor {
            object_id: mask(object_id, s),
            thread_serial,
            stack_depth,
        },
        Unreachable { object_id } => Unreachable {
            object_id: mask(object_id, s),
        },
        other => unreachable!("the strategy makes no {other:?}"),
    }
}

/// Encodes the records with [`Writer`]; returns the bytes and the Debug text of every record
/// and sub-record as built (the expected decode).
fn encode(recs: &[OwnedRec], id_size: IdSize) -> (Vec<u8>, Vec<String>) {
    let m = |id| mask(id, id_size);
    let header = Header {
        version: Version::V1_0_2,
        id_size,
        timestamp_ms: 0x0123_4567_89ab,
    };
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    let mut expected = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let time = i as u32 * 7;
        let mut scratch = Vec::new();
        let record = match r {
            OwnedRec::Utf8(id, b) => Record::Utf8(Utf8 {
                id: m(*id),
                bytes: b,
            }),
            OwnedRec::LoadClass(l) => Record::LoadClass(LoadClass {
                class_id: m(l.class_id),
                name_id: m(l.name_id),
                ..*l
            }),
            OwnedRec::UnloadClass(s) => Record::UnloadClass(UnloadClass {
                class_serial: ClassSerial(*s),
            }),
            OwnedRec::Frame(f) => Record::Frame(Frame {
                frame_id: m(f.frame_id),
                method_name_id: m(f.method_name_id),
                method_signature_id: m(f.method_signature_id),
                source_file_id: m(f.source_file_id),
                ..*f
            }),
            OwnedRec::Trace(a, b, ids) => {
                for id in ids {
                    Value::Object(m(*id)).write(id_size, &mut scratch);
                }
                Record::Trace(Trace {
                    stack_trace_serial: StackTraceSerial(*a),
                    thread_serial: ThreadSerial(*b),
                    frame_ids: IdList::new(&scratch, id_size),
                })
            }
            OwnedRec::AllocSites(f, c, lb, li, ba, ia, sites) => {
                scratch = AllocSite::encode_list(sites);
                Record::AllocSites(AllocSites {
                    flags: *f,
                    cutoff_ratio: *c,
                    total_live_bytes: *lb,
                    total_live_instances: *li,
                    total_bytes_allocated: *ba,
                    total_instances_allocated: *ia,
                    sites: &scratch,
                })
            }
            OwnedRec::HeapSummary(h) => Record::HeapSummary(*h),
            OwnedRec::StartThread(s) => Record::StartThread(StartThread {
                thread_object_id: m(s.thread_object_id),
                thread_name_id: m(s.thread_name_id),
                group_name_id: m(s.group_name_id),
                group_parent_name_id: m(s.group_parent_name_id),
                ..*s
            }),
            OwnedRec::EndThread(s) => Record::EndThread(EndThread {
                thread_serial: ThreadSerial(*s),
            }),
            OwnedRec::CpuSamples(t, s) => {
                scratch = CpuSample::encode_list(s);
                Record::CpuSamples(CpuSamples {
                    total_samples: *t,
                    traces: &scratch,
                })
            }
            OwnedRec::Control(f, d) => Record::ControlSettings(ControlSettings {
                flags: *f,
                stack_trace_depth: *d,
            }),
            OwnedRec::Unknown(t, b) => Record::Unknown { tag: *t, body: b },
            OwnedRec::Heap(tag, subs) => {
                w.start_heap_dump_record(*tag, time).unwrap();
                expected.push(format!("heap {tag} {time}"));
                for s in subs {
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    let mut c = Vec::new();
                    let sub = match s {
                        OwnedSub::Root(r) => SubRecord::Root(mask_root(*r, id_size)),
                        OwnedSub::Class {
                            ids,
                            serial,
                            size,
                            cpool,
                            statics,
                            fields,
                        } => {
                            for (i, v) in cpool {
                                a.extend_from_slice(&i.to_be_bytes());
                                a.push(v.basic_type().code());
                                mask_value(*v, id_size).write(id_size, &mut a);
                            }
                            for (n, v) in statics {
                                Value::Object(m(*n)).write(id_size, &mut b);
                                b.push(v.basic_type().code());
                                mask_value(*v, id_size).write(id_size, &mut b);
                            }
                            for (n, t) in fields {
                                Value::Object(m(*n)).write(id_size, &mut c);
                                c.push(t.code());
                            }
                            SubRecord::ClassDump(ClassDump {
                                class_id: m(Id(ids[0])),
                                stack_trace_serial: StackTraceSerial(*serial),
                                super_class_id: m(Id(ids[1])),
                                class_loader_id: m(Id(ids[2])),
                                signers_id: m(Id(ids[3])),
                                protection_domain_id: m(Id(ids[4])),
                                reserved1: m(Id(ids[5])),
                                reserved2: m(Id(ids[6])),
                                instance_size: *size,
                                constant_pool_len: cpool.len() as u16,
                                constant_pool: &a,
                                static_fields_len: statics.len() as u16,
                                static_fields: &b,
                                instance_fields_len: fields.len() as u16,
                                instance_fields: &c,
                                id_size,
                            })
                        }
                        OwnedSub::Instance(o, s, cl, d) => SubRecord::InstanceDump(InstanceDump {
                            object_id: m(*o),
                            stack_trace_serial: StackTraceSerial(*s),
                            class_id: m(*cl),
                            data: d,
                        }),
                        OwnedSub::ObjArray(o, s, cl, els) => {
                            for e in els {
                                Value::Object(m(*e)).write(id_size, &mut a);
                            }
                            SubRecord::ObjectArrayDump(ObjectArrayDump {
                                array_id: m(*o),
                                stack_trace_serial: StackTraceSerial(*s),
                                array_class_id: m(*cl),
                                elements: IdList::new(&a, id_size),
                            })
                        }
                        OwnedSub::PrimArray(o, s, t, d) => {
                            SubRecord::PrimitiveArrayDump(PrimitiveArrayDump {
                                array_id: m(*o),
                                stack_trace_serial: StackTraceSerial(*s),
                                element_type: *t,
                                data: d,
                            })
                        }
                        OwnedSub::NoData(o, s, n, t) => {
                            SubRecord::PrimitiveArrayNoData(PrimitiveArrayNoData {
                                array_id: m(*o),
                                stack_trace_serial: StackTraceSerial(*s),
                                length: *n,
                                element_type: *t,
                            })
                        }
                        OwnedSub::Info(h, n) => SubRecord::HeapDumpInfo(HeapDumpInfo {
                            heap_id: *h,
                            name_id: m(*n),
                        }),
                    };
                    w.write_sub_record(&sub).unwrap();
                    expected.push(format!("{sub:?}"));
                }
                w.close_heap_dump_record().unwrap();
                continue;
            }
        };
        w.write_record(time, &record).unwrap();
        expected.push(format!("{time} {record:?}"));
    }
    (w.finish().unwrap(), expected)
}

fn decode(data: &[u8]) -> Vec<String> {
    let (_, records) = Records::parse(data).unwrap();
    let mut out = Vec::new();
    for r in records {
        let (h, record) = r.unwrap();
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                out.push(format!("heap {} {}", h.tag, h.time));
                for s in d.sub_records() {
                    out.push(format!("{:?}", s.unwrap()));
                }
            }
            other => out.push(format!("{} {other:?}", h.time)),
        }
    }
    out
}

fn reencode(data: &[u8]) -> Vec<u8> {
    let (header, records) = Records::parse(data).unwrap();
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    for r in records {
        let (h, record) = r.unwrap();
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                w.start_heap_dump_record(h.tag, h.time).unwrap();
                for s in d.sub_records() {
                    w.write_sub_record(&s.unwrap()).unwrap();
                }
                w.close_heap_dump_record().unwrap();
            }
            other => w.write_record(h.time, &other).unwrap(),
        }
    }
    w.finish().unwrap()
}

fn chunked(data: &[u8], sizes: &[usize]) -> Vec<String> {
    let mut d = BufferedDecoder::new();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut i = 0;
    while pos < data.len() {
        let n = sizes[i % sizes.len()].min(data.len() - pos);
        i += 1;
        d.feed(&data[pos..pos + n]);
        pos += n;
        while let Some(e) = d.next_event().unwrap() {
            out.push(format!("{e:?}"));
        }
    }
    // Generated dumps may hold segments without HEAP_DUMP_END: both ends must agree.
    out.push(format!("{:?}", d.finish()));
    out
}

fn one_shot(data: &[u8]) -> Vec<String> {
    let mut d = Decoder::new();
    let mut out = Vec::new();
    let (consumed, _) = d
        .decode_all(data, |e: Event<'_>| out.push(format!("{e:?}")))
        .unwrap();
    out.push(format!("{:?}", d.finish(&data[consumed..])));
    out
}

/// `decode_with` (the visiting fast path) over `data` fed in chunks of `sizes`, the input's
/// size known as the examples know it: the events, then how it ended.
fn chunked_fast(data: &[u8], sizes: &[usize]) -> Vec<String> {
    forking::events(data, sizes, true, false).0
}

/// A histogram's rows, or its error, to compare.
fn histogram(h: Result<Histogram>) -> std::result::Result<Vec<HistogramRow>, String> {
    h.map(|h| h.rows()).map_err(|e| format!("{e:?}"))
}

/// A histogram counted one record at a time, each heap-dump record's sub-records in order.
fn one_at_a_time(data: &[u8]) -> Result<Histogram> {
    let (_, records) = Records::parse(data)?;
    let mut h = Histogram::new();
    for r in records {
        h.add_record(&r?.1)?;
    }
    Ok(h)
}

/// [`chunked_fast`] with the whole input at once.
fn one_shot_fast(data: &[u8]) -> Vec<String> {
    chunked_fast(data, &[data.len().max(1)])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn fast_path_in_random_chunks_equals_one_shot_even_when_cut_or_damaged(
        recs in prop::collection::vec(rec(), 0..12),
        eight in any::<bool>(),
        sizes in prop::collection::vec(1usize..300, 1..20),
        cut in any::<prop::sample::Index>(),
        flip in any::<Option<(prop::sample::Index, u8)>>(),
    ) {
        // The same events and the same error (offsets, what was expected, where a record's
        // content overran it) wherever the chunks end.
        let id_size = if eight { IdSize::Eight } else { IdSize::Four };
        let (mut bytes, _) = encode(&recs, id_size);
        // Past the file header (31 bytes), whose errors quote what was buffered of it.
        if let Some((at, bit)) = flip.filter(|_| bytes.len() > 31) {
            let i = 31 + at.index(bytes.len() - 31);
            bytes[i] ^= 1 << (bit % 8);
        }
        let whole = one_shot_fast(&bytes);
        prop_assert_eq!(&chunked_fast(&bytes, &sizes), &whole);
        // The fast path agrees with the event-at-a-time one on a whole dump.
        if flip.is_none() {
            prop_assert_eq!(&whole, &one_shot(&bytes));
        }
        let cut = &bytes[..cut.index(bytes.len() + 1)];
        prop_assert_eq!(chunked_fast(cut, &sizes), one_shot_fast(cut));
    }

    #[test]
    fn forked_decoding_gives_the_events_of_decode_with_even_when_cut_or_damaged(
        recs in prop::collection::vec(rec(), 0..6),
        segments in prop::collection::vec(prop::collection::vec(sub(), 0..10), 0..6),
        eight in any::<bool>(),
        sizes in prop::collection::vec(1usize..300, 1..20),
        cut in any::<prop::sample::Index>(),
        flip in any::<Option<(prop::sample::Index, u8)>>(),
        sized in any::<bool>(),
    ) {
        // Two heap-dump records walked at once, a fork's sub-records joined after the second
        // one's start: the same events in the same order, and the same error, as one at a time.
        let id_size = if eight { IdSize::Eight } else { IdSize::Four };
        let mut recs = recs;
        recs.extend(segments.into_iter().map(|subs| OwnedRec::Heap(0x1C, subs)));
        let (mut bytes, _) = encode(&recs, id_size);
        if let Some((at, bit)) = flip.filter(|_| bytes.len() > 31) {
            let i = 31 + at.index(bytes.len() - 31);
            bytes[i] ^= 1 << (bit % 8);
        }
        let cut = &bytes[..cut.index(bytes.len() + 1)];
        for data in [&bytes[..], cut] {
            let (events, _) = forking::events(data, &sizes, sized, true);
            prop_assert_eq!(&events, &forking::events(data, &sizes, sized, false).0);
            if sized {
                prop_assert_eq!(&events, &one_shot_fast(data));
            }
            // `Histogram::parse` walks each heap-dump record beside the one before it: the
            // same counts, or the same first error, as one record at a time.
            prop_assert_eq!(histogram(Histogram::parse(data)), histogram(one_at_a_time(data)));
        }
    }

    #[test]
    fn roundtrip_id4(recs in prop::collection::vec(rec(), 0..12)) {
        let (bytes, expected) = encode(&recs, IdSize::Four);
        prop_assert_eq!(decode(&bytes), expected);
        prop_assert!(reencode(&bytes) == bytes);
    }

    #[test]
    fn roundtrip_id8(recs in prop::collection::vec(rec(), 0..12)) {
        let (bytes, expected) = encode(&recs, IdSize::Eight);
        prop_assert_eq!(decode(&bytes), expected);
        prop_assert!(reencode(&bytes) == bytes);
    }

    #[test]
    fn random_chunks_equal_one_shot_synthetic(
        recs in prop::collection::vec(rec(), 0..12),
        eight in any::<bool>(),
        sizes in prop::collection::vec(1usize..300, 1..20),
    ) {
        let id_size = if eight { IdSize::Eight } else { IdSize::Four };
        let (bytes, _) = encode(&recs, id_size);
        prop_assert_eq!(chunked(&bytes, &sizes), one_shot(&bytes));
    }

    #[test]
    fn random_chunks_equal_one_shot_real(sizes in prop::collection::vec(1usize..70_000, 1..20)) {
        let data = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"),
            "/tests/data/binary/hprof-slurp_hprof-32.hprof")).unwrap();
        prop_assert_eq!(chunked(&data, &sizes), one_shot(&data));
    }

    #[test]
    fn auto_segmenting_writer_splits_and_ends(subs in prop::collection::vec(sub(), 1..40), size in 1usize..200) {
        // Every sub-record lands in a segment no larger than `size` + one sub-record, and
        // the dump ends with HEAP_DUMP_END.
        let header = Header { version: Version::V1_0_2, id_size: IdSize::Eight, timestamp_ms: 0 };
        let recs = vec![OwnedRec::Heap(0x1C, subs.clone())];
        let (bytes, _) = encode(&recs, IdSize::Eight);
        let (_, records) = Records::parse(&bytes).unwrap();
        let mut w = Writer::new(Vec::new(), &header).unwrap().segment_size(size);
        for r in records {
            if let (_, Record::HeapDumpSegment(d)) = r.unwrap() {
                for s in d.sub_records() {
                    w.write_sub_record(&s.unwrap()).unwrap();
                }
            }
        }
        let out = w.finish().unwrap();
        let (_, records) = Records::parse(&out).unwrap();
        let all: Vec<_> = records.map(Result::unwrap).collect();
        prop_assert!(matches!(all.last().unwrap().1, Record::HeapDumpEnd));
        let mut n = 0;
        for (h, r) in &all[..all.len() - 1] {
            prop_assert_eq!(h.tag, 0x1C);
            if let Record::HeapDumpSegment(d) = r {
                n += d.sub_records().count();
            }
        }
        prop_assert_eq!(n, subs.len());
    }
}
