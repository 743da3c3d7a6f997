//! gprofng's callers–callees view (`gprofng display text -callers-callees`): attributed
//! metrics of every call.

use super::metrics::{Column, METRICS, Metric, Subtype};
use super::stack_profile::StackProfile;
use super::table::{ExclIncl, FunctionTable, Row};
use crate::experiment::Experiment;
use crate::packets::DataKind;
use crate::source::Source;
use crate::stacks::{Symbolizer, TOTAL};
use std::collections::HashMap;

/// One function of gprofng's callers–callees view: its own (exclusive; for `<Total>` the
/// total) values, and each caller and callee with the values attributed to that call.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CallerCallee {
    /// The function (`<Total>` first).
    pub name: String,
    /// Its values per metric of [`CallersCallees::metrics`] (raw: times in ns).
    pub values: Vec<u64>,
    /// Its callers (`<Total>` for a root function), attributed values largest first.
    pub callers: Vec<Row>,
    /// Its callees, attributed values largest first.
    pub callees: Vec<Row>,
}

/// gprofng's callers–callees view (`gprofng display text -callers-callees`): for every
/// function of the function list, in its order, the callers and callees with attributed
/// metrics. A caller's attributed value is what the packets whose stacks have it call the
/// function carry (the innermost call, for a function that recurses), so a function's
/// callers add up to its inclusive value; a callee's is what its calls from the function
/// carry, so the callees and the function's exclusive value add up to its inclusive value.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CallersCallees {
    /// The metrics, once each, in the order of the function list's columns.
    pub metrics: Vec<Metric>,
    /// gprofng's attributed key of each (`a.totalcpu`, `a.heapleakbytes`, `a.cycles`).
    pub keys: Vec<String>,
    /// Every function, in the function list's order.
    pub functions: Vec<CallerCallee>,
}

impl CallersCallees {
    /// The callers–callees view of `exp` and its descendants with data (like
    /// [`FunctionList::read`](super::FunctionList::read)).
    pub fn read<S: Source>(exp: &Experiment<S>, only: Option<DataKind>) -> crate::Result<Self> {
        let mut table = StackProfile::read(exp, only)?.calls_table();
        for d in exp.descendants().into_iter().filter(|d| d.has_data) {
            let child = exp.open_descendant(&d.name)?;
            let symbols = Symbolizer::new(&child).with_founder_archives(exp);
            table.merge(StackProfile::collect(&child, symbols, only)?.calls_table());
        }
        Ok(table.callers_callees())
    }
}

impl FunctionTable {
    /// gprofng's callers–callees view of this table: the metrics of
    /// [`FunctionTable::default_columns`] (each once), functions in the function list's
    /// order, callers and callees sorted by the attributed value of the sort column's metric
    /// (largest first), ties by name.
    pub fn callers_callees(&self) -> CallersCallees {
        let columns = self.default_columns();
        let sort = FunctionTable::sort_column(&columns).map(|c| c.metric.index());
        let mut metrics: Vec<Metric> = Vec::new();
        for c in &columns {
            if !metrics.contains(&c.metric) {
                metrics.push(c.metric);
            }
        }
        let keys = metrics
            .iter()
            .map(|&m| {
                let k = self.key(Column {
                    subtype: Subtype::Exclusive,
                    metric: m,
                });
                format!("a.{}", k.strip_prefix("e.").unwrap_or(&k))
            })
            .collect();
        let pick = |v: &[u64; METRICS]| -> Vec<u64> {
            metrics
                .iter()
                .map(|m| v.get(m.index()).copied().unwrap_or(0))
                .collect()
        };
        let edges = |map: Option<&HashMap<String, [u64; METRICS]>>| -> Vec<Row> {
            let mut rows: Vec<(u64, &String, Row)> = map
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    let key = sort.and_then(|i| v.get(i).copied()).unwrap_or(0);
                    let name = k.split('\0').next().unwrap_or_default().to_owned();
                    (
                        key,
                        k,
                        Row {
                            name,
                            values: pick(v),
                        },
                    )
                })
                .collect();
            rows.sort_by(|(ka, fa, a), (kb, fb, b)| {
                kb.cmp(ka)
                    .then_with(|| a.name.cmp(&b.name))
                    .then_with(|| fa.cmp(fb))
            });
            rows.into_iter().map(|(_, _, r)| r).collect()
        };
        let mut order: Vec<(&String, &ExclIncl)> = self.functions.iter().collect();
        let sort_key = FunctionTable::sort_column(&columns);
        let value_of = |v: &ExclIncl| -> u64 {
            sort_key.map_or(0, |c| {
                let row = match c.subtype {
                    Subtype::Exclusive => &v.0,
                    Subtype::Inclusive => &v.1,
                };
                row.get(c.metric.index()).copied().unwrap_or(0)
            })
        };
        order.sort_by(|(na, va), (nb, vb)| {
            value_of(vb).cmp(&value_of(va)).then_with(|| {
                let a = na.split('\0').next().unwrap_or_default();
                let b = nb.split('\0').next().unwrap_or_default();
                // Java methods of one name (a bridge method and its target): gprofng lists
                // them in the order their class declares them; by signature, descending, gives
                // that order on the recorded case (`NativeLibraries$1.run()`, `()Ljava/lang/
                // String;` before its bridge `()Ljava/lang/Object;`), and any order is better
                // than the hash map's.
                a.cmp(b).then_with(|| nb.cmp(na))
            })
        });
        let mut functions = Vec::with_capacity(order.len() + 1);
        functions.push(CallerCallee {
            name: TOTAL.to_owned(),
            values: pick(&self.total),
            callers: Vec::new(),
            callees: edges(self.callees.get(TOTAL)),
        });
        for (key, v) in order {
            functions.push(CallerCallee {
                name: key.split('\0').next().unwrap_or_default().to_owned(),
                values: pick(&v.0),
                callers: edges(self.callers.get(key.as_str())),
                callees: edges(self.callees.get(key.as_str())),
            });
        }
        CallersCallees {
            metrics,
            keys,
            functions,
        }
    }
}
