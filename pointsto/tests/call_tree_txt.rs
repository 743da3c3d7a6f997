//! Call tree TXT: generated reports of every version parse, count and write back byte for
//! byte; the real fragments parse line by line; broken input gives located errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod generate;

use generate::{Options, VERSIONS, Version};
use pointsto::Error;
use pointsto::call_tree::txt::{self, CallTreeLine, IdTag, NodeKind, Reader};
use pointsto::call_tree::{CallGraph, CallGraphBuilder, DeclaredTarget, InvokeKind};
use pointsto::style::{Charset, LineEnding, Marker};
use proptest::prelude::*;

/// Counts lines the way the `calltree` example does, from the line reader.
fn count(text: &str) -> generate::CallTreeCounts {
    let mut counts = generate::CallTreeCounts::default();
    for line in Reader::new(text) {
        let (_, line) = line.unwrap();
        let CallTreeLine::Node(node) = line else {
            continue;
        };
        counts.max_depth = counts.max_depth.max(node.depth as u64);
        match node.kind {
            NodeKind::Entry { .. } => counts.entry_points += 1,
            NodeKind::DirectCall { .. } => counts.direct_calls += 1,
            NodeKind::VirtualCall { .. } => counts.virtual_calls += 1,
            NodeKind::InterfaceCall { .. } => counts.interface_calls += 1,
            NodeKind::OverriddenBy { .. } | NodeKind::ImplementedBy { .. } => counts.overrides += 1,
            other => panic!("a line kind this test does not know: {other:?}"),
        }
        match node.kind.id_tag() {
            Some(IdTag::Id(_)) => counts.methods += 1,
            Some(IdTag::IdRef(_)) => counts.id_refs += 1,
            None => {}
        }
    }
    counts
}

fn check(seed: u64, opts: Options) {
    let (text, expected) = generate::call_tree(seed, opts, 400);
    let graph = CallGraph::parse_txt(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(count(&text), expected);
    assert_eq!(graph.methods.len() as u64, expected.methods);
    assert_eq!(graph.entry_points.len() as u64, expected.entry_points);
    let layout = graph.txt.unwrap();
    assert_eq!(
        layout.style.charset,
        if opts.mangled {
            Charset::Mangled
        } else {
            Charset::BoxDrawing
        }
    );
    assert_eq!(
        layout.style.line_ending,
        if opts.crlf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        }
    );
    let kinds = |k: InvokeKind| graph.invokes.iter().filter(|i| i.kind == k).count() as u64;
    assert_eq!(kinds(InvokeKind::Direct), expected.direct_calls);
    assert_eq!(kinds(InvokeKind::Virtual), expected.virtual_calls);
    assert_eq!(kinds(InvokeKind::Interface), expected.interface_calls);
    assert_eq!(graph.override_edges().count() as u64, expected.overrides);
    let written = pointsto::write::call_tree_txt(&graph).unwrap();
    assert_eq!(written, text, "seed {seed} {opts:?}");
    // Streaming through the builder gives the same graph.
    let mut builder = CallGraphBuilder::new();
    for line in text.split_inclusive('\n') {
        builder.push_line(line).unwrap();
    }
    assert_eq!(builder.finish().unwrap(), graph);
    // Every line re-emits verbatim through the line-level writer.
    let mut out = String::new();
    let eol = if opts.crlf { "\r\n" } else { "\n" };
    for line in Reader::new(&text) {
        txt::write_line(&mut out, &line.unwrap().1);
        out.push_str(eol);
    }
    assert_eq!(out, text);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn generated_reports_round_trip(seed in any::<u64>(), v in 0..VERSIONS.len(), mangled in any::<bool>(), crlf in any::<bool>()) {
        check(seed, Options { version: VERSIONS[v], mangled, crlf });
    }

    #[test]
    fn truncated_reports_never_panic(seed in any::<u64>(), cut in 0.0..1.0f64) {
        let (text, _) = generate::call_tree(seed, Options { version: Version::V24_2, mangled: false, crlf: false }, 100);
        let mut end = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(end) { end -= 1; }
        let _ = CallGraph::parse_txt(&text.as_bytes()[..end]);
    }
}

