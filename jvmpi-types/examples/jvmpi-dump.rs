//! Decodes a JVMPI dump buffer and prints one line per record tag present, `TAG_NAME<TAB>count`
//! in first-appearance order, then `total<TAB>N`.
//!
//! ```text
//! jvmpi-dump --kind heap|object|monitor [--level 0|1|2] --id-size 4|8 --id-order little|big
//!            [--classes CLASSES.json] [--hotspot] FILE
//! ```
//!
//! `CLASSES.json` is `{"classes":[{"id":N,"interfaces":N,"statics":["I","J",...]}]}` and gives
//! the class layouts `JVMPI_GC_CLASS_DUMP` records need. `--hotspot` reads the JNI-global
//! `jobject` and class-dump reserved slot big-endian, as HotSpot 5.0 writes them. Exit status:
//! 0 on success; 1 when FILE cannot be read or does not decode (`error: FILE: at byte offset
//! N: …`, nothing on standard output); 2 on a usage error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use jvmpi_types::dump::{heap, monitor, object};
use jvmpi_types::{ClassLayouts, ClassTable, DumpLevel, DumpOptions, IdOrder, IdSize};

const NAME: &str = "jvmpi-dump";
const USAGE: &str = "\
usage: jvmpi-dump [-h | --help] [--version] --kind heap|object|monitor [--level 0|1|2]
                  --id-size 4|8 --id-order little|big [--classes CLASSES.json] [--hotspot] FILE

Decodes a JVMPI heap (level 0, 1 or 2; default 2), object or monitor dump buffer written by a
VM with ID-SIZE-byte identifiers in ID-ORDER byte order, and prints `TAG_NAME<TAB>count` per
record tag in first-appearance order, then `total<TAB>N`.
  --classes CLASSES.json  class layouts for JVMPI_GC_CLASS_DUMP records:
                          {\"classes\":[{\"id\":N,\"interfaces\":N,\"statics\":[\"I\",...]}]}
  --hotspot               the JNI-global jobject and class-dump reserved slot are big-endian,
                          as HotSpot 5.0 writes them

Exit status: 0 success; 1 FILE unreadable or not such a dump; 2 usage error.";

/// Inputs at least this big show progress on a terminal.
const PROGRESS_FROM: u64 = 64 << 20;

/// The kind of dump buffer.
#[derive(Clone, Copy)]
enum Kind {
    Heap,
    Object,
    Monitor,
}

struct Args {
    kind: Kind,
    level: DumpLevel,
    options: DumpOptions,
    classes: Option<String>,
    file: String,
}

/// The arguments, or `None` after `--help`/`--version`.
fn parse_args() -> Result<Option<Args>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut kind = None;
    let mut level = DumpLevel::Level2;
    let mut id_size = None;
    let mut id_order = None;
    let mut classes = None;
    let mut hotspot = false;
    let mut file = None;
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => {
                println!("{USAGE}");
                return Ok(None);
            }
            Long("version") => {
                println!("{NAME} {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            Long("kind") => {
                kind = Some(match parser.value()?.string()?.as_str() {
                    "heap" => Kind::Heap,
                    "object" => Kind::Object,
                    "monitor" => Kind::Monitor,
                    other => {
                        return Err(format!(
                            "--kind: expected heap, object or monitor, found {other}"
                        )
                        .into());
                    }
                });
            }
            Long("level") => {
                let v: i32 = parser.value()?.parse()?;
                level = DumpLevel::try_from(v)
                    .map_err(|_| format!("--level: expected 0, 1 or 2, found {v}"))?;
            }
            Long("id-size") => {
                let v: u64 = parser.value()?.parse()?;
                id_size = Some(IdSize::try_from(v).map_err(|e| format!("--id-size: {e}"))?);
            }
            Long("id-order") => {
                id_order = Some(match parser.value()?.string()?.as_str() {
                    "little" => IdOrder::Little,
                    "big" => IdOrder::Big,
                    other => {
                        return Err(
                            format!("--id-order: expected little or big, found {other}").into()
                        );
                    }
                });
            }
            Long("classes") => classes = Some(parser.value()?.string()?),
            Long("hotspot") => hotspot = true,
            Value(value) if file.is_none() => file = Some(value.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    let kind = kind.ok_or("--kind is required")?;
    let mut options = DumpOptions::new(
        id_size.ok_or("--id-size is required")?,
        id_order.ok_or("--id-order is required")?,
    );
    if hotspot {
        options = options.hotspot();
    }
    Ok(Some(Args {
        kind,
        level,
        options,
        classes,
        file: file.ok_or("missing FILE")?,
    }))
}

/// The file's bytes, with a progress bar on a terminal for big files.
fn read_input(path: &str) -> Result<Vec<u8>, String> {
    let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = if len < PROGRESS_FROM || !io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let style = ProgressStyle::with_template("reading {wide_bar} {bytes}/{total_bytes} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::new(len).with_style(style)
    };
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut chunk).map_err(|e| e.to_string())?;
        let Some(read) = chunk.get(..n).filter(|read| !read.is_empty()) else {
            break;
        };
        bytes.extend_from_slice(read);
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    Ok(bytes)
}

/// Counts in first-appearance order.
#[derive(Default)]
struct Counts(Vec<(&'static str, u64)>);

impl Counts {
    fn add(&mut self, name: &'static str) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => self.0.push((name, 1)),
        }
    }
}

/// The counts, or `error: PATH: reason`'s `PATH: reason`.
fn run(args: &Args) -> Result<Counts, String> {
    let data = read_input(&args.file).map_err(|e| format!("{}: {e}", args.file))?;
    let classes = match &args.classes {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            let table: ClassTable =
                serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
            table.layouts().map_err(|e| format!("{path}: {e}"))?
        }
        None => ClassLayouts::new(),
    };
    if data.is_empty() {
        return Err(format!(
            "{}: at byte offset 0: expected a dump record, found the end of the file (it is empty)",
            args.file
        ));
    }
    let mut counts = Counts::default();
    let err = |e: jvmpi_types::Error| format!("{}: {e}", args.file);
    match (args.kind, args.level) {
        (Kind::Heap, DumpLevel::Level0) => {
            for r in heap::Level0Records::new(&data, args.options) {
                counts.add(r.map_err(err)?.ty.name());
            }
        }
        (Kind::Heap, level) => {
            for r in
                heap::HeapDumpRecords::new(&data, args.options, level, &classes).map_err(err)?
            {
                counts.add(r.map_err(err)?.tag().name());
            }
        }
        (Kind::Object, _) => counts.add(
            object::parse(&data, args.options, &classes)
                .map_err(err)?
                .tag()
                .name(),
        ),
        (Kind::Monitor, _) => {
            for r in monitor::MonitorDumpRecords::new(&data, args.options) {
                counts.add(r.map_err(err)?.tag().name());
            }
        }
    }
    Ok(counts)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let counts = match run(&args) {
        Ok(counts) => counts,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let mut total = 0;
    let written = counts
        .0
        .iter()
        .try_for_each(|(name, n)| {
            total += n;
            writeln!(out, "{name}\t{n}")
        })
        .and_then(|()| writeln!(out, "total\t{total}"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: writing the counts: {error}");
            ExitCode::FAILURE
        }
    }
}
