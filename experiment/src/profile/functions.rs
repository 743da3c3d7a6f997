//! gprofng's function list (`gprofng display text -functions`).

use super::metrics::Column;
use super::stack_profile::StackProfile;
use super::table::{FunctionTable, Row};
use crate::experiment::Experiment;
use crate::packets::DataKind;
use crate::source::Source;
use crate::stacks::Symbolizer;

/// gprofng's function list, ready to print (`gprofng display text -functions`): its default
/// columns for the data kinds recorded, in its column order, and the rows in its order.
///
/// ```
/// use experiment::{Experiment, MemorySource, profile::FunctionList};
/// # let source = MemorySource::new()
/// #     .with("log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/log.xml"))[..])
/// #     .with("map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/map.xml"))[..])
/// #     .with("data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/data.frameinfo"))[..])
/// #     .with("profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/profile"))[..])
/// #     .with("archives/demo_4xbbvtFYDL2", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/archives/demo_4xbbvtFYDL2"))[..])
/// #     .with("_f1.er/log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/log.xml"))[..])
/// #     .with("_f1.er/map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/map.xml"))[..])
/// #     .with("_f1.er/data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/data.frameinfo"))[..])
/// #     .with("_f1.er/profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/profile"))[..]);
/// // `source` serves the files of the tiny experiment the crate carries (`src/demo/`: a
/// // program and its forked child; the `fs` feature's `experiment::fs::open` reads one from
/// // a directory).
/// let exp = Experiment::open(source)?;
/// let list = FunctionList::read(&exp, None)?; // the founder and its descendants
/// assert_eq!(list.keys, ["e.totalcpu", "i.totalcpu"]);
/// let names: Vec<&str> = list.rows.iter().map(|r| r.name.as_str()).collect();
/// assert_eq!(names[..3], ["<Total>", "leaf", "other"]);
/// // libc.so.6 is not archived and the source finds no copy: gprofng's placeholder.
/// assert!(names.contains(&"<static>@0x0 (<libc.so.6>) --  no functions found"));
/// // Times in nanoseconds: `leaf` ran 0.820574 s, exclusive and inclusive.
/// assert_eq!(list.rows[1].values, [820_574_000, 820_574_000]);
/// # Ok::<(), experiment::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FunctionList {
    /// The columns, in gprofng's order.
    pub columns: Vec<Column>,
    /// gprofng's key of each column (`e.totalcpu`, `i.heapleakbytes`, `e.cycles`).
    pub keys: Vec<String>,
    /// `<Total>` first, then every function sorted by gprofng's default sort column (largest
    /// first), ties by name; each row's values in column order (times in ns).
    pub rows: Vec<Row>,
}

impl FunctionList {
    /// The function list of `exp` and of its descendant experiments with data, merged as
    /// gprofng merges them: packets of kind `only` (every kind for `None`), stacks named
    /// from the archives (a descendant's from its founder's too) and the load objects the
    /// source finds ([`Source::load_object`]).
    pub fn read<S: Source>(exp: &Experiment<S>, only: Option<DataKind>) -> crate::Result<Self> {
        Ok(function_table_of(exp, only)?.function_list())
    }

    /// The value of column `key` in `row` (`None` when the list has no such column).
    pub fn value(&self, row: &Row, key: &str) -> Option<u64> {
        let at = self.keys.iter().position(|k| k == key)?;
        row.values.get(at).copied()
    }
}

impl FunctionTable {
    /// gprofng's function list of this table: [`FunctionTable::default_columns`], sorted by
    /// [`FunctionTable::sort_column`].
    pub fn function_list(&self) -> FunctionList {
        let columns = self.default_columns();
        let rows = self.rows(&columns, FunctionTable::sort_column(&columns));
        let keys = columns.iter().map(|c| self.key(*c)).collect();
        FunctionList {
            columns,
            keys,
            rows,
        }
    }
}

/// The function table of `exp` and its descendants with data, merged.
fn function_table_of<S: Source>(
    exp: &Experiment<S>,
    only: Option<DataKind>,
) -> crate::Result<FunctionTable> {
    let mut table = StackProfile::read(exp, only)?.function_table();
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        let child = exp.open_descendant(&d.name)?;
        let symbols = Symbolizer::new(&child).with_founder_archives(exp);
        table.merge(StackProfile::collect(&child, symbols, only)?.function_table());
    }
    Ok(table)
}
