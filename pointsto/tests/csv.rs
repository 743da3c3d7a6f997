//! Call tree CSV: reports in the 24.1+ three-file layout and every variant of the 21.3–24.0
//! seven-file layout, generated row by row from a generated call tree, read into the same
//! graph as the TXT report.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod generate;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use generate::{Options, Version};
use pointsto::Error;
use pointsto::call_tree::csv::CsvFile;
use pointsto::call_tree::{CallGraph, DeclaredTarget, InvokeKind};
use pointsto::diff::CallTreeDiff;
use pointsto::signature::MethodSignature;
use proptest::prelude::*;

/// Reads the CSV report made of `files`.
fn parse_files(files: &HashMap<CsvFile, String>) -> Result<CallGraph, Error> {
    CallGraph::read_csv(|f| files.get(&f).map(String::as_bytes))
}

/// `Id,Name,Type,Parameters,Return,Display` columns of a method string.
fn columns(signature: &str) -> [String; 5] {
    let m = MethodSignature::parse(signature).unwrap();
    let params: Vec<_> = m.parameter_types().collect();
    let params = if params.is_empty() {
        "empty".to_string()
    } else {
        params.join(" ")
    };
    let display: String = m
        .holder
        .split('.')
        .map(|part| {
            part.chars()
                .filter(char::is_ascii_uppercase)
                .collect::<String>()
                .chars()
                .next()
                .map_or_else(
                    || part.chars().next().unwrap().to_string(),
                    |c| c.to_string(),
                )
        })
        .collect::<Vec<_>>()
        .join(".");
    [
        m.name.to_string(),
        m.holder.to_string(),
        params,
        m.return_type.unwrap().to_string(),
        format!("{display}.{}", m.name),
    ]
}

const FLAGS: [&str; 5] = ["p", "ps", "Pf", "", "dSbvnay"];

/// The 24.1+ layout: methods (with rows for declared virtual targets), invokes, targets.
fn current(graph: &CallGraph, eol: &str) -> [String; 3] {
    let mut methods = format!("Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint{eol}");
    let entry: BTreeSet<u64> = graph.entry_points.iter().map(|e| e.method).collect();
    let mut next = graph.methods.keys().max().map_or(0, |m| m + 1);
    let mut declared: BTreeMap<String, u64> = BTreeMap::new();
    for invoke in &graph.invokes {
        if let DeclaredTarget::Signature(s) = &invoke.target {
            declared.entry(s.clone()).or_insert_with(|| {
                next += 1;
                next - 1
            });
        }
    }
    let mut rows: Vec<(u64, String)> = graph
        .methods
        .values()
        .map(|m| (m.id, m.parsed_signature().unwrap().without_loader()))
        .collect();
    rows.extend(declared.iter().map(|(s, id)| (*id, s.clone())));
    for (i, (id, signature)) in rows.iter().enumerate() {
        let [name, holder, params, ret, display] = columns(signature);
        let flags = FLAGS[i % FLAGS.len()];
        methods.push_str(&format!(
            "{id},{name},{holder},{params},{ret},{display},{flags},{}{eol}",
            entry.contains(id)
        ));
    }
    let mut invokes = format!("Id,MethodId,BytecodeIndexes,TargetId,IsDirect{eol}");
    let mut targets = format!("InvokeId,TargetId{eol}");
    for (id, invoke) in graph.invokes.iter().enumerate() {
        let target = match &invoke.target {
            DeclaredTarget::Method(m) => *m,
            DeclaredTarget::Signature(s) => declared[s],
        };
        let bci = invoke.bci.as_ref().unwrap();
        invokes.push_str(&format!(
            "{id},{},{bci},{target},{}{eol}",
            invoke.caller,
            invoke.kind == InvokeKind::Direct
        ));
        for callee in &invoke.callees {
            targets.push_str(&format!("{id},{}{eol}", callee.method));
        }
    }
    [methods, invokes, targets]
}

