//! `er-lines EXP [--kind clock|heap|sync|io|hwc] [--native-lines dwarf|none] [--search-path DIR]...
//! [--archives-only]`: gprofng's source-line view (`gprofng display text -lines EXP`) as one
//! JSON object per line, `<Total>` first, then every line sorted by gprofng's default sort
//! metric (ties by text): `{"name": "loop_b, line 27 in \"lines.c\"", "function": "loop_b",
//! "file": "lines.c", "line": 27, "e.totalcpu": 0.012, "i.totalcpu": 0.012}`; functions
//! without line information as gprofng lists them (`<Function: malloc, instructions without
//! line numbers>`, no `"line"`). Native lines come from the DWARF line tables of the archived
//! or found load objects, Java lines from the class files the experiment holds. Times are in
//! seconds, counts and bytes integers; metric keys in gprofng's column order.
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::lines::{LineList, NativeLines};
use serde_json::Value as Json;

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str = "usage: er-lines EXP [--kind clock|heap|sync|io|hwc] [--native-lines dwarf|none] [--search-path DIR]... [--archives-only]

Prints gprofng's source-line view of the experiment directory EXP as JSON lines.
  --kind KIND          only packets of this data kind (default: every kind recorded)
  --native-lines FROM  where native frames get their lines: `dwarf` (default), the DWARF line
                       tables of the load objects (every DWARF version; gprofng 2.40 reads
                       versions 2 to 4 only), or `none` (every native function listed
                       `<Function: f, instructions without line numbers>`)
  --search-path DIR    also look for load objects the experiment does not archive in DIR
                       (repeatable), after EXP's parent folder and the current folder and
                       before the path recorded in the experiment (gprofng's search path)
  --archives-only      read load objects only from the experiment's archives/
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (the experiment was cut short or damaged,
its log has no exit event, or a load object's line table could not be read; what could be
read is printed and stderr says why).";

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
    let mut kind = None;
    let mut native = NativeLines::Dwarf;
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
                println!("er-lines {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Long("kind") => {
                let v = string(&mut parser, "--kind");
                kind =
                    Some(tool::kind_of(&v).unwrap_or_else(|| {
                        tool::usage_error(format!("unknown kind `{v}`"), USAGE)
                    }));
            }
            Long("native-lines") => {
                native = match string(&mut parser, "--native-lines").as_str() {
                    "dwarf" => NativeLines::Dwarf,
                    "none" => NativeLines::Off,
                    v => tool::usage_error(
                        format!("--native-lines: expected `dwarf` or `none`, found `{v}`"),
                        USAGE,
                    ),
                }
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
    let list = LineList::read(&exp, kind, native).unwrap_or_else(|e| tool::fail(&dir, &e));
    let lines: Vec<String> = list
        .lines
        .iter()
        .map(|l| {
            // Keys in gprofng's column order (a JSON map would sort them).
            let mut out = format!("{{\"name\":{}", Json::from(l.name.as_str()));
            if !l.function.is_empty() {
                out.push_str(&format!(
                    ",\"function\":{}",
                    Json::from(l.function.as_str())
                ));
            }
            if let Some(file) = &l.file {
                out.push_str(&format!(",\"file\":{}", Json::from(file.as_str())));
            }
            if let Some(line) = l.line {
                out.push_str(&format!(",\"line\":{line}"));
            }
            for ((c, key), v) in list.columns.iter().zip(&list.keys).zip(&l.values) {
                let v = if c.metric.is_time() {
                    Json::from(*v as f64 / 1e9)
                } else {
                    Json::from(*v)
                };
                out.push_str(&format!(",{}:{v}", Json::from(key.as_str())));
            }
            out.push('}');
            out
        })
        .collect();
    let mut partial = tool::report_partial_all(&dir, &exp);
    for (object, e) in &list.line_table_errors {
        eprintln!("warning: {dir}: partial: line table of {object}: {e}");
        partial = true;
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
