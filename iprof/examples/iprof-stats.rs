//! `iprof-stats [--top N] FILE`: one JSON object of entry counts, total calls, deepest context
//! and validation findings for an `.iprof` file; `--top N` adds the N hottest methods by call
//! count, with resolved names. gzip and xz input is decompressed first. Run with `--help` for
//! the exit statuses.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use iprof::{Profile, Section};
use serde::Serialize;

const USAGE: &str = "\
usage: iprof-stats [--top N] FILE

Prints one JSON object describing the GraalVM PGO profile FILE (.iprof, also gzip- or
xz-compressed): its version, how many entries each section has, the total call count, the
deepest context, and how many validation issues of each kind it has.

options:
  --top N        also list the N methods with the most calls, with their names
  -h, --help     print this help and exit
  --version      print the version and exit

exit status: 0 success, 1 unreadable file or input that is not a valid profile
(the message gives line:column), 2 wrong usage.";

/// The most bytes a compressed profile may inflate to.
const DECOMPRESSED_LIMIT: usize = 1 << 30;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Stats {
    version: String,
    types: usize,
    methods: usize,
    call_count_profiles: usize,
    conditional_profiles: usize,
    virtual_invoke_profiles: usize,
    monitor_profiles: usize,
    sampling_profiles: usize,
    instanceof_profiles: usize,
    total_calls: i64,
    max_context_depth: usize,
    validation: BTreeMap<&'static str, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top: Option<Vec<Hot>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hot {
    id: i64,
    name: String,
    qualified_name: String,
    calls: i64,
}

struct Args {
    path: String,
    top: Option<usize>,
}

/// What the command line asks for: a run, or help/version (already printed).
enum Parsed {
    Run(Args),
    Done,
}

fn parse_args() -> Result<Parsed, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let (mut path, mut top) = (None, None);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => {
                println!("{USAGE}");
                return Ok(Parsed::Done);
            }
            Long("version") => {
                println!("iprof-stats {}", env!("CARGO_PKG_VERSION"));
                return Ok(Parsed::Done);
            }
            Long("top") => top = Some(parser.value()?.parse()?),
            Value(v) if path.is_none() => path = Some(v.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    let path = path.ok_or("missing FILE")?;
    Ok(Parsed::Run(Args { path, top }))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Parsed::Run(args)) => args,
        Ok(Parsed::Done) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let path = &args.path;
    let json = match stats_json(&args) {
        Ok(json) => json,
        Err(reason) => {
            eprintln!("error: {path}: {reason}");
            return ExitCode::from(1);
        }
    };
    // The whole document is built before anything is written; a reader that closes the pipe
    // early (`| head -1`) ends the program quietly.
    let mut out = io::BufWriter::new(io::stdout().lock());
    match writeln!(out, "{json}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: writing the output: {e}");
            ExitCode::from(1)
        }
    }
}

/// The statistics of the file as pretty-printed JSON, or why they could not be computed.
fn stats_json(args: &Args) -> Result<String, String> {
    let bytes = std::fs::read(&args.path).map_err(|e| e.to_string())?;
    let json = iprof::decompress(&bytes, DECOMPRESSED_LIMIT).map_err(|e| e.to_string())?;
    let profile = Profile::parse(&*json).map_err(|e| e.to_string())?;
    let report = profile.validate();
    let stats = Stats {
        version: profile.version.to_string(),
        types: profile.types.len(),
        methods: profile.methods.len(),
        call_count_profiles: profile.entries(Section::CallCount).len(),
        conditional_profiles: profile.entries(Section::Conditional).len(),
        virtual_invoke_profiles: profile.entries(Section::VirtualInvoke).len(),
        monitor_profiles: profile.entries(Section::Monitor).len(),
        sampling_profiles: profile.entries(Section::Sampling).len(),
        instanceof_profiles: profile.entries(Section::Instanceof).len(),
        total_calls: profile.total_calls(),
        max_context_depth: profile.max_context_depth(),
        validation: report
            .all_counts()
            .into_iter()
            .map(|(kind, n)| (kind.name(), n))
            .collect(),
        top: args.top.map(|n| hottest(&profile, n)),
    };
    serde_json::to_string_pretty(&stats).map_err(|e| e.to_string())
}

/// The `n` methods with the most calls, with their names.
fn hottest(profile: &Profile<'_>, n: usize) -> Vec<Hot> {
    let names = profile.names();
    profile
        .hottest_methods(n)
        .into_iter()
        .map(|h| Hot {
            id: h.method,
            name: names.short_method(h.method),
            qualified_name: names.qualified_method(h.method),
            calls: h.calls,
        })
        .collect()
}
