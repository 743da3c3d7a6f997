//! `to-parquet IN OUTDIR`: a heap dump (`.hprof`), a gprofng experiment or a JDK Flight
//! Recorder recording (`.jfr`) as Parquet tables, one folder per table
//! (`OUTDIR/objects/part-00000.parquet`, …), integer columns delta-packed and strings
//! zstd-compressed, for DuckDB, Spark or Polars.
//!
//! ```sh
//! cargo run --release -p jvmprof-columnar --features fs --example to-parquet -- heap.hprof out/
//! duckdb -c "SELECT kind, count(*) FROM 'out/objects/*.parquet' GROUP BY kind"
//! ```

// The dump is memory-mapped (its pages are the page cache's, not ours); examples print.
#![allow(unsafe_code, clippy::print_stdout, clippy::print_stderr)]

use std::fs::File;
use std::io::{IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use columnar::ParquetSink;
use columnar::fs::DirStore;
use columnar::sink::DEFAULT_ROWS_PER_PART;

const USAGE: &str = "\
usage: to-parquet [--rows-per-part N] [--column-threads yes|no] [--force] IN OUTDIR

Writes IN as Parquet tables under OUTDIR, one folder per table
(OUTDIR/<table>/part-NNNNN.parquet; integer columns delta-packed, strings zstd):
  an HPROF heap dump: classes, objects, references, roots, strings, stack_frames, stack_traces;
  a gprofng experiment directory: samples, stacks, functions, load_objects;
  a JFR recording: a table per event type it holds, named after the type
  (jdk_ExecutionSample, jdk_ObjectAllocationSample, …), stacks, stack_frames
  (read one chunk at a time: memory bounded by the largest chunk).
Parts are written under a hidden temporary name and renamed once complete;
OUTDIR/_SUCCESS is written last, only when the whole input was read.
IN is checked (an HPROF header, an experiment's log, a JFR chunk header) before OUTDIR
is touched.
Prints a JSON summary (rows and parts per table) on stdout.

options:
  --rows-per-part N   split tables into files of at most N rows (default 8388608)
  --column-threads yes|no
                      encode each column on a thread of its own (default: yes with 4 cores
                      or more, no for a JFR recording, whose many small tables are all
                      written on one thread; the files are the same either way)
  --force             replace the tables of an earlier export in OUTDIR
  -h, --help          this text
  --version           the version

exit status: 0 complete; 1 error (nothing usable written); 2 bad usage;
3 partial: the dump, experiment or recording is cut off or damaged, everything before the
  damage was written
  (stderr says where reading stopped; no _SUCCESS file).";

struct Args {
    input: PathBuf,
    out: PathBuf,
    rows_per_part: u64,
    column_threads: Option<bool>,
    force: bool,
}

fn parse_args() -> Result<Option<Args>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let (mut input, mut out) = (None, None);
    let mut rows_per_part = DEFAULT_ROWS_PER_PART;
    let mut force = false;
    let mut column_threads = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => {
                println!("{USAGE}");
                return Ok(None);
            }
            Long("version") => {
                println!("to-parquet {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            Long("rows-per-part") => rows_per_part = parser.value()?.parse()?,
            Long("force") => force = true,
            Long("column-threads") => {
                column_threads = match parser.value()?.string()?.as_str() {
                    "yes" => Some(true),
                    "no" => Some(false),
                    other => {
                        return Err(format!(
                            "--column-threads: expected yes or no, found {other:?}"
                        )
                        .into());
                    }
                }
            }
            Value(v) if input.is_none() => input = Some(PathBuf::from(v)),
            Value(v) if out.is_none() => out = Some(PathBuf::from(v)),
            _ => return Err(arg.unexpected()),
        }
    }
    match (input, out) {
        (Some(input), Some(out)) => Ok(Some(Args {
            input,
            out,
            rows_per_part,
            column_threads,
            force,
        })),
        _ => Err("expected IN and OUTDIR".into()),
    }
}

fn prepare_out(out: &Path, force: bool) -> Result<(), String> {
    let tables = [
        "classes",
        "objects",
        "references",
        "roots",
        "strings",
        "stack_frames",
        "stack_traces",
        "samples",
        "stacks",
        "functions",
        "load_objects",
    ];
    if out.exists() && !out.is_dir() {
        return Err("exists and is not a directory".into());
    }
    let mut taken: Vec<String> = tables
        .iter()
        .filter(|t| out.join(t).exists())
        .map(|t| (*t).to_owned())
        .collect();
    // A recording's tables are named after its event types: any folder holding parts.
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !taken.contains(&name) && holds_parts(&entry.path()) {
            taken.push(name);
        }
    }
    taken.sort();
    if !taken.is_empty() && !force {
        return Err(format!(
            "already holds tables ({}): pass --force to replace them",
            taken.join(", ")
        ));
    }
    for t in taken {
        std::fs::remove_dir_all(out.join(t)).map_err(|e| e.to_string())?;
    }
    for marker in ["_SUCCESS", "_PARTIAL"] {
        let _ = std::fs::remove_file(out.join(marker));
    }
    std::fs::create_dir_all(out).map_err(|e| e.to_string())
}

