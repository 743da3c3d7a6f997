//! Reads call-context strings, one per line, and describes each:
//!
//! ```text
//! ok<TAB>depth<TAB>innermost<TAB>outermost<TAB>canonical
//! err<TAB>byte_offset<TAB>message
//! ```
//!
//! Input is the files named as arguments, or standard input (`-`, or no argument); with no
//! argument and a terminal on standard input, it reads the real contexts bundled in
//! `callctx/tests/data/demo.txt`. Every line is described; a file with a line that is not a
//! context, or with no line at all, then ends with `error: FILE: …` and exit status 1.
//!
//! ```sh
//! cargo run --release -p callctx --example ctx
//! printf '5:0<3:2<2:2<1:3\n5:0<\n' | cargo run -p callctx --example ctx
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, BufRead, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use callctx::Context;
use indicatif::{ProgressBar, ProgressStyle};

const NAME: &str = "ctx";
const USAGE: &str = "\
usage: ctx [-h | --help] [--version] [FILE | -]...

Describes each line of each FILE (standard input for `-` or no FILE) as a call context
`method:bci<method:bci…` (innermost first):
  ok<TAB>depth<TAB>innermost<TAB>outermost<TAB>canonical
  err<TAB>byte_offset<TAB>message
With no FILE and a terminal on standard input, describes a few bundled real contexts.

Exit status: 0 every line is a context; 1 a FILE is unreadable, empty, or has a line that is
not a context (`error: FILE: line N: …` after the descriptions); 2 usage error.";

const DEMO: &str = include_str!("../tests/data/demo.txt");

/// Inputs at least this big show progress on a terminal.
const PROGRESS_FROM: u64 = 64 << 20;

/// What went wrong with one input.
enum Failure {
    /// Writing to standard output failed (a closed pipe ends the program quietly).
    Output(io::Error),
    /// The input could not be read, or is not call contexts: `error: NAME: reason`.
    Input(String),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Output(error)
    }
}

/// The lines seen and the first one rejected.
#[derive(Default)]
struct Tally {
    lines: u64,
    rejected: u64,
    first: Option<(u64, callctx::Error)>,
}

fn describe(number: u64, line: &[u8], out: &mut impl Write, tally: &mut Tally) -> io::Result<()> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    tally.lines += 1;
    match Context::parse_bytes(line) {
        Ok(ctx) => writeln!(
            out,
            "ok\t{}\t{}\t{}\t{}",
            ctx.len(),
            ctx.innermost(),
            ctx.outermost(),
            ctx
        ),
        Err(err) => {
            tally.rejected += 1;
            writeln!(out, "err\t{}\t{}", err.offset, err)?;
            tally.first.get_or_insert((number, err));
            Ok(())
        }
    }
}

/// Describes every line of `input`; `len` is its size when known, for progress.
fn run(input: &mut dyn BufRead, len: u64, out: &mut impl Write) -> Result<(), Failure> {
    let bar = progress(len);
    let mut tally = Tally::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::Input(e.to_string()))?;
        if n == 0 {
            break;
        }
        bar.inc(n as u64);
        describe(tally.lines + 1, &line, out, &mut tally)?;
    }
    bar.finish_and_clear();
    match tally.first {
        _ if tally.lines == 0 => Err(Failure::Input(
            "line 1: expected a call context, found the end of the input".into(),
        )),
        Some((number, err)) => Err(Failure::Input(format!(
            "line {number}: {err} ({} of {} lines are not call contexts)",
            tally.rejected, tally.lines
        ))),
        None => Ok(()),
    }
}

/// A progress bar over `len` bytes on stderr, hidden unless stderr is a terminal and the input
/// is big.
fn progress(len: u64) -> ProgressBar {
    if len < PROGRESS_FROM || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{wide_bar} {bytes}/{total_bytes} {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(len).with_style(style)
}

/// The inputs, or `None` after `--help`/`--version`.
fn parse_args() -> Result<Option<Vec<String>>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut files = Vec::new();
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
            Value(value) => files.push(value.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Some(files))
}

/// Describes one named input (`-` is standard input).
fn run_file(path: &str, out: &mut impl Write) -> Result<(), Failure> {
    if path == "-" {
        return run(&mut io::stdin().lock(), 0, out);
    }
    let mut file = std::fs::File::open(path).map_err(|e| Failure::Input(e.to_string()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len < PROGRESS_FROM {
        // Small files are read whole: a read error then never follows printed lines.
        let mut text = Vec::new();
        file.read_to_end(&mut text)
            .map_err(|e| Failure::Input(e.to_string()))?;
        return run(&mut text.as_slice(), 0, out);
    }
    run(&mut io::BufReader::with_capacity(1 << 20, file), len, out)
}

fn main() -> ExitCode {
    let files = match parse_args() {
        Ok(Some(files)) => files,
        Ok(None) => return ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut status = ExitCode::SUCCESS;
    let inputs: Vec<&str> = if files.is_empty() {
        vec!["-"]
    } else {
        files.iter().map(String::as_str).collect()
    };
    for path in inputs {
        let result = if files.is_empty() && io::stdin().is_terminal() {
            run(&mut DEMO.as_bytes(), 0, &mut out)
        } else {
            run_file(path, &mut out)
        };
        match result.and_then(|()| out.flush().map_err(Failure::Output)) {
            Ok(()) => {}
            Err(Failure::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
                return ExitCode::SUCCESS;
            }
            Err(Failure::Output(error)) => {
                eprintln!("error: writing the descriptions: {error}");
                return ExitCode::FAILURE;
            }
            Err(Failure::Input(reason)) => {
                // The descriptions printed so far come first, then the error.
                if let Err(error) = out.flush() {
                    if error.kind() == io::ErrorKind::BrokenPipe {
                        return ExitCode::SUCCESS;
                    }
                }
                eprintln!("error: {path}: {reason}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