#[test]
fn every_version_has_its_features() {
    for version in VERSIONS {
        let mut seen_reason = false;
        let mut seen_loader = false;
        let mut seen_interface = false;
        let mut seen_forward_ref = false;
        for seed in 0..40 {
            let (text, counts) = generate::call_tree(
                seed,
                Options {
                    version,
                    mangled: false,
                    crlf: false,
                },
                300,
            );
            let graph = CallGraph::parse_txt(text.as_bytes()).unwrap();
            seen_interface |= counts.interface_calls > 0;
            seen_reason |= graph.entry_points.iter().any(|e| e.reason.is_some());
            seen_loader |= graph
                .methods
                .values()
                .any(|m| m.parsed_signature().unwrap().loader.is_some());
            // A reference before its definition.
            let mut defined = std::collections::HashSet::new();
            for line in Reader::new(&text) {
                if let CallTreeLine::Node(node) = line.unwrap().1 {
                    match node.kind.id_tag() {
                        Some(IdTag::Id(id)) => {
                            defined.insert(id);
                        }
                        Some(IdTag::IdRef(id)) => seen_forward_ref |= !defined.contains(&id),
                        None => {}
                    }
                }
            }
        }
        assert_eq!(seen_interface, version == Version::V20_0, "{version:?}");
        assert_eq!(
            seen_reason,
            matches!(version, Version::V24_1 | Version::V24_2 | Version::V25_1)
        );
        assert_eq!(
            seen_loader,
            matches!(version, Version::V24_2 | Version::V25_1)
        );
        assert!(seen_forward_ref, "{version:?}");
    }
}

#[test]
fn multi_line_reason_and_forward_reference() {
    let text = [
        "VM Entry Points",
        "├── entry app:a.A.main():void id=0, parsing reason:  at a.A.x(A.java:3) [bci: 1]",
        "at a.A.y(A.java:4) [bci: 2] ",
        "│   └── directly calls app:a.B.run(int, a.C[]):long id-ref=1 @bci=5->-1 ",
        "└── entry app:a.B.run(int, a.C[]):long id=1, parsing reason:  root method ",
        "    └── virtually calls a.I.call():void @bci=0",
        "        ├── is overridden by app:a.J.call():void id=2 ",
        "        └── is overridden by app:a.B.run(int, a.C[]):long id-ref=1 ",
        "",
        "",
    ]
    .join("\r\n");
    let graph = CallGraph::parse_txt(text.as_bytes()).unwrap();
    assert_eq!(
        graph.entry_points[0].reason.as_deref(),
        Some("at a.A.x(A.java:3) [bci: 1]\nat a.A.y(A.java:4) [bci: 2]")
    );
    let direct = &graph.invokes[0];
    assert_eq!(
        (direct.caller, direct.callees.get(0).unwrap().method),
        (0, 1)
    );
    assert_eq!(
        direct.bci.as_ref().unwrap().iter().collect::<Vec<_>>(),
        [5, -1]
    );
    let virtual_call = &graph.invokes[1];
    assert_eq!(
        virtual_call.target,
        DeclaredTarget::Signature("a.I.call():void".into())
    );
    assert_eq!(
        virtual_call
            .callees
            .iter()
            .map(|c| c.method)
            .collect::<Vec<_>>(),
        [2, 1]
    );
    let signature = graph.method(1).unwrap().parsed_signature().unwrap();
    assert_eq!(
        signature.parameter_types().collect::<Vec<_>>(),
        ["int", "a.C[]"]
    );
    assert_eq!(signature.return_type, Some("long"));
    assert_eq!(pointsto::write::call_tree_txt(&graph).unwrap(), text);
}

#[test]
fn real_fragment_3166() {
    let text = include_str!("data/EXCERPT_oracle-graal-issue-3166_call_tree_fragment.txt");
    let lines: Vec<_> = Reader::new(text).map(|l| l.unwrap().1).collect();
    assert_eq!(lines.len(), 3);
    let CallTreeLine::Node(entry) = &lines[0] else {
        panic!()
    };
    assert_eq!(
        (entry.depth, entry.marker, entry.trailing_space),
        (0, Marker::Child, true)
    );
    assert_eq!(
        entry.kind,
        NodeKind::Entry {
            method: "com.oracle.svm.core.code.IsolateEnterStub.JavaMainWrapper_run_5087f5482cc9a6abc971913ece43acb471d2631b(int, org.graalvm.nativeimage.c.type.CCharPointerPointer):int",
            id: 85,
            reason: None
        }
    );
    let CallTreeLine::Node(call) = &lines[2] else {
        panic!()
    };
    assert_eq!(call.depth, 2);
    assert!(matches!(
        call.kind,
        NodeKind::DirectCall {
            target: IdTag::Id(1029),
            ..
        }
    ));
    let mut out = String::new();
    for line in &lines {
        txt::write_line(&mut out, line);
        out.push('\n');
    }
    assert_eq!(out, text);
    // As a whole report (with the header it was cut from), it builds and writes back.
    let report = format!(
        "VM Entry Points\n{}",
        text.replacen("├── entry", "└── entry", 1)
            .replace("\n│   ", "\n    ")
    );
    let graph = CallGraph::parse_txt(report.as_bytes()).unwrap();
    assert_eq!(graph.methods.len(), 3);
    assert_eq!(pointsto::write::call_tree_txt(&graph).unwrap(), report);
}

