//! Reports cut off the way a killed build or a truncated copy leaves them: every reader says
//! the input ended inside a line, with the line and column where it ended, instead of
//! reading a shorter report (issue #15).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use pointsto::Error;
use pointsto::call_tree::CallGraph;
use pointsto::call_tree::txt::Reader as CallTreeReader;
use pointsto::object_tree::{ObjectTree, Reader as ObjectTreeReader};

const CALL_TREE_24_1: &str = "tests/data/generated/call_tree_hello_20240918_120000.txt";
const CALL_TREE_MANGLED: &str = "tests/data/generated/call_tree_mangled_20250320_235959.txt";
const OBJECT_TREE: &str = "tests/data/generated/object_tree_sample_20240918_120000.txt";

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// `bytes` cut just after the first occurrence of `needle` past `from`.
fn cut_after<'a>(bytes: &'a [u8], needle: &str, from: usize) -> &'a [u8] {
    let at = bytes[from..]
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap_or_else(|| panic!("{needle:?} not found"));
    &bytes[..from + at + needle.len()]
}

/// The line and column just past the end of `bytes` (1-based, columns in bytes).
fn end_position(bytes: &[u8]) -> (u64, u64) {
    let line = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    (line, (bytes.len() - start) as u64 + 1)
}

fn call_tree_errors(bytes: &[u8]) -> (Error, Error) {
    let from_reader = CallTreeReader::from_bytes(bytes)
        .find_map(Result::err)
        .expect("the line reader rejects it");
    let from_graph = CallGraph::parse_txt(bytes).expect_err("the graph parser rejects it");
    (from_reader, from_graph)
}

fn assert_truncated_at_end(error: &Error, bytes: &[u8]) {
    let (line, column) = end_position(bytes);
    match error {
        Error::Truncated {
            line: l, column: c, ..
        } => assert_eq!((*l, *c), (line, column), "{error}"),
        other => panic!("expected Truncated at {line}:{column}, found {other}"),
    }
    assert!(
        error
            .to_string()
            .starts_with(&format!("{line}:{column}: expected ")),
        "{error}"
    );
}

#[test]
fn call_tree_cut_to_v() {
    let bytes = read(CALL_TREE_24_1);
    let cut = &bytes[..1];
    assert_eq!(cut, b"V");
    let (reader, graph) = call_tree_errors(cut);
    assert_truncated_at_end(&reader, cut);
    assert_truncated_at_end(&graph, cut);
    assert_eq!(
        reader.to_string(),
        "1:2: expected the rest of the line and its line break (the report ends inside this line), found the end of the input"
    );
}

#[test]
fn call_tree_cut_after_a_dangling_marker() {
    let bytes = read(CALL_TREE_24_1);
    // `│   ├──` with no entry after it, as the last line…
    let cut = cut_after(&bytes, "\n│   ├──", 0);
    let (reader, graph) = call_tree_errors(cut);
    assert_truncated_at_end(&reader, cut);
    assert_truncated_at_end(&graph, cut);
    // …and the same line ended by a line break: the prefix is broken where the marker stops
    // (byte column 7, after `│   `).
    let mut terminated = cut.to_vec();
    terminated.push(b'\n');
    let (line, _) = end_position(cut);
    for error in [
        CallTreeReader::from_bytes(&terminated)
            .find_map(Result::err)
            .unwrap(),
        CallGraph::parse_txt(&terminated).unwrap_err(),
    ] {
        assert!(
            matches!(error, Error::Syntax { line: l, column: 7, .. } if l == line),
            "{error}"
        );
    }
}

#[test]
fn call_tree_cut_inside_a_parsing_reason() {
    // An entry line whose 24.1 parsing reason stops inside `(Main.java:`.
    let bytes = read(CALL_TREE_24_1);
    let cut = cut_after(&bytes, "(Main.java:", 0);
    let (reader, graph) = call_tree_errors(cut);
    assert_truncated_at_end(&reader, cut);
    assert_truncated_at_end(&graph, cut);
    // A continuation line of a multi-line reason, cut the same way.
    let bytes = read(CALL_TREE_MANGLED);
    let second_line = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let continuation = cut_after(&bytes, "\nat ", second_line).len();
    let cut = cut_after(&bytes, ".java:", continuation);
    let (reader, graph) = call_tree_errors(cut);
    assert_truncated_at_end(&reader, cut);
    assert_truncated_at_end(&graph, cut);
}

