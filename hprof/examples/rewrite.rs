//! Decodes every record and sub-record of a binary HPROF dump (`.hprof`, or gzip-compressed
//! `.hprof.gz`), re-encodes each one and writes the result: OUT equals the (decompressed) IN
//! byte for byte. Streams through the incremental decoder, so memory stays bounded by one
//! heap-dump record, and no declared length makes it allocate more than IN still holds.
//!
//! ```sh
//! cargo run --release -p hprof-format --example rewrite -- IN.hprof OUT.hprof && cmp IN.hprof OUT.hprof
//! ```
//!
//! A dump cut off or damaged part-way is rewritten up to that point (the open heap-dump record
//! closed with the sub-records read), with `warning: IN: partial: …` and exit status 3.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::indexing_slicing)]

mod common;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use common::{Input, Stop};
use hprof::binary::incremental::{Decoder, Event};
use hprof::binary::write::Writer;

const USAGE: &str = "\
usage: rewrite IN OUT

Decodes every record and sub-record of the binary HPROF dump IN (which may be
gzip-compressed), re-encodes each one and writes them to OUT: OUT equals IN byte for byte.

options:
  -h, --help   print this help
  --version    print the version
";

/// Why a rewrite failed.
enum Failure {
    /// Reading IN failed before anything was decoded: `error: IN: reason`.
    Input(String),
    /// Creating or writing OUT failed: `error: OUT: reason`.
    Output(io::Error),
}

/// Rewrites `input` to `output`; returns how many events were written and, if IN is cut off
/// or damaged part-way, why reading stopped.
fn rewrite(input: &str, output: &str) -> Result<(u64, Option<Stop>), Failure> {
    let mut file = Input::open(input).map_err(|e| Failure::Input(e.to_string()))?;
    let mut decoder = match file.len {
        Some(len) => Decoder::new().input_len(len),
        None => Decoder::new(),
    };
    let mut writer: Option<Writer<BufWriter<File>>> = None;
    let mut events = 0u64;
    let mut failure: Option<io::Error> = None;
    let stop = common::stream(&mut file.reader, &mut decoder, |d, buf| {
        d.decode_all(buf, |event| {
            if failure.is_some() {
                return;
            }
            events += 1;
            let r = match (&mut writer, event) {
                (None, Event::Header(h)) => File::create(output)
                    .and_then(|f| Writer::new(BufWriter::new(f), &h))
                    .map(|w| writer = Some(w)),
                (Some(w), Event::Record(h, r)) => w.write_record(h.time, &r),
                (Some(w), Event::HeapDumpStart(h)) => w.start_heap_dump_record(h.tag, h.time),
                (Some(w), Event::SubRecord(_, s)) => w.write_sub_record(&s),
                (Some(w), Event::HeapDumpBodyEnd(_)) => w.close_heap_dump_record(),
                _ => Ok(()),
            };
            if let Err(e) = r {
                failure = Some(e);
            }
        })
    })
    .err();
    file.done();
    if let Some(e) = failure {
        return Err(Failure::Output(e));
    }
    match writer {
        // Everything read is written, the open heap-dump record closed with what it holds.
        Some(w) => {
            w.finish()
                .and_then(|mut out| out.flush())
                .map_err(Failure::Output)?;
            Ok((events, stop))
        }
        // Not even the header could be read.
        None => Err(Failure::Input(match stop {
            Some(stop) => stop.to_string(),
            None => "no HPROF header".to_owned(),
        })),
    }
}

fn main() -> ExitCode {
    let mut paths: Vec<String> = Vec::new();
    let mut args = lexopt::Parser::from_env();
    let usage = format!("{USAGE}\n{}", common::EXIT_STATUS);
    loop {
        let arg = match args.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return common::usage_error(USAGE, e),
        };
        if let Some(exit) = common::standard_flag(&arg, "rewrite", &usage) {
            return exit;
        }
        match arg {
            lexopt::Arg::Value(v) if paths.len() < 2 => paths.push(v.to_string_lossy().into()),
            other => return common::usage_error(USAGE, other.unexpected()),
        }
    }
    let [input, output] = paths.as_slice() else {
        return common::usage_error(USAGE, "expected IN and OUT");
    };
    let (events, stop) = match rewrite(input, output) {
        Ok(r) => r,
        Err(Failure::Input(e)) => return common::file_error(input, e),
        Err(Failure::Output(e)) => return common::file_error(output, e),
    };
    let line = format!("rewrote {events} records and sub-records from {input} to {output}");
    if let Err(exit) = common::write_stdout(|out| writeln!(out, "{line}")) {
        return exit;
    }
    match stop {
        None => ExitCode::SUCCESS,
        Some(stop) => common::partial(input, stop),
    }
}
