//! Source lines: gprofng's `-lines` view (`gprofng display text -lines`), the function list's
//! metrics per source line of each function (gprofng `DbeView::get_hist_data` of `DbeLine`s,
//! `Function::mapPCtoLine`).
//!
//! Each frame stands for one line object of its function: `main, line 106 in "lines.c"` where
//! its PC (native: from the load object's DWARF line table, or the line of the call for code
//! inlined there, `experiment::dwarf`, feature `dwarf`)
//! or its bytecode index (Java: the class file's `LineNumberTable`, [`crate::classfile`]) has
//! a line; otherwise gprofng's stand-ins, `<Function: f, instructions without line numbers>`,
//! or for a Java method whose class file the experiment lacks `<Function: m, instructions from
//! source file F.java>`; pseudo-functions (`<Truncated-stack>`, `<JVM-System>`, `<Unknown>`)
//! as they are. A line's exclusive value is what packets whose leaf frame is on it carry, its
//! inclusive value what packets with a frame on it carry, once per packet however often the
//! line recurs; `<Total>` first, then largest first by gprofng's sort column, ties by text.
//!
//! The metrics and columns are the function list's ([`crate::profile::FunctionList`]): a
//! function's line rows add up to its exclusive values there.

use crate::error::Error;
use crate::experiment::Experiment;
use crate::packets::DataKind;
use crate::profile::{Calls, Column, FunctionTable, StackProfile};
use crate::source::Source;
pub use crate::stacks::NativeLines;
use crate::stacks::{Frame, FrameKind, FunctionId, Symbolizer};

/// One row of the line list.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Line {
    /// The row as gprofng prints it: `loop_b, line 27 in "lines.c"`, `<Function: malloc,
    /// instructions without line numbers>`, `<Total>`.
    pub name: String,
    /// The function (gprofng's name; empty for `<Total>`).
    pub function: String,
    /// The source file, as gprofng prints it (native: the DWARF file name's last component;
    /// Java: the class's `SourceFile`).
    pub file: Option<String>,
    /// The 1-based source line; `None` for the stand-in rows.
    pub line: Option<u32>,
    /// Raw values per column of [`LineList::columns`] (times in ns).
    pub values: Vec<u64>,
}

/// gprofng's line list, ready to print (`gprofng display text -lines`).
///
/// ```
/// use experiment::{Experiment, MemorySource};
/// use experiment::lines::{LineList, NativeLines};
/// # let source = MemorySource::new()
/// #     .with("log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/log.xml"))[..])
/// #     .with("map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/map.xml"))[..])
/// #     .with("data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/data.frameinfo"))[..])
/// #     .with("profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/profile"))[..])
/// #     .with("archives/demo_4xbbvtFYDL2", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/archives/demo_4xbbvtFYDL2"))[..]);
/// // `source` serves the tiny experiment the crate carries (`src/demo/`).
/// let exp = Experiment::open(source)?;
/// let list = LineList::read(&exp, None, NativeLines::Off)?;
/// assert_eq!(list.keys, ["e.totalcpu", "i.totalcpu"]);
/// assert_eq!(list.lines[0].name, "<Total>");
/// assert_eq!(list.lines[1].name, "<Function: leaf, instructions without line numbers>");
/// assert_eq!(list.lines[1].values, [820_574_000, 820_574_000]);
/// # Ok::<(), experiment::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LineList {
    /// The columns, in gprofng's order (the function list's).
    pub columns: Vec<Column>,
    /// gprofng's key of each column (`e.totalcpu`, `i.heapleakbytes`, `e.cycles`).
    pub keys: Vec<String>,
    /// `<Total>` first, then every line sorted by gprofng's default sort column (largest
    /// first), ties by text.
    pub lines: Vec<Line>,
    /// Load objects (map.xml paths) whose DWARF line tables could not be read, with why:
    /// their frames are listed without lines.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub line_table_errors: Vec<(String, Error)>,
}

/// A frame's line object: function, line, file, and whether it is a pseudo-function.
type LineKey = (FunctionId, Option<u32>, Option<u32>, bool);