/// Whether `dir` is a folder of Parquet parts (`part-NNNNN.parquet`) and nothing else.
fn holds_parts(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut any = false;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("part-") || name.starts_with(".part-")) || !name.contains(".parquet")
        {
            return false;
        }
        any = true;
    }
    any
}

/// What an export ended with: rows per table aside, whether it read everything and, if not,
/// where and why it stopped.
struct Outcome {
    complete: bool,
    note: String,
    extra: String,
}

/// The parts under OUTDIR.
type Sink = ParquetSink<DirStore>;

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let input = args.input.display().to_string();
    let out_dir = args.out.display().to_string();
    let meta = match std::fs::metadata(&args.input) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {input}: {e}");
            return ExitCode::from(1);
        }
    };
    // IN is opened and recognised before OUTDIR is touched: a wrong or unreadable input leaves
    // the file system as it was.
    let opened = match open_input(&args.input, meta.is_dir()) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {input}: {e}");
            return ExitCode::from(1);
        }
    };
    let created = !args.out.exists();
    if let Err(e) = prepare_out(&args.out, args.force) {
        eprintln!("error: {out_dir}: {e}");
        return ExitCode::from(1);
    }
    // On failure, an OUTDIR this run created is removed again (no empty or half-filled folder
    // that looks like an export); parts not yet committed are removed by the store either way.
    let failed = |path: &str, e: String| {
        eprintln!("error: {path}: {e}");
        if created {
            let _ = std::fs::remove_dir_all(&args.out);
        }
        ExitCode::from(1)
    };
    let store = DirStore::new(&args.out);
    let mut sink = ParquetSink::new(store).with_rows_per_part(args.rows_per_part);
    // A recording has tens of small tables: a thread for each (let alone for each of their
    // columns) would cost more memory (stacks, allocator arenas) than it saves time. They are
    // written on this thread.
    let column_threads = match (&args.column_threads, &opened) {
        (Some(threads), _) => Some(*threads),
        (None, Input::Recording(..)) => Some(false),
        (None, _) => None,
    };
    if let Some(threads) = column_threads {
        sink = sink.with_column_threads(threads);
    }
    if matches!(opened, Input::Recording(..)) {
        sink = sink.with_table_threads(false);
    }
    let outcome = match opened {
        Input::Dump(map) => export_dump(&map, &mut sink),
        Input::Experiment(exp) => export_experiment(&args.input, &exp, &mut sink),
        Input::Recording(file, size) => export_recording(file, size, &mut sink),
    };
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            drop(sink);
            return failed(&input, e);
        }
    };
    let written = match sink.finish() {
        Ok((_, w)) => w,
        Err(e) => return failed(&out_dir, e.to_string()),
    };
    let marker = if outcome.complete {
        "_SUCCESS"
    } else {
        "_PARTIAL"
    };
    if let Err(e) = std::fs::write(args.out.join(marker), &outcome.note) {
        eprintln!("error: {out_dir}: {e}");
        return ExitCode::from(1);
    }
    let mut json = String::from("{\"input\":");
    json.push_str(&json_string(&input));
    json.push_str(",\"complete\":");
    json.push_str(if outcome.complete { "true" } else { "false" });
    json.push_str(",\"tables\":{");
    for (i, (name, w)) in written.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "\"{name}\":{{\"rows\":{},\"parts\":{}}}",
            w.rows, w.parts
        ));
    }
    json.push('}');
    json.push_str(&outcome.extra);
    json.push_str("}\n");
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(json.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: stdout: {e}");
            return ExitCode::from(1);
        }
    }
    if outcome.complete {
        ExitCode::SUCCESS
    } else {
        eprintln!("warning: {input}: partial: {}", outcome.note.trim_end());
        ExitCode::from(3)
    }
}

fn progress_bar(len: u64, template: &str) -> Option<indicatif::ProgressBar> {
    std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    })
}

