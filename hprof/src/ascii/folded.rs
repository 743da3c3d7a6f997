//! CPU SAMPLES / CPU TIME rows joined with their traces into folded stacks
//! (`outer;…;inner weight`, the input format of flame-graph tools).

use super::cpu::CpuKind;
use super::report::Report;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What a folded stack's weight counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FoldedWeight {
    /// The row's `count` column: samples for CPU SAMPLES, calls for CPU TIME.
    Count,
    /// Milliseconds for CPU TIME (`self% × total / 100`, rounded; the percentage has two
    /// decimals), samples for CPU SAMPLES (`count`).
    Time,
}

/// One folded stack and its weight.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
        let mut acc: BTreeMap<String, u64> = BTreeMap::new();
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
                let mut stack = String::new();
                match self.trace(row.trace).filter(|t| !t.frames.is_empty()) {
                    Some(t) => {
                        for (i, f) in t.frames.iter().rev().enumerate() {
                            if i > 0 {
                                stack.push(';');
                            }
                            stack.push_str(&f.method.replace(';', ":"));
                        }
                    }
                    None => stack.push_str(row.method.as_deref().unwrap_or("<empty trace>")),
                }
                let slot = acc.entry(stack).or_insert(0);
                *slot = slot.saturating_add(w);
            }
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
