//! `heap-diff BASELINE CURRENT`: what grew between two heap dumps, class by class, as JSON
//! lines (or a table with `--text`).
//!
//! ```sh
//! cargo run --release -p hprof-format --example heap-diff -- hprof/tests/data/leak/baseline.hprof hprof/tests/data/leak/current.hprof --text
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr, unsafe_code)]

mod common;

/// Huge pages for the graph's large arrays (see `common::huge_pages`).
#[global_allocator]
static ALLOCATOR: common::huge_pages::HugePages = common::huge_pages::HugePages;

use std::io::Write;
use std::process::ExitCode;

use hprof::binary::diff::{Census, ClassCount, ClassDelta, HeapDiff};
use hprof::binary::graph::{Graph, NodeClasses, Options};
use hprof::binary::incremental::Decoder;
use lexopt::ValueExt;

const USAGE: &str = "\
usage: heap-diff [--shallow-only] [--top N] [--text] [--scratch DIR] [--threads N] BASELINE CURRENT

Compares two binary HPROF heap dumps class by class (classes matched by name, arrays by
element type) and prints JSON lines, the largest growth first:
  {\"class\", \"loader\" (when a dump has several classes of that name: {\"class\", \"ordinal\"}
   of the loader that defined it), \"delta_instances\", \"delta_shallow\", \"delta_retained\",
   \"baseline\": {\"instances\", \"shallow\", \"retained\"} or null, \"current\": {...} or null}
  then one line per GC-root kind {\"root_kind\", \"baseline\", \"current\", \"delta\"}
  and last {\"total\": {\"delta_instances\", \"delta_shallow\", \"delta_retained\", \"baseline\", \"current\"}}.
By default both dumps' graphs are built (memory-mapped): instances and bytes of the objects
in each dominator tree (the reachable ones), with each class's retained size.

options:
  --shallow-only  stream both dumps through the histogram instead (every object, bounded
                  memory whatever the size, gzip accepted; no retained sizes)
  --top N         list only the N classes that grew the most (default: all)
  --text          a table for people instead of JSON lines
  --scratch DIR   keep the graphs' working arrays (references while building, each
                  object's class, the dominator trees' children) in files under DIR that
                  the kernel may page out: memory then holds about 21 bytes per object
  --threads N     decode the references on N threads (default: as many as the
                  machine has cores); the answer is the same
  -h, --help      print this help
  --version       print the version
";

struct Args {
    scratch: Option<String>,
    threads: usize,
    baseline: String,
    current: String,
    shallow_only: bool,
    top: Option<usize>,
    text: bool,
}

fn parse_args() -> Result<Args, ExitCode> {
    let usage = usage();
    let mut parser = lexopt::Parser::from_env();
    let (mut files, mut shallow_only, mut top, mut text) = (Vec::new(), false, None, false);
    let mut scratch = None;
    let mut threads = common::default_threads();
    loop {
        let arg = match parser.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(common::usage_error(&usage, e)),
        };
        if let Some(exit) = common::standard_flag(&arg, "heap-diff", &usage) {
            return Err(exit);
        }
        match arg {
            lexopt::Arg::Long("shallow-only") => shallow_only = true,
            lexopt::Arg::Long("text") => text = true,
            lexopt::Arg::Long("threads") => threads = common::threads(&mut parser, &usage)?,
            lexopt::Arg::Long("scratch") => match parser.value() {
                Ok(v) => scratch = Some(v.to_string_lossy().into_owned()),
                Err(e) => return Err(common::usage_error(&usage, e)),
            },
            lexopt::Arg::Long("top") => match parser.value().map(|v| v.parse::<usize>()) {
                Ok(Ok(n)) => top = Some(n),
                _ => return Err(common::usage_error(&usage, "--top needs a number")),
            },
            lexopt::Arg::Value(v) if files.len() < 2 => files.push(v.to_string_lossy().into()),
            other => return Err(common::usage_error(&usage, other.unexpected())),
        }
    }
    let mut files = files.into_iter();
    match (files.next(), files.next()) {
        (Some(baseline), Some(current)) => Ok(Args {
            scratch,
            threads,
            baseline,
            current,
            shallow_only,
            top,
            text,
        }),
        _ => Err(common::usage_error(&usage, "expected BASELINE and CURRENT")),
    }
}

