//! `cargo run -p pointsto --example calltree-diff A B`: the methods and entry points that only
//! one of two call tree reports reaches, as JSON (plus the invoke edges only one has).
//!
//! A and B are call tree TXT reports, or any one file of a CSV call tree report (its sibling
//! files are found by name in the same directory).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::Path;

use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;
use pointsto::diff::CallTreeDiff;
use pointsto::file_name::{ReportFileName, ReportKind};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [a, b] = args.as_slice() else {
        eprintln!("usage: calltree-diff A B");
        return std::process::ExitCode::from(2);
    };
    let graphs = load(Path::new(a)).and_then(|ga| Ok((ga, load(Path::new(b))?)));
    match graphs {
        Ok((ga, gb)) => {
            let diff = CallTreeDiff::new(&ga, &gb);
            let json = serde_json::json!({
                "methods": { "only_in_a": diff.methods_only_in_a, "only_in_b": diff.methods_only_in_b },
                "entry_points": { "only_in_a": diff.entry_points_only_in_a, "only_in_b": diff.entry_points_only_in_b },
                "edges": { "only_in_a": diff.edges_only_in_a.len(), "only_in_b": diff.edges_only_in_b.len() },
            });
            println!("{json}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn load(path: &Path) -> Result<CallGraph, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
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
        let bytes = read(path)?;
        return CallGraph::parse_txt(&bytes).map_err(|e| format!("{}:{e}", path.display()));
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
    let mut files = std::collections::HashMap::new();
    for file in CsvFile::ALL {
        let sibling = dir.join(format!("{prefix}{}{suffix}", file.stem()));
        if let Ok(bytes) = std::fs::read(&sibling) {
            files.insert(file, bytes);
        }
    }
    CallGraph::parse_csv(|file| files.get(&file).map(Vec::as_slice))
        .map_err(|e| format!("{}: {e}", path.display()))
}