/// An HPROF file, memory-mapped.
/// IN, opened and recognised.
enum Input {
    /// An HPROF dump whose header reads, memory-mapped.
    Dump(memmap2::Mmap),
    /// An experiment directory whose log opens.
    Experiment(Box<experiment::Experiment<FsSource>>),
    /// A JFR recording whose first chunk header reads, and its size.
    Recording(File, u64),
}

/// Opens IN and checks that it is what it claims to be (an HPROF header; an experiment's log),
/// before anything is written.
fn open_input(path: &Path, is_dir: bool) -> Result<Input, String> {
    if is_dir {
        return experiment::Experiment::open(FsSource(path.to_path_buf()))
            .map(|e| Input::Experiment(Box::new(e)))
            .map_err(|e| e.to_string());
    }
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let mut head = [0u8; jfr::HEADER_SIZE];
    let n = read_full(&mut file, &mut head).map_err(|e| e.to_string())?;
    if head.starts_with(&jfr::MAGIC) {
        jfr::ChunkHeader::parse(head.get(..n).unwrap_or_default(), 0).map_err(|e| e.to_string())?;
        file.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
        return Ok(Input::Recording(file, meta.len()));
    }
    // SAFETY: the map is read-only; a file truncated underneath us would raise SIGBUS, as
    // for every tool that maps its input.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| e.to_string())?;
    hprof::binary::Header::parse(&map).map_err(|e| e.to_string())?;
    Ok(Input::Dump(map))
}

fn export_dump(map: &memmap2::Mmap, sink: &mut Sink) -> Result<Outcome, String> {
    // One pass over the dump, a second one only for a dump whose class dumps come late.
    let bar = progress_bar(map.len() as u64, "{bar:40} {bytes}/{total_bytes} {eta}");
    // Pages already read are given back to the kernel as the export moves on, so the dump's
    // pages never pile up in our resident set (the exporter reads each region once per pass,
    // and a page read again is simply read again from the file).
    let _ = map.advise(memmap2::Advice::Sequential);
    let len = map.len() as u64;
    let mut released = 0u64;
    let mut progress = |n: u64| {
        if let Some(b) = &bar {
            if n > len {
                b.set_length(2 * len);
            }
            b.set_position(n);
        }
        let at = n % len.max(1);
        let keep = 32 << 20;
        if at > released + keep * 2 || at < released {
            let upto = at.saturating_sub(keep) & !0xFFFF;
            if upto > 0 {
                // SAFETY: the map is read-only and file-backed: dropped pages are read back
                // from the file on the next access, so every slice stays valid.
                let _ = unsafe {
                    map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, upto as usize)
                };
            }
            released = upto;
        }
    };
    let summary = columnar::hprof::export(map, sink, &mut progress);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let summary = summary.map_err(|e| e.to_string())?;
    let note = match &summary.stopped {
        Some(e) => format!("reading stopped at byte offset {}: {e}\n", e.offset()),
        None if summary.missing_heap_dump_end => {
            "the dump ends without its HEAP DUMP END record (cut off after a segment)\n".into()
        }
        None => String::new(),
    };
    Ok(Outcome {
        complete: summary.is_complete(),
        note,
        extra: format!(
            ",\"instances_without_layout\":{}",
            summary.instances_without_layout
        ),
    })
}