fn usage() -> String {
    format!("{USAGE}\n{}", common::EXIT_STATUS)
}

/// Streams `path` into a census; `Err` is the `error: PATH: …` exit, `Ok((census, partial))`.
fn census(path: &str) -> Result<(Census, Option<String>), ExitCode> {
    let mut input = common::Input::open(path).map_err(|e| common::file_error(path, e))?;
    let mut decoder = Decoder::new();
    if let Some(len) = input.len {
        decoder = decoder.input_len(len);
    }
    let mut census = Census::default();
    // A file that maps is decoded from the map (as `histogram` does); gzip is streamed.
    let mapped = match (input.gzip, input.len) {
        (false, Some(1..)) => common::mapped::map(path),
        _ => None,
    };
    let stop = match mapped {
        Some(map) => {
            let range = (0, map.len());
            let progress = |pos| input.progress(pos);
            let decode = |d: &mut Decoder, b: &[u8], v: &mut _| d.decode_with(b, v);
            common::mapped::mapped(&map, range, &mut decoder, &mut census, progress, decode)
                .err()
                .map(common::Stop::Decode)
        }
        None => common::stream(&mut input.reader, &mut decoder, |d, buf| {
            d.decode_with(buf, &mut census)
        })
        .err(),
    };
    input.done();
    match stop {
        // Not even the header: an error, not an empty census.
        Some(stop) if !census.header_read() => Err(common::file_error(path, stop)),
        stop => Ok((census, stop.map(|s| s.to_string()))),
    }
}

/// The dump's bytes: memory-mapped.
fn map(path: &str) -> Result<memmap2::Mmap, ExitCode> {
    let file = std::fs::File::open(path).map_err(|e| common::file_error(path, e))?;
    // SAFETY: the file is only read; a file truncated by someone else while mapped would
    // fault, as with every memory-mapped reader (`common::sigbus` reports it).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| common::file_error(path, e))?;
    common::sigbus::dump(path, &map);
    Ok(map)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(exit) => return exit,
    };
    let mut partial: Vec<(String, String)> = Vec::new();
    let diff = if args.shallow_only {
        let mut sides = Vec::new();
        for path in [&args.baseline, &args.current] {
            match census(path) {
                Ok((c, stop)) => {
                    if let Some(s) = stop {
                        partial.push((path.clone(), s));
                    }
                    sides.push(c);
                }
                Err(exit) => return exit,
            }
        }
        let (Some(a), Some(b)) = (sides.first(), sides.get(1)) else {
            return ExitCode::FAILURE;
        };
        HeapDiff::of_censuses(a, b)
    } else {
        let maps = match (map(&args.baseline), map(&args.current)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(exit), _) | (_, Err(exit)) => return exit,
        };
        let files = match common::scratch_files(args.scratch.as_deref()) {
            Ok(files) => files,
            Err(exit) => return exit,
        };
        // Keep each object's class from the build: the class rows then decode nothing again.
        let mut options = Options {
            classes: NodeClasses::Keep,
            threads: args.threads,
            ..Options::default()
        };
        if let Some(files) = &files {
            options.scratch = files;
        }
        let a = match Graph::build(&maps.0, options) {
            Ok(g) => g,
            Err(e) => return common::file_error(&args.baseline, e),
        };
        let b = match Graph::build(&maps.1, options) {
            Ok(g) => g,
            Err(e) => return common::file_error(&args.current, e),
        };
        for (path, g) in [(&args.baseline, &a), (&args.current, &b)] {
            let w = g.warnings();
            if let Some(e) = &w.stopped_at {
                partial.push((path.clone(), e.to_string()));
            } else if w.roots_missing {
                partial.push((path.clone(), "no GC roots: nothing is reachable".to_owned()));
            }
        }
        HeapDiff::of_graphs(&a, &b)
    };
    let classes = match args.top {
        Some(n) => diff
            .classes
            .get(..n.min(diff.classes.len()))
            .unwrap_or_default(),
        None => &diff.classes,
    };
    let written = common::write_stdout(|out| {
        if args.text {
            write_text(out, classes, &diff)
        } else {
            write_json(out, classes, &diff)
        }
    });
    if let Err(exit) = written {
        return exit;
    }
    let mut exit = ExitCode::SUCCESS;
    for (path, why) in partial {
        exit = common::partial(&path, why);
    }
    exit
}

