//! The call tree CSV reports (`-H:PrintAnalysisCallTreeType=CSV`): the 24.1+ three-file layout
//! and the 21.3–24.0 seven-file layout with synthetic virtual-method nodes
//! (`points-to-analysis-reports.ja.txt`, "CSV形式"; headers and quirks: `iprof-pointsto.md` §2.5).
//!
//! The printers join fields with `,` and never quote: Java names hold no commas and parameter
//! lists are written space-separated (`empty` when there are none).

use std::collections::HashSet;

use crate::call_tree::graph::{
    CallGraph, Callee, Callees, CsvMethodInfo, DeclaredTarget, EntryPoint, Invoke, InvokeKind,
    Method,
};
use crate::call_tree::txt::BciList;
use crate::call_tree::{IdIndex, IdSet};
use crate::cursor::{self, Lines};
use crate::error::{Error, Result, quote};

/// One file of a CSV call tree report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum CsvFile {
    /// `call_tree_methods`: `Id,Name,Type,Parameters,Return,Display[,Flags[,IsEntryPoint]]`.
    Methods,
    /// `call_tree_invokes` (24.1+): `Id,MethodId,BytecodeIndexes,TargetId,IsDirect`.
    Invokes,
    /// `call_tree_targets` (24.1+): `InvokeId,TargetId`.
    Targets,
    /// `call_tree_vm` (≤ 24.0): `Id,Name`, one row `0,VM`.
    Vm,
    /// `call_tree_virtual_methods` (≤ 24.0): the synthetic virtual-method nodes.
    VirtualMethods,
    /// `call_tree_entry_points` (≤ 24.0): `Id`.
    EntryPoints,
    /// `call_tree_direct_edges` (≤ 24.0): `StartId,EndId,BytecodeIndexes`.
    DirectEdges,
    /// `call_tree_override_by_edges` (≤ 24.0): `StartId,EndId`.
    OverrideByEdges,
    /// `call_tree_virtual_edges` (≤ 24.0): `StartId,EndId,BytecodeIndexes`.
    VirtualEdges,
}

impl CsvFile {
    /// Every file, current layout first.
    pub const ALL: [Self; 9] = [
        Self::Methods,
        Self::Invokes,
        Self::Targets,
        Self::Vm,
        Self::VirtualMethods,
        Self::EntryPoints,
        Self::DirectEdges,
        Self::OverrideByEdges,
        Self::VirtualEdges,
    ];

    /// The file name stem (`call_tree_methods`); 21.3 prefixed it with `csv_`.
    #[must_use]
    pub fn stem(self) -> &'static str {
        match self {
            Self::Methods => "call_tree_methods",
            Self::Invokes => "call_tree_invokes",
            Self::Targets => "call_tree_targets",
            Self::Vm => "call_tree_vm",
            Self::VirtualMethods => "call_tree_virtual_methods",
            Self::EntryPoints => "call_tree_entry_points",
            Self::DirectEdges => "call_tree_direct_edges",
            Self::OverrideByEdges => "call_tree_override_by_edges",
            Self::VirtualEdges => "call_tree_virtual_edges",
        }
    }
}

/// Which generation of the CSV report a set of files is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum CsvLayout {
    /// 24.1+: methods, invokes, targets.
    Current,
    /// 21.3–24.0: vm, methods, virtual methods, entry points, direct/override/virtual edges.
    Legacy,
}

/// A parsed CSV file: header checked, rows split.
struct Table<'a> {
    file: CsvFile,
    lines: Lines<'a>,
    width: usize,
    /// Rows may carry one more column than the header (22.1–22.2 virtual methods).
    extra_allowed: bool,
}

