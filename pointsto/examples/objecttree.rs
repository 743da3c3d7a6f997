//! Counts what an object tree report (or a fragment of one) holds, as one JSON object:
//!
//! ```text
//! objecttree FILE
//! cargo run -p pointsto --example objecttree -- tests/data/generated/object_tree_sample_20240918_120000.txt
//! ```
//!
//! Every line is checked (tree prefixes, line shapes, UTF-8, a last line cut off before its
//! line break); a file with no tree line is an error. Exit status: 0 on success, 1 when the
//! file cannot be read or is not an object tree report (`error: FILE: LINE:COLUMN: …`), 2 on
//! a usage error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use pointsto::object_tree::{Contents, ObjectEntry, ObjectTreeLine, Reader};

#[path = "common/mod.rs"]
mod common;
use common::{line_progress, read_input};

const NAME: &str = "objecttree";
const USAGE: &str = "\
usage: objecttree [-h | --help] [--version] FILE

Counts the roots, values, id-refs, null fields and suppressed expansions of an object tree
report (`object_tree_*.txt`, or a fragment of one) and prints them as one JSON object.

Exit status: 0 success; 1 FILE unreadable or not an object tree report; 2 usage error.";

fn main() -> ExitCode {
    let path = match parse_args() {
        Ok(Some(path)) => path,
        Ok(None) => return ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let json = match read_input(&path).and_then(|bytes| count(&bytes, bytes.len() as u64)) {
        Ok(json) => json,
        Err(error) => {
            eprintln!("error: {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    match writeln!(out, "{json}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: writing the result: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The file to read, or `None` after `--help`/`--version`.
fn parse_args() -> Result<Option<String>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut path = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => {
                println!("{USAGE}");
                return Ok(None);
            }
            Long("version") => {
                println!("{NAME} {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            Value(value) if path.is_none() => path = Some(value.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    path.map(Some).ok_or("missing FILE".into())
}

fn count(bytes: &[u8], len: u64) -> Result<serde_json::Value, String> {
    let (mut roots, mut values, mut id_refs, mut null_fields) = (0u64, 0u64, 0u64, 0u64);
    let (mut suppressed, mut no_fields, mut no_elements, mut max_depth) = (0u64, 0u64, 0u64, 0u64);
    let (mut lines, mut nodes) = (0u64, 0u64);
    let bar = line_progress(len);
    for line in Reader::from_bytes(bytes) {
        let (number, line) = line.map_err(|e| e.to_string())?;
        lines += 1;
        if number % 65_536 == 0 {
            bar.set_position(number);
        }
        let ObjectTreeLine::Node(node) = line else {
            continue;
        };
        nodes += 1;
        max_depth = max_depth.max(node.depth as u64);
        match node.entry {
            ObjectEntry::RootValue { .. } => roots += 1,
            ObjectEntry::RootIdRef { .. } => {
                roots += 1;
                id_refs += 1;
            }
            ObjectEntry::RootSuppressed { .. } => {
                roots += 1;
                suppressed += 1;
            }
            ObjectEntry::Value { contents, .. } => {
                values += 1;
                match contents {
                    Contents::NoFields => no_fields += 1,
                    Contents::NoElements => no_elements += 1,
                    _ => {}
                }
            }
            ObjectEntry::ValueRef { .. } => id_refs += 1,
            ObjectEntry::ValueSuppressed { .. } | ObjectEntry::FieldSuppressed { .. } => {
                suppressed += 1;
            }
            ObjectEntry::FieldNull { .. } => null_fields += 1,
            _ => {}
        }
    }
    bar.finish_and_clear();
    if nodes == 0 {
        return Err(format!(
            "{}:1: expected a tree line (`├── root …`), found the end of the input",
            lines + 1
        ));
    }
    Ok(serde_json::json!({
        "roots": roots,
        "values": values,
        "id_refs": id_refs,
        "null_fields": null_fields,
        "suppressed": suppressed,
        "no_fields": no_fields,
        "no_elements": no_elements,
        "max_depth": max_depth,
    }))
}