#[derive(Debug, Clone, Copy)]
enum Legacy {
    /// 21.3 (`csv_` names) – 22.0: no `Flags`.
    V21_3,
    /// 22.1–22.2: virtual methods header lacks the `Flags` its rows have.
    V22_1,
    /// 22.3–24.0.
    V22_3,
}

/// The 21.3–24.0 layout: `vm`, `methods`, `virtual_methods`, `entry_points`, `direct_edges`,
/// `override_by_edges`, `virtual_edges`. Ids shift by one: the VM node is 0.
fn legacy(graph: &CallGraph, version: Legacy, eol: &str) -> HashMap<CsvFile, String> {
    let flags = !matches!(version, Legacy::V21_3);
    let header = |with_flags: bool| {
        format!(
            "Id,Name,Type,Parameters,Return,Display{}{eol}",
            if with_flags { ",Flags" } else { "" }
        )
    };
    let row = |id: u64, signature: &str, i: usize| {
        let [name, holder, params, ret, display] = columns(signature);
        let f = if flags {
            format!(",{}", FLAGS[i % FLAGS.len()])
        } else {
            String::new()
        };
        format!("{id},{name},{holder},{params},{ret},{display}{f}{eol}")
    };
    let mut methods = header(flags);
    for (i, m) in graph.methods.values().enumerate() {
        methods.push_str(&row(
            m.id + 1,
            &m.parsed_signature().unwrap().without_loader(),
            i,
        ));
    }
    let mut next = graph.methods.keys().max().map_or(1, |m| m + 2);
    let mut nodes: BTreeMap<String, u64> = BTreeMap::new();
    let mut overrides: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut direct_edges = format!("StartId,EndId,BytecodeIndexes{eol}");
    let mut virtual_edges = format!("StartId,EndId,BytecodeIndexes{eol}");
    for invoke in &graph.invokes {
        let bci = invoke.bci.as_ref().unwrap();
        match &invoke.target {
            DeclaredTarget::Method(callee) => {
                direct_edges.push_str(&format!("{},{},{bci}{eol}", invoke.caller + 1, callee + 1));
            }
            DeclaredTarget::Signature(s) => {
                let node = *nodes.entry(s.clone()).or_insert_with(|| {
                    next += 1;
                    next - 1
                });
                virtual_edges.push_str(&format!("{},{node},{bci}{eol}", invoke.caller + 1));
                overrides.extend(invoke.callees.iter().map(|c| (node, c.method + 1)));
            }
        }
    }
    let mut virtual_methods = header(matches!(version, Legacy::V22_3));
    for (i, (signature, id)) in nodes.iter().enumerate() {
        virtual_methods.push_str(&row(*id, signature, i));
    }
    let mut entry_points = format!("Id{eol}");
    for e in &graph.entry_points {
        entry_points.push_str(&format!("{}{eol}", e.method + 1));
    }
    let mut override_by_edges = format!("StartId,EndId{eol}");
    for (node, implementation) in overrides {
        override_by_edges.push_str(&format!("{node},{implementation}{eol}"));
    }
    HashMap::from([
        (CsvFile::Vm, format!("Id,Name{eol}0,VM{eol}")),
        (CsvFile::Methods, methods),
        (CsvFile::VirtualMethods, virtual_methods),
        (CsvFile::EntryPoints, entry_points),
        (CsvFile::DirectEdges, direct_edges),
        (CsvFile::OverrideByEdges, override_by_edges),
        (CsvFile::VirtualEdges, virtual_edges),
    ])
}

fn txt_graph(seed: u64, crlf: bool) -> CallGraph {
    let version =
        [Version::V21, Version::V24_1, Version::V24_2, Version::V25_1][(seed % 4) as usize];
    let (text, _) = generate::call_tree(
        seed,
        Options {
            version,
            mangled: false,
            crlf,
        },
        200,
    );
    CallGraph::parse_txt(text.as_bytes()).unwrap()
}