#[test]
fn real_mangled_fragment_2657() {
    let text =
        include_str!("data/EXCERPT_oracle-graal-issue-2657_call_tree_mangled_charset_fragment.txt");
    let nodes: Vec<_> = Reader::new(text)
        .filter_map(|l| match l.unwrap().1 {
            CallTreeLine::Node(node) => Some(node),
            _ => None,
        })
        .collect();
    assert_eq!(nodes.len(), 6);
    assert!(
        nodes
            .iter()
            .all(|n| n.marker == Marker::Mangled && n.trailing_space)
    );
    assert_eq!(nodes[0].depth, 21);
    assert_eq!(
        nodes[0].kind,
        NodeKind::OverriddenBy {
            method: "org.hibernate.validator.internal.xml.CloseIgnoringInputStream.close():void",
            target: IdTag::IdRef(35868)
        }
    );
    assert_eq!(nodes[4].depth, 20);
    assert!(matches!(
        nodes[4].kind,
        NodeKind::DirectCall {
            method: "java.io.InputStreamReader.<init>(java.io.InputStream, java.lang.String):void",
            target: IdTag::IdRef(46151),
            ..
        }
    ));
    let mut out = String::new();
    for line in Reader::new(text) {
        txt::write_line(&mut out, &line.unwrap().1);
        out.push('\n');
    }
    assert_eq!(out, text);
    // Without its header and ancestors, the graph builder says what is missing.
    assert!(matches!(
        CallGraph::parse_txt(text.as_bytes()),
        Err(Error::Syntax { line: 1, .. })
    ));
}

#[test]
fn errors_are_located() {
    let bad = |text: &str| CallGraph::parse_txt(text.as_bytes()).unwrap_err();
    assert_eq!(
        bad(""),
        Error::Truncated {
            line: 1,
            column: 1,
            expected: "the header `VM Entry Points`"
        }
    );
    assert!(matches!(
        bad(
            "VM Entry Points\n└── entry a.B.c():void id=0 \n        └── directly calls a.B.c():void id-ref=0 @bci=1 \n"
        ),
        Error::Depth {
            line: 3,
            max: 1,
            found: 2,
            ..
        }
    ));
    assert!(matches!(
        bad(
            "VM Entry Points\n└── entry a.B.c():void id=0 \n    └── directly calls a.B.d():void id-ref=7 @bci=1 \n"
        ),
        Error::UnresolvedId {
            line: 3,
            column: 43,
            id: 7
        }
    ));
    assert!(matches!(
        bad("VM Entry Points\n├── entry a.B.c():void id=0 \n└── entry a.B.d():void id=0 \n"),
        Error::DuplicateId {
            line: 3,
            column: 30,
            id: 0,
            first: 2
        }
    ));
    assert!(matches!(
        bad(
            "VM Entry Points\n└── entry a.B.c():void id=0 \n    └── is overridden by a.B.d():void id=1 \n"
        ),
        Error::Nesting {
            line: 3,
            column: 15,
            ..
        }
    ));
    assert!(matches!(
        bad(
            "VM Entry Points\n└── entry a.B.c():void id=0 \n    └── directly calls a.B.c():void id-ref=0 @bci=1 \n        └── directly calls a.B.c():void id-ref=0 @bci=1 \n"
        ),
        Error::Nesting {
            line: 4,
            column: 19,
            ..
        }
    ));
    assert!(matches!(
        bad(
            "VM Entry Points\n└── entry a.B.c():void id=0 \n    └── virtually calls a.I.c():void @bci=1\n        └── is implemented by a.B.c():void id-ref=0 \n"
        ),
        Error::Nesting {
            line: 4,
            column: 19,
            ..
        }
    ));
    assert!(matches!(
        bad("VM Entry Points\nat nowhere\n"),
        Error::Syntax { line: 2, .. }
    ));
    assert!(matches!(
        bad("VM Entry Points\n\n└── entry a.B.c():void id=0 \n"),
        Error::Syntax { line: 3, .. }
    ));
    assert!(matches!(
        CallGraph::parse_txt(b"VM Entry Points\n\xff"),
        Err(Error::Utf8 { line: 2, column: 1 })
    ));
}