impl<'a> Table<'a> {
    fn open(file: CsvFile, bytes: &'a [u8], headers: &[&'static str]) -> Result<(Self, usize)> {
        let mut lines = Lines::from_bytes(bytes).map_err(|e| match e {
            Error::Utf8 { line, column } => Error::Csv {
                file: file.stem(),
                line,
                column,
                expected: "UTF-8 text",
                found: String::from("an invalid byte sequence"),
            },
            other => other,
        })?;
        let Some(header) = lines.next() else {
            return Err(Error::Csv {
                file: file.stem(),
                line: 1,
                column: 1,
                expected: "a header row",
                found: String::new(),
            });
        };
        let Some(which) = headers.iter().position(|h| *h == header.text) else {
            return Err(Error::Csv {
                file: file.stem(),
                line: 1,
                column: 1,
                expected: headers.first().copied().unwrap_or_default(),
                found: quote(header.text),
            });
        };
        let width = header.text.split(',').count();
        Ok((
            Self {
                file,
                lines,
                width,
                extra_allowed: false,
            },
            which,
        ))
    }

    /// The next row's fields (`Ok(None)` at the end; empty lines are skipped).
    fn row(&mut self, fields: &mut Vec<&'a str>) -> Result<Option<u64>> {
        for line in self.lines.by_ref() {
            if line.text.is_empty() {
                continue;
            }
            fields.clear();
            fields.extend(line.text.split(','));
            let ok = fields.len() == self.width
                || (self.extra_allowed && fields.len() == self.width + 1);
            if !ok {
                return Err(Error::Csv {
                    file: self.file.stem(),
                    line: line.number,
                    column: fields.len().min(self.width + 1) as u64,
                    expected: "as many fields as the header has",
                    found: quote(line.text),
                });
            }
            return Ok(Some(line.number));
        }
        Ok(None)
    }

    fn error(&self, line: u64, column: usize, expected: &'static str, found: &str) -> Error {
        Error::Csv {
            file: self.file.stem(),
            line,
            column: column as u64 + 1,
            expected,
            found: quote(found),
        }
    }

    fn id(&self, line: u64, fields: &[&str], column: usize) -> Result<u64> {
        let text = fields.get(column).copied().unwrap_or_default();
        cursor::parse_u64(text).ok_or_else(|| self.error(line, column, "a decimal id", text))
    }

    fn boolean(&self, line: u64, fields: &[&str], column: usize) -> Result<bool> {
        match fields.get(column).copied().unwrap_or_default() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(self.error(line, column, "`true` or `false`", other)),
        }
    }

    fn bci(&self, line: u64, fields: &[&str], column: usize) -> Result<BciList> {
        let text = fields.get(column).copied().unwrap_or_default();
        BciList::parse(text)
            .ok_or_else(|| self.error(line, column, "a BCI list `<bci>-><bci>…`", text))
    }
}

const METHODS_CURRENT: &str = "Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint";
const METHODS_FLAGS: &str = "Id,Name,Type,Parameters,Return,Display,Flags";
const METHODS_OLD: &str = "Id,Name,Type,Parameters,Return,Display";
const EDGES: &str = "StartId,EndId,BytecodeIndexes";

/// Builds `Type.Name(p1, p2):Return` from CSV columns (`empty` = no parameters).
fn signature(fields: &[&str]) -> String {
    let get = |i: usize| fields.get(i).copied().unwrap_or_default();
    let parameters = match get(3) {
        "empty" | "" => String::new(),
        list => list.split(' ').collect::<Vec<_>>().join(", "),
    };
    format!("{}.{}({}):{}", get(2), get(1), parameters, get(4))
}

/// Which columns a methods table of a given version holds.
#[derive(Clone, Copy)]
struct MethodColumns {
    /// The `Flags` column (current reports; in legacy ones, the first methods table).
    flags: bool,
    /// The `IsEntryPoint` column.
    entry: bool,
    /// The rows are virtual methods (legacy `virtual_methods.csv`).
    virtual_rows: bool,
}

fn method_rows(graph: &mut CallGraph, table: &mut Table<'_>, columns: MethodColumns) -> Result<()> {
    let MethodColumns {
        flags,
        entry,
        virtual_rows,
    } = columns;
    let mut fields = Vec::new();
    while let Some(line) = table.row(&mut fields)? {
        let id = table.id(line, &fields, 0)?;
        let is_entry_point = if entry {
            Some(table.boolean(line, &fields, 7)?)
        } else {
            None
        };
        let flags = if flags || fields.len() > 6 {
            fields.get(6).map(|f| (*f).to_owned())
        } else {
            None
        };
        let method = Method {
            id,
            signature: signature(&fields),
            invokes: 0..0,
            csv: Some(CsvMethodInfo {
                display: fields.get(5).copied().unwrap_or_default().to_owned(),
                flags,
                is_entry_point,
                is_virtual: virtual_rows,
            }),
        };
        if graph.methods.insert(id, method).is_some() {
            return Err(Error::DuplicateId {
                line,
                column: 1,
                id,
                first: 0,
            });
        }
        if is_entry_point == Some(true) {
            graph.entry_points.push(EntryPoint {
                method: id,
                reason: None,
                trailing_space: false,
            });
        }
    }
    Ok(())
}

/// The method ids read so far, for fast membership checks.
fn known_ids(graph: &CallGraph) -> IdSet {
    let mut known = IdSet::default();
    for &id in graph.methods.keys() {
        known.insert(id);
    }
    known
}

/// Checks that `id`, read from field `field` (0-based) of `line`, names a known method.
fn require(known: &IdSet, line: u64, field: u64, id: u64) -> Result<()> {
    if known.contains(id) {
        Ok(())
    } else {
        Err(Error::UnresolvedId {
            line,
            column: field + 1,
            id,
        })
    }
}