/// Edges by method strings without loaders, for comparing against CSV.
fn edges(graph: &CallGraph) -> BTreeSet<(String, String, bool)> {
    let name = |id: u64| {
        MethodSignature::parse(&graph.method(id).unwrap().signature)
            .unwrap()
            .without_loader()
    };
    graph
        .invoke_edges()
        .map(|e| (name(e.caller), name(e.callee), e.kind == InvokeKind::Direct))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn current_layout_reads_like_txt(seed in any::<u64>(), crlf in any::<bool>()) {
        let txt = txt_graph(seed, crlf);
        let [methods, invokes, targets] = current(&txt, if crlf { "\r\n" } else { "\n" });
        let csv = CallGraph::read_csv(|f| match f {
            CsvFile::Methods => Some(methods.as_bytes()),
            CsvFile::Invokes => Some(invokes.as_bytes()),
            CsvFile::Targets => Some(targets.as_bytes()),
            _ => None,
        }).unwrap();
        let diff = CallTreeDiff::ignoring_loaders(&txt, &csv);
        prop_assert!(diff.is_empty(), "{:?}", diff);
        prop_assert!(diff.methods_only_in_a.is_empty() && diff.methods_only_in_b.is_empty());
        prop_assert!(diff.entry_points_only_in_a.is_empty() && diff.entry_points_only_in_b.is_empty());
        prop_assert!(diff.edges_only_in_a.is_empty() && diff.edges_only_in_b.is_empty());
        prop_assert_eq!(edges(&txt), edges(&csv));
        prop_assert_eq!(csv.invokes.len(), txt.invokes.len());
        let flags: Vec<_> = csv.methods.values().map(|m| m.csv.as_ref().unwrap().flags.clone().unwrap()).take(5).collect();
        prop_assert_eq!(flags, FLAGS[..csv.methods.len().min(5)].iter().map(std::string::ToString::to_string).collect::<Vec<_>>());
    }

    #[test]
    fn legacy_layouts_read_like_txt(seed in any::<u64>(), crlf in any::<bool>(), v in 0..3usize) {
        let txt = txt_graph(seed, crlf);
        let version = [Legacy::V21_3, Legacy::V22_1, Legacy::V22_3][v];
        let files = legacy(&txt, version, if crlf { "\r\n" } else { "\n" });
        let csv = parse_files(&files).unwrap();
        let diff = CallTreeDiff::ignoring_loaders(&txt, &csv);
        prop_assert!(diff.methods_only_in_a.is_empty() && diff.methods_only_in_b.is_empty(), "{:?}", diff);
        prop_assert!(diff.entry_points_only_in_a.is_empty() && diff.entry_points_only_in_b.is_empty());
        // Virtual-method nodes merge every call site's implementations: a superset (#8496).
        prop_assert!(diff.edges_only_in_a.is_empty());
        let virtual_rows = csv.methods.values().filter(|m| m.csv.as_ref().unwrap().is_virtual).count();
        let declared: BTreeSet<_> = txt.invokes.iter().filter_map(|i| match &i.target { DeclaredTarget::Signature(s) => Some(s), _ => None }).collect();
        prop_assert_eq!(virtual_rows, declared.len());
        let has_flags = csv.methods.values().all(|m| m.csv.as_ref().unwrap().flags.is_some());
        prop_assert_eq!(has_flags, !matches!(version, Legacy::V21_3));
    }
}

