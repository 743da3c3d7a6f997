//! `leak-suspects FILE`: Eclipse MAT's leak suspects of a heap dump (objects and classes that
//! retain a large share of the reachable heap, with where the memory accumulates and how it is
//! reached), or its duplicated strings, as JSON lines (a report for people with `--text`).
//!
//! ```sh
//! cargo run --release -p hprof-format --example leak-suspects -- hprof/tests/data/leak/current.hprof --text
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr, unsafe_code)]

mod common;

/// Huge pages for the graph's large arrays (see `common::huge_pages`).
#[global_allocator]
static ALLOCATOR: common::huge_pages::HugePages = common::huge_pages::HugePages;

use std::io::Write;
use std::process::ExitCode;

use hprof::binary::graph::{
    Graph, NamedLoader, NamedNode, NamedStep, NodeClasses, Options, Suspect, SuspectKind,
    SuspectOptions,
};
use lexopt::ValueExt;

const USAGE: &str = "\
usage: leak-suspects [--threshold SHARE] [--top-classes N] [--text] [--scratch DIR] [--threads N] FILE
       leak-suspects --duplicate-strings [--top N] [--text] FILE

Finds the leak suspects of a binary HPROF heap dump as Eclipse MAT defines them: single
objects retaining at least SHARE of the reachable heap (default 0.10), and classes whose
instances together do. One JSON line per suspect, largest first:
  {\"kind\": \"object\"|\"class\", \"class\", \"loader\" (when several loaders define a class of
   that name: {\"id\", \"class\"}), \"id\", \"retained\", \"share\",
   \"accumulation_point\": {\"id\", \"class\", \"retained\"},
   \"path\": [{\"id\", \"class\", \"field\"}, ...] (from a GC root to the accumulation point),
   \"top_classes\": [{\"class\", \"loader\", \"retained\"}, ...] (inside the accumulation point)}
The accumulation point is found by walking down the dominator tree from the suspect while
one child retains at least 80% of its parent: the collection whose elements hold the memory.

options:
  --threshold SHARE     the least share of the reachable heap, 0 to 1 (default 0.10)
  --top-classes N       classes listed per accumulation point (default 10)
  --duplicate-strings   instead: java.lang.String contents held by several instances,
                        {\"string\", \"count\", \"wasted_bytes\"}, most wasted bytes first
  --top N               with --duplicate-strings: how many (default 20)
  --text                a report for people instead of JSON lines
  --scratch DIR         keep the graph's working arrays (references while building, each
                        object's class, the dominator tree's children, shortest-path
                        parents) in files under DIR that the kernel may page out: memory
                        then holds about 21 bytes per object
  --threads N         decode the references on N threads (default: as many as the
                      machine has cores); the answer is the same
  -h, --help            print this help
  --version             print the version
";

struct Args {
    path: String,
    scratch: Option<String>,
    threads: usize,
    options: SuspectOptions,
    strings: bool,
    top: usize,
    text: bool,
}

fn usage() -> String {
    format!("{USAGE}\n{}", common::EXIT_STATUS)
}

fn parse_args() -> Result<Args, ExitCode> {
    let usage = usage();
    let mut parser = lexopt::Parser::from_env();
    let mut path = None;
    let mut options = SuspectOptions::default();
    let (mut strings, mut top, mut text) = (false, 20, false);
    let mut scratch = None;
    let mut threads = common::default_threads();
    loop {
        let arg = match parser.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(common::usage_error(&usage, e)),
        };
        if let Some(exit) = common::standard_flag(&arg, "leak-suspects", &usage) {
            return Err(exit);
        }
        match arg {
            lexopt::Arg::Long("threshold") => match parser.value().map(|v| v.parse::<f64>()) {
                Ok(Ok(share)) if (0.0..=1.0).contains(&share) => options.threshold = share,
                _ => {
                    return Err(common::usage_error(
                        &usage,
                        "--threshold needs a share from 0 to 1",
                    ));
                }
            },
            lexopt::Arg::Long("top-classes") => match parser.value().map(|v| v.parse::<usize>()) {
                Ok(Ok(n)) => options.top_classes = n,
                _ => return Err(common::usage_error(&usage, "--top-classes needs a number")),
            },
            lexopt::Arg::Long("top") => match parser.value().map(|v| v.parse::<usize>()) {
                Ok(Ok(n)) => top = n,
                _ => return Err(common::usage_error(&usage, "--top needs a number")),
            },
            lexopt::Arg::Long("duplicate-strings") => strings = true,
            lexopt::Arg::Long("text") => text = true,
            lexopt::Arg::Long("threads") => threads = common::threads(&mut parser, &usage)?,
            lexopt::Arg::Long("scratch") => match parser.value() {
                Ok(v) => scratch = Some(v.to_string_lossy().into_owned()),
                Err(e) => return Err(common::usage_error(&usage, e)),
            },
            lexopt::Arg::Value(v) if path.is_none() => path = Some(v.to_string_lossy().into()),
            other => return Err(common::usage_error(&usage, other.unexpected())),
        }
    }
    match path {
        Some(path) => Ok(Args {
            path,
            scratch,
            threads,
            options,
            strings,
            top,
            text,
        }),
        None => Err(common::usage_error(&usage, "missing FILE")),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(exit) => return exit,
    };
    let path = &args.path;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return common::file_error(path, e),
    };
    // SAFETY: the file is only read; a file truncated by someone else while mapped would
    // fault, as with every memory-mapped reader (`common::sigbus` reports it).
    let map = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(m) => m,
        Err(e) => return common::file_error(path, e),
    };
    common::sigbus::dump(path, &map);
    let files = match common::scratch_files(args.scratch.as_deref()) {
        Ok(files) => files,
        Err(exit) => return exit,
    };
    // The suspects' class rows use each object's class, kept from the build.
    let mut options = Options {
        classes: if args.strings {
            NodeClasses::Decode
        } else {
            NodeClasses::Keep
        },
        threads: args.threads,
        ..Options::default()
    };
    if let Some(files) = &files {
        options.scratch = files;
    }
    let graph = match Graph::build(&map, options) {
        Ok(g) => g,
        Err(e) => return common::file_error(path, e),
    };
    let written = if args.strings {
        let rows = graph.index().duplicate_strings(args.top);
        common::write_stdout(|out| {
            for r in &rows {
                let text = serde_json::Value::String(r.text.clone());
                if args.text {
                    writeln!(out, "{:>12} {:>8}  {text}", r.wasted_bytes, r.count)?;
                } else {
                    writeln!(
                        out,
                        r#"{{"string":{text},"count":{},"wasted_bytes":{}}}"#,
                        r.count, r.wasted_bytes
                    )?;
                }
            }
            Ok(())
        })
    } else {
        let suspects = graph.leak_suspects(args.options);
        let total = graph.summary().reachable_bytes;
        common::write_stdout(|out| {
            if args.text {
                writeln!(
                    out,
                    "{} leak suspects in {total} reachable bytes",
                    suspects.len()
                )?;
            }
            for (k, s) in suspects.iter().enumerate() {
                if args.text {
                    write_text(out, k + 1, s)?;
                } else {
                    writeln!(out, "{}", json(s))?;
                }
            }
            Ok(())
        })
    };
    if let Err(exit) = written {
        return exit;
    }
    let w = graph.warnings();
    if let Some(e) = &w.stopped_at {
        return common::partial(path, e);
    }
    if w.roots_missing {
        return common::partial(
            path,
            "no GC roots: the dump names objects but no root, so nothing is reachable",
        );
    }
    ExitCode::SUCCESS
}

