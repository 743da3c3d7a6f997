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

/// Opens the experiment directory `dir`, or exits 1 saying why.
pub(crate) fn open(dir: &str) -> Experiment<FsSource> {
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
    match Experiment::open(FsSource(path.to_path_buf())) {
        Ok(e) => e,
        Err(e) => fail(dir, &e),
    }
}

/// Reports where `exp` (at `dir`) was cut short on stderr; true when it was: a data file
/// cut, or a log without an exit event (the collector stopped before the program ended, so
/// the data ends there too: what `Experiment::incomplete` says).
pub(crate) fn report_partial<S: experiment::Source>(dir: &str, exp: &Experiment<S>) -> bool {
    let cut = match exp.truncations() {
        Ok(t) => t,
        Err(e) => fail(dir, &e),
    };
    for e in &cut {
        let at = located(dir, e);
        match at.split_once(": ") {
            Some((path, why)) => eprintln!("warning: {path}: partial: {why}"),
            None => eprintln!("warning: {at}"),
        }
    }
    let log = exp.log();
    let unfinished = !log.has_exit() && !log.has_exec();
    if unfinished {
        eprintln!(
            "warning: {dir}/log.xml: partial: no exit event: the collector stopped before the \
             program ended (killed, or still running), and the data ends there"
        );
    }
    !cut.is_empty() || unfinished
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

/// Reads a load object from where map.xml says it was (regular files of sane size only:
/// libjvm.so is about 24 MB).
pub(crate) fn load_object(path: &str) -> Option<experiment::bytes::Bytes> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 30 {
        return None;
    }
    std::fs::read(path).ok().map(Into::into)
}