#[test]
fn header_quirk_and_errors() {
    let methods =
        "Id,Name,Type,Parameters,Return,Display,Flags\n1,main,a.B,empty,void,a.B.main,ps\n";
    let virtual_methods = "Id,Name,Type,Parameters,Return,Display\n2,run,a.I,int,void,a.I.run,pa\n";
    let mut files = HashMap::from([
        (CsvFile::Vm, "Id,Name\n0,VM\n".to_string()),
        (CsvFile::Methods, methods.to_string()),
        (CsvFile::VirtualMethods, virtual_methods.to_string()),
        (CsvFile::EntryPoints, "Id\n1\n".to_string()),
        (
            CsvFile::DirectEdges,
            "StartId,EndId,BytecodeIndexes\n0,1,0\n".to_string(),
        ),
        (CsvFile::OverrideByEdges, "StartId,EndId\n2,1\n".to_string()),
        (
            CsvFile::VirtualEdges,
            "StartId,EndId,BytecodeIndexes\n1,2,3->4\n".to_string(),
        ),
    ]);
    let graph = parse_files(&files).unwrap();
    let run = graph.method(2).unwrap();
    assert_eq!(run.signature, "a.I.run(int):void");
    assert_eq!(run.csv.as_ref().unwrap().flags.as_deref(), Some("pa"));
    assert_eq!(graph.invokes.len(), 1);
    assert!(graph.invokes[0].callees.is_empty());
    assert_eq!(
        graph
            .callees(&graph.invokes[0])
            .map(|c| c.method)
            .collect::<Vec<_>>(),
        [1]
    );
    assert_eq!(graph.shared_overrides[&2], [1]);
    assert_eq!(graph.method(1).unwrap().signature, "a.B.main():void");

    files.insert(
        CsvFile::VirtualEdges,
        "StartId,EndId,BytecodeIndexes\n1,9,3\n".into(),
    );
    let err = parse_files(&files).unwrap_err();
    assert_eq!(
        err,
        Error::UnresolvedId {
            line: 2,
            column: 2,
            id: 9
        }
    );
    files.insert(
        CsvFile::VirtualEdges,
        "StartId,EndId,BytecodeIndexes\n1,2,x\n".into(),
    );
    let err = parse_files(&files).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Csv {
                file: "call_tree_virtual_edges",
                line: 2,
                column: 3,
                ..
            }
        ),
        "{err}"
    );
    files.insert(CsvFile::EntryPoints, "Ids\n".into());
    let err = parse_files(&files).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Csv {
                file: "call_tree_entry_points",
                line: 1,
                ..
            }
        ),
        "{err}"
    );
    files.remove(&CsvFile::EntryPoints);
    let err = parse_files(&files).unwrap_err();
    assert_eq!(
        err,
        Error::MissingCsvFile {
            file: "call_tree_entry_points"
        }
    );
    // A row with a field too many in the current layout.
    let err = CallGraph::read_csv(|f| match f {
        CsvFile::Methods => Some(b"Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n0,a,b,empty,void,b.a,,true,x\n".as_slice()),
        CsvFile::Invokes => Some(b"Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n".as_slice()),
        CsvFile::Targets => Some(b"InvokeId,TargetId\n".as_slice()),
        _ => None,
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Csv {
                file: "call_tree_methods",
                line: 2,
                ..
            }
        ),
        "{err}"
    );
}

