//! `er-dump EXP [--kind clock|heap|sync|io|hwc|all] [--descendants] [--search-path DIR]... [--archives-only]`: one
//! JSON object per packet, in file order, for the experiment directory EXP (and its
//! descendants): `{"exp", "kind", "tstamp", "thread", "lwp", "cpu", "frames", "fields",
//! "stack"}`, plus `"java": [[method id, bci], …]` (leaf first) in Java experiments.
//!
//! `frames` is the number of frames of gprofng's user view (`stacks::Symbolizer`: native
//! stacks with `<Truncated-stack>`, Java stacks with the JNI splice). Load objects are read
//! from the experiment's `archives/`, else from their recorded absolute paths (not with
//! `--archives-only`, which makes the output independent of the machine).
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::packets::{DataKind, TagMap};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, Source};
use serde_json::{Map, Value, json};
use std::io::Write;

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str =
    "usage: er-dump EXP [--kind clock|heap|sync|io|hwc|all] [--descendants] [--search-path DIR]... [--archives-only]

Prints every packet of the experiment directory EXP as one JSON object per line.
  --kind KIND       only packets of this data kind (default: all)
  --descendants     also the descendant experiments (_f1.er, _x1.er, …)
  --search-path DIR also look for load objects the experiment does not archive in DIR
                    (repeatable), after EXP's parent folder and the current folder and
                    before the path recorded in the experiment (gprofng's search path)
  --archives-only   name native PCs only from the experiment's archives/
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (a file was cut short or held bad packets, or
the log has no exit event: every packet that could be read is printed, stderr says where
reading stopped).";

/// Prints the packets of `exp`; returns true when some could not be read.
fn dump<S: Source>(
    dir: &str,
    exp: &Experiment<S>,
    name: &str,
    kind: &str,
    symbols: &mut Symbolizer<'_, S>,
    out: &mut impl Write,
) -> bool {
    let mut threads = exp.log().thread_tags();
    let java = exp.log().is_java();
    let mut lwps = TagMap::new();
    let mut bad = false;
    let files = exp.data_files().unwrap_or_else(|e| tool::fail(dir, &e));
    for file in files {
        for p in file.packets() {
            let p = match p {
                Ok(p) => p,
                Err(e) => {
                    // Truncations are reported once at the end; other bad packets here.
                    if !e.is_truncated() {
                        let at = tool::located(dir, &e);
                        match at.split_once(": ") {
                            Some((path, why)) => eprintln!("warning: {path}: partial: {why}"),
                            None => eprintln!("warning: {at}: partial"),
                        }
                    }
                    bad = true;
                    continue;
                }
            };
            let k = p.kind();
            if kind != "all" && k.name() != kind {
                continue;
            }
            let t = match p.typed() {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("warning: {}", tool::located(dir, &e.in_file(file.name())));
                    bad = true;
                    continue;
                }
            };
            let c = t.common();
            let stack = exp.stack(c.frinfo).ok().flatten();
            let id = symbols.stack(c.frinfo, c.tstamp);
            let mut fields = Map::new();
            for (fname, v) in p.packet.fields() {
                if matches!(fname, "TSTAMP" | "THRID" | "LWPID" | "CPUID") {
                    continue;
                }
                if let Ok(Some(v)) = v {
                    fields.insert(
                        fname.to_owned(),
                        serde_json::to_value(v).unwrap_or(Value::Null),
                    );
                }
            }
            let (pcs, jframes) = match &stack {
                Some(s) => (
                    s.native.clone(),
                    s.java
                        .iter()
                        .map(|f| json!([f.method_id, f.lineno]))
                        .collect::<Vec<_>>(),
                ),
                None => (Vec::new(), Vec::new()),
            };
            let mut line = json!({
                "exp": name,
                "kind": match k { DataKind::Other(_) => p.packet.descriptor.profile.clone(), k => k.name() },
                "tstamp": c.tstamp,
                "thread": threads.tag(c.thr_id),
                "lwp": lwps.tag(c.lwp_id),
                "cpu": c.cpu_id,
                "frames": symbols.frames(id).len(),
                "fields": fields,
                "stack": pcs,
            });
            if let (true, Some(obj)) = (java, line.as_object_mut()) {
                obj.insert("java".into(), json!(jframes));
            }
            tool::emit(out, &line.to_string());
        }
    }
    bad | tool::report_partial(dir, exp)
}

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
    let mut kind = "all".to_owned();
    let mut descendants = false;
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
                println!("er-dump {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Long("kind") => {
                kind = parser
                    .value()
                    .map_err(|e| e.to_string())
                    .and_then(|v| v.string().map_err(|_| "--kind: not UTF-8".to_owned()))
                    .unwrap_or_else(|e| tool::usage_error(e, USAGE));
                if !["clock", "heap", "sync", "io", "hwc", "all"].contains(&kind.as_str()) {
                    tool::usage_error(format!("unknown kind `{kind}`"), USAGE);
                }
            }
            Long("descendants") => descendants = true,
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
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut symbols = Symbolizer::new(&exp);
    let mut partial = dump(&dir, &exp, ".", &kind, &mut symbols, &mut out);
    if descendants {
        for d in exp.descendants() {
            let path = tool::join(&dir, &d.name);
            let child = exp
                .open_descendant(&d.name)
                .unwrap_or_else(|e| tool::fail(&path, &e));
            let mut symbols = Symbolizer::new(&child).with_founder_archives(&exp);
            partial |= dump(&path, &child, &d.name, &kind, &mut symbols, &mut out);
        }
    }
    tool::finish(&mut out);
    if partial {
        std::process::exit(tool::PARTIAL);
    }
}
