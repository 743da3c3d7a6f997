//! CPU SAMPLES / CPU TIME rows joined with their traces into folded stacks
//! (`outer;…;inner weight`, the input format of flame-graph tools).

use super::cpu::CpuKind;
use super::report::Report;
use crate::binary::types::StackTraceSerial;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// What a folded stack's weight counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FoldedWeight {
    /// The row's `count` column: samples for CPU SAMPLES, calls for CPU TIME.
    Count,
    /// Milliseconds for CPU TIME (`self% × total / 100`, rounded; the percentage has two
    /// decimals), samples for CPU SAMPLES (`count`).
    Time,
}

/// One folded stack and its weight.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FoldedStack {
    /// Frames from outermost to innermost, `class.method`, joined by `;`.
    pub stack: String,
    /// Summed weight of every row with this stack.
    pub weight: u64,
}

impl Report {
    /// Folds every row of every CPU block of `kind` with its trace's frames. Rows whose trace
    /// is missing or empty use the row's method column (or `<empty trace>`) as the only frame.
    /// Identical stacks are summed; rows of weight 0 are left out; the result is sorted by stack.
    pub fn folded(&self, kind: CpuKind, weight: FoldedWeight) -> Vec<FoldedStack> {
        // Sum the weights per trace first and build each trace's stack once: a deep trace
        // sampled by many rows would otherwise be rebuilt for every row.
        let mut by_trace: HashMap<StackTraceSerial, u64> = HashMap::new();
        let mut by_method: BTreeMap<&str, u64> = BTreeMap::new();
        for cpu in self.cpu(kind) {
            for row in &cpu.rows {
                let w = match (weight, kind) {
                    (FoldedWeight::Time, CpuKind::Time) => {
                        let pct = row.self_percent.value().unwrap_or(0.0);
                        let ms = (pct * cpu.begin.total as f64 / 100.0).round();
                        if ms.is_finite() && ms > 0.0 {
                            ms as u64
                        } else {
                            0
                        }
                    }
                    _ => row.count,
                };
                if w == 0 {
                    continue;
                }
                let slot = if self.trace(row.trace).is_some_and(|t| !t.frames.is_empty()) {
                    by_trace.entry(row.trace).or_insert(0)
                } else {
                    by_method
                        .entry(row.method.as_deref().unwrap_or("<empty trace>"))
                        .or_insert(0)
                };
                *slot = slot.saturating_add(w);
            }
        }
        let mut acc: BTreeMap<String, u64> = by_method
            .into_iter()
            .map(|(method, w)| (method.to_owned(), w))
            .collect();
        for (serial, w) in by_trace {
            let Some(trace) = self.trace(serial) else {
                continue;
            };
            let mut stack = String::new();
            for (i, f) in trace.frames.iter().rev().enumerate() {
                if i > 0 {
                    stack.push(';');
                }
                stack.extend(f.method.chars().map(|c| if c == ';' { ':' } else { c }));
            }
            let slot = acc.entry(stack).or_insert(0);
            *slot = slot.saturating_add(w);
        }
        acc.into_iter()
            .map(|(stack, weight)| FoldedStack { stack, weight })
            .collect()
    }

    /// [`folded`](Self::folded) as text: one `stack weight` line per stack.
    pub fn folded_text(&self, kind: CpuKind, weight: FoldedWeight) -> String {
        let mut out = String::new();
        for s in self.folded(kind, weight) {
            let _ = writeln!(out, "{} {}", s.stack, s.weight);
        }
        out
    }
}
