//! Typed views and answers on the committed recordings: each typed event type is found with
//! sensible values, stack traces resolve to methods, classes, descriptors and frame types,
//! and folded stacks and function profiles add up.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;

use jfr::profile::Profile;
use jfr::{FrameType, TypedEvent};

fn typed_counts(path: &str) -> BTreeMap<&'static str, usize> {
    let data = std::fs::read(path).unwrap();
    let mut counts = BTreeMap::new();
    for chunk in jfr::Chunks::new(&data) {
        let chunk = chunk.unwrap();
        for e in chunk.events() {
            let e = e.unwrap();
            let Some(t) = e.typed().unwrap() else {
                continue;
            };
            let name = match &t {
                TypedEvent::ExecutionSample(s) => {
                    let st = chunk.stack_trace(s.common.stack_trace).unwrap().unwrap();
                    assert!(!st.frames.is_empty());
                    for f in &st.frames {
                        assert!(
                            !f.method.name.is_empty() && f.method.descriptor.starts_with('('),
                            "{f:?}"
                        );
                        assert!(!matches!(f.frame_type, FrameType::Other(_)), "{f:?}");
                    }
                    "ExecutionSample"
                }
                TypedEvent::NativeMethodSample(_) => "NativeMethodSample",
                TypedEvent::ObjectAllocationSample(s) => {
                    assert!(s.weight > 0 && s.object_class != 0);
                    let class = chunk.class_name(s.object_class).unwrap().unwrap();
                    assert!(!class.is_empty() && !class.contains('.'), "{class}");
                    let thread = chunk.thread_name(s.common.thread).unwrap().unwrap();
                    assert!(!thread.is_empty());
                    "ObjectAllocationSample"
                }
                TypedEvent::ObjectAllocationInNewTlab(a) => {
                    assert!(a.tlab_size.unwrap() >= a.allocation_size);
                    "ObjectAllocationInNewTLAB"
                }
                TypedEvent::ObjectAllocationOutsideTlab(a) => {
                    assert!(a.allocation_size > 0 && a.tlab_size.is_none());
                    "ObjectAllocationOutsideTLAB"
                }
                TypedEvent::JavaMonitorEnter(m) => {
                    assert!(m.common.duration_ticks > 0 && m.monitor_class != 0);
                    "JavaMonitorEnter"
                }
                TypedEvent::JavaMonitorWait(_) => "JavaMonitorWait",
                TypedEvent::ThreadPark(p) => {
                    assert!(p.common.duration_ticks > 0);
                    "ThreadPark"
                }
                TypedEvent::GarbageCollection(g) => {
                    assert!(!g.name.is_empty() && !g.cause.is_empty());
                    "GarbageCollection"
                }
                TypedEvent::CpuLoad(c) => {
                    assert!((0.0..=1.0).contains(&c.machine_total));
                    "CPULoad"
                }
                _ => "other",
            };
            *counts.entry(name).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
fn typed_views_on_real_recordings() {
    let cpu = typed_counts("tests/data/cpu-profile.jfr");
    assert!(cpu["ExecutionSample"] > 100, "{cpu:?}");
    assert!(cpu["CPULoad"] >= 2, "{cpu:?}");
    let alloc = typed_counts("tests/data/alloc-tlab.jfr");
    assert!(alloc["ObjectAllocationSample"] > 10, "{alloc:?}");
    assert!(alloc["ObjectAllocationInNewTLAB"] > 100, "{alloc:?}");
    assert!(alloc["ObjectAllocationOutsideTLAB"] > 0, "{alloc:?}");
    assert!(alloc["GarbageCollection"] > 0, "{alloc:?}");
    let locks = typed_counts("tests/data/locks-profile.jfr");
    assert!(
        locks["JavaMonitorEnter"] > 0 && locks["JavaMonitorWait"] > 0,
        "{locks:?}"
    );
    let park = typed_counts("tests/data/park-profile.jfr");
    assert!(park["ThreadPark"] > 0, "{park:?}");
}

fn profile(path: &str, event: &str) -> Profile {
    let data = std::fs::read(path).unwrap();
    let mut p = Profile::new(event);
    for chunk in jfr::Chunks::new(&data) {
        p.add_chunk(&chunk.unwrap()).unwrap();
    }
    p
}

#[test]
fn folded_stacks_and_functions() {
    let p = profile("tests/data/cpu-profile.jfr", "jdk.ExecutionSample");
    assert_eq!(p.stacks.values().sum::<i64>(), p.events as i64);
    let functions = p.functions();
    let main = functions.iter().find(|f| f.name == "Cpu.main").unwrap();
    assert_eq!(
        main.total_weight,
        p.stacks
            .iter()
            .filter(|(s, _)| s.starts_with("Cpu.main"))
            .map(|(_, w)| w)
            .sum()
    );
    let primes = functions.iter().find(|f| f.name == "Cpu.primes").unwrap();
    assert!(primes.self_weight > 0 && primes.self_weight <= primes.total_weight);
    // Recursion counts once per stack in the total.
    let fib = functions.iter().find(|f| f.name == "Cpu.fib").unwrap();
    assert!(fib.total_weight <= main.total_weight);

    let alloc = profile("tests/data/alloc-profile.jfr", "jdk.ObjectAllocationSample");
    assert!(
        alloc.total_weight > alloc.events as i64 * 1000,
        "weights are bytes: {}",
        alloc.total_weight
    );
    let park = profile("tests/data/park-profile.jfr", "jdk.ThreadPark");
    assert!(
        park.total_weight > 1_000_000,
        "weights are nanoseconds: {}",
        park.total_weight
    );
    assert!(
        park.stacks.keys().any(|s| s.contains("Park.critical")),
        "{:?}",
        park.stacks.keys()
    );
}
