//! Answers from stack traces: folded stacks per event type with a weight (samples for
//! execution samples, bytes for allocations, nanoseconds for monitor waits and parks), and
//! a function profile (self and total weight per method).

use std::collections::{BTreeMap, HashMap};

use crate::chunk::Chunk;
use crate::error::Result;
use crate::event::Event;
use crate::typed::TypedEvent;

/// What an event type's weight counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum WeightUnit {
    /// Events (samples).
    Count,
    /// Bytes allocated.
    Bytes,
    /// Nanoseconds waited, blocked or parked.
    Nanos,
}

/// The weight unit of an event type: bytes for the allocation events, nanoseconds for
/// monitor enter/wait and thread park, a count for everything else.
pub fn weight_unit(event_type: &str) -> WeightUnit {
    match event_type {
        "jdk.ObjectAllocationSample"
        | "jdk.ObjectAllocationInNewTLAB"
        | "jdk.ObjectAllocationOutsideTLAB" => WeightUnit::Bytes,
        "jdk.JavaMonitorEnter" | "jdk.JavaMonitorWait" | "jdk.ThreadPark" => WeightUnit::Nanos,
        _ => WeightUnit::Count,
    }
}

/// The weight of one event: the sample's `weight` for allocation samples, the new TLAB's
/// size for in-new-TLAB allocations, the object's size outside TLABs, the duration in
/// nanoseconds for monitor enter/wait and parks, 1 otherwise.
pub fn weight(event: &Event<'_, '_>) -> Result<i64> {
    Ok(match event.typed()? {
        Some(TypedEvent::ObjectAllocationSample(s)) => s.weight,
        Some(TypedEvent::ObjectAllocationInNewTlab(a)) => a.tlab_size.unwrap_or(a.allocation_size),
        Some(TypedEvent::ObjectAllocationOutsideTlab(a)) => a.allocation_size,
        Some(
            t @ (TypedEvent::JavaMonitorEnter(_)
            | TypedEvent::JavaMonitorWait(_)
            | TypedEvent::ThreadPark(_)),
        ) => event.chunk().ticks_to_nanos(t.common().duration_ticks),
        _ => 1,
    })
}

/// Self and total weight of one method.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FunctionRow {
    /// `package.Class.method`.
    pub name: String,
    /// Weight of the stacks it is the innermost frame of.
    pub self_weight: i64,
    /// Weight of the stacks it appears in (once per stack, however often it recurses).
    pub total_weight: i64,
}

/// Folded stacks and a function profile of one event type, over any number of chunks.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Profile {
    /// The event type profiled.
    pub event_type: String,
    /// `outermost;…;innermost` → total weight; frames named `package.Class.method`.
    pub stacks: BTreeMap<String, i64>,
    /// How many events were added.
    pub events: u64,
    /// Total weight added.
    pub total_weight: i64,
}

impl Profile {
    /// An empty profile of `event_type`.
    pub fn new(event_type: &str) -> Profile {
        Profile {
            event_type: event_type.to_owned(),
            ..Profile::default()
        }
    }

    /// Adds every event of the profiled type in `chunk`. Stops at the first error (a cut
    /// chunk's `Truncated`), keeping what it added before.
    pub fn add_chunk(&mut self, chunk: &Chunk<'_>) -> Result<()> {
        let mut folded_by_key: HashMap<i64, String> = HashMap::new();
        for event in chunk.events() {
            let event = event?;
            if event.type_name() != Some(self.event_type.as_str()) {
                continue;
            }
            let w = weight(&event)?;
            let key = event.get_i64("stackTrace")?.unwrap_or(0);
            let folded = match folded_by_key.get(&key) {
                Some(f) => f,
                None => {
                    let mut f = String::new();
                    if let Some(st) = chunk.stack_trace(key)? {
                        for (i, frame) in st.frames.iter().rev().enumerate() {
                            if i > 0 {
                                f.push(';');
                            }
                            f.push_str(&frame.method.qualified_name());
                        }
                    }
                    if f.is_empty() {
                        f.push_str("[no stack]");
                    }
                    folded_by_key.entry(key).or_insert(f)
                }
            };
            *self.stacks.entry(folded.clone()).or_insert(0) += w;
            self.events += 1;
            self.total_weight = self.total_weight.saturating_add(w);
        }
        Ok(())
    }

    /// The folded stacks as lines `frame;frame;… weight`, in stack order.
    pub fn folded_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.stacks.iter().map(|(s, w)| format!("{s} {w}"))
    }

    /// Self and total weight per method, most self weight first (then name).
    pub fn functions(&self) -> Vec<FunctionRow> {
        let mut rows: HashMap<&str, (i64, i64)> = HashMap::new();
        for (stack, &w) in &self.stacks {
            let frames: Vec<&str> = stack.split(';').collect();
            if let Some(leaf) = frames.last() {
                rows.entry(leaf).or_default().0 += w;
            }
            let mut seen: Vec<&str> = Vec::with_capacity(frames.len());
            for f in frames {
                if !seen.contains(&f) {
                    seen.push(f);
                    rows.entry(f).or_default().1 += w;
                }
            }
        }
        let mut out: Vec<FunctionRow> = rows
            .into_iter()
            .map(|(name, (s, t))| FunctionRow {
                name: name.to_owned(),
                self_weight: s,
                total_weight: t,
            })
            .collect();
        out.sort_by(|a, b| {
            b.self_weight
                .cmp(&a.self_weight)
                .then_with(|| a.name.cmp(&b.name))
        });
        out
    }
}
