//! Reads call-context strings, one per line, and describes each:
//!
//! ```text
//! ok<TAB>depth<TAB>innermost<TAB>outermost<TAB>canonical
//! err<TAB>byte_offset<TAB>message
//! ```
//!
//! Input is standard input, or the files named as arguments; with no arguments and a terminal
//! on standard input, it reads the real contexts bundled in `callctx/tests/data/demo.txt`.
//! A bad line never stops it.
//!
//! ```sh
//! cargo run --release -p callctx --example ctx
//! printf '5:0<3:2<2:2<1:3\n5:0<\n' | cargo run -p callctx --example ctx
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, BufRead, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use callctx::Context;

const DEMO: &str = include_str!("../tests/data/demo.txt");

fn describe(line: &[u8], out: &mut impl Write) -> io::Result<()> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match Context::parse_bytes(line) {
        Ok(ctx) => writeln!(
            out,
            "ok\t{}\t{}\t{}\t{}",
            ctx.len(),
            ctx.innermost(),
            ctx.outermost(),
            ctx
        ),
        Err(err) => writeln!(out, "err\t{}\t{}", err.offset, err),
    }
}

fn run(input: &mut dyn BufRead, out: &mut impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    while input.read_until(b'\n', &mut line)? > 0 {
        describe(&line, out)?;
        line.clear();
    }
    Ok(())
}

fn main() -> ExitCode {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let files: Vec<String> = std::env::args().skip(1).collect();
    let result = if !files.is_empty() {
        files.iter().try_for_each(|path| {
            let mut text = Vec::new();
            std::fs::File::open(path)?.read_to_end(&mut text)?;
            run(&mut &text[..], &mut out)
        })
    } else if io::stdin().is_terminal() {
        run(&mut DEMO.as_bytes(), &mut out)
    } else {
        run(&mut io::stdin().lock(), &mut out)
    };
    match result.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("ctx: {err}");
            ExitCode::FAILURE
        }
    }
}