/// The rows of a legacy edge file (`StartId,EndId,BytecodeIndexes`) as invokes of `kind`:
/// a direct edge calls `EndId`; a virtual edge declares the virtual-method node `EndId`,
/// whose implementations come from the override edges. Edges out of the VM node are skipped.
fn edge_rows(
    graph: &mut CallGraph,
    table: &mut Table<'_>,
    known: &IdSet,
    vm_ids: &HashSet<u64>,
    kind: InvokeKind,
) -> Result<()> {
    let mut fields = Vec::new();
    while let Some(line) = table.row(&mut fields)? {
        let caller = table.id(line, &fields, 0)?;
        let end = table.id(line, &fields, 1)?;
        let bci = table.bci(line, &fields, 2)?;
        if vm_ids.contains(&caller) {
            continue;
        }
        require(known, line, 0, caller)?;
        require(known, line, 1, end)?;
        let callees = if kind == InvokeKind::Direct {
            Callees::one(Callee {
                method: end,
                expanded_here: false,
            })
        } else {
            Callees::new()
        };
        push_invoke(
            graph,
            Invoke {
                id: None,
                caller,
                bci: Some(bci),
                kind,
                target: DeclaredTarget::Method(end),
                callees,
            },
        );
    }
    Ok(())
}

fn push_invoke(graph: &mut CallGraph, invoke: Invoke) -> usize {
    let index = graph.invokes.len();
    graph.invokes.push(invoke);
    index
}

/// Groups the invokes by caller once all are read.
fn finish(mut graph: CallGraph) -> CallGraph {
    let callers: Vec<usize> = graph
        .invokes
        .iter()
        .map(|invoke| {
            graph
                .methods
                .get_index_of(&invoke.caller)
                .unwrap_or(usize::MAX)
        })
        .collect();
    graph.group_invokes(&callers);
    graph
}