/// CSV reports of every layout in `tests/data/generated/`, named as the printers name them,
/// plus NUL-joined seeds for the `pointsto_csv` fuzz target.
#[test]
fn generated_fixtures() {
    let txt = txt_graph(7, false);
    let [methods, invokes, targets] = current(&txt, "\n");
    let stamp = "hello_20250320_235959";
    generate::fixture(
        &format!("generated/csv-25/call_tree_methods_{stamp}.csv"),
        &methods,
    );
    generate::fixture(
        &format!("generated/csv-25/call_tree_invokes_{stamp}.csv"),
        &invokes,
    );
    generate::fixture(
        &format!("generated/csv-25/call_tree_targets_{stamp}.csv"),
        &targets,
    );
    generate::fixture(
        "generated/fuzz_csv_current.bin",
        &[methods, invokes, targets].join("\0"),
    );
    let legacy_order = [
        CsvFile::Vm,
        CsvFile::Methods,
        CsvFile::VirtualMethods,
        CsvFile::EntryPoints,
        CsvFile::DirectEdges,
        CsvFile::OverrideByEdges,
        CsvFile::VirtualEdges,
    ];
    for (dir, prefix, version) in [
        ("csv-21.3", "csv_", Legacy::V21_3),
        ("csv-22.1", "", Legacy::V22_1),
        ("csv-23.0", "", Legacy::V22_3),
    ] {
        let files = legacy(&txt, version, "\n");
        for file in legacy_order {
            generate::fixture(
                &format!("generated/{dir}/{prefix}{}_{stamp}.csv", file.stem()),
                &files[&file],
            );
        }
        let joined: Vec<&str> = legacy_order.iter().map(|f| files[f].as_str()).collect();
        generate::fixture(&format!("generated/fuzz_{dir}.bin"), &joined.join("\0"));
        let graph = parse_files(&files).unwrap();
        assert!(
            CallTreeDiff::ignoring_loaders(&txt, &graph)
                .methods_only_in_a
                .is_empty()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// TXT → CSV (crate writer) → graph → TXT (breadth-first expansion, as the printer does):
    /// the same reachability all the way, and the written TXT is a valid report.
    #[test]
    fn converts_between_txt_and_csv(seed in any::<u64>()) {
        let txt = txt_graph(seed, false);
        let report = pointsto::write::call_tree_csv(&txt);
        let csv = CallGraph::read_csv(|f| match f {
            CsvFile::Methods => Some(report.methods.as_bytes()),
            CsvFile::Invokes => Some(report.invokes.as_bytes()),
            CsvFile::Targets => Some(report.targets.as_bytes()),
            _ => None,
        }).unwrap();
        prop_assert!(CallTreeDiff::ignoring_loaders(&txt, &csv).is_empty());
        prop_assert_eq!(pointsto::write::call_tree_csv(&csv), report.clone());
        let written = pointsto::write::call_tree_txt(&csv).unwrap();
        let back = CallGraph::parse_txt(written.as_bytes()).unwrap();
        prop_assert!(CallTreeDiff::ignoring_loaders(&txt, &back).is_empty());
        prop_assert_eq!(back.methods.len(), txt.methods.len());
    }
}

#[test]
fn display_abbreviation() {
    assert_eq!(
        pointsto::write::csv_display("java.lang.String", "length"),
        "j.l.S.length"
    );
    assert_eq!(
        pointsto::write::csv_display("java.util.HashMap$Node", "<init>"),
        "j.u.HMN.<init>"
    );
}

/// Regression: a legacy report may list one entry point many times, and the TXT writer
/// expanded the entry's method at every listing: 1,000 `0` rows in the entry points file and
/// 1,000 direct edges out of method 0 (17 KB of CSV) made 1,001,000 lines (about 60 MB) of TXT.
/// A method is expanded once; later entries of it are written without children.
#[test]
fn repeated_legacy_entry_points_expand_once() {
    let n = 1_000;
    let mut methods = String::from("Id,Name,Type,Parameters,Return,Display\n");
    let mut direct = String::from("StartId,EndId,BytecodeIndexes\n");
    for i in 0..=n {
        methods.push_str(&format!("{i},m{i},a.B,empty,void,a.B.m{i}\n"));
        if i > 0 {
            direct.push_str(&format!("0,{i},1\n"));
        }
    }
    let files: HashMap<CsvFile, String> = [
        (CsvFile::Methods, methods),
        (
            CsvFile::VirtualMethods,
            "Id,Name,Type,Parameters,Return,Display\n".to_owned(),
        ),
        (CsvFile::EntryPoints, format!("Id\n{}", "0\n".repeat(n))),
        (CsvFile::DirectEdges, direct),
        (CsvFile::OverrideByEdges, "StartId,EndId\n".to_owned()),
        (
            CsvFile::VirtualEdges,
            "StartId,EndId,BytecodeIndexes\n".to_owned(),
        ),
    ]
    .into_iter()
    .collect();
    let graph = parse_files(&files).unwrap();
    assert_eq!(graph.entry_points.len(), n);
    let text = pointsto::write::call_tree_txt(&graph).unwrap();
    let lines = text.lines().count();
    // Header, the entries, method 0's invokes once, the closing empty line.
    assert_eq!(lines, 1 + n + n + 1, "{lines} lines, {} bytes", text.len());
    assert_eq!(text.matches("directly calls").count(), n);
}
