//! Object tree TXT: generated reports of every version parse, count and write back byte for
//! byte (including the array `└──` quirk and the `?`-mangled charset); broken input gives
//! located errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod generate;

use generate::{Options, VERSIONS};
use pointsto::Error;
use pointsto::object_tree::{Contents, ObjectEntry, ObjectTree, ObjectTreeLine, Reader};
use proptest::prelude::*;

fn count(tree: &ObjectTree) -> generate::ObjectTreeCounts {
    let mut c = generate::ObjectTreeCounts::default();
    for node in &tree.nodes {
        c.max_depth = c.max_depth.max(node.depth as u64);
        match &node.entry {
            ObjectEntry::RootValue { .. } => c.roots += 1,
            ObjectEntry::RootIdRef { .. } => {
                c.roots += 1;
                c.id_refs += 1;
            }
            ObjectEntry::RootSuppressed { .. } => {
                c.roots += 1;
                c.suppressed += 1;
            }
            ObjectEntry::Value { contents, .. } => {
                c.values += 1;
                match contents {
                    Contents::NoFields => c.no_fields += 1,
                    Contents::NoElements => c.no_elements += 1,
                    _ => {}
                }
            }
            ObjectEntry::ValueRef { .. } => c.id_refs += 1,
            ObjectEntry::ValueSuppressed { .. } | ObjectEntry::FieldSuppressed { .. } => {
                c.suppressed += 1;
            }
            ObjectEntry::FieldNull { .. } => c.null_fields += 1,
            ObjectEntry::FieldValue { .. } => {}
            other => panic!("a line kind this test does not know: {other:?}"),
        }
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_reports_round_trip(seed in any::<u64>(), v in 0..VERSIONS.len(), mangled in any::<bool>(), crlf in any::<bool>()) {
        let opts = Options { version: VERSIONS[v], mangled, crlf };
        let (text, expected) = generate::object_tree(seed, opts, 300);
        let tree = ObjectTree::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(count(&tree), expected);
        prop_assert_eq!(pointsto::write::object_tree_txt(&tree), text);
    }

    #[test]
    fn truncated_reports_never_panic(seed in any::<u64>(), cut in 0.0..1.0f64) {
        let (text, _) = generate::object_tree(seed, Options { version: VERSIONS[3], mangled: false, crlf: false }, 100);
        let mut end = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(end) { end -= 1; }
        let _ = ObjectTree::parse(&text.as_bytes()[..end]);
    }
}

const SAMPLE: &str = "Heap roots
├── root null:java.lang.Integer$IntegerCache.cache:java.lang.Integer[] value:
│   └── java.lang.Integer[] id=0 toString=null:java.lang.Integer[256]@1b elements (excluding null):
│       ├── [0] java.lang.Integer id=1 toString=null:Integer:-128 fields:
│       │   └── value:int toString=null:-128 (expansion suppressed)
│       ├── [3] java.lang.Integer id-ref=1 toString=null:Integer:-128
│       └── [7] toString=null:\"x\" (expansion suppressed)
├── root app:com.example.Main.main(java.lang.String[]) [bci: 4] id-ref=0 toString=null:java.lang.Integer[256]@1b
├── root null:java.lang.Character$UnicodeBlock.map:java.util.Map toString=null:java.util.HashMap@2c (expansion suppressed)
└── root app:com.example.Main.run() value:
    └── com.example.Node id=2 toString=app:com.example.Node@3d fields:
        ├── next:com.example.Node value=null
        ├── items:java.lang.Object[] value:
        │   └── java.lang.Object[] id=3 toString=null:java.lang.Object[0]@4e (no elements)
        └── empty:com.example.Empty value:
            └── com.example.Empty id=4 toString=app:com.example.Empty@5f (no fields)

";

#[test]
fn every_line_shape() {
    let tree = ObjectTree::parse(SAMPLE.as_bytes()).unwrap();
    assert_eq!(tree.nodes.len(), 15);
    assert_eq!(tree.roots().count(), 4);
    assert_eq!(tree.children(1).collect::<Vec<_>>(), [2, 4, 5]);
    assert_eq!(tree.values[&1], 2);
    assert_eq!(
        tree.nodes[4].entry,
        ObjectEntry::ValueRef {
            index: Some(3),
            type_name: "java.lang.Integer".into(),
            id: 1,
            to_string: "null:Integer:-128".into()
        }
    );
    assert_eq!(
        tree.nodes[5].entry,
        ObjectEntry::ValueSuppressed {
            index: Some(7),
            type_name: None,
            to_string: "null:\"x\"".into()
        }
    );
    let ObjectEntry::RootIdRef { source, .. } = &tree.nodes[6].entry else {
        panic!()
    };
    assert_eq!(
        source,
        "app:com.example.Main.main(java.lang.String[]) [bci: 4]"
    );
    assert_eq!(pointsto::write::object_tree_txt(&tree), SAMPLE);
    // Line-level reading needs no context.
    let lines: Vec<_> = Reader::new(SAMPLE).map(|l| l.unwrap().1).collect();
    assert_eq!(lines.len(), 17);
    assert!(matches!(lines[16], ObjectTreeLine::Empty));
}

#[test]
fn errors_are_located() {
    let bad = |text: &str| ObjectTree::parse(text.as_bytes()).unwrap_err();
    assert!(matches!(
        bad(""),
        Error::Truncated {
            line: 1,
            column: 1,
            ..
        }
    ));
    assert!(matches!(
        bad("Heap roots\n└── root a.B.c:int value:\n        └── int id=0 toString=1 (no fields)\n"),
        Error::Depth { line: 3, .. }
    ));
    assert!(matches!(
        bad("Heap roots\n└── root a.B.c:a.B value:\n    └── f:int value=null\n"),
        Error::Nesting {
            line: 3,
            column: 15,
            ..
        }
    ));
    assert!(matches!(
        bad(
            "Heap roots\n└── root a.B.c:a.B value:\n    ├── a.B id=0 toString=x (no fields)\n    └── a.B id=1 toString=x (no fields)\n"
        ),
        Error::Nesting { line: 4, .. }
    ));
    assert!(matches!(
        bad(
            "Heap roots\n└── root a.B.c:a.B value:\n    └── a.B id=0 toString=x fields:\n        └── [0] a.B id-ref=0 toString=x\n"
        ),
        Error::Nesting { line: 4, .. }
    ));
    assert!(matches!(
        bad("Heap roots\n└── root a.B.c:a.B id-ref=4 toString=x\n"),
        Error::UnresolvedId {
            line: 2,
            column: 26,
            id: 4
        }
    ));
    assert!(matches!(
        bad(
            "Heap roots\n├── root a.B.c:a.B value:\n│   └── a.B id=0 toString=x (no fields)\n└── root a.B.d:a.B value:\n    └── a.B id=0 toString=x (no fields)\n"
        ),
        Error::DuplicateId {
            line: 5,
            column: 19,
            id: 0,
            first: 3
        }
    ));
    assert!(matches!(
        bad("Heap roots\n└── root a.B.c:a.B value:\n    └── a.B id=0 toString=x\n"),
        Error::Syntax { line: 3, .. }
    ));
    assert!(matches!(
        bad("Heap roots\n└── a.B id=0 toString=x (no fields)\n"),
        Error::Syntax { line: 2, .. }
    ));
}

/// Generated reports in `tests/data/generated/` (seeds for the fuzzers, inputs for the
/// examples); each parses and writes back byte for byte.
#[test]
fn generated_fixtures() {
    let cases = [
        (
            "object_tree_hello_20220615_080000.txt",
            21,
            generate::Version::V21,
            false,
            false,
        ),
        (
            "object_tree_hello-mangled_20210101_000000.txt",
            24,
            generate::Version::V21,
            true,
            true,
        ),
        (
            "object_tree_hello_20250320_235959.txt",
            23,
            generate::Version::V25_1,
            false,
            false,
        ),
    ];
    for (name, seed, version, mangled, crlf) in cases {
        let (text, _) = generate::object_tree_with_roots(
            seed,
            Options {
                version,
                mangled,
                crlf,
            },
            150,
            Some(8),
        );
        generate::fixture(&format!("generated/{name}"), &text);
        let tree = ObjectTree::parse(text.as_bytes()).unwrap();
        assert_eq!(pointsto::write::object_tree_txt(&tree), text);
    }
    generate::fixture("generated/object_tree_sample_20240918_120000.txt", SAMPLE);
}

/// Arrays reserve `└──` for their highest index even when that element is null and not
/// printed, so the last visible element can carry `├──` (and its subtree keeps the `│`).
#[test]
fn array_last_marker_quirk() {
    let text = "Heap roots
└── root a.B.table:java.lang.Object[] value:
    └── java.lang.Object[] id=0 toString=java.lang.Object[4]@1 elements (excluding null):
        ├── [0] a.C id=1 toString=a.C@2 (no fields)
        ├── [2] a.D id=2 toString=a.D@3 fields:
        │   └── next:a.D value=null

";
    let tree = ObjectTree::parse(text.as_bytes()).unwrap();
    assert!(!tree.nodes[3].last);
    assert_eq!(tree.children(1).collect::<Vec<_>>(), [2, 3]);
    assert_eq!(pointsto::write::object_tree_txt(&tree), text);
    // The same report from a non-UTF-8 builder: `last` comes from the children's indentation.
    let mangled = text
        .replace("└── ", "??? ")
        .replace("├── ", "??? ")
        .replace("│   ", "?   ");
    let tree = ObjectTree::parse(mangled.as_bytes()).unwrap();
    assert!(!tree.nodes[3].last);
    assert_eq!(pointsto::write::object_tree_txt(&tree), mangled);
}

#[test]
fn depth_errors_point_at_the_marker() {
    // `│   ` is 6 bytes, `    ` 4: the marker starts at byte column 11.
    let e = ObjectTree::parse(
        "Heap roots\n└── root a.B.c:int value:\n│       └── int id=0 toString=1 (no fields)\n"
            .as_bytes(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::Depth {
            line: 3,
            column: 11,
            max: 1,
            found: 2
        }
    );
}
