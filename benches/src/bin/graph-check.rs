//! `graph-check FILE [--scratch DIR] [--path-every K] [--threads N]`: builds the heap graph of a dump and
//! checks what must hold at any size (`benches::graph_check`), printing one JSON line.
//!
//! ```sh
//! cargo run --release -p benches --bin graph-check -- /tmp/synth.hprof --scratch /tmp
//! ```
#![allow(clippy::print_stderr, unsafe_code)]

use std::fs::File;
use std::process::ExitCode;

use hprof::binary::graph::{Graph, Options};

#[path = "../../../hprof/examples/common/scratch.rs"]
mod scratch;
#[path = "../../../hprof/examples/common/sigbus.rs"]
mod sigbus;

const USAGE: &str = "\
usage: graph-check FILE [--scratch DIR] [--path-every K] [--threads N]

Builds the heap graph of FILE and checks what must hold whatever the dump: the retained
sizes of the super-root's children sum to the reachable bytes, every dominator chain
ends at the super-root, retained >= shallow, and every K-th node's path (default
1000003) is a shortest chain of references. Prints one JSON line.

options:
  --scratch DIR     keep the graph's building arrays in files under DIR
  --path-every K    check the path of every K-th node
  --threads N       build the graph on N threads (default: the machine's cores)
  -h, --help        this text
  --version         the version

exit status: 0 every check holds; 1 a check fails, or FILE is unreadable or not a dump;
2 bad arguments; 3 partial: the dump is damaged or cut short, or names no GC root, and
the checks held over what could be read (a `warning: FILE: partial: ...` line on stderr).
";

struct Args {
    path: String,
    scratch: Option<String>,
    path_every: u32,
    threads: usize,
}

fn parse_args() -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let (mut path, mut scratch, mut path_every) = (None, None, 1_000_003);
    let mut threads = std::thread::available_parallelism().map_or(1, usize::from);
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => {
                benches::print_quiet(USAGE);
                return Ok(None);
            }
            Long("version") => {
                benches::print_quiet(&format!("graph-check {}\n", env!("CARGO_PKG_VERSION")));
                return Ok(None);
            }
            Long("scratch") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                scratch = Some(v.to_string_lossy().into_owned());
            }
            Long("path-every") => {
                path_every = above_zero(&mut parser, "--path-every needs a positive number")?;
            }
            Long("threads") => {
                threads = above_zero(&mut parser, "--threads needs a number above 0")?;
            }
            Value(v) if path.is_none() => path = Some(v.to_string_lossy().into_owned()),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let path = path.ok_or("a dump FILE is needed")?;
    Ok(Some(Args {
        path,
        scratch,
        path_every,
        threads,
    }))
}

/// The next value, a number above 0, or `need` with what was found.
fn above_zero<T>(parser: &mut lexopt::Parser, need: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + Default,
{
    let v = parser.value().map_err(|e| e.to_string())?;
    v.to_str()
        .and_then(|s| s.parse().ok())
        .filter(|k| *k > T::default())
        .ok_or_else(|| format!("{need}, found {v:?}"))
}

/// The JSON line, and a `partial:` warning when the dump was damaged or had no roots.
fn run(args: &Args) -> Result<(String, Option<String>), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", args.path);
    let file = File::open(&args.path).map_err(|e| err(&e))?;
    // SAFETY: the dump is only read; a file cut by someone else while mapped would fault, as
    // with every memory-mapped reader (`sigbus` reports it).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| err(&e))?;
    sigbus::dump(&args.path, &map);
    let files = scratch::FileScratch::from_arg(args.scratch.as_deref())?;
    let mut options = Options {
        threads: args.threads,
        ..Options::default()
    };
    if let Some(files) = &files {
        options.scratch = files;
    }
    let start = std::time::Instant::now();
    let graph = Graph::build(&map, options).map_err(|e| err(&e))?;
    let built = start.elapsed().as_secs_f64();
    let s = graph.summary();
    let c = benches::graph_check::check(&graph, args.path_every).map_err(|e| err(&e))?;
    let w = graph.warnings();
    let partial = match (&w.stopped_at, w.roots_missing) {
        (Some(e), _) => Some(format!("{}: partial: {e}", args.path)),
        (None, true) => Some(format!("{}: partial: no GC roots", args.path)),
        (None, false) => None,
    };
    let line = format!(
        r#"{{"objects":{},"reachable":{},"reachable_bytes":{},"in_dominator_tree":{},"deepest_dominator_chain":{},"paths_checked":{},"build_s":{built:.1},"check_s":{:.1}}}"#,
        s.objects,
        s.reachable,
        s.reachable_bytes,
        c.in_tree,
        c.deepest,
        c.paths,
        start.elapsed().as_secs_f64() - built
    );
    Ok((line, partial))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprint!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok((line, partial)) => {
            benches::print_quiet(&format!("{line}\n"));
            match partial {
                Some(p) => {
                    eprintln!("warning: {p}");
                    ExitCode::from(3)
                }
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