fn node(n: &NamedNode) -> String {
    let class = serde_json::Value::String(n.class_name.clone());
    format!(
        r#"{{"id":{},"class":{class},"retained":{}}}"#,
        n.id, n.retained
    )
}

fn steps(path: &[NamedStep]) -> String {
    let items: Vec<String> = path
        .iter()
        .map(|s| {
            let class = serde_json::Value::String(s.class_name.clone());
            let field = s.via.as_ref().map_or(serde_json::Value::Null, |v| {
                serde_json::Value::String(v.to_string())
            });
            format!(r#"{{"id":{},"class":{class},"field":{field}}}"#, s.id)
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// `,"loader":{"id":…,"class":…}` where a class name is shared by several loaders' classes.
fn loader(l: Option<&NamedLoader>) -> String {
    l.map(|l| {
        let class = serde_json::Value::String(l.class_name.clone());
        format!(r#","loader":{{"id":{},"class":{class}}}"#, l.id)
    })
    .unwrap_or_default()
}

/// ` (loader CLASS@0xID)` where a class name is shared by several loaders' classes.
fn loader_text(l: Option<&NamedLoader>) -> String {
    l.map(|l| format!(" (loader {}@0x{:x})", l.class_name, l.id))
        .unwrap_or_default()
}

fn json(s: &Suspect) -> String {
    let kind = match s.kind {
        SuspectKind::Class => "class",
        _ => "object",
    };
    let class = serde_json::Value::String(s.class_name.clone());
    let id = match s.kind {
        SuspectKind::Class => String::new(),
        _ => format!(r#","id":{}"#, s.object.id),
    };
    let top: Vec<String> = s
        .top_classes
        .iter()
        .map(|t| {
            let name = serde_json::Value::String(t.class_name.clone());
            let loader = loader(t.loader.as_ref());
            format!(r#"{{"class":{name}{loader},"retained":{}}}"#, t.retained)
        })
        .collect();
    let loader = loader(s.loader.as_ref());
    format!(
        r#"{{"kind":"{kind}","class":{class}{loader}{id},"retained":{},"share":{:.4},"accumulation_point":{},"path":{},"top_classes":[{}]}}"#,
        s.retained,
        s.share,
        node(&s.accumulation_point),
        steps(&s.path),
        top.join(",")
    )
}

fn write_text(out: &mut dyn Write, k: usize, s: &Suspect) -> std::io::Result<()> {
    let loader = loader_text(s.loader.as_ref());
    let what = match s.kind {
        SuspectKind::Class => format!("The instances of {}{loader}", s.class_name),
        _ => format!("One {}{loader} @ 0x{:x}", s.class_name, s.object.id),
    };
    writeln!(
        out,
        "\nSuspect {k}: {what} retain {} bytes ({:.1}% of the reachable heap).",
        s.retained,
        s.share * 100.0
    )?;
    writeln!(
        out,
        "  The memory accumulates in one {} @ 0x{:x} ({} bytes), reached by:",
        s.accumulation_point.class_name, s.accumulation_point.id, s.accumulation_point.retained
    )?;
    for step in &s.path {
        let via = step
            .via
            .as_ref()
            .map(|v| format!("  {v}"))
            .unwrap_or_default();
        writeln!(out, "    {} @ 0x{:x}{via}", step.class_name, step.id)?;
    }
    writeln!(out, "  Inside it, by retained bytes:")?;
    for t in &s.top_classes {
        let loader = loader_text(t.loader.as_ref());
        writeln!(out, "    {:>12}  {}{loader}", t.retained, t.class_name)?;
    }
    Ok(())
}
