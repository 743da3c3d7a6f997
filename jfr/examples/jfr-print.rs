//! Prints every event of a JDK Flight Recorder recording as one JSON object per line, each
//! what one element of `jfr print --json`'s `recording.events` array holds:
//! `{"type": "jdk.ExecutionSample", "values": {…}}`, with the same field names, nesting and
//! value spellings, in the same order (each chunk's events by end time).
//!
//! ```sh
//! cargo run --release -p jfr-format --example jfr-print -- FILE [--events TYPE,…] [--stack-depth N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::io::Write;
use std::process::ExitCode;

use common::Out;
use jfr::json::{EventPrinter, JsonOptions};
use lexopt::ValueExt;

const USAGE: &str = "\
usage: jfr-print [--events TYPE,...] [--stack-depth N] FILE

Prints every event of a JDK Flight Recorder recording as one JSON object per line, as
`jfr print --json` prints each element of `recording.events`.

options:
  --events TYPE,...  only these event types (full name, or the name after the last dot)
  --stack-depth N    frames printed per stack trace (default 5, as `jfr print`)
  -h, --help         print this help
  --version          print the version
";

fn usage() -> String {
    format!("{USAGE}\n{}", common::EXIT_STATUS)
}

fn wanted(filter: &[String], name: &str) -> bool {
    filter.is_empty()
        || filter
            .iter()
            .any(|f| f == name || name.rsplit('.').next() == Some(f.as_str()))
}

fn main() -> ExitCode {
    let mut path: Option<String> = None;
    let mut filter: Vec<String> = Vec::new();
    let mut options = JsonOptions::default();
    let mut args = lexopt::Parser::from_env();
    loop {
        let arg = match args.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return common::usage_error(USAGE, e),
        };
        if let Some(exit) = common::standard_flag(&arg, "jfr-print", &usage()) {
            return exit;
        }
        match arg {
            lexopt::Arg::Long("events") => match args.value().map(lexopt::ValueExt::string) {
                Ok(Ok(v)) => {
                    filter.extend(v.split(',').filter(|s| !s.is_empty()).map(str::to_owned));
                }
                _ => return common::usage_error(USAGE, "--events needs a list of event types"),
            },
            lexopt::Arg::Long("stack-depth") => match args.value().map(|v| v.parse::<usize>()) {
                Ok(Ok(n)) => options.stack_depth = n,
                _ => return common::usage_error(USAGE, "--stack-depth needs a number"),
            },
            lexopt::Arg::Value(v) if path.is_none() => path = Some(v.to_string_lossy().into()),
            other => return common::usage_error(USAGE, other.unexpected()),
        }
    }
    let Some(path) = path else {
        return common::usage_error(USAGE, "missing FILE");
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line = String::new();
    let result = common::for_each_chunk(&path, |chunk| {
        // `jfr print` orders each chunk's events by their end time (stable).
        let mut events = Vec::new();
        let mut stop = None;
        for event in chunk.events() {
            match event.and_then(|e| Ok((e.start_end_ticks()?.1, e))) {
                Ok((end, e)) => {
                    if e.type_name().is_some_and(|n| wanted(&filter, n)) {
                        events.push((end, e));
                    }
                }
                Err(e) => {
                    stop = Some(e);
                    break;
                }
            }
        }
        events.sort_by_key(|(end, _)| *end);
        let mut printer = EventPrinter::new(chunk, options);
        for (_, e) in &events {
            line.clear();
            if let Err(err) = printer.write(e, &mut line) {
                out.flush()?;
                return Ok(Some(err));
            }
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        Ok(stop)
    });
    let flushed = out.flush().map_err(Out::from);
    match (result, flushed) {
        (Err(e), _) => common::file_error(&path, e),
        (Ok(Err(Out::Closed)), _) | (_, Err(Out::Closed)) => ExitCode::SUCCESS,
        (Ok(Err(Out::Failed(e))), _) | (_, Err(Out::Failed(e))) => {
            common::file_error("<stdout>", e)
        }
        (Ok(Ok((false, Some(stop)))), _) => common::file_error(&path, stop),
        (Ok(Ok((_, Some(stop)))), _) => common::partial(&path, stop),
        (Ok(Ok((_, None))), _) => ExitCode::SUCCESS,
    }
}
