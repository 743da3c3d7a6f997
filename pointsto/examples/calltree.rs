//! Counts what a call tree TXT report (or a fragment of one) holds, as one JSON object:
//!
//! ```text
//! calltree FILE
//! cargo run -p pointsto --example calltree -- tests/data/generated/call_tree_hello_20240918_120000.txt
//! ```
//!
//! Every line is checked (tree prefixes, line shapes, UTF-8, a last line cut off before its
//! line break); a file with no tree line is an error. Exit status: 0 on success, 1 when the
//! file cannot be read or is not a call tree report (`error: FILE: LINE:COLUMN: …`), 2 on a
//! usage error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashSet;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use pointsto::call_tree::txt::{CallTreeLine, IdTag, NodeKind, Reader};

#[path = "common/mod.rs"]
mod common;
use common::{line_progress, read_input};

const NAME: &str = "calltree";
const USAGE: &str = "\
usage: calltree [-h | --help] [--version] FILE

Counts the entry points, methods, calls, overrides and id-refs of a call tree TXT report
(`call_tree_*.txt`, or a fragment of one) and prints them as one JSON object.

Exit status: 0 success; 1 FILE unreadable or not a call tree report; 2 usage error.";

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
    let (mut entry_points, mut direct, mut virtual_calls, mut interface, mut overrides) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut id_refs, mut max_depth, mut lines) = (0u64, 0u64, 0u64);
    let mut methods = HashSet::new();
    // A line without a tree prefix continues an entry's multi-line parsing reason, so it may
    // only follow an entry with a reason or another such line.
    let mut reason_open = false;
    let bar = line_progress(len);
    for line in Reader::from_bytes(bytes) {
        let (number, line) = line.map_err(|e| e.to_string())?;
        lines += 1;
        if number % 65_536 == 0 {
            bar.set_position(number);
        }
        let node = match line {
            CallTreeLine::Node(node) => node,
            CallTreeLine::Continuation(text) if !reason_open => {
                return Err(format!(
                    "{number}:1: expected a tree line, or the continuation of an entry's parsing \
                     reason after it, found {:?}",
                    text.chars().take(80).collect::<String>()
                ));
            }
            CallTreeLine::Continuation(_) => continue,
            CallTreeLine::Header | CallTreeLine::Empty => {
                reason_open = false;
                continue;
            }
        };
        reason_open = matches!(
            node.kind,
            NodeKind::Entry {
                reason: Some(_),
                ..
            }
        );
        max_depth = max_depth.max(node.depth as u64);
        match node.kind {
            NodeKind::Entry { .. } => entry_points += 1,
            NodeKind::DirectCall { .. } => direct += 1,
            NodeKind::VirtualCall { .. } => virtual_calls += 1,
            NodeKind::InterfaceCall { .. } => interface += 1,
            NodeKind::OverriddenBy { .. } | NodeKind::ImplementedBy { .. } => overrides += 1,
            // Line kinds of report versions this example does not know yet.
            _ => {}
        }
        match node.kind.id_tag() {
            Some(IdTag::Id(id)) => {
                methods.insert(id);
            }
            Some(IdTag::IdRef(_)) => id_refs += 1,
            None => {}
        }
    }
    bar.finish_and_clear();
    let nodes = entry_points + direct + virtual_calls + interface + overrides;
    if nodes == 0 {
        return Err(format!(
            "{}:1: expected a tree line (`├── entry …`), found the end of the input",
            lines + 1
        ));
    }
    Ok(serde_json::json!({
        "entry_points": entry_points,
        "methods": methods.len(),
        "direct_calls": direct,
        "virtual_calls": virtual_calls,
        "interface_calls": interface,
        "overrides": overrides,
        "id_refs": id_refs,
        "max_depth": max_depth,
    }))
}
