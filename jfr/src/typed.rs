//! Typed views of the events people profile with: execution and native-method samples,
//! allocation samples and TLAB allocations, monitor enter and wait, thread parks, garbage
//! collections and CPU load. References (threads, stack traces, classes) stay constant-pool
//! keys, resolved on demand through the chunk ([`crate::Chunk::stack_trace`]…).

use std::borrow::Cow;

use crate::chunk::Chunk;
use crate::error::Result;
use crate::event::Event;
use crate::stack::field;
use crate::value::{Object, Value};

/// An event of one of the types this module knows, with its fields by name.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum TypedEvent<'a> {
    /// `jdk.ExecutionSample`.
    ExecutionSample(MethodSample<'a>),
    /// `jdk.NativeMethodSample`.
    NativeMethodSample(MethodSample<'a>),
    /// `jdk.ObjectAllocationSample`.
    ObjectAllocationSample(AllocationSample),
    /// `jdk.ObjectAllocationInNewTLAB`.
    ObjectAllocationInNewTlab(Allocation),
    /// `jdk.ObjectAllocationOutsideTLAB`.
    ObjectAllocationOutsideTlab(Allocation),
    /// `jdk.JavaMonitorEnter`.
    JavaMonitorEnter(MonitorEnter),
    /// `jdk.JavaMonitorWait`.
    JavaMonitorWait(MonitorWait),
    /// `jdk.ThreadPark`.
    ThreadPark(ThreadPark),
    /// `jdk.GarbageCollection`.
    GarbageCollection(GarbageCollection<'a>),
    /// `jdk.CPULoad`.
    CpuLoad(CpuLoad),
}

/// What most events carry: when, how long, on which thread, from which stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Common {
    /// `startTime`, in ticks.
    pub start_ticks: i64,
    /// `duration`, in ticks (0 for instant events).
    pub duration_ticks: i64,
    /// The thread's key (`eventThread`, or `sampledThread` for samples); 0 for none.
    pub thread: i64,
    /// The stack trace's key (`stackTrace`); 0 for none.
    pub stack_trace: i64,
}

/// `jdk.ExecutionSample` and `jdk.NativeMethodSample`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MethodSample<'a> {
    /// Time, thread and stack.
    pub common: Common,
    /// The thread's state (`STATE_RUNNABLE`…).
    pub state: Option<Cow<'a, str>>,
}

/// `jdk.ObjectAllocationSample`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AllocationSample {
    /// Time, thread and stack.
    pub common: Common,
    /// The allocated class's key.
    pub object_class: i64,
    /// The bytes this sample stands for (`weight`).
    pub weight: i64,
}

/// `jdk.ObjectAllocationInNewTLAB` and `jdk.ObjectAllocationOutsideTLAB`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Allocation {
    /// Time, thread and stack.
    pub common: Common,
    /// The allocated class's key.
    pub object_class: i64,
    /// The object's size in bytes (`allocationSize`).
    pub allocation_size: i64,
    /// The new TLAB's size in bytes (`tlabSize`; in-new-TLAB events only).
    pub tlab_size: Option<i64>,
}

/// `jdk.JavaMonitorEnter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MonitorEnter {
    /// Time, duration (the wait to enter), thread and stack.
    pub common: Common,
    /// The monitor's class key.
    pub monitor_class: i64,
    /// The previous owner's thread key.
    pub previous_owner: i64,
    /// The monitor's address.
    pub address: i64,
}

/// `jdk.JavaMonitorWait`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MonitorWait {
    /// Time, duration (the wait), thread and stack.
    pub common: Common,
    /// The monitor's class key.
    pub monitor_class: i64,
    /// The notifying thread's key (0 if none).
    pub notifier: i64,
    /// The timeout asked for, in milliseconds.
    pub timeout_millis: i64,
    /// Whether the wait timed out.
    pub timed_out: bool,
    /// The monitor's address.
    pub address: i64,
}

/// `jdk.ThreadPark`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ThreadPark {
    /// Time, duration (the park), thread and stack.
    pub common: Common,
    /// The class of the object parked on (key).
    pub parked_class: i64,
    /// The timeout asked for, in nanoseconds (`Long.MIN_VALUE` for none).
    pub timeout_nanos: i64,
    /// The deadline asked for, in milliseconds since the epoch (`Long.MIN_VALUE` for none).
    pub until_millis: i64,
    /// The address of the object parked on.
    pub address: i64,
}

/// `jdk.GarbageCollection`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GarbageCollection<'a> {
    /// Time and duration.
    pub common: Common,
    /// The collection's id.
    pub gc_id: i64,
    /// The collector's name (`G1New`…).
    pub name: Cow<'a, str>,
    /// Why it ran (`G1 Evacuation Pause`…).
    pub cause: Cow<'a, str>,
    /// The sum of its pauses, in ticks.
    pub sum_of_pauses_ticks: i64,
    /// Its longest pause, in ticks.
    pub longest_pause_ticks: i64,
}

/// `jdk.CPULoad`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CpuLoad {
    /// When it was taken.
    pub common: Common,
    /// The JVM's user-mode share, 0 to 1.
    pub jvm_user: f32,
    /// The JVM's kernel-mode share, 0 to 1.
    pub jvm_system: f32,
    /// The whole machine's share, 0 to 1.
    pub machine_total: f32,
}

struct Fields<'v, 'c, 'a> {
    chunk: &'c Chunk<'a>,
    o: &'v Object<'a>,
}

