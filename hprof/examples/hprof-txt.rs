//! `hprof-txt [--rewrite OUT] FILE`: reads an HPROF ASCII report (`java.hprof.txt`, or
//! gzip-compressed) and prints one JSON object with its counts (summed over repeated dumps);
//! with `--rewrite OUT`, also writes the re-emitted text to OUT.
//!
//! A report cut off mid-section (an agent killed while writing) or with malformed lines is
//! read as far as it goes: the JSON says `"partial": true` and lists the problems, each is
//! reported as `warning: FILE: partial: …` on stderr, and the exit status is 3.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::indexing_slicing)]

mod common;

use hprof::ascii::{CpuKind, Item, Report, Section, Truncation};
use serde_json::json;
use std::process::ExitCode;

const USAGE: &str = "\
usage: hprof-txt [--rewrite OUT] FILE

Reads an HPROF ASCII report (java.hprof.txt; FILE may be gzip-compressed) and prints one JSON
object with its counts, summed over repeated dumps.

options:
  --rewrite OUT  also write the re-emitted report text to OUT
  -h, --help     print this help
  --version      print the version
";

fn main() -> ExitCode {
    let mut file: Option<String> = None;
    let mut rewrite: Option<String> = None;
    let usage = format!("{USAGE}\n{}", common::EXIT_STATUS);
    let mut args = lexopt::Parser::from_env();
    loop {
        let arg = match args.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return common::usage_error(USAGE, e),
        };
        if let Some(exit) = common::standard_flag(&arg, "hprof-txt", &usage) {
            return exit;
        }
        match arg {
            lexopt::Arg::Long("rewrite") => match args.value() {
                Ok(v) => rewrite = Some(v.to_string_lossy().into()),
                Err(e) => return common::usage_error(USAGE, e),
            },
            lexopt::Arg::Value(v) if file.is_none() => file = Some(v.to_string_lossy().into()),
            other => return common::usage_error(USAGE, other.unexpected()),
        }
    }
    let Some(file) = file else {
        return common::usage_error(USAGE, "missing FILE");
    };
    let data = match common::Input::open(&file).and_then(common::Input::read_all) {
        Ok(d) => d,
        Err(e) => return common::file_error(&file, e),
    };
    let (report, errors) = Report::parse_recovering(&data);
    // Nothing that makes a report (empty, another format): an error, not a zeroed summary.
    let recognised = report.items.iter().any(|i| {
        !matches!(
            i,
            Item::Prelude(_) | Item::Separator | Item::Blank | Item::Unparsed(_)
        )
    });
    if !recognised {
        return match errors.first() {
            Some(e) => common::file_error(&file, format_args!("not an HPROF ASCII report: {e}")),
            None => common::file_error(
                &file,
                "not an HPROF ASCII report: no header, trace or section found",
            ),
        };
    }
    let mut problems: Vec<String> = errors.iter().map(ToString::to_string).collect();
    if let Some(t) = &report.truncation {
        problems.push(truncation(t));
    }
    let mut summary = summary(&report);
    summary["partial"] = json!(!problems.is_empty());
    summary["problems"] = json!(problems);
    let text = summary.to_string();

    if let Some(out) = &rewrite {
        if let Err(e) = std::fs::write(out, report.to_text()) {
            return common::file_error(out, e);
        }
    }
    if let Err(exit) = common::write_stdout(|out| writeln!(out, "{text}")) {
        return exit;
    }
    if problems.is_empty() {
        return ExitCode::SUCCESS;
    }
    for p in &problems {
        eprintln!("warning: {file}: partial: {p}");
    }
    ExitCode::from(common::EXIT_PARTIAL)
}

/// Where and how the report ends early.
fn truncation(t: &Truncation<String>) -> String {
    let section = match t.open_section {
        None => None,
        Some(Section::Prelude) => Some("the prelude"),
        Some(Section::HeapDump) => Some("a HEAP DUMP section (no HEAP DUMP END)"),
        Some(Section::Sites) => Some("a SITES section (no SITES END)"),
        Some(Section::Cpu(CpuKind::Samples)) => Some("a CPU SAMPLES section (no CPU SAMPLES END)"),
        Some(Section::Cpu(CpuKind::Time)) => Some("a CPU TIME section (no CPU TIME END)"),
        Some(Section::MonitorDump) => Some("a MONITOR DUMP section (no MONITOR DUMP END)"),
        Some(Section::MonitorTime) => Some("a MONITOR TIME section (no MONITOR TIME END)"),
    };
    let mut s = String::from("the report ends early");
    if let Some(section) = section {
        s.push_str(" inside ");
        s.push_str(section);
    }
    if let Some(line) = &t.partial_line {
        s.push_str(&format!(
            "; its last line is cut off ({} byte(s), not read): {line:?}",
            line.len()
        ));
    }
    s
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
        let n = h.counts();
        roots += n.roots;
        classes += n.classes;
        objects += n.instances;
        arrays += n.arrays;
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
