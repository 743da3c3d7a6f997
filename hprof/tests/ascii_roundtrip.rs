//! Models built in code: `parse(write(model)) == model` (proptest), for every kind of item.

use hprof::ascii::*;
use proptest::prelude::*;

const DATE: &str = "Sun Jul 28 00:19:32 2019";

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,5}(\\.[A-Z][A-Za-z0-9$]{0,6}){0,2}"
}

fn percent() -> impl Strategy<Value = Percent<String>> {
    (0.0f64..100.0).prop_map(Percent::from_value)
}

fn frame() -> BoxedStrategy<Frame<String>> {
    let line = prop_oneof![
        any::<u32>().prop_map(LineNumber::Line),
        Just(LineNumber::Unknown),
        Just(LineNumber::Compiled),
        Just(LineNumber::Native),
    ];
    (name(), "[A-Z][a-z]{0,6}\\.java", line)
        .prop_map(|(m, source, line)| Frame {
            method: format!("{m}.run"),
            source,
            line,
        })
        .boxed()
}

fn heap_record() -> BoxedStrategy<HeapRecord> {
    let root_kind = prop_oneof![
        (any::<u32>(), any::<u32>()).prop_map(|(thread, trace)| RootKind::Thread {
            thread: ThreadSerial(thread),
            trace: StackTraceSerial(trace)
        }),
        Just(RootKind::Unknown),
        (any::<u32>(), any::<u32>()).prop_map(|(r, trace)| RootKind::JniGlobal {
            ref_id: u64::from(r),
            trace: StackTraceSerial(trace)
        }),
        (any::<u32>(), -1i64..100).prop_map(|(thread, frame)| RootKind::JniLocal {
            thread: ThreadSerial(thread),
            frame
        }),
        name().prop_map(|name| RootKind::SystemClass { name }),
        Just(RootKind::BusyMonitor),
        any::<u32>().prop_map(|thread| RootKind::ThreadBlock {
            thread: ThreadSerial(thread)
        }),
        (any::<u32>(), -1i64..100).prop_map(|(thread, frame)| RootKind::JavaStack {
            thread: ThreadSerial(thread),
            frame
        }),
        any::<u32>().prop_map(|thread| RootKind::NativeStack {
            thread: ThreadSerial(thread)
        }),
    ];
    let class_ref_kind = prop_oneof![
        Just(ClassRefKind::Super),
        Just(ClassRefKind::Loader),
        Just(ClassRefKind::Signers),
        Just(ClassRefKind::Domain),
        "[A-Z_]{1,10}".prop_map(ClassRefKind::Static),
        any::<u16>().prop_map(|n| ClassRefKind::ConstantPoolEntry(u32::from(n))),
        any::<u16>().prop_map(|n| ClassRefKind::Constant(u32::from(n))),
    ];
    prop_oneof![
        (any::<u64>(), root_kind).prop_map(|(id, kind)| HeapRecord::Root(Root { id, kind })),
        (
            any::<u64>(),
            name(),
            any::<u32>(),
            prop::collection::vec((class_ref_kind, any::<u64>()), 0..4)
        )
            .prop_map(|(id, name, trace, refs)| HeapRecord::Class(ClassRecord {
                class: ClassDump {
                    id,
                    name,
                    trace: StackTraceSerial(trace)
                },
                refs: refs
                    .into_iter()
                    .map(|(kind, value)| ClassRef { kind, value })
                    .collect(),
            })),
        (
            any::<u64>(),
            any::<u32>(),
            any::<u32>(),
            name(),
            any::<u64>(),
            prop::collection::vec(("[a-zA-Z]{1,12}", any::<u64>()), 0..4)
        )
            .prop_map(|(id, size, trace, class_name, class_id, fields)| {
                HeapRecord::Instance(InstanceRecord {
                    instance: InstanceDump {
                        id,
                        size: u64::from(size),
                        trace: StackTraceSerial(trace),
                        class_name,
                        class_id,
                    },
                    fields: fields
                        .into_iter()
                        .map(|(name, value)| FieldRef { name, value })
                        .collect(),
                })
            }),
        (
            any::<u64>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            name(),
            proptest::option::of(any::<u64>()),
            prop::collection::vec((any::<u32>(), any::<u64>()), 0..4)
        )
            .prop_map(|(id, size, trace, length, elem, class_id, elements)| {
                HeapRecord::Array(ArrayRecord {
                    array: ArrayDump {
                        id,
                        size: u64::from(size),
                        trace: StackTraceSerial(trace),
                        length: u64::from(length),
                        elem_type: format!("{elem}[]"),
                        class_id,
                    },
                    elements: if class_id.is_some() {
                        elements
                            .into_iter()
                            .map(|(index, value)| ArrayElement {
                                index: u64::from(index),
                                value,
                            })
                            .collect()
                    } else {
                        Vec::new()
                    },
                })
            }),
    ]
    .boxed()
}