impl<'a> Fields<'_, '_, 'a> {
    fn get(&self, name: &str) -> Option<&Value<'a>> {
        field(&self.chunk.metadata, self.o, name)
    }

    /// An integer field, or a reference's key.
    fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(Value::Constant(r)) => r.key,
            Some(v) => v.as_i64().unwrap_or(0),
            None => 0,
        }
    }

    fn float(&self, name: &str) -> f32 {
        self.get(name).and_then(Value::as_f64).unwrap_or(0.0) as f32
    }

    fn text(&self, name: &str) -> Result<Option<Cow<'a, str>>> {
        Ok(match self.get(name) {
            Some(v @ Value::Constant(_)) => match self.chunk.resolve(v.clone())? {
                Value::String(s) => Some(s),
                _ => None,
            },
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        })
    }

    fn common(&self, thread_field: &str) -> Common {
        Common {
            start_ticks: self.int("startTime"),
            duration_ticks: self.int("duration"),
            thread: self.int(thread_field),
            stack_trace: self.int("stackTrace"),
        }
    }
}

impl<'c, 'a> Event<'c, 'a> {
    /// The event as a typed view, if its type is one [`TypedEvent`] knows.
    pub fn typed(&self) -> Result<Option<TypedEvent<'a>>> {
        let Some(name) = self.type_name() else {
            return Ok(None);
        };
        let known = [
            "jdk.ExecutionSample",
            "jdk.NativeMethodSample",
            "jdk.ObjectAllocationSample",
            "jdk.ObjectAllocationInNewTLAB",
            "jdk.ObjectAllocationOutsideTLAB",
            "jdk.JavaMonitorEnter",
            "jdk.JavaMonitorWait",
            "jdk.ThreadPark",
            "jdk.GarbageCollection",
            "jdk.CPULoad",
        ];
        if !known.contains(&name) {
            return Ok(None);
        }
        let o = self.values()?;
        let f = Fields {
            chunk: self.chunk(),
            o: &o,
        };
        let alloc = |f: &Fields<'_, '_, 'a>, tlab: bool| Allocation {
            common: f.common("eventThread"),
            object_class: f.int("objectClass"),
            allocation_size: f.int("allocationSize"),
            tlab_size: tlab.then(|| f.int("tlabSize")),
        };
        Ok(Some(match name {
            "jdk.ExecutionSample" | "jdk.NativeMethodSample" => {
                let s = MethodSample {
                    common: f.common("sampledThread"),
                    state: f.text("state")?,
                };
                if name == "jdk.ExecutionSample" {
                    TypedEvent::ExecutionSample(s)
                } else {
                    TypedEvent::NativeMethodSample(s)
                }
            }
            "jdk.ObjectAllocationSample" => TypedEvent::ObjectAllocationSample(AllocationSample {
                common: f.common("eventThread"),
                object_class: f.int("objectClass"),
                weight: f.int("weight"),
            }),
            "jdk.ObjectAllocationInNewTLAB" => {
                TypedEvent::ObjectAllocationInNewTlab(alloc(&f, true))
            }
            "jdk.ObjectAllocationOutsideTLAB" => {
                TypedEvent::ObjectAllocationOutsideTlab(alloc(&f, false))
            }
            "jdk.JavaMonitorEnter" => TypedEvent::JavaMonitorEnter(MonitorEnter {
                common: f.common("eventThread"),
                monitor_class: f.int("monitorClass"),
                previous_owner: f.int("previousOwner"),
                address: f.int("address"),
            }),
            "jdk.JavaMonitorWait" => TypedEvent::JavaMonitorWait(MonitorWait {
                common: f.common("eventThread"),
                monitor_class: f.int("monitorClass"),
                notifier: f.int("notifier"),
                timeout_millis: f.int("timeout"),
                timed_out: f.int("timedOut") != 0,
                address: f.int("address"),
            }),
            "jdk.ThreadPark" => TypedEvent::ThreadPark(ThreadPark {
                common: f.common("eventThread"),
                parked_class: f.int("parkedClass"),
                timeout_nanos: f.int("timeout"),
                until_millis: f.int("until"),
                address: f.int("address"),
            }),
            "jdk.GarbageCollection" => TypedEvent::GarbageCollection(GarbageCollection {
                common: f.common("eventThread"),
                gc_id: f.int("gcId"),
                name: f.text("name")?.unwrap_or_default(),
                cause: f.text("cause")?.unwrap_or_default(),
                sum_of_pauses_ticks: f.int("sumOfPauses"),
                longest_pause_ticks: f.int("longestPause"),
            }),
            _ => TypedEvent::CpuLoad(CpuLoad {
                common: f.common("eventThread"),
                jvm_user: f.float("jvmUser"),
                jvm_system: f.float("jvmSystem"),
                machine_total: f.float("machineTotal"),
            }),
        }))
    }
}

impl TypedEvent<'_> {
    /// Time, thread and stack of the event.
    pub fn common(&self) -> &Common {
        match self {
            TypedEvent::ExecutionSample(s) | TypedEvent::NativeMethodSample(s) => &s.common,
            TypedEvent::ObjectAllocationSample(s) => &s.common,
            TypedEvent::ObjectAllocationInNewTlab(s)
            | TypedEvent::ObjectAllocationOutsideTlab(s) => &s.common,
            TypedEvent::JavaMonitorEnter(s) => &s.common,
            TypedEvent::JavaMonitorWait(s) => &s.common,
            TypedEvent::ThreadPark(s) => &s.common,
            TypedEvent::GarbageCollection(s) => &s.common,
            TypedEvent::CpuLoad(s) => &s.common,
        }
    }
}