impl CallGraph {
    /// Reads a CSV call tree report through the caller's source: `open` returns a file's bytes
    /// by kind (or `None` when the report has no such file); the layout is chosen by which
    /// files exist.
    ///
    /// ```
    /// use pointsto::call_tree::{CallGraph, csv::CsvFile};
    /// let methods = "Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n\
    ///                0,main,a.B,java.lang.String[],void,a.B.main,ps,true\n\
    ///                1,run,a.B,int long,void,a.B.run,p,false\n";
    /// let invokes = "Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n0,0,4,1,true\n";
    /// let targets = "InvokeId,TargetId\n0,1\n";
    /// let graph = CallGraph::read_csv(|file| match file {
    ///     CsvFile::Methods => Some(methods.as_bytes()),
    ///     CsvFile::Invokes => Some(invokes.as_bytes()),
    ///     CsvFile::Targets => Some(targets.as_bytes()),
    ///     _ => None,
    /// })?;
    /// assert_eq!(graph.method(1).unwrap().signature, "a.B.run(int, long):void");
    /// assert_eq!(graph.invoke_edges().count(), 1);
    /// # Ok::<(), pointsto::Error>(())
    /// ```
    pub fn read_csv<'a>(mut open: impl FnMut(CsvFile) -> Option<&'a [u8]>) -> Result<Self> {
        let methods = open(CsvFile::Methods).ok_or(Error::MissingCsvFile {
            file: CsvFile::Methods.stem(),
        })?;
        match open(CsvFile::Invokes) {
            Some(invokes) => {
                let targets = open(CsvFile::Targets).ok_or(Error::MissingCsvFile {
                    file: CsvFile::Targets.stem(),
                })?;
                Self::parse_csv_current(methods, invokes, targets)
            }
            None => Self::parse_csv_legacy(methods, open),
        }
    }

    fn parse_csv_current(methods: &[u8], invokes: &[u8], targets: &[u8]) -> Result<Self> {
        let mut graph = Self::default();
        let (mut table, _) = Table::open(CsvFile::Methods, methods, &[METHODS_CURRENT])?;
        method_rows(
            &mut graph,
            &mut table,
            MethodColumns {
                flags: true,
                entry: true,
                virtual_rows: false,
            },
        )?;
        let known = known_ids(&graph);
        let (mut table, _) = Table::open(
            CsvFile::Invokes,
            invokes,
            &["Id,MethodId,BytecodeIndexes,TargetId,IsDirect"],
        )?;
        let mut by_id = IdIndex::default();
        let mut fields = Vec::new();
        while let Some(line) = table.row(&mut fields)? {
            let id = table.id(line, &fields, 0)?;
            let caller = table.id(line, &fields, 1)?;
            let bci = table.bci(line, &fields, 2)?;
            let target = table.id(line, &fields, 3)?;
            let direct = table.boolean(line, &fields, 4)?;
            require(&known, line, 1, caller)?;
            require(&known, line, 3, target)?;
            let kind = if direct {
                InvokeKind::Direct
            } else {
                InvokeKind::Virtual
            };
            let index = push_invoke(
                &mut graph,
                Invoke {
                    id: Some(id),
                    caller,
                    bci: Some(bci),
                    kind,
                    target: DeclaredTarget::Method(target),
                    callees: Callees::new(),
                },
            );
            if !by_id.insert(id, index) {
                return Err(Error::DuplicateId {
                    line,
                    column: 1,
                    id,
                    first: 0,
                });
            }
        }
        let (mut table, _) = Table::open(CsvFile::Targets, targets, &["InvokeId,TargetId"])?;
        while let Some(line) = table.row(&mut fields)? {
            let invoke = table.id(line, &fields, 0)?;
            let target = table.id(line, &fields, 1)?;
            require(&known, line, 1, target)?;
            let Some(invoke) = by_id.get(invoke).and_then(|i| graph.invokes.get_mut(i)) else {
                return Err(table.error(
                    line,
                    0,
                    "the Id of a row in call_tree_invokes",
                    fields.first().copied().unwrap_or_default(),
                ));
            };
            invoke.callees.push(Callee {
                method: target,
                expanded_here: false,
            });
        }
        Ok(finish(graph))
    }

    fn parse_csv_legacy<'a>(
        methods: &'a [u8],
        mut open: impl FnMut(CsvFile) -> Option<&'a [u8]>,
    ) -> Result<Self> {
        let mut graph = Self::default();
        let mut fields = Vec::new();
        let mut vm_ids = HashSet::new();
        if let Some(vm) = open(CsvFile::Vm) {
            let (mut table, _) = Table::open(CsvFile::Vm, vm, &["Id,Name"])?;
            while let Some(line) = table.row(&mut fields)? {
                vm_ids.insert(table.id(line, &fields, 0)?);
            }
        }
        let (mut table, which) =
            Table::open(CsvFile::Methods, methods, &[METHODS_FLAGS, METHODS_OLD])?;
        method_rows(
            &mut graph,
            &mut table,
            MethodColumns {
                flags: which == 0,
                entry: false,
                virtual_rows: false,
            },
        )?;
        // The files every legacy report has.
        let mut open_table = |file: CsvFile, headers: &[&'static str]| {
            let bytes = open(file).ok_or(Error::MissingCsvFile { file: file.stem() })?;
            Table::open(file, bytes, headers)
        };
        let (mut table, which) =
            open_table(CsvFile::VirtualMethods, &[METHODS_FLAGS, METHODS_OLD])?;
        // 22.1–22.2: the header lacks `Flags` but the rows have it.
        table.extra_allowed = which == 1;
        method_rows(
            &mut graph,
            &mut table,
            MethodColumns {
                flags: which == 0,
                entry: false,
                virtual_rows: true,
            },
        )?;
        let known = known_ids(&graph);
        let (mut table, _) = open_table(CsvFile::EntryPoints, &["Id"])?;
        while let Some(line) = table.row(&mut fields)? {
            let id = table.id(line, &fields, 0)?;
            require(&known, line, 0, id)?;
            graph.entry_points.push(EntryPoint {
                method: id,
                reason: None,
                trailing_space: false,
            });
        }
        let (mut table, _) = open_table(CsvFile::DirectEdges, &[EDGES])?;
        edge_rows(&mut graph, &mut table, &known, &vm_ids, InvokeKind::Direct)?;
        let (mut table, _) = open_table(CsvFile::OverrideByEdges, &["StartId,EndId"])?;
        while let Some(line) = table.row(&mut fields)? {
            let node = table.id(line, &fields, 0)?;
            let implementation = table.id(line, &fields, 1)?;
            require(&known, line, 0, node)?;
            require(&known, line, 1, implementation)?;
            graph
                .shared_overrides
                .entry(node)
                .or_default()
                .push(implementation);
        }
        let (mut table, _) = open_table(CsvFile::VirtualEdges, &[EDGES])?;
        edge_rows(&mut graph, &mut table, &known, &vm_ids, InvokeKind::Virtual)?;
        Ok(finish(graph))
    }

    /// Which CSV generation a set of available files is.
    #[must_use]
    pub fn csv_layout(has: impl Fn(CsvFile) -> bool) -> CsvLayout {
        if has(CsvFile::Invokes) {
            CsvLayout::Current
        } else {
            CsvLayout::Legacy
        }
    }
}