fn side(c: Option<ClassCount>) -> String {
    match c {
        None => "null".to_owned(),
        Some(c) => match c.retained {
            Some(r) => format!(
                r#"{{"instances":{},"shallow":{},"retained":{r}}}"#,
                c.instances, c.shallow
            ),
            None => format!(r#"{{"instances":{},"shallow":{}}}"#, c.instances, c.shallow),
        },
    }
}

/// The keys of one class (or the total) in the documented order.
fn deltas(c: &ClassDelta) -> String {
    let retained = c
        .delta_retained()
        .map(|r| format!(r#","delta_retained":{r}"#))
        .unwrap_or_default();
    format!(
        r#""delta_instances":{},"delta_shallow":{}{retained},"baseline":{},"current":{}"#,
        c.delta_instances(),
        c.delta_shallow(),
        side(c.baseline),
        side(c.current)
    )
}

fn write_json(out: &mut dyn Write, classes: &[ClassDelta], diff: &HeapDiff) -> std::io::Result<()> {
    for c in classes {
        let name = serde_json::Value::String(c.class_name.clone());
        let loader = c
            .loader
            .as_ref()
            .map(|l| {
                let class = serde_json::Value::String(l.loader_class.clone());
                format!(r#","loader":{{"class":{class},"ordinal":{}}}"#, l.ordinal)
            })
            .unwrap_or_default();
        writeln!(out, r#"{{"class":{name}{loader},{}}}"#, deltas(c))?;
    }
    for r in &diff.roots {
        let delta = i128::from(r.current) - i128::from(r.baseline);
        writeln!(
            out,
            r#"{{"root_kind":"{}","baseline":{},"current":{},"delta":{delta}}}"#,
            r.kind, r.baseline, r.current
        )?;
    }
    writeln!(out, r#"{{"total":{{{}}}}}"#, deltas(&diff.total))
}

fn write_text(out: &mut dyn Write, classes: &[ClassDelta], diff: &HeapDiff) -> std::io::Result<()> {
    let retained = diff.total.delta_retained().is_some();
    if retained {
        writeln!(
            out,
            "{:>14} {:>14} {:>12}  class",
            "Δ retained", "Δ shallow", "Δ instances"
        )?;
    } else {
        writeln!(out, "{:>14} {:>12}  class", "Δ shallow", "Δ instances")?;
    }
    for c in classes.iter().chain([&diff.total]) {
        let mut note = match (c.baseline, c.current) {
            (None, Some(_)) => "  (new)",
            (Some(_), None) => "  (gone)",
            _ => "",
        }
        .to_owned();
        if let Some(l) = &c.loader {
            note = format!("  (loader {l}){note}");
        }
        match c.delta_retained() {
            Some(r) if retained => writeln!(
                out,
                "{r:>+14} {:>+14} {:>+12}  {}{note}",
                c.delta_shallow(),
                c.delta_instances(),
                c.class_name
            )?,
            _ => writeln!(
                out,
                "{:>+14} {:>+12}  {}{note}",
                c.delta_shallow(),
                c.delta_instances(),
                c.class_name
            )?,
        }
    }
    Ok(())
}