impl<S: Source> StackProfile<'_, S> {
    /// Per line object (see the module docs), the exclusive and inclusive values of every
    /// metric: the table [`LineList`] lists. Frames get their lines from the symbolizer
    /// (`Symbolizer::with_native_lines` for native ones, feature `dwarf`).
    pub fn line_table(&self) -> FunctionTable {
        let key = |f: &Frame| -> LineKey {
            let file = match (f.kind, f.line) {
                // A Java frame names its class's source file even without a line.
                (FrameKind::Java | FrameKind::JavaInterpreted | FrameKind::JavaCompiled, _)
                | (_, Some(_)) => f.file,
                _ => None,
            };
            (f.function, f.line, file, f.kind == FrameKind::Pseudo)
        };
        let symbols = &self.symbols;
        self.table_by(
            key,
            |&(function, line, file, pseudo)| {
                let name = symbols
                    .function(function)
                    .map_or(crate::stacks::UNKNOWN, |f| f.name.as_str());
                let file = file.and_then(|id| symbols.files().get(id as usize));
                let text = match (line, file) {
                    _ if pseudo => name.to_owned(),
                    (Some(l), Some(file)) => format!("{name}, line {l} in \"{file}\""),
                    (Some(l), None) => format!("{name}, line {l}"),
                    (None, Some(file)) => {
                        format!("<Function: {name}, instructions from source file {file}>")
                    }
                    (None, None) => {
                        format!("<Function: {name}, instructions without line numbers>")
                    }
                };
                // The row's parts after its text, for `LineList`; the function key (which
                // holds a Java method's signature after a NUL) last.
                format!(
                    "{text}\0{}\0{}\0{}",
                    line.map_or(String::new(), |l| l.to_string()),
                    file.map_or("", String::as_str),
                    self.function_key(function)
                )
            },
            Calls::Skipped,
        )
    }
}

impl LineList {
    /// The line list of `exp` and of its descendant experiments with data, merged as gprofng
    /// merges them: packets of kind `only` (every kind for `None`), native lines from `native`.
    pub fn read<S: Source>(
        exp: &Experiment<S>,
        only: Option<DataKind>,
        native: NativeLines,
    ) -> crate::Result<LineList> {
        let mut errors = Vec::new();
        let mut table = {
            let profile =
                StackProfile::collect(exp, Symbolizer::new(exp).with_lines(native), only)?;
            errors.extend_from_slice(profile.symbols.line_table_errors());
            profile.line_table()
        };
        for d in exp.descendants().into_iter().filter(|d| d.has_data) {
            let child = exp.open_descendant(&d.name)?;
            let symbols = Symbolizer::new(&child)
                .with_lines(native)
                .with_founder_archives(exp);
            let profile = StackProfile::collect(&child, symbols, only)?;
            errors.extend_from_slice(profile.symbols.line_table_errors());
            table.merge(profile.line_table());
        }
        let mut list = LineList::of_table(&table);
        list.line_table_errors = errors;
        Ok(list)
    }

    /// The line list of `table` (a [`StackProfile::line_table`], possibly merged):
    /// [`FunctionTable::default_columns`], sorted by [`FunctionTable::sort_column`].
    pub fn of_table(table: &FunctionTable) -> LineList {
        let columns = table.default_columns();
        let keys = columns.iter().map(|c| table.key(*c)).collect();
        let lines = table
            .keyed_rows(&columns, FunctionTable::sort_column(&columns))
            .into_iter()
            .enumerate()
            .map(|(i, (key, row))| {
                if i == 0 {
                    return Line {
                        name: row.name,
                        function: String::new(),
                        file: None,
                        line: None,
                        values: row.values,
                    };
                }
                let mut parts = key.splitn(4, '\0').skip(1);
                let line = parts.next().and_then(|l| l.parse().ok());
                let file = parts.next().filter(|f| !f.is_empty()).map(str::to_owned);
                let function = parts
                    .next()
                    .and_then(|f| f.split('\0').next())
                    .unwrap_or_default()
                    .to_owned();
                Line {
                    name: row.name,
                    function,
                    file,
                    line,
                    values: row.values,
                }
            })
            .collect();
        LineList {
            columns,
            keys,
            lines,
            line_table_errors: Vec::new(),
        }
    }

    /// The value of column `key` in `line` (`None` when the list has no such column).
    pub fn value(&self, line: &Line, key: &str) -> Option<u64> {
        let at = self.keys.iter().position(|k| k == key)?;
        line.values.get(at).copied()
    }
}
