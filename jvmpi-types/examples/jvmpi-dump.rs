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
//! `jobject` and class-dump reserved slot big-endian, as HotSpot 5.0 writes them. A decoding
//! error exits with status 1 and names the byte offset.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use jvmpi_types::dump::{heap, monitor, object};
use jvmpi_types::{ClassLayouts, ClassTable, DumpLevel, DumpOptions, IdOrder, IdSize};

const USAGE: &str = "usage: jvmpi-dump --kind heap|object|monitor [--level 0|1|2] --id-size 4|8 \
                     --id-order little|big [--classes CLASSES.json] [--hotspot] FILE";

struct Args {
    kind: String,
    level: DumpLevel,
    options: DumpOptions,
    classes: Option<String>,
    file: String,
}

fn parse_args() -> Result<Args, String> {
    let mut kind = None;
    let mut level = DumpLevel::Level2;
    let mut id_size = None;
    let mut id_order = None;
    let mut classes = None;
    let mut hotspot = false;
    let mut file = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--kind" => kind = Some(value()?),
            "--level" => {
                let v = value()?;
                level = v
                    .parse::<i32>()
                    .ok()
                    .and_then(|n| DumpLevel::try_from(n).ok())
                    .ok_or(format!("--level: expected 0, 1 or 2, found {v}"))?;
            }
            "--id-size" => {
                let v = value()?;
                id_size = Some(
                    v.parse::<u64>()
                        .map_err(|e| e.to_string())
                        .and_then(|n| IdSize::try_from(n).map_err(|e| e.to_string()))
                        .map_err(|e| format!("--id-size: {e}"))?,
                );
            }
            "--id-order" => {
                id_order = Some(match value()?.as_str() {
                    "little" => IdOrder::Little,
                    "big" => IdOrder::Big,
                    other => {
                        return Err(format!("--id-order: expected little or big, found {other}"));
                    }
                });
            }
            "--classes" => classes = Some(value()?),
            "--hotspot" => hotspot = true,
            "-h" | "--help" => return Err(USAGE.to_owned()),
            f if !f.starts_with("--") && file.is_none() => file = Some(f.to_owned()),
            other => return Err(format!("unexpected argument {other}\n{USAGE}")),
        }
    }
    let kind = kind.ok_or(format!("--kind is required\n{USAGE}"))?;
    if !["heap", "object", "monitor"].contains(&kind.as_str()) {
        return Err(format!(
            "--kind: expected heap, object or monitor, found {kind}"
        ));
    }
    let mut options = DumpOptions::new(
        id_size.ok_or(format!("--id-size is required\n{USAGE}"))?,
        id_order.ok_or(format!("--id-order is required\n{USAGE}"))?,
    );
    if hotspot {
        options = options.hotspot();
    }
    Ok(Args {
        kind,
        level,
        options,
        classes,
        file: file.ok_or(format!("FILE is required\n{USAGE}"))?,
    })
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

fn run(args: &Args) -> Result<Counts, String> {
    let data = std::fs::read(&args.file).map_err(|e| format!("{}: {e}", args.file))?;
    let classes = match &args.classes {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            let table: ClassTable =
                serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
            table.layouts().map_err(|e| format!("{path}: {e}"))?
        }
        None => ClassLayouts::new(),
    };
    let mut counts = Counts::default();
    let err = |e: jvmpi_types::Error| format!("{}: {e}", args.file);
    match (args.kind.as_str(), args.level) {
        ("heap", DumpLevel::Level0) => {
            for r in heap::Level0Records::new(&data, args.options) {
                counts.add(r.map_err(err)?.ty.name());
            }
        }
        ("heap", level) => {
            for r in
                heap::HeapDumpRecords::new(&data, args.options, level, &classes).map_err(err)?
            {
                counts.add(r.map_err(err)?.tag().name());
            }
        }
        ("object", _) => counts.add(
            object::decode(&data, args.options, &classes)
                .map_err(err)?
                .tag()
                .name(),
        ),
        _ => {
            for r in monitor::MonitorDumpRecords::new(&data, args.options) {
                counts.add(r.map_err(err)?.tag().name());
            }
        }
    }
    Ok(counts)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(counts) => {
            let mut total = 0;
            for (name, n) in &counts.0 {
                println!("{name}\t{n}");
                total += n;
            }
            println!("total\t{total}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
