//! The methods and entry points that only one of two call tree reports reaches, as one JSON
//! object (plus how many invoke edges only one has):
//!
//! ```text
//! calltree-diff A B
//! cargo run -p pointsto --example calltree-diff -- \
//!     tests/data/generated/call_tree_hello_20240918_120000.txt \
//!     tests/data/generated/call_tree_hello_20251101_000001.txt
//! ```
//!
//! A and B are call tree TXT reports, or any one file of a CSV call tree report (its sibling
//! files are found by name in the same directory). Exit status: 0 on success, 1 when a report
//! cannot be read or is not a call tree report (`error: FILE: …`), 2 on a usage error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;
use pointsto::diff::CallTreeDiff;
use pointsto::file_name::{ReportFileName, ReportKind};

#[path = "common/mod.rs"]
mod common;
use common::read_input;

const NAME: &str = "calltree-diff";
const USAGE: &str = "\
usage: calltree-diff [-h | --help] [--version] A B

Compares two call tree reports (TXT files, or one file of each CSV report) and prints, as one
JSON object, the methods and entry points only one reaches and how many invoke edges only one
has. Methods are compared by their signature (ids differ between builds).

Exit status: 0 success; 1 a report unreadable or not a call tree report; 2 usage error.";

fn main() -> ExitCode {
    let (a, b) = match parse_args() {
        Ok(Some(paths)) => paths,
        Ok(None) => return ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let load_named = |path: &str| load(Path::new(path)).map_err(|e| format!("{path}: {e}"));
    let graphs = load_named(&a).and_then(|ga| Ok((ga, load_named(&b)?)));
    let (ga, gb) = match graphs {
        Ok(graphs) => graphs,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let diff = CallTreeDiff::new(&ga, &gb);
    let json = serde_json::json!({
        "methods": { "only_in_a": diff.methods_only_in_a, "only_in_b": diff.methods_only_in_b },
        "entry_points": { "only_in_a": diff.entry_points_only_in_a, "only_in_b": diff.entry_points_only_in_b },
        "edges": { "only_in_a": diff.edges_only_in_a.len(), "only_in_b": diff.edges_only_in_b.len() },
    });
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

/// The two reports, or `None` after `--help`/`--version`.
fn parse_args() -> Result<Option<(String, String)>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut paths = Vec::new();
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
            Value(value) if paths.len() < 2 => paths.push(value.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    let mut paths = paths.into_iter();
    match (paths.next(), paths.next()) {
        (Some(a), Some(b)) => Ok(Some((a, b))),
        (Some(_), None) => Err("missing B".into()),
        _ => Err("missing A and B".into()),
    }
}

/// Reads a TXT report, or the CSV report `path` is one file of.
fn load(path: &Path) -> Result<CallGraph, String> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let parsed = ReportFileName::parse(name);
    let Some(ReportFileName {
        kind: ReportKind::CallTreeCsv(this),
        ..
    }) = parsed
    else {
        let bytes = read_input(&path.to_string_lossy())?;
        return CallGraph::parse_txt(&bytes).map_err(|e| e.to_string());
    };
    // A CSV report: read the sibling files that share this one's prefix and suffix.
    let dir = path.parent().unwrap_or(Path::new("."));
    let prefix = if parsed.is_some_and(|p| p.csv_prefix) {
        "csv_"
    } else {
        ""
    };
    let suffix = name
        .strip_prefix(prefix)
        .and_then(|n| n.strip_prefix(this.stem()))
        .unwrap_or_default();
    let mut files = HashMap::new();
    for file in CsvFile::ALL {
        let sibling = dir.join(format!("{prefix}{}{suffix}", file.stem()));
        match std::fs::read(&sibling) {
            Ok(bytes) => {
                files.insert(file, bytes);
            }
            // A missing sibling is the decoder's to report (not every layout has every file).
            Err(error) if error.kind() == io::ErrorKind::NotFound && file != this => {}
            Err(error) => return Err(format!("{}: {error}", sibling.display())),
        }
    }
    CallGraph::read_csv(|file| files.get(&file).map(Vec::as_slice)).map_err(|e| e.to_string())
}