#[test]
fn object_tree_cut_mid_class_name() {
    let bytes = read(OBJECT_TREE);
    let cut = cut_after(&bytes, "java.lang.Integ", 0);
    let reader = ObjectTreeReader::from_bytes(cut)
        .find_map(Result::err)
        .unwrap();
    assert_truncated_at_end(&reader, cut);
    assert_truncated_at_end(&ObjectTree::parse(cut).unwrap_err(), cut);
}

#[test]
fn empty_input_is_an_error() {
    for error in [
        CallTreeReader::from_bytes(b"").next().unwrap().unwrap_err(),
        ObjectTreeReader::from_bytes(b"")
            .next()
            .unwrap()
            .unwrap_err(),
        CallGraph::parse_txt(b"").unwrap_err(),
        ObjectTree::parse(b"").unwrap_err(),
    ] {
        assert!(
            matches!(
                error,
                Error::Truncated {
                    line: 1,
                    column: 1,
                    ..
                }
            ),
            "{error}"
        );
    }
}

/// Every cut of every generated report that does not fall on a line break is rejected by
/// both readers, at the end of the input; a cut on a line break reads the lines before it.
#[test]
fn every_cut_inside_a_line_is_rejected() {
    for entry in std::fs::read_dir("tests/data/generated").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".txt") {
            continue;
        }
        let bytes = read(path.to_str().unwrap());
        let stride = (bytes.len() / 1500).max(1);
        for cut in (1..bytes.len()).step_by(stride) {
            let part = &bytes[..cut];
            if part.ends_with(b"\n") {
                continue;
            }
            let (reader, whole) = if name.starts_with("call_tree") {
                call_tree_errors(part)
            } else {
                (
                    ObjectTreeReader::from_bytes(part)
                        .find_map(Result::err)
                        .unwrap_or_else(|| panic!("{name} cut at {cut}: accepted")),
                    ObjectTree::parse(part).expect_err(&format!("{name} cut at {cut}: accepted")),
                )
            };
            let (line, _) = end_position(part);
            for error in [reader, whole] {
                let at = match error {
                    Error::Truncated { line, .. }
                    | Error::Syntax { line, .. }
                    | Error::Utf8 { line, .. } => line,
                    ref other => panic!("{name} cut at {cut}: {other}"),
                };
                assert_eq!(at, line, "{name} cut at {cut}: {error}");
            }
        }
    }
}

/// Whole-line errors point at the offending token, on real reports changed the way a
/// broken printer or a bad edit would.
#[test]
fn whole_line_errors_give_the_token_column() {
    let text = String::from_utf8(read(CALL_TREE_24_1)).unwrap();
    let lines: Vec<&str> = text.split('\n').collect();
    // A second definition of an id: the column of its `id=`.
    let defining = lines
        .iter()
        .position(|l| l.contains("directly calls") && l.contains(" id="))
        .unwrap();
    let mut duplicated = lines.clone();
    duplicated.insert(defining + 1, lines[defining]);
    let err = CallGraph::parse_txt(duplicated.join("\n").as_bytes()).unwrap_err();
    let column = lines[defining].find(" id=").unwrap() as u64 + 2;
    assert!(
        matches!(err, Error::DuplicateId { line, column: c, .. } if line == defining as u64 + 2 && c == column),
        "{err}"
    );
    // An id-ref to an id that is never defined: the column of its `id-ref=`.
    let referencing = lines.iter().position(|l| l.contains(" id-ref=")).unwrap();
    let unresolved = text.replacen(
        lines[referencing],
        &lines[referencing].replacen(" id-ref=", " id-ref=9999", 1),
        1,
    );
    let err = CallGraph::parse_txt(unresolved.as_bytes()).unwrap_err();
    let column = lines[referencing].find(" id-ref=").unwrap() as u64 + 2;
    assert!(
        matches!(err, Error::UnresolvedId { line, column: c, .. } if line == referencing as u64 + 1 && c == column),
        "{err}"
    );
    // An override line under a method (it belongs under a virtual call): the column after
    // the tree prefix.
    let overriding = lines
        .iter()
        .position(|l| l.contains("is overridden by"))
        .unwrap();
    let marker = lines[overriding].find("is overridden by").unwrap();
    let mut misplaced = lines.clone();
    let entry = lines.iter().position(|l| l.contains("entry ")).unwrap();
    let moved = format!("│   ├── {}", &lines[overriding][marker..]);
    misplaced.insert(entry + 1, &moved);
    let err = CallGraph::parse_txt(misplaced.join("\n").as_bytes()).unwrap_err();
    let column = "│   ├── ".len() as u64 + 1;
    assert!(
        matches!(err, Error::Nesting { line, column: c, .. } if line == entry as u64 + 2 && c == column),
        "{err}"
    );
}
