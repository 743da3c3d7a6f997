#![allow(dead_code)]
//! What every example of this crate does the same way: opening the experiment named on the
//! command line, reporting errors as `error: PATH: reason`, partial input as
//! `warning: PATH: partial: …` (exit 3), and writing through a closed pipe quietly.

use crate::fs_source::FsSource;
use experiment::{Error, Experiment};
use std::io::Write;
use std::path::Path;

/// Exit status of a run whose input was cut short but salvaged.
pub(crate) const PARTIAL: i32 = 3;

/// Prints `error: PATH: reason` (the path of the file inside the experiment when the error
/// names one) and exits 1.
pub(crate) fn fail(dir: &str, e: &Error) -> ! {
    eprintln!("error: {}", located(dir, e));
    std::process::exit(1)
}

/// `PATH: reason`, PATH being the file inside the experiment `dir` when the error names one.
pub(crate) fn located(dir: &str, e: &Error) -> String {
    match e {
        Error::File { file, source } => format!("{}: {source}", join(dir, file)),
        Error::Read { path, reason } => format!("{}: {reason}", join(dir, path)),
        e => format!("{dir}: {e}"),
    }
}

/// `dir/file`.
pub(crate) fn join(dir: &str, file: &str) -> String {
    format!("{}/{file}", dir.trim_end_matches('/'))
}

/// Opens the experiment directory `dir` (load objects looked for as gprofng does), or exits 1
/// saying why.
pub(crate) fn open(dir: &str) -> Experiment<FsSource> {
    open_with(dir, &[], false)
}

/// Opens the experiment directory `dir`, or exits 1 saying why. Load objects it does not
/// archive are looked for in gprofng's search path (`dir`'s parent folder, the current folder)
/// and then in each of `search_path`, before their recorded path; with `archives_only`, only
/// in the experiment's `archives/`.
pub(crate) fn open_with(
    dir: &str,
    search_path: &[String],
    archives_only: bool,
) -> Experiment<FsSource> {
    let path = Path::new(dir);
    match std::fs::metadata(path) {
        Err(e) => {
            eprintln!("error: {dir}: {e}");
            std::process::exit(1)
        }
        Ok(m) if !m.is_dir() => {
            eprintln!(
                "error: {dir}: not an experiment directory (expected a directory holding log.xml)"
            );
            std::process::exit(1)
        }
        Ok(_) => {}
    }
    let mut source = FsSource::new(path);
    for folder in search_path {
        source = source.with_search_path(folder);
    }
    if archives_only {
        source = source.archives_only();
    }
    match Experiment::open(source) {
        Ok(e) => e,
        Err(e) => fail(dir, &e),
    }
}

/// Reports on stderr why `exp` (at `dir`) is partial (`warning: PATH: partial: why`, PATH
/// being the damaged file): a file cut or damaged, or a log without an exit event (the
/// collector stopped before the program ended); true when it is (`Experiment::partial`).
pub(crate) fn report_partial<S: experiment::Source>(dir: &str, exp: &Experiment<S>) -> bool {
    let partial = exp.partial();
    for p in &partial {
        eprintln!("warning: {}: partial: {}", join(dir, p.file()), p.reason());
    }
    !partial.is_empty()
}

/// [`report_partial`] for `exp` and each of its descendants with data; true when any is
/// partial.
pub(crate) fn report_partial_all<S: experiment::Source>(dir: &str, exp: &Experiment<S>) -> bool {
    let mut partial = report_partial(dir, exp);
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        if let Ok(child) = exp.open_descendant(&d.name) {
            partial |= report_partial(&join(dir, &d.name), &child);
        }
    }
    partial
}

/// The data kind named `s` on a command line.
pub(crate) fn kind_of(s: &str) -> Option<experiment::packets::DataKind> {
    use experiment::packets::DataKind;
    Some(match s {
        "clock" => DataKind::Clock,
        "heap" => DataKind::Heap,
        "sync" => DataKind::Sync,
        "io" => DataKind::Io,
        "hwc" => DataKind::Hwc,
        _ => return None,
    })
}

/// Writes `line` and a newline; a closed pipe ends the program quietly (exit 0).
pub(crate) fn emit(out: &mut impl Write, line: &str) {
    if writeln!(out, "{line}").is_err() {
        std::process::exit(0);
    }
}

/// Flushes `out`; a closed pipe ends the program quietly.
pub(crate) fn finish(out: &mut impl Write) {
    if out.flush().is_err() {
        std::process::exit(0);
    }
}

/// Handles a `lexopt` error: `error: …` and the usage on stderr, exit 2.
pub(crate) fn usage_error(e: impl std::fmt::Display, usage: &str) -> ! {
    eprintln!("error: {e}\n{usage}");
    std::process::exit(2)
}
