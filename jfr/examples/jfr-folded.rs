//! Folded stacks of one event type of a JDK Flight Recorder recording, for flame graphs:
//! one line per distinct stack, `outermost;…;innermost weight`, frames named
//! `package.Class.method`. The weight is a count for samples, bytes for allocation events
//! and nanoseconds for monitor enter/wait and thread parks.
//!
//! ```sh
//! cargo run --release -p jfr-format --example jfr-folded -- FILE --event jdk.ExecutionSample
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use std::io::Write;
use std::process::ExitCode;

use common::Out;
use jfr::profile::Profile;

const USAGE: &str = "\
usage: jfr-folded --event TYPE FILE

Prints the folded stacks of the events of TYPE (`jdk.ExecutionSample`, or `ExecutionSample`)
in a JDK Flight Recorder recording: `outermost;...;innermost weight` per line. The weight is
a count for samples, bytes for allocation events, nanoseconds for jdk.JavaMonitorEnter,
jdk.JavaMonitorWait and jdk.ThreadPark.

options:
  --event TYPE  the event type (required)
  -h, --help    print this help
  --version     print the version
";

fn main() -> ExitCode {
    let mut path: Option<String> = None;
    let mut event: Option<String> = None;
    let mut args = lexopt::Parser::from_env();
    loop {
        let arg = match args.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return common::usage_error(USAGE, e),
        };
        if let Some(exit) = common::standard_flag(
            &arg,
            "jfr-folded",
            &format!("{USAGE}\n{}", common::EXIT_STATUS),
        ) {
            return exit;
        }
        match arg {
            lexopt::Arg::Long("event") => match args.value().map(lexopt::ValueExt::string) {
                Ok(Ok(v)) if !v.is_empty() => event = Some(v),
                _ => return common::usage_error(USAGE, "--event needs an event type"),
            },
            lexopt::Arg::Value(v) if path.is_none() => path = Some(v.to_string_lossy().into()),
            other => return common::usage_error(USAGE, other.unexpected()),
        }
    }
    let (Some(path), Some(event)) = (path, event) else {
        return common::usage_error(USAGE, "missing FILE or --event TYPE");
    };
    let event = if event.contains('.') {
        event
    } else {
        format!("jdk.{event}")
    };
    let mut profile = Profile::new(&event);
    let result = common::for_each_chunk(&path, |chunk| Ok(profile.add_chunk(chunk).err()));
    let (any, stop) = match result {
        Err(e) => return common::file_error(&path, e),
        Ok(Err(Out::Closed)) => return ExitCode::SUCCESS,
        Ok(Err(Out::Failed(e))) => return common::file_error("<stdout>", e),
        Ok(Ok(r)) => r,
    };
    if let (false, Some(stop)) = (any, &stop) {
        return common::file_error(&path, stop);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = profile
        .folded_lines()
        .try_for_each(|line| writeln!(out, "{line}"));
    match written.and_then(|()| out.flush()).map_err(Out::from) {
        Err(Out::Closed) => ExitCode::SUCCESS,
        Err(Out::Failed(e)) => common::file_error("<stdout>", e),
        Ok(()) => match stop {
            Some(stop) => common::partial(&path, stop),
            None => ExitCode::SUCCESS,
        },
    }
}
