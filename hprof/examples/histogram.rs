//! Class histogram of a binary HPROF heap dump (`.hprof`, or gzip-compressed `.hprof.gz`),
//! read through the incremental decoder: no declared length makes it allocate more than the
//! file still holds, and its own memory stays bounded by the largest record or sub-record,
//! whatever the file size.
//!
//! ```sh
//! cargo run --release -p hprof-format --example histogram -- FILE
//! cargo run --release -p hprof-format --example histogram -- --threads 2 FILE
//! ```
//!
//! On one thread (the default) a plain file is memory-mapped and decoded in place, a window
//! (at most 4 MiB) at a time: no copy from the kernel's page cache into a buffer, two
//! heap-dump records walked at once (`Decoder::decode_forked`: the processor follows both
//! chains of positions together), the bytes a few kilobytes ahead of each prefetched into the
//! CPU cache, and each window's pages unmapped once it is decoded, so the resident set stays
//! small. A gzip-compressed file, or one that cannot be mapped, is streamed through a bounded
//! buffer.
//!
//! With `--threads N`, the file is split at top-level record boundaries into N byte-balanced
//! ranges (found by walking the 9-byte record headers), each decoded from the map (or
//! streamed) by its own decoder, and the histograms are merged.
//!
//! Prints one class per line: `instances<TAB>shallow_bytes<TAB>class_name`, sorted by
//! instances descending, then name ascending. A dump cut off or damaged part-way gives the
//! histogram of everything before that point, `warning: FILE: partial: …` and exit status 3.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::indexing_slicing,
    unsafe_code
)]

mod common;

use lexopt::ValueExt;

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::process::ExitCode;

use common::mapped::{map, mapped};
use common::{Input, Stop};
use hprof::binary::histogram::Histogram;
use hprof::binary::incremental::Decoder;
use hprof::binary::records::tag;
use hprof::binary::{Cursor, Header, IdSize, RecordHeader};

const USAGE: &str = "\
usage: histogram [--threads N] FILE

Prints the class histogram of a binary HPROF heap dump (FILE may be gzip-compressed):
one class per line, `instances<TAB>shallow_bytes<TAB>class_name`, most instances first.

options:
  --threads N  decode N byte-balanced ranges of the file in parallel (not for gzip files)
  -h, --help   print this help
  --version    print the version
";

/// Streams `input` from its current position through `decoder` into a histogram; returns the
/// histogram and, if reading stopped early, why.
fn stream(reader: &mut dyn Read, decoder: &mut Decoder, hist: &mut Histogram) -> Result<(), Stop> {
    common::stream(reader, decoder, |d, buf| d.decode_forked(buf, hist))
}

/// The file header and the byte ranges `[start, end)` of the records of each thread.
type Split = (Header, Vec<(u64, u64)>);

/// Walks the record headers of the file to cut it into `threads` byte-balanced ranges that
/// start and end on record boundaries. `None` when the framing is not whole (a record past
/// the end of the file, no `HEAP_DUMP_END` after segments): the caller then streams the file
/// on one thread, which says precisely what is missing.
fn split(path: &str, threads: usize) -> std::io::Result<Option<Split>> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut r = BufReader::with_capacity(64 << 10, file);
    let mut head = vec![0u8; 64];
    let n = r.read(&mut head)?;
    let Ok((header, len)) = Header::parse(&head[..n]) else {
        return Ok(None);
    };
    r.seek(SeekFrom::Start(len as u64))?;
    let share = (size - len as u64) / threads as u64 + 1;
    let mut ranges = Vec::new();
    let (mut start, mut pos) = (len as u64, len as u64);
    let mut frame = [0u8; 9];
    let (mut records, mut segments_open) = (0, false);
    while pos < size {
        if size - pos < 9 {
            return Ok(None);
        }
        r.read_exact(&mut frame)?;
        let Ok(h) = RecordHeader::parse(&mut Cursor::new(&frame, pos, IdSize::Four)) else {
            return Ok(None);
        };
        pos += 9 + u64::from(h.length);
        if pos > size {
            return Ok(None);
        }
        r.seek_relative(i64::from(h.length))?;
        records += 1;
        match h.tag {
            tag::HEAP_DUMP_SEGMENT => segments_open = true,
            tag::HEAP_DUMP_END => segments_open = false,
            _ => {}
        }
        if pos - start >= share && ranges.len() + 1 < threads {
            ranges.push((start, pos));
            start = pos;
        }
    }
    if records == 0 || segments_open {
        return Ok(None);
    }
    ranges.push((start, size));
    Ok(Some((header, ranges)))
}

