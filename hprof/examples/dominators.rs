//! Dominator tree and retained sizes of a binary HPROF heap dump (memory-mapped), as JSON
//! lines.
//!
//! ```sh
//! cargo run --release -p hprof-format --example dominators -- FILE [--top N] [--path ID]… [--policy ahat] [--text]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr, unsafe_code)]

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use hprof::binary::Id;
use hprof::binary::graph::{Graph, MissingRoots, Options};

mod common;

/// Huge pages for the graph's large arrays (see `common::huge_pages`).
#[global_allocator]
static ALLOCATOR: common::huge_pages::HugePages = common::huge_pages::HugePages;

const USAGE: &str = "\
usage: dominators FILE [--top N] [--path ID]... [--policy recorded|ahat]
                  [--missing-roots nothing|system-classes|unreferenced] [--text] [--timings]
                  [--scratch DIR] [--threads N]

Builds the dominator tree of a binary HPROF heap dump and prints JSON lines:
  1. {\"objects\", \"reachable\", \"unreachable\", \"roots\", \"reachable_bytes\", \"roots_missing\"}
  2. the N objects retaining the most (default 100), largest first, ties by id:
     {\"id\", \"class\", \"shallow\", \"retained\", \"retained_objects\", \"dominator\"}
     (dominator: the immediate dominator's id, null for the super-root; a class object
     has \"class\": \"java.lang.Class\" and \"class_of\": the class it stands for)
  3. per --path ID (decimal or 0x hex): {\"path_to\": ID, \"path\": [root id, ..., ID] or null,
     \"steps\": [{\"id\", \"class\", \"field\"}, ...]} (field: how the step references the next)

options:
  --top N            how many objects to list (default 100)
  --path ID          print a shortest reference path from a GC root to ID (repeatable)
  --policy ahat      Android ahat's edges and shallow sizes (default: recorded)
  --missing-roots R  what stands in for the GC roots of a dump that has none (one cut
                     before its root records): nothing (default), system-classes (the
                     boot loader's classes), unreferenced (those, then every object no
                     other object references)
  --text             a table for people instead of JSON lines
  --scratch DIR      keep the arrays needed while building (file offsets, references both
                     ways, depth-first order) in files under DIR, created and deleted as
                     needed, that the kernel may page out: memory then holds about 21 bytes
                     per object (ids, dominators, retained sizes and counts); a DIR
                     that fills up is an error naming it (exit 1)
  --threads N        decode the references on N threads (default: as many as the
                     machine has cores); the answer is the same
  --timings          print the time of each phase on stderr (CPU: the whole process)
  -h, --help         this text
  --version          the version

exit status: 0 ok; 1 unreadable or invalid file; 2 bad arguments;
3 partial: the dump is damaged or cut short, the answer covers what could be read
(a `warning: FILE: partial: ...` line on stderr says where it stopped).
";

/// The process's time on a CPU, every thread's (Linux `/proc/self/stat`, user + system in
/// 1/100 s; 0 elsewhere).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // After the command name in parentheses: state is field 3, utime 14, stime 15.
            let mut fields = s.get(s.rfind(')')? + 2..)?.split_whitespace().skip(11);
            let user: u64 = fields.next()?.parse().ok()?;
            let system: u64 = fields.next()?.parse().ok()?;
            Some(user + system)
        })
        .map_or(0.0, |ticks| ticks as f64 / 100.0)
}

struct Args {
    path: String,
    top: usize,
    paths: Vec<Id>,
    ahat: bool,
    missing_roots: MissingRoots,
    text: bool,
    timings: bool,
    scratch: Option<String>,
    threads: usize,
}

fn parse_id(s: &str) -> Option<Id> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
    .map(Id)
}

