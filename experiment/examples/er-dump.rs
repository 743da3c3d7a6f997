//! `er-dump DIR [--kind clock|heap|sync|io|hwc|all] [--descendants] [--archives-only]`: one JSON
//! object per packet, in file order, for the experiment in DIR (and its descendants):
//! `{"exp", "kind", "tstamp", "thread", "lwp", "cpu", "frames", "fields", "stack"}`, plus
//! `"java": [[method id, bci], …]` (leaf first) in Java experiments.
//!
//! `frames` is gprofng's user-view frame count. For Java stacks with `<Java native method>`
//! frames it names the native PCs like gprofng: each load object's ELF symbols are read from
//! its copy in the experiment's `archives/`, else from its recorded absolute path (when that
//! file exists on this machine; not with `--archives-only`, which makes the output independent
//! of the machine), see `Stack::user_view_frames_jni`.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    missing_docs
)]

use experiment::elf::Elf;
use experiment::frameinfo::NativeFrame;
use experiment::jclasses::JClasses;
use experiment::map::MapIndex;
use experiment::packets::{DataKind, TagMap};
use experiment::{Experiment, Source};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

#[path = "common/fs_source.rs"]
mod fs_source;
use fs_source::FsSource;

/// The largest load object read from its recorded path (libjvm.so is about 24 MB).
const MAX_LOAD_OBJECT: u64 = 1 << 30;

/// The load objects' ELF symbols, read when first needed: the experiment's archived copy
/// first, then the file at the recorded path (gprofng's order).
struct Objects<'e, S> {
    exp: &'e Experiment<S>,
    archived: HashMap<String, String>,
    elfs: HashMap<String, Option<Elf>>,
    archives_only: bool,
}

impl<S: Source> Objects<'_, S> {
    fn elf(&mut self, load_object: &str) -> Option<&Elf> {
        if !self.elfs.contains_key(load_object) {
            let from_archive = self
                .archived
                .get(load_object)
                .and_then(|a| self.exp.file(&format!("archives/{a}")))
                .and_then(|b| Elf::parse(&b).ok());
            let elf = from_archive.or_else(|| {
                if self.archives_only {
                    return None;
                }
                // The path comes from map.xml: read only a regular file of sane size (not a
                // device or a FIFO that never ends).
                let meta = std::fs::metadata(load_object).ok()?;
                if !meta.is_file() || meta.len() > MAX_LOAD_OBJECT {
                    return None;
                }
                let b = std::fs::read(load_object).ok()?;
                Elf::parse(&b).ok()
            });
            self.elfs.insert(load_object.to_owned(), elf);
        }
        self.elfs.get(load_object)?.as_ref()
    }
}

/// Names native PCs: map.xml indexed once (every native PC of a JNI stack is resolved
/// through it), and the load objects' symbols.
struct Symbols<'e, S> {
    map: MapIndex<'e>,
    objects: Objects<'e, S>,
}

impl<'e, S: Source> Symbols<'e, S> {
    fn new(exp: &'e Experiment<S>, archives_only: bool) -> Self {
        let mut archived = HashMap::new();
        for a in exp.archives() {
            if let Some(lo) = experiment::archives::load_object(exp.map(), &a) {
                archived.entry(lo.to_owned()).or_insert(a);
            }
        }
        Symbols {
            map: exp.map().index(),
            objects: Objects {
                exp,
                archived,
                elfs: HashMap::new(),
                archives_only,
            },
        }
    }

    /// Names native PC `pc` at relative time `rel`.
    fn frame(&mut self, pc: u64, rel: u64) -> NativeFrame {
        let Some(r) = self.map.resolve(pc, rel) else {
            return NativeFrame::default();
        };
        let elf = if r.generated {
            None
        } else {
            self.objects.elf(r.name)
        };
        self.map.native_frame(pc, rel, &r, elf)
    }
}

fn dump<S: Source>(
    exp: &Experiment<S>,
    name: &str,
    kind: &str,
    archives_only: bool,
    out: &mut impl Write,
) -> experiment::Result<()> {
    let mut threads = exp.log().thread_tags();
    let java = exp.log().is_java();
    let mut lwps = TagMap::new();
    let jclasses = if java {
        exp.jclasses().ok().flatten().unwrap_or_default()
    } else {
        JClasses::default()
    };
    let run_start = exp.log().run_start().unwrap_or(0);
    let mut symbols = Symbols::new(exp, archives_only);
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
                    s.user_view_frames_jni(java, &jclasses, |pc| {
                        symbols.frame(pc, c.tstamp.saturating_sub(run_start))
                    }),
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
    let mut archives_only = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--kind" => kind = args.next().expect("--kind needs a value"),
            "--descendants" => descendants = true,
            "--archives-only" => archives_only = true,
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let Some(dir) = dir else {
        eprintln!(
            "usage: er-dump DIR [--kind clock|heap|sync|io|hwc|all] [--descendants] [--archives-only]"
        );
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
    if let Err(e) = dump(&exp, ".", &kind, archives_only, &mut out) {
        eprintln!("error: {e}");
        status = 1;
    }
    if descendants {
        for d in experiment::descendants::list(exp.source()) {
            match exp.open_descendant(&d.name) {
                Ok(child) => {
                    if let Err(e) = dump(&child, &d.name, &kind, archives_only, &mut out) {
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