/// The histogram of the whole file, why reading stopped early if it did, and whether the file
/// header was read.
type Outcome = (Histogram, Option<Stop>, bool);

fn histogram(path: &str, threads: usize) -> Result<Outcome, std::io::Error> {
    let mut input = Input::open(path)?;
    let mut hist = Histogram::new();
    let ranges = match threads {
        0 | 1 => None,
        _ if input.gzip => None,
        _ => split(path, threads)?,
    };
    if let (0 | 1, false, Some(len @ 1..)) = (threads, input.gzip, input.len) {
        if let Some(map) = map(path) {
            let mut decoder = Decoder::new().input_len(len);
            let range = (0, map.len());
            let progress = |pos| input.progress(pos);
            let forked = |d: &mut Decoder, b: &[u8], v: &mut _| d.decode_forked(b, v);
            let stop = mapped(&map, range, &mut decoder, &mut hist, progress, forked).err();
            input.done();
            return Ok((hist, stop.map(Stop::Decode), decoder.offset() > 0));
        }
    }
    let Some((header, ranges)) = ranges else {
        let mut decoder = match input.len {
            Some(len) => Decoder::new().input_len(len),
            None => Decoder::new(),
        };
        let stop = stream(&mut input.reader, &mut decoder, &mut hist).err();
        input.done();
        return Ok((hist, stop, decoder.offset() > 0));
    };
    input.done();
    let map = map(path);
    let map = map.as_ref();
    let parts: Vec<Result<(Histogram, Option<Stop>), std::io::Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|&(start, end)| {
                s.spawn(move || {
                    let mut decoder = Decoder::after_header(&header, start).input_len(end);
                    let mut part = Histogram::new();
                    if let Some(map) = map.filter(|m| m.len() as u64 >= end) {
                        let range = (start as usize, end as usize);
                        let forked = |d: &mut Decoder, b: &[u8], v: &mut _| d.decode_forked(b, v);
                        let stop =
                            mapped(map, range, &mut decoder, &mut part, |_| {}, forked).err();
                        return Ok((part, stop.map(Stop::Decode)));
                    }
                    let mut file = File::open(path)?;
                    file.seek(SeekFrom::Start(start))?;
                    let mut range = file.take(end - start);
                    let stop = stream(&mut range, &mut decoder, &mut part).err();
                    Ok((part, stop))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("worker thread panicked")))
            })
            .collect()
    });
    let mut first_stop = None;
    for p in parts {
        let (part, stop) = p?;
        hist.merge(part);
        if first_stop.is_none() {
            first_stop = stop;
        }
    }
    Ok((hist, first_stop, true))
}

fn main() -> ExitCode {
    let mut threads = 1usize;
    let mut path: Option<String> = None;
    let mut args = lexopt::Parser::from_env();
    loop {
        let arg = match args.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return common::usage_error(USAGE, e),
        };
        if let Some(exit) = common::standard_flag(&arg, "histogram", &usage()) {
            return exit;
        }
        match arg {
            lexopt::Arg::Long("threads") => match args.value().map(|v| v.parse::<usize>()) {
                Ok(Ok(n)) if n >= 1 => threads = n,
                _ => return common::usage_error(USAGE, "--threads needs a number >= 1"),
            },
            lexopt::Arg::Value(v) if path.is_none() => path = Some(v.to_string_lossy().into()),
            other => return common::usage_error(USAGE, other.unexpected()),
        }
    }
    let Some(path) = path else {
        return common::usage_error(USAGE, "missing FILE");
    };
    let (hist, stop, header_read) = match histogram(&path, threads) {
        Ok(r) => r,
        Err(e) => return common::file_error(&path, e),
    };
    // Not even the header read (an empty or foreign file): an error, not an empty histogram.
    if let (Some(stop), false) = (&stop, header_read) {
        return common::file_error(&path, stop);
    }
    let rows = hist.rows();
    if let Err(exit) = common::write_stdout(|out| {
        for row in &rows {
            writeln!(
                out,
                "{}\t{}\t{}",
                row.instances, row.shallow_bytes, row.class_name
            )?;
        }
        Ok(())
    }) {
        return exit;
    }
    match stop {
        None => ExitCode::SUCCESS,
        Some(stop) => common::partial(&path, stop),
    }
}

fn usage() -> String {
    format!("{USAGE}\n{}", common::EXIT_STATUS)
}