fn parse_args() -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut path = None;
    let mut top = 100;
    let mut paths = Vec::new();
    let mut ahat = false;
    let mut missing_roots = MissingRoots::Nothing;
    let mut text = false;
    let mut timings = false;
    let mut scratch = None;
    let mut threads = common::default_threads();
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => {
                print!("{USAGE}");
                return Ok(None);
            }
            Long("version") => {
                println!("dominators {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            Long("top") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                top = v
                    .to_str()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| format!("--top needs a number, found {v:?}"))?;
            }
            Long("path") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                paths.push(
                    v.to_str()
                        .and_then(parse_id)
                        .ok_or_else(|| format!("--path needs an object id, found {v:?}"))?,
                );
            }
            Long("policy") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                ahat = match v.to_str() {
                    Some("ahat") => true,
                    Some("recorded") => false,
                    _ => return Err(format!("--policy is recorded or ahat, found {v:?}")),
                };
            }
            Long("missing-roots") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                missing_roots = match v.to_str() {
                    Some("nothing") => MissingRoots::Nothing,
                    Some("system-classes") => MissingRoots::SystemClasses,
                    Some("unreferenced") => MissingRoots::Unreferenced,
                    _ => {
                        return Err(format!(
                            "--missing-roots is nothing, system-classes or unreferenced, found {v:?}"
                        ));
                    }
                };
            }
            Long("text") => text = true,
            Long("timings") => timings = true,
            Long("scratch") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                scratch = Some(v.to_string_lossy().into_owned());
            }
            Long("threads") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                threads = v
                    .to_str()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--threads needs a number above 0, found {v:?}"))?;
            }
            Value(v) if path.is_none() => {
                path = Some(
                    v.into_string()
                        .map_err(|v| format!("bad file name {v:?}"))?,
                );
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    let path = path.ok_or("missing FILE")?;
    Ok(Some(Args {
        path,
        top,
        paths,
        ahat,
        missing_roots,
        text,
        timings,
        scratch,
        threads,
    }))
}

