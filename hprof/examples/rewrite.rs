//! Decodes every record and sub-record of a binary HPROF dump, re-encodes each one and writes
//! the result: OUT equals IN byte for byte. Streams through the incremental decoder, so memory
//! stays bounded by one heap-dump record.
//!
//! ```sh
//! cargo run --release -p hprof-format --example rewrite -- IN.hprof OUT.hprof && cmp IN.hprof OUT.hprof
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::indexing_slicing)]

use std::fs::File;
use std::io::{BufWriter, Read};
use std::process::ExitCode;

use hprof::binary::incremental::{Decoder, Event};
use hprof::binary::write::Writer;

fn rewrite(input: &str, output: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let mut file = File::open(input)?;
    let out = BufWriter::new(File::create(output)?);
    let mut writer: Option<Writer<BufWriter<File>>> = None;
    let mut out_slot = Some(out);
    let mut buf = vec![0u8; 4 << 20];
    let mut filled = 0;
    let mut decoder = Decoder::new();
    let mut events = 0u64;
    loop {
        let n = file.read(&mut buf[filled..])?;
        filled += n;
        let mut failure: Option<std::io::Error> = None;
        let (consumed, needed) = decoder.decode_all(&buf[..filled], |event| {
            if failure.is_some() {
                return;
            }
            events += 1;
            let r = match (&mut writer, event) {
                (None, Event::Header(h)) => match out_slot.take() {
                    Some(o) => Writer::new(o, &h).map(|w| writer = Some(w)),
                    None => Ok(()),
                },
                (Some(w), Event::Record(h, r)) => w.write_record(h.time, &r),
                (Some(w), Event::HeapDumpStart(h)) => w.start_heap_dump_record(h.tag, h.time),
                (Some(w), Event::SubRecord(_, s)) => w.write_sub_record(&s),
                (Some(w), Event::HeapDumpBodyEnd(_)) => w.close_heap_dump_record(),
                _ => Ok(()),
            };
            if let Err(e) = r {
                failure = Some(e);
            }
        })?;
        if let Some(e) = failure {
            return Err(e.into());
        }
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        if n == 0 {
            decoder.finish(&buf[..filled])?;
            break;
        }
        if filled + needed > buf.len() {
            buf.resize(filled + needed, 0);
        }
    }
    if let Some(w) = writer {
        w.finish()?;
    }
    Ok(events)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: rewrite IN.hprof OUT.hprof");
        return ExitCode::from(2);
    };
    match rewrite(input, output) {
        Ok(events) => {
            println!("rewrote {events} records and sub-records from {input} to {output}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