fn monitor_entry() -> BoxedStrategy<MonitorDumpEntry> {
    let status = prop_oneof![
        Just("R"),
        Just("CW"),
        Just("MW"),
        Just("S|intr|native|SL"),
        Just("ZO")
    ];
    let waiting = (
        prop_oneof![Just(WaitingKind::ToEnter), Just(WaitingKind::ToBeNotified)],
        prop::collection::vec(proptest::option::of(any::<u32>()), 0..3),
    )
        .prop_map(|(kind, threads)| WaitingList::<String>::from_threads(kind, &threads));
    prop_oneof![
        (any::<u32>(), any::<u32>(), status).prop_map(|(thread, trace, s)| {
            MonitorDumpEntry::Thread(MonitorThread {
                thread: ThreadSerial(thread),
                trace: StackTraceSerial(trace),
                status: s.to_owned(),
            })
        }),
        (
            any::<bool>(),
            name(),
            proptest::option::of((any::<u32>(), 0i64..5)),
            prop::collection::vec(waiting, 0..3)
        )
            .prop_map(
                |(raw, name, owner, waiting)| MonitorDumpEntry::Monitor(Monitor {
                    header: MonitorHeader {
                        raw,
                        name,
                        unowned: owner.is_none()
                    },
                    owner: owner.map(|(thread, entry_count)| MonitorOwner {
                        thread: ThreadSerial(thread),
                        entry_count
                    }),
                    waiting,
                })
            ),
    ]
    .boxed()
}

