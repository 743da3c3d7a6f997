//! `er-dump DIR [--kind clock|heap|sync|io|hwc|all] [--descendants]`: one JSON object per
//! packet, in file order, for the experiment in DIR (and its descendants):
//! `{"exp", "kind", "tstamp", "thread", "lwp", "cpu", "frames", "fields", "stack"}`, plus
//! `"java": [[method id, bci], …]` (leaf first) in Java experiments.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    missing_docs
)]

use bytes::Bytes;
use experiment::packets::{DataKind, TagMap};
use experiment::{Experiment, Source};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::PathBuf;

/// The experiment directory on the file system.
struct FsSource(PathBuf);

impl Source for FsSource {
    fn read(&self, path: &str) -> Option<Bytes> {
        std::fs::read(self.0.join(path)).ok().map(Bytes::from)
    }
    fn list(&self, dir: &str) -> Vec<String> {
        std::fs::read_dir(self.0.join(dir))
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn dump<S: Source>(
    exp: &Experiment<S>,
    name: &str,
    kind: &str,
    out: &mut impl Write,
) -> experiment::Result<()> {
    let mut threads = exp.log().thread_tags();
    let java = exp.log().is_java();
    let mut lwps = TagMap::new();
    for file in exp.data_files() {
        for p in file.packets() {
            let p = match p {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("{name}/{}: {e}", file.name());
                    continue;
                }
            };
            let k = p.kind();
            if kind != "all" && k.name() != kind {
                continue;
            }
            let t = p.typed()?;
            let c = t.common();
            let stack = exp.stack(c.frinfo).unwrap_or_else(|e| {
                eprintln!("{name}: {e}");
                None
            });
            let mut fields = Map::new();
            for (fname, v) in p.packet.fields() {
                if matches!(fname, "TSTAMP" | "THRID" | "LWPID" | "CPUID") {
                    continue;
                }
                if let Some(v) = v? {
                    fields.insert(
                        fname.to_owned(),
                        serde_json::to_value(v).unwrap_or(Value::Null),
                    );
                }
            }
            let (frames, pcs, jframes) = match &stack {
                Some(s) => (
                    s.user_view_frames(java),
                    s.native.clone(),
                    s.java
                        .iter()
                        .map(|f| json!([f.method_id, f.lineno]))
                        .collect::<Vec<_>>(),
                ),
                None => (usize::from(java), Vec::new(), Vec::new()),
            };
            let mut line = json!({
                "exp": name,
                "kind": match k { DataKind::Other(_) => p.packet.descriptor.profile.clone(), k => k.name() },
                "tstamp": c.tstamp,
                "thread": threads.tag(c.thr_id),
                "lwp": lwps.tag(c.lwp_id),
                "cpu": c.cpu_id,
                "frames": frames,
                "fields": fields,
                "stack": pcs,
            });
            if java {
                line["java"] = json!(jframes);
            }
            if writeln!(out, "{line}").is_err() {
                std::process::exit(0); // stdout closed (e.g. piped into `head`)
            }
        }
    }
    Ok(())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut kind = "all".to_owned();
    let mut descendants = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--kind" => kind = args.next().expect("--kind needs a value"),
            "--descendants" => descendants = true,
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let Some(dir) = dir else {
        eprintln!("usage: er-dump DIR [--kind clock|heap|sync|io|hwc|all] [--descendants]");
        std::process::exit(2);
    };
    let exp = match Experiment::open(FsSource(dir)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut status = 0;
    if let Err(e) = dump(&exp, ".", &kind, &mut out) {
        eprintln!("error: {e}");
        status = 1;
    }
    if descendants {
        for d in experiment::descendants::list(exp.source()) {
            match exp.open_descendant(&d.name) {
                Ok(child) => {
                    if let Err(e) = dump(&child, &d.name, &kind, &mut out) {
                        eprintln!("{}: error: {e}", d.name);
                        status = 1;
                    }
                }
                Err(e) => {
                    eprintln!("{}: error: {e}", d.name);
                    status = 1;
                }
            }
        }
    }
    let _ = out.flush();
    std::process::exit(status);
}
