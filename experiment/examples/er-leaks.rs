//! `er-leaks EXP [--allocs] [--native-lines dwarf|none] [--search-path DIR]... [--archives-only]`:
//! gprofng's leaks (or,
//! with `--allocs`, allocations) of a heap trace (`gprofng display text -leaks EXP`,
//! `-allocs`) as one JSON object per distinct stack, in gprofng's order (bytes, largest
//! first): `{"leak": 1, "instances": 1, "bytes": 100000, "stack": ["calloc + 0x000000D9",
//! "leak_big + 0x0000000E", …]}` (`"allocation"` instead of `"leak"` with `--allocs`), frames
//! leaf first as gprofng prints them; with `--native-lines dwarf` (feature `dwarf`) native
//! frames carry their source lines (`allocate + 0x00000096, line 97 in "lines.c"`), as gprofng
//! prints the frames of programs whose DWARF line tables it reads (version 4 and older).
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::lines::NativeLines;
use experiment::profile::{HeapView, heap_stacks_with};
use serde_json::json;

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str = "usage: er-leaks EXP [--allocs] [--native-lines dwarf|none] [--search-path DIR]... [--archives-only]

Prints the leaks (or allocations) of the heap trace of the experiment directory EXP as JSON lines.
  --allocs          every allocation, not only those never freed
  --native-lines FROM  `none` (default): native frames as `function + 0xOFFSET`; `dwarf`
                    (a build with the `dwarf` feature): with their source lines from the load
                    objects' DWARF line tables, as gprofng prints frames of programs whose
                    line tables it reads
  --search-path DIR also look for load objects the experiment does not archive in DIR
                    (repeatable), after EXP's parent folder and the current folder and
                    before the path recorded in the experiment (gprofng's search path)
  --archives-only   name native PCs only from the experiment's archives/
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (the experiment was cut short or damaged, or
its log has no exit event; what could be read is printed and stderr says why).";

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
    let mut view = HeapView::Leaks;
    let mut native = NativeLines::Off;
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
                println!("er-leaks {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Long("allocs") => view = HeapView::Allocations,
            Long("native-lines") => {
                let v = parser
                    .value()
                    .map_err(|e| e.to_string())
                    .and_then(|v| {
                        v.string()
                            .map_err(|_| "--native-lines: not UTF-8".to_owned())
                    })
                    .unwrap_or_else(|e| tool::usage_error(e, USAGE));
                native = match v.as_str() {
                    #[cfg(feature = "dwarf")]
                    "dwarf" => NativeLines::Dwarf,
                    "none" => NativeLines::Off,
                    v => tool::usage_error(
                        format!("--native-lines: expected `dwarf` or `none`, found `{v}`"),
                        USAGE,
                    ),
                };
            }
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
            Long("archives-only") => archives_only = true,
            Value(v) if dir.is_none() => dir = Some(v.to_string_lossy().into_owned()),
            a => tool::usage_error(a.unexpected(), USAGE),
        }
    }
    let Some(dir) = dir else {
        tool::usage_error("missing EXP", USAGE)
    };
    let exp = tool::open_with(&dir, &search_path, archives_only);
    let stacks = heap_stacks_with(&exp, view, native).unwrap_or_else(|e| tool::fail(&dir, &e));
    let label = match view {
        HeapView::Leaks => "leak",
        _ => "allocation",
    };
    let lines: Vec<String> = stacks
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Keys in gprofng's order (a JSON map would sort them).
            format!(
                "{{\"{label}\":{},\"instances\":{},\"bytes\":{},\"stack\":{}}}",
                i + 1,
                s.instances,
                s.bytes,
                json!(s.frames)
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
