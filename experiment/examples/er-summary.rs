//! `er-summary EXP`: one JSON object summarising the experiment directory EXP (header,
//! packets per kind, heap/sync/io/clock totals, collector warnings and errors, descendants,
//! `incomplete`, `partial`: why it is partial, and `truncations`: where a file was cut short).
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::summary::Summary;

#[path = "common/fs_source.rs"]
mod fs_source;
#[path = "common/tool.rs"]
mod tool;

const USAGE: &str = "usage: er-summary EXP

Prints one JSON object summarising the experiment directory EXP.
Exit status: 0 ok, 1 error, 2 bad usage, 3 partial (a file of the experiment was cut short, or
the log has no exit event: the summary covers what could be read, says \"incomplete\": true and lists the truncations, and
stderr says where reading stopped).";

fn main() {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let mut dir: Option<String> = None;
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
                println!("er-summary {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            Value(v) if dir.is_none() => dir = Some(v.to_string_lossy().into_owned()),
            a => tool::usage_error(a.unexpected(), USAGE),
        }
    }
    let Some(dir) = dir else {
        tool::usage_error("missing EXP", USAGE)
    };
    let exp = tool::open(&dir);
    let s = Summary::of(&exp).unwrap_or_else(|e| tool::fail(&dir, &e));
    let json = serde_json::to_string(&s).unwrap_or_else(|e| {
        eprintln!("error: {dir}: {e}");
        std::process::exit(1)
    });
    let partial = tool::report_partial(&dir, &exp);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    tool::emit(&mut out, &json);
    tool::finish(&mut out);
    if partial {
        std::process::exit(tool::PARTIAL);
    }
}