/// One generated report per version in `tests/data/generated/` (seeds for the fuzzers and
/// inputs for the examples); each parses and writes back byte for byte.
#[test]
fn generated_fixtures() {
    let cases = [
        (
            "call_tree_hello_20200301_101500.txt",
            11,
            Version::V20_0,
            false,
            false,
        ),
        (
            "call_tree_hello-crlf_20220615_080000.txt",
            12,
            Version::V21,
            false,
            true,
        ),
        (
            "call_tree_hello_20240918_120000.txt",
            13,
            Version::V24_1,
            false,
            false,
        ),
        (
            "call_tree_mangled_20250320_235959.txt",
            14,
            Version::V24_2,
            true,
            false,
        ),
        (
            "call_tree_hello_20251101_000001.txt",
            15,
            Version::V25_1,
            false,
            false,
        ),
    ];
    for (name, seed, version, mangled, crlf) in cases {
        let shape = generate::Shape {
            entries: Some(3),
            ..generate::TEST_SHAPE
        };
        let (text, _) = generate::call_tree_shaped(
            seed,
            Options {
                version,
                mangled,
                crlf,
            },
            120,
            shape,
        );
        generate::fixture(&format!("generated/{name}"), &text);
        let graph = CallGraph::parse_txt(text.as_bytes()).unwrap();
        assert_eq!(pointsto::write::call_tree_txt(&graph).unwrap(), text);
    }
}

#[test]
fn diff_between_builds() {
    let a = "VM Entry Points
├── entry app:a.Main.main():void id=0 
│   ├── directly calls app:a.Main.old():void id=2 @bci=1 
│   └── virtually calls a.I.run():void @bci=4
│       └── is overridden by app:a.Impl.run():void id=3 
└── entry app:a.Main.other():void id=1 

";
    let b = "VM Entry Points
└── entry app:a.Main.main():void id=7 
    ├── directly calls app:a.Main.new():void id=8 @bci=1 
    └── virtually calls a.I.run():void @bci=4
        ├── is overridden by app:a.Impl.run():void id=9 
        └── is overridden by app:a.Impl2.run():void id=10 

";
    let (ga, gb) = (
        CallGraph::parse_txt(a.as_bytes()).unwrap(),
        CallGraph::parse_txt(b.as_bytes()).unwrap(),
    );
    let diff = pointsto::diff::CallTreeDiff::new(&ga, &gb);
    assert_eq!(
        diff.methods_only_in_a,
        ["app:a.Main.old():void", "app:a.Main.other():void"]
    );
    assert_eq!(
        diff.methods_only_in_b,
        ["app:a.Impl2.run():void", "app:a.Main.new():void"]
    );
    assert_eq!(diff.entry_points_only_in_a, ["app:a.Main.other():void"]);
    assert!(diff.entry_points_only_in_b.is_empty());
    let new_edges: Vec<_> = diff
        .edges_only_in_b
        .iter()
        .map(|e| (&*e.callee, e.kind))
        .collect();
    assert_eq!(
        new_edges,
        [
            ("app:a.Impl2.run():void", InvokeKind::Virtual),
            ("app:a.Main.new():void", InvokeKind::Direct)
        ]
    );
    assert_eq!(diff.edges_only_in_a.len(), 1);
    assert!(pointsto::diff::CallTreeDiff::new(&ga, &ga).is_empty());
    // Loader prefixes can be ignored (reports from before and after 24.2).
    let old = CallGraph::parse_txt(a.replace("app:", "").as_bytes()).unwrap();
    assert!(pointsto::diff::CallTreeDiff::ignoring_loaders(&old, &ga).is_empty());
    assert!(!pointsto::diff::CallTreeDiff::new(&old, &ga).is_empty());
}

#[test]
fn used_lists() {
    let methods = pointsto::used::methods(b"app:a.B.c(int, long):void\nx.Y.z(String)\n").unwrap();
    assert_eq!(methods[0].loader, Some("app"));
    assert_eq!(methods[1].return_type, None);
    assert_eq!(methods[1].parameter_types().collect::<Vec<_>>(), ["String"]);
    assert!(matches!(
        pointsto::used::methods(b"a.B.c():void\nnot a method\n"),
        Err(Error::Syntax { line: 2, .. })
    ));
    let classes =
        pointsto::used::names(b"null:java.lang.String\r\nplatform:java.sql\r\njava.util\r\n")
            .unwrap();
    assert_eq!(
        classes
            .iter()
            .map(|c| (c.loader, c.name))
            .collect::<Vec<_>>(),
        [
            (Some("null"), "java.lang.String"),
            (Some("platform"), "java.sql"),
            (None, "java.util")
        ]
    );
}

#[test]
fn depth_errors_point_at_the_marker() {
    let e = CallGraph::parse_txt(
        "VM Entry Points\n└── entry a.B.c():void id=0 \n        └── directly calls a.B.c():void id-ref=0 @bci=1 \n"
            .as_bytes(),
    )
    .unwrap_err();
    // Two 4-byte indentation units before the marker: it starts at byte column 9.
    assert_eq!(
        e,
        Error::Depth {
            line: 3,
            column: 9,
            max: 1,
            found: 2
        }
    );
    assert_eq!(
        e.to_string(),
        "3:9: expected a tree depth of at most 1, found depth 2"
    );
}
