//! Class histogram of a binary HPROF heap dump, read through the incremental decoder with a
//! fixed buffer (memory stays bounded whatever the file size).
//!
//! ```sh
//! cargo run --release -p hprof-format --example histogram            # a bundled JDK 17 dump
//! cargo run --release -p hprof-format --example histogram -- FILE    # your own dump
//! cargo run --release -p hprof-format --example histogram -- --threads 2 FILE
//! ```
//!
//! With `--threads N`, the file is split at top-level record boundaries into N byte-balanced
//! ranges (found by walking the 9-byte record headers), each streamed through its own
//! decoder and buffer, and the histograms are merged.
//!
//! Prints one class per line: `instances<TAB>shallow_bytes<TAB>class_name`, sorted by
//! instances descending, then name ascending.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::indexing_slicing)]

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::process::ExitCode;

use hprof::binary::histogram::Histogram;
use hprof::binary::incremental::Decoder;
use hprof::binary::{Cursor, Header, IdSize, RecordHeader};

/// The buffer size: every read fills this buffer; it grows only for a single sub-record
/// larger than it.
const BUFFER: usize = 4 << 20;

/// Streams bytes `[start, end)` of the file (`end = None`: to the end) through `decoder`.
fn stream(
    path: &str,
    decoder: &mut Decoder,
    start: u64,
    end: Option<u64>,
) -> Result<Histogram, String> {
    let err = |e: &dyn std::fmt::Display| format!("{path}: {e}");
    let mut file = File::open(path).map_err(|e| err(&e))?;
    file.seek(SeekFrom::Start(start)).map_err(|e| err(&e))?;
    let mut left = end.map(|e| e - start);
    let mut buf = vec![0u8; BUFFER];
    let mut filled = 0;
    let mut hist = Histogram::new();
    loop {
        let room = buf.len() - filled;
        let want = left.map_or(room, |l| room.min(l as usize));
        let n = file
            .read(&mut buf[filled..filled + want])
            .map_err(|e| err(&e))?;
        filled += n;
        if let Some(l) = left.as_mut() {
            *l -= n as u64;
        }
        let (consumed, needed) = decoder
            .decode_with(&buf[..filled], &mut hist)
            .map_err(|e| err(&e))?;
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        if n == 0 {
            decoder.finish(&buf[..filled]).map_err(|e| err(&e))?;
            return Ok(hist);
        }
        if filled + needed > buf.len() {
            // One sub-record larger than the buffer: grow to exactly what it needs.
            buf.resize(filled + needed, 0);
        }
    }
}

/// Reads the header, then walks the record headers to cut the file into `threads`
/// byte-balanced ranges that start and end on record boundaries.
fn split(path: &str, threads: usize) -> Result<(Header, Vec<(u64, u64)>), String> {
    let err = |e: &dyn std::fmt::Display| format!("{path}: {e}");
    let file = File::open(path).map_err(|e| err(&e))?;
    let size = file.metadata().map_err(|e| err(&e))?.len();
    let mut r = BufReader::with_capacity(64 << 10, file);
    let mut head = vec![0u8; 64];
    let n = r.read(&mut head).map_err(|e| err(&e))?;
    let (header, len) = Header::parse(&head[..n]).map_err(|e| err(&e))?;
    r.seek(SeekFrom::Start(len as u64)).map_err(|e| err(&e))?;
    let share = (size - len as u64) / threads as u64 + 1;
    let mut ranges = Vec::new();
    let (mut start, mut pos) = (len as u64, len as u64);
    let mut frame = [0u8; 9];
    while pos < size {
        r.read_exact(&mut frame).map_err(|e| err(&e))?;
        let h = RecordHeader::parse(&mut Cursor::new(&frame, pos, IdSize::Four))
            .map_err(|e| err(&e))?;
        r.seek_relative(i64::from(h.length)).map_err(|e| err(&e))?;
        pos += 9 + u64::from(h.length);
        if pos - start >= share && ranges.len() + 1 < threads {
            ranges.push((start, pos));
            start = pos;
        }
    }
    ranges.push((start, size));
    Ok((header, ranges))
}

fn histogram(path: &str, threads: usize) -> Result<Histogram, String> {
    if threads <= 1 {
        return stream(path, &mut Decoder::new(), 0, None);
    }
    let (header, ranges) = split(path, threads)?;
    let parts: Vec<Result<Histogram, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|&(start, end)| {
                s.spawn(move || {
                    stream(
                        path,
                        &mut Decoder::after_header(&header, start),
                        start,
                        Some(end),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("worker thread panicked".into()))
            })
            .collect()
    });
    let mut hist = Histogram::new();
    for p in parts {
        hist.merge(p?);
    }
    Ok(hist)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 1;
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        threads = match args.get(i + 1).and_then(|n| n.parse().ok()) {
            Some(n) if n >= 1 => n,
            _ => {
                eprintln!("error: --threads needs a number >= 1");
                return ExitCode::from(2);
            }
        };
        args.drain(i..i + 2);
    }
    let path = match args.first() {
        Some(p) if p != "--help" && p != "-h" => p.clone(),
        Some(_) => {
            eprintln!(
                "usage: histogram [FILE]   (default: a small JDK 17 dump bundled in the crate)"
            );
            return ExitCode::SUCCESS;
        }
        None => concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/binary/heapgen_jdk17.hprof"
        )
        .to_owned(),
    };
    let hist = match histogram(&path, threads) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for row in hist.rows() {
        if writeln!(
            out,
            "{}\t{}\t{}",
            row.instances, row.shallow_bytes, row.class_name
        )
        .is_err()
        {
            break; // stdout closed (e.g. piped into `head`)
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}
