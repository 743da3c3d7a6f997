//! `er-folded EXP --kind clock|heap|sync|io|hwc [--metric M] [--search-path DIR]... [--archives-only]`: folded stacks
//! (`root;caller;leaf value`, one line per distinct named stack) of one data kind, the input
//! of flame-graph tools (inferno, speedscope, flamegraph.pl). Frames are named as gprofng's
//! user view names them. Values are integers: nanoseconds for times, else counts or bytes.
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::packets::DataKind;
use experiment::profile::{Metric, StackProfile};

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str =
    "usage: er-folded EXP --kind clock|heap|sync|io|hwc [--metric M] [--search-path DIR]... [--archives-only]

Prints the folded stacks of one data kind of the experiment directory EXP.
  --kind KIND       the data kind (required)
  --metric M        gprofng's metric name (default: clock totalcpu, heap heapallocbytes,
                    sync sync, io ioreadtime; also heapalloccnt, heapleakbytes, heapleakcnt,
                    syncn, iowritetime, ioothertime, ioerrortime, ioreadbytes, iowritebytes,
                    ioreadcnt, iowritecnt, ioothercnt, ioerrorcnt; hwc: a counter's name as
                    log.xml records it, e.g. cycles, insts; default the first counter)
  --search-path DIR also look for load objects the experiment does not archive in DIR
                    (repeatable), after EXP's parent folder and the current folder and
                    before the path recorded in the experiment (gprofng's search path)
  --archives-only   name native PCs only from the experiment's archives/
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (the experiment was cut short, or its log has
no exit event; what could be read is printed and stderr says where reading stopped).";

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
    let mut kind = None;
    let mut metric = None;
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
                println!("er-folded {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Long("kind") => {
                let v = string(&mut parser, "--kind");
                kind = Some(match v.as_str() {
                    "clock" => DataKind::Clock,
                    "heap" => DataKind::Heap,
                    "sync" => DataKind::Sync,
                    "io" => DataKind::Io,
                    "hwc" => DataKind::Hwc,
                    _ => tool::usage_error(format!("unknown kind `{v}`"), USAGE),
                });
            }
            Long("metric") => {
                let v = string(&mut parser, "--metric");
                metric = Some(v);
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
    let Some(kind) = kind else {
        tool::usage_error("missing --kind", USAGE)
    };
    // Fixed metrics are checked before reading; hardware counters are named by the experiment.
    let fixed = match metric.as_deref() {
        Some(v) => Metric::from_name(v),
        None => Some(match kind {
            DataKind::Heap => Metric::HeapAllocBytes,
            DataKind::Sync => Metric::Sync,
            DataKind::Io => Metric::IoReadTime,
            DataKind::Hwc => Metric::Hwc(0),
            _ => Metric::TotalCpu,
        }),
    };
    if metric.is_some() && fixed.is_none() && kind != DataKind::Hwc {
        tool::usage_error(
            format!("unknown metric `{}`", metric.as_deref().unwrap_or_default()),
            USAGE,
        );
    }
    if let Some(metric) = fixed.filter(|m| m.kind() != kind) {
        tool::usage_error(
            format!(
                "metric `{}` is not one of kind `{}`",
                metric.name(),
                kind.name()
            ),
            USAGE,
        );
    }
    let exp = tool::open_with(&dir, &search_path, archives_only);
    let profile = StackProfile::read(&exp, Some(kind)).unwrap_or_else(|e| tool::fail(&dir, &e));
    let metric = match (fixed, metric.as_deref()) {
        (Some(m), _) => m,
        (None, Some(name)) => profile
            .metric(name)
            .unwrap_or_else(|| tool::usage_error(format!("unknown metric `{name}`"), USAGE)),
        (None, None) => Metric::TotalCpu,
    };
    let metric = match (metric, profile.hw_counters().first()) {
        // The default hardware counter is the first one recorded.
        (Metric::Hwc(_), Some((tag, _))) if fixed.is_some() => Metric::Hwc(*tag),
        (m, _) => m,
    };
    let folded = profile.folded(metric);
    let partial = tool::report_partial(&dir, &exp);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (stack, value) in &folded {
        tool::emit(&mut out, &format!("{stack} {value}"));
    }
    tool::finish(&mut out);
    if partial {
        std::process::exit(tool::PARTIAL);
    }
}
