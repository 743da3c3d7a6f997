//! `hprof-txt FILE [--rewrite OUT]`: reads an HPROF ASCII report (`java.hprof.txt`) and prints
//! one JSON object with its counts (summed over repeated dumps); with `--rewrite OUT`, also
//! writes the re-emitted text to OUT.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::indexing_slicing)]

use hprof::ascii::{CpuKind, Report};
use serde_json::json;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (file, rewrite) = match args.as_slice() {
        [file] => (file, None),
        [file, flag, out] if flag == "--rewrite" => (file, Some(out)),
        [flag, out, file] if flag == "--rewrite" => (file, Some(out)),
        _ => {
            eprintln!("usage: hprof-txt FILE [--rewrite OUT]");
            return ExitCode::from(2);
        }
    };
    let data = match std::fs::read(file) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("hprof-txt: {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (report, errors) = Report::parse_recovering(&data);
    for e in &errors {
        eprintln!("hprof-txt: {file}:{e}");
    }

    let summary = summary(&report);
    println!("{summary}");

    if let Some(out) = rewrite {
        if let Err(e) = std::fs::write(out, report.to_text()) {
            eprintln!("hprof-txt: {out}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The JSON object of the example's contract (also used by `tests/ascii_example.rs`).
pub(crate) fn summary(report: &Report) -> serde_json::Value {
    let cpu = |kind| {
        let (mut total, mut rows) = (0i64, 0usize);
        for c in report.cpu(kind) {
            total = total.saturating_add(c.begin.total);
            rows += c.rows.len();
        }
        json!({ "total": total, "rows": rows })
    };
    let (mut roots, mut classes, mut objects, mut arrays) = (0, 0, 0, 0);
    for h in report.heap_dumps() {
        let (r, c, o, a) = h.counts();
        roots += r;
        classes += c;
        objects += o;
        arrays += a;
    }
    let (mut mon_threads, mut monitors) = (0, 0);
    for m in report.monitor_dumps() {
        mon_threads += m.threads().count();
        monitors += m.monitors().count();
    }
    json!({
        "threads_started": report.threads_started().count(),
        "threads_ended": report.threads_ended().count(),
        "traces": report.traces().count(),
        "frames": report.traces().map(|t| t.frames.len()).sum::<usize>(),
        "cpu_samples": cpu(CpuKind::Samples),
        "cpu_time": cpu(CpuKind::Time),
        "sites": { "rows": report.sites().map(|s| s.rows.len()).sum::<usize>() },
        "heap_dump": { "roots": roots, "classes": classes, "objects": objects, "arrays": arrays },
        "monitor_dump": { "threads": mon_threads, "monitors": monitors },
        "monitor_time": { "rows": report.monitor_times().map(|m| m.rows.len()).sum::<usize>() },
        "truncated": report.is_truncated(),
    })
}