/// Builds every output line, or the error for `error: PATH: reason`.
fn run(args: &Args) -> Result<(Vec<String>, Option<String>), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", args.path);
    let file = File::open(&args.path).map_err(|e| err(&e))?;
    let len = file.metadata().map_err(|e| err(&e))?.len();
    // SAFETY: the file is only read; a file truncated by someone else while mapped would
    // fault, as with every memory-mapped reader (`common::sigbus` reports it).
    let map;
    let data: &[u8] = if len == 0 {
        &[]
    } else {
        map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| err(&e))?;
        common::sigbus::dump(&args.path, &map);
        &map
    };
    let bar = io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        bar
    });
    let mut options = if args.ahat {
        Options::ahat()
    } else {
        Options::default()
    };
    options.missing_roots = args.missing_roots;
    options.threads = args.threads;
    let files = common::scratch::FileScratch::from_arg(args.scratch.as_deref())?;
    if let Some(files) = &files {
        options.scratch = files;
    }
    let start = std::time::Instant::now();
    let graph = Graph::build_with_progress(data, options, &mut |phase| {
        if args.timings {
            eprintln!(
                "{:8.3} s wall {:8.3} s CPU  {phase}",
                start.elapsed().as_secs_f64(),
                cpu_seconds()
            );
        }
        if let Some(bar) = &bar {
            bar.set_message(phase);
        }
    })
    .map_err(|e| err(&e))?;
    if args.timings {
        eprintln!(
            "{:8.3} s wall {:8.3} s CPU  output",
            start.elapsed().as_secs_f64(),
            cpu_seconds()
        );
    }
    if let Some(bar) = &bar {
        bar.set_message("output");
    }
    let ix = graph.index();
    let s = graph.summary();
    let roots_missing = graph.warnings().roots_missing;
    let top = graph.top_retained(args.top);
    let mut lines = Vec::new();
    if args.text {
        lines.push(format!(
            "{} objects, {} reachable ({} bytes), {} unreachable, {} roots",
            s.objects, s.reachable, s.reachable_bytes, s.unreachable, s.roots
        ));
        lines.push(format!(
            "{:>14} {:>10} {:>12}  {}",
            "retained", "objects", "shallow", "object"
        ));
        for r in &top {
            lines.push(format!(
                "{:>14} {:>10} {:>12}  {} @ 0x{:x}",
                r.retained,
                r.retained_objects,
                r.shallow,
                ix.display_name(r.node),
                r.id
            ));
        }
    } else {
        // Keys in the documented order (serde_json's `json!` would sort them).
        lines.push(format!(
            r#"{{"objects":{},"reachable":{},"unreachable":{},"roots":{},"reachable_bytes":{},"roots_missing":{roots_missing}}}"#,
            s.objects, s.reachable, s.unreachable, s.roots, s.reachable_bytes
        ));
        for r in &top {
            let class = serde_json::Value::String(ix.class_name_of(r.node));
            let class_of = ix
                .class_object_name(r.node)
                .map(|n| format!(",\"class_of\":{}", serde_json::Value::String(n)))
                .unwrap_or_default();
            let dominator = r.dominator.map_or("null".to_owned(), |d| d.to_string());
            lines.push(format!(
                r#"{{"id":{},"class":{class}{class_of},"shallow":{},"retained":{},"retained_objects":{},"dominator":{dominator}}}"#,
                r.id, r.shallow, r.retained, r.retained_objects
            ));
        }
    }
    for &id in &args.paths {
        let steps = graph.node(id).and_then(|v| graph.path_steps(v));
        if args.text {
            match &steps {
                None => lines.push(format!("no path from a GC root to 0x{id:x}")),
                Some(steps) => {
                    lines.push(format!("path from a GC root to 0x{id:x}:"));
                    for step in steps {
                        let via = step
                            .via
                            .as_ref()
                            .map(|v| format!("  {v}"))
                            .unwrap_or_default();
                        lines.push(format!(
                            "  {} @ 0x{:x}{via}",
                            ix.display_name(step.node),
                            step.id
                        ));
                    }
                }
            }
            continue;
        }
        let path = steps
            .as_ref()
            .map(|p| p.iter().map(|s| s.id).collect::<Vec<_>>());
        let path = serde_json::to_string(&path).unwrap_or_else(|_| "null".to_owned());
        // Keys in the documented order: id, class, field.
        let steps = steps.map_or("null".to_owned(), |p| {
            let items: Vec<String> = p
                .iter()
                .map(|s| {
                    let class = serde_json::Value::String(ix.display_name(s.node));
                    let field = s.via.as_ref().map_or(serde_json::Value::Null, |v| {
                        serde_json::Value::String(v.to_string())
                    });
                    format!(r#"{{"id":{},"class":{class},"field":{field}}}"#, s.id)
                })
                .collect();
            format!("[{}]", items.join(","))
        });
        lines.push(format!(
            r#"{{"path_to":{id},"path":{path},"steps":{steps}}}"#
        ));
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if args.timings {
        eprintln!(
            "{:8.3} s wall {:8.3} s CPU  done",
            start.elapsed().as_secs_f64(),
            cpu_seconds()
        );
    }
    let mut partial = graph
        .warnings()
        .stopped_at
        .as_ref()
        .map(|e| format!("{}: partial: {e}", args.path));
    if roots_missing {
        let what = match args.missing_roots {
            MissingRoots::SystemClasses => "the boot loader's classes stand in for them",
            MissingRoots::Unreferenced => {
                "the boot loader's classes and every unreferenced object stand in for them"
            }
            _ => {
                "nothing is reachable; --missing-roots system-classes or unreferenced chooses stand-ins"
            }
        };
        let line = format!(
            "{}: partial: no GC roots: the dump names objects but no root (HotSpot writes its roots last, so a cut dump loses them); {what}",
            args.path
        );
        partial = Some(match partial {
            Some(p) => format!("{p}\nwarning: {line}"),
            None => line,
        });
    }
    Ok((lines, partial))
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
    let (lines, partial) = match run(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let written = lines
        .iter()
        .try_for_each(|l| writeln!(out, "{l}"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: stdout: {e}");
            return ExitCode::from(1);
        }
    }
    match partial {
        Some(w) => {
            eprintln!("warning: {w}");
            ExitCode::from(3)
        }
        None => ExitCode::SUCCESS,
    }
}