/// A JFR recording, read one chunk at a time into one buffer (the header says how big the
/// chunk is): memory is bounded by the largest chunk, never by the file.
fn export_recording(mut file: File, size: u64, sink: &mut Sink) -> Result<Outcome, String> {
    let bar = progress_bar(size, "{bar:40} {bytes}/{total_bytes} {eta}");
    let mut exporter = columnar::jfr::Exporter::new(sink).map_err(|e| e.to_string())?;
    let mut pos = 0u64;
    let mut buf = Vec::new();
    let mut metadata = None;
    loop {
        if pos >= size && pos > 0 {
            break;
        }
        let mut head = [0u8; jfr::HEADER_SIZE];
        let n = read_full(&mut file, &mut head).map_err(|e| e.to_string())?;
        let header = match jfr::ChunkHeader::parse(head.get(..n).unwrap_or_default(), 0) {
            Ok(h) => h,
            Err(e) => {
                exporter.stop(e.with_base(pos));
                break;
            }
        };
        // A chunk still being written says 0: it runs to the end of the file.
        let left = size - pos;
        let want = if header.chunk_size == 0 {
            left
        } else {
            header.chunk_size.min(left)
        };
        buf.clear();
        buf.extend_from_slice(head.get(..n).unwrap_or_default());
        (&mut file)
            .take(want.saturating_sub(n as u64))
            .read_to_end(&mut buf)
            .map_err(|e| e.to_string())?;
        let chunk = match jfr::Chunk::parse_reusing(&buf, 0, metadata.as_ref()) {
            Ok(c) => c,
            Err(e) => {
                exporter.stop(e.with_base(pos));
                break;
            }
        };
        metadata = Some(std::sync::Arc::clone(&chunk.metadata));
        exporter.chunk(&chunk, pos).map_err(|e| e.to_string())?;
        if exporter.stopped().is_some() {
            break;
        }
        let read = chunk.range().end as u64;
        if read == 0 {
            break;
        }
        pos += read;
        if let Some(b) = &bar {
            b.set_position(pos);
        }
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let summary = exporter.finish().map_err(|e| e.to_string())?;
    let note = match &summary.stopped {
        Some(e) => format!("{e}\n"),
        None => String::new(),
    };
    Ok(Outcome {
        complete: summary.is_complete(),
        note,
        extra: format!(",\"chunks\":{}", summary.chunks),
    })
}

fn read_full(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(buf.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// An experiment directory, read through the file system; load objects not archived in it are
/// read where the experiment recorded them.
fn export_experiment(
    dir: &Path,
    exp: &experiment::Experiment<FsSource>,
    sink: &mut Sink,
) -> Result<Outcome, String> {
    let name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let symbols = experiment::stacks::Symbolizer::new(exp).with_load_objects(load_object);
    let bar = progress_bar(0, "{spinner} {pos} packets");
    let mut progress = |n: u64| {
        if let Some(b) = &bar {
            b.set_position(n);
        }
    };
    let summary = columnar::experiment::export(&name, exp, symbols, sink, &mut progress);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let summary = summary.map_err(|e| e.to_string())?;
    let mut note = String::new();
    for e in &summary.stopped {
        note.push_str(&format!("{e}\n"));
    }
    Ok(Outcome {
        complete: summary.is_complete() && !exp.incomplete(),
        note: if note.is_empty() && exp.incomplete() {
            "the experiment is marked incomplete (its collector did not finish)\n".into()
        } else {
            note
        },
        extra: String::new(),
    })
}

/// An experiment directory on the file system: missing files are `None`, unreadable ones an
/// error naming them; only regular files are read.
struct FsSource(PathBuf);

impl experiment::Source for FsSource {
    fn read(&self, path: &str) -> experiment::Result<Option<experiment::bytes::Bytes>> {
        let full = self.0.join(path);
        let unreadable = |reason: String| experiment::Error::Read {
            path: path.to_owned(),
            reason,
        };
        match std::fs::metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(unreadable(e.to_string())),
            Ok(m) if !m.is_file() => Err(unreadable("not a regular file".into())),
            Ok(_) => std::fs::read(full)
                .map(|b| Some(b.into()))
                .map_err(|e| unreadable(e.to_string())),
        }
    }

    /// Just the range: data files are streamed in chunks this way, so memory does not grow
    /// with their size.
    fn read_at(
        &self,
        path: &str,
        offset: u64,
        len: usize,
    ) -> experiment::Result<Option<experiment::bytes::Bytes>> {
        use std::io::{Read, Seek, SeekFrom};
        let full = self.0.join(path);
        let unreadable = |e: std::io::Error| experiment::Error::Read {
            path: path.to_owned(),
            reason: e.to_string(),
        };
        let meta = match std::fs::metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unreadable(e)),
            Ok(m) if !m.is_file() => {
                return Err(unreadable(std::io::Error::other("not a regular file")));
            }
            Ok(m) => m,
        };
        let mut file = std::fs::File::open(&full).map_err(unreadable)?;
        let start = offset.min(meta.len());
        file.seek(SeekFrom::Start(start)).map_err(unreadable)?;
        let want = u64::try_from(len)
            .unwrap_or(u64::MAX)
            .min(meta.len() - start);
        let mut buf = Vec::with_capacity(usize::try_from(want).unwrap_or(0));
        file.take(want).read_to_end(&mut buf).map_err(unreadable)?;
        Ok(Some(buf.into()))
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

/// A load object's bytes where the experiment recorded it (regular files up to 1 GiB).
fn load_object(path: &str) -> Option<experiment::bytes::Bytes> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 30 {
        return None;
    }
    std::fs::read(path).ok().map(Into::into)
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
