//! `er-functions EXP [--kind clock|heap|sync|io|hwc] [--search-path DIR]... [--archives-only]`: gprofng's function list
//! (`gprofng display text -functions EXP`) as one JSON object per line:
//! `{"name": "...", "e.totalcpu": 0.45, "i.totalcpu": 0.45}`, `<Total>` first, then every
//! function sorted by gprofng's default sort metric (ties by name), with gprofng's default
//! columns for the kinds recorded (or for KIND), without its percentage columns. Times are in
//! seconds (full nanosecond precision; gprofng shows them rounded to 3 decimals), counts and
//! bytes are integers.
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::packets::DataKind;
use experiment::profile::{FunctionTable, StackProfile};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, Source};
use serde_json::Value as Json;

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str = "usage: er-functions EXP [--kind clock|heap|sync|io|hwc] [--search-path DIR]... [--archives-only]

Prints gprofng's function list of the experiment directory EXP as JSON lines.
  --kind KIND       only packets of this data kind (default: every kind recorded)
  --search-path DIR also look for load objects the experiment does not archive in DIR
                    (repeatable), after EXP's parent folder and the current folder and
                    before the path recorded in the experiment (gprofng's search path)
  --archives-only   name native PCs only from the experiment's archives/, not from the load
                    objects' recorded paths on this machine
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (the experiment was cut short, or its log has
no exit event; what could be read is printed and stderr says where reading stopped).";

fn kind_of(s: &str) -> Option<DataKind> {
    Some(match s {
        "clock" => DataKind::Clock,
        "heap" => DataKind::Heap,
        "sync" => DataKind::Sync,
        "io" => DataKind::Io,
        _ => return None,
    })
}

/// The function table of `exp` and of its descendants with data (gprofng loads them all).
fn function_table<S: Source>(
    dir: &str,
    exp: &Experiment<S>,
    kind: Option<DataKind>,
) -> FunctionTable {
    let mut table = table_of(dir, exp, None::<&Experiment<S>>, kind);
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        let path = tool::join(dir, &d.name);
        let child = exp
            .open_descendant(&d.name)
            .unwrap_or_else(|e| tool::fail(&path, &e));
        table.merge(table_of(&path, &child, Some(exp), kind));
    }
    table
}

fn table_of<S: Source, F: Source>(
    dir: &str,
    exp: &Experiment<S>,
    founder: Option<&Experiment<F>>,
    kind: Option<DataKind>,
) -> FunctionTable {
    let mut symbols = Symbolizer::new(exp);
    if let Some(f) = founder {
        symbols = symbols.with_founder_archives(f);
    }
    let profile = StackProfile::collect(exp, symbols, kind).unwrap_or_else(|e| tool::fail(dir, &e));
    let w = profile.symbols.warnings();
    if w.unknown_pcs + w.unreadable_objects + w.missing_stacks + w.bad_stacks + w.unknown_methods
        > 0
    {
        eprintln!(
            "warning: {dir}: {} PCs outside every mapping, {} load objects unreadable, {} packets without a stack, {} stacks unresolvable, {} unknown Java methods",
            w.unknown_pcs, w.unreadable_objects, w.missing_stacks, w.bad_stacks, w.unknown_methods
        );
    }
    profile.function_table()
}

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
    let mut kind = None;
    let mut archives_only = false;
    let mut search_path: Vec<String> = Vec::new();
    loop {
        let arg = match parser.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => tool::usage_error(e, USAGE),
        };
        match arg {
            Short('h') | Long("help") => {
                println!("{USAGE}");
                return;
            }
            Long("version") => {
                println!("er-functions {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Long("kind") => {
                let v = parser
                    .value()
                    .map_err(|e| e.to_string())
                    .and_then(|v| v.string().map_err(|_| "--kind: not UTF-8".to_owned()))
                    .unwrap_or_else(|e| tool::usage_error(e, USAGE));
                kind =
                    Some(kind_of(&v).unwrap_or_else(|| {
                        tool::usage_error(format!("unknown kind `{v}`"), USAGE)
                    }));
            }
            Long("archives-only") => archives_only = true,
            Long("search-path") => search_path.push(
                parser
                    .value()
                    .map_err(|e| e.to_string())
                    .and_then(|v| {
                        v.string()
                            .map_err(|_| "--search-path: not UTF-8".to_owned())
                    })
                    .unwrap_or_else(|e| tool::usage_error(e, USAGE)),
            ),
            Value(v) if dir.is_none() => dir = Some(v.to_string_lossy().into_owned()),
            a => tool::usage_error(a.unexpected(), USAGE),
        }
    }
    let Some(dir) = dir else {
        tool::usage_error("missing EXP", USAGE)
    };
    let exp = tool::open_with(&dir, &search_path, archives_only);
    let list = function_table(&dir, &exp, kind).function_list();
    let mut lines = Vec::with_capacity(list.rows.len());
    for r in list.rows {
        // Keys in gprofng's column order (a JSON map would sort them).
        let mut line = format!("{{\"name\":{}", Json::from(r.name));
        for ((c, key), v) in list.columns.iter().zip(&list.keys).zip(r.values) {
            let v = if c.metric.is_time() {
                Json::from(v as f64 / 1e9)
            } else {
                Json::from(v)
            };
            line.push_str(&format!(",{}:{v}", Json::from(key.as_str())));
        }
        line.push('}');
        lines.push(line);
    }
    let mut partial = tool::report_partial(&dir, &exp);
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        if let Ok(child) = exp.open_descendant(&d.name) {
            let path = tool::join(&dir, &d.name);
            partial |= tool::report_partial(&path, &child);
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for l in &lines {
        tool::emit(&mut out, l);
    }
    tool::finish(&mut out);
    if partial {
        std::process::exit(tool::PARTIAL);
    }
}
