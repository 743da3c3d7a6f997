//! `er-callers EXP [--kind clock|heap|sync|io|hwc] [--search-path DIR]... [--archives-only]`:
//! gprofng's callers–callees view (`gprofng display text -callers-callees EXP`) as one JSON
//! object per function, in the function list's order (`<Total>` first):
//! `{"name": "main", "a.totalcpu": 0.0, "callers": [{"name": "<Total>", "a.totalcpu": 0.45}],
//! "callees": [{"name": "work", "a.totalcpu": 0.45}]}`. A function's own values are its
//! exclusive ones (the total for `<Total>`); a caller's or callee's are the values attributed
//! to that call, with gprofng's attributed metric names. Times are in seconds, counts and
//! bytes integers; keys in gprofng's column order.
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::profile::{CallersCallees, Row};
use serde_json::Value as Json;

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str =
    "usage: er-callers EXP [--kind clock|heap|sync|io|hwc] [--search-path DIR]... [--archives-only]

Prints gprofng's callers-callees view of the experiment directory EXP as JSON lines.
  --kind KIND       only packets of this data kind (default: every kind recorded)
  --search-path DIR also look for load objects the experiment does not archive in DIR
                    (repeatable), after EXP's parent folder and the current folder and
                    before the path recorded in the experiment (gprofng's search path)
  --archives-only   name native PCs only from the experiment's archives/
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (the experiment was cut short or damaged, or
its log has no exit event; what could be read is printed and stderr says why).";

/// `"key":value,…` of `values` under `keys` (times as seconds).
fn metrics(view: &CallersCallees, values: &[u64]) -> String {
    let mut out = String::new();
    for ((m, k), v) in view.metrics.iter().zip(&view.keys).zip(values) {
        let v = if m.is_time() {
            Json::from(*v as f64 / 1e9)
        } else {
            Json::from(*v)
        };
        out.push_str(&format!(",{}:{v}", Json::from(k.as_str())));
    }
    out
}

fn rows(view: &CallersCallees, rows: &[Row]) -> String {
    let items: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{{\"name\":{}{}}}",
                Json::from(r.name.as_str()),
                metrics(view, &r.values)
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
    let mut kind = None;
    let mut archives_only = false;
    let mut search_path: Vec<String> = Vec::new();
    let string = |p: &mut lexopt::Parser, flag: &str| -> String {
        p.value()
            .map_err(|e| e.to_string())
            .and_then(|v| v.string().map_err(|_| format!("{flag}: not UTF-8")))
            .unwrap_or_else(|e| tool::usage_error(e, USAGE))
    };
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
                println!("er-callers {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Long("kind") => {
                let v = string(&mut parser, "--kind");
                kind =
                    Some(tool::kind_of(&v).unwrap_or_else(|| {
                        tool::usage_error(format!("unknown kind `{v}`"), USAGE)
                    }));
            }
            Long("search-path") => search_path.push(string(&mut parser, "--search-path")),
            Long("archives-only") => archives_only = true,
            Value(v) if dir.is_none() => dir = Some(v.to_string_lossy().into_owned()),
            a => tool::usage_error(a.unexpected(), USAGE),
        }
    }
    let Some(dir) = dir else {
        tool::usage_error("missing EXP", USAGE)
    };
    let exp = tool::open_with(&dir, &search_path, archives_only);
    let view: CallersCallees =
        CallersCallees::read(&exp, kind).unwrap_or_else(|e| tool::fail(&dir, &e));
    let lines: Vec<String> = view
        .functions
        .iter()
        .map(|f| {
            format!(
                "{{\"name\":{}{},\"callers\":{},\"callees\":{}}}",
                Json::from(f.name.as_str()),
                metrics(&view, &f.values),
                rows(&view, &f.callers),
                rows(&view, &f.callees)
            )
        })
        .collect();
    let partial = tool::report_partial_all(&dir, &exp);
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