fn item() -> BoxedStrategy<Item> {
    let thread = proptest::option::of(any::<u32>().prop_map(ThreadSerial));
    prop_oneof![
        (
            any::<u32>(),
            any::<u32>(),
            "[A-Za-z0-9 _.-]{0,10}",
            "[a-z]{0,6}"
        )
            .prop_map(|(obj, id, name, group)| Item::ThreadStart(ThreadStart {
                obj: u64::from(obj),
                id: ThreadSerial(id),
                name,
                group
            })),
        any::<u32>().prop_map(|id| Item::ThreadEnd(ThreadEnd {
            id: ThreadSerial(id)
        })),
        (
            any::<u32>(),
            any::<Option<u32>>(),
            prop::collection::vec(frame(), 0..5)
        )
            .prop_map(|(serial, thread, frames)| Item::Trace(Trace::new(
                StackTraceSerial(serial),
                thread.map(ThreadSerial),
                frames
            ))),
        (
            any::<u32>(),
            any::<u32>(),
            prop::collection::vec(heap_record(), 0..8)
        )
            .prop_map(|(objects, bytes, records)| {
                Item::HeapDump(HeapDump::new(
                    HeapDumpBegin {
                        objects: u64::from(objects),
                        bytes: u64::from(bytes),
                        created: DATE.into(),
                    },
                    records,
                    true,
                ))
            }),
        (prop::collection::vec(
            (
                any::<u16>(),
                percent(),
                percent(),
                any::<u32>(),
                any::<u16>(),
                any::<u32>(),
                any::<u16>(),
                any::<u32>(),
                name()
            ),
            0..5
        ))
        .prop_map(|rows| Item::Sites(Sites::new(
            SitesBegin {
                ordered_by: "live bytes".into(),
                created: DATE.into()
            },
            rows.into_iter()
                .map(|(rank, s, a, lb, lo, ab, ao, trace, class_name)| Site {
                    rank: u32::from(rank),
                    self_percent: s,
                    accum_percent: a,
                    live_bytes: u64::from(lb),
                    live_objects: u64::from(lo),
                    alloc_bytes: u64::from(ab),
                    alloc_objects: u64::from(ao),
                    trace: StackTraceSerial(trace),
                    class_name,
                })
                .collect(),
        ))),
        (
            any::<bool>(),
            0i64..1_000_000,
            prop::collection::vec(
                (
                    any::<u16>(),
                    percent(),
                    percent(),
                    any::<u32>(),
                    any::<u32>(),
                    proptest::option::of(name())
                ),
                0..5
            )
        )
            .prop_map(|(samples, total, rows)| Item::Cpu(Cpu::new(
                if samples {
                    CpuKind::Samples
                } else {
                    CpuKind::Time
                },
                total,
                DATE.into(),
                rows.into_iter()
                    .map(|(rank, s, a, count, trace, method)| CpuRow {
                        rank: u32::from(rank),
                        self_percent: s,
                        accum_percent: a,
                        count: u64::from(count),
                        trace: StackTraceSerial(trace),
                        method,
                    })
                    .collect(),
            ))),
        prop::collection::vec(monitor_entry(), 0..5)
            .prop_map(|e| Item::MonitorDump(MonitorDump::new(e))),
        (
            0i64..1000,
            prop::collection::vec(
                (
                    any::<u16>(),
                    percent(),
                    percent(),
                    any::<u32>(),
                    any::<u32>(),
                    name()
                ),
                0..4
            )
        )
            .prop_map(|(total, rows)| Item::MonitorTime(MonitorTime::new(
                total,
                DATE.into(),
                rows.into_iter()
                    .map(|(rank, s, a, count, trace, m)| MonitorTimeRow {
                        rank: u32::from(rank),
                        self_percent: s,
                        accum_percent: a,
                        count: u64::from(count),
                        trace: StackTraceSerial(trace),
                        monitor: format!("{m} (Java)"),
                    })
                    .collect(),
            ))),
        (0i64..100, thread.clone(), name()).prop_map(|(timeout, thread, monitor)| {
            Item::MonitorEvent(MonitorEvent::Wait {
                monitor,
                timeout,
                thread,
            })
        }),
        (0i64..100, thread.clone()).prop_map(|(timeout, thread)| Item::MonitorEvent(
            MonitorEvent::Sleep { timeout, thread }
        )),
        (0i64..100, thread.clone(), name()).prop_map(|(time_waited, thread, monitor)| {
            Item::MonitorEvent(MonitorEvent::Waited {
                monitor,
                time_waited,
                thread,
            })
        }),
        (thread, name()).prop_map(|(thread, monitor)| Item::MonitorEvent(MonitorEvent::Exit {
            monitor,
            thread
        })),
        Just(Item::Blank),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn parse_of_written_model_is_the_model(items in prop::collection::vec(item(), 0..12), crlf: bool, with_header: bool) {
        let ending = if crlf { LineEnding::CrLf } else { LineEnding::Lf };
        let nl = ending.as_str();
        let mut all = Vec::new();
        if with_header {
            all.push(Item::Header(FileHeader { format: "JAVA PROFILE 1.0.1".into(), created: DATE.into() }));
            all.push(Item::Prelude(format!("{nl}Header for -agentlib:hprof (or -Xrunhprof) ASCII Output{nl}{nl}")));
            all.push(Item::Separator);
            all.push(Item::Blank);
        }
        // Blank lines only where they do not sit between a block and its continuation.
        all.extend(items);
        let report = Report::from_items(all, None, ending);
        let text = report.to_text();
        let back = Report::parse(text.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back.items, &report.items, "{}", text);
        prop_assert_eq!(back.line_ending, if report.items.is_empty() { LineEnding::Lf } else { ending });
        prop_assert_eq!(back.to_text(), text);
    }
}
