//! Counts the events of a JDK Flight Recorder recording per type, as `jfr summary` does: one
//! JSON line per event type, `{"type": "jdk.ExecutionSample", "count": N, "bytes": N}`, most
//! events first. Every event is decoded with all its fields on the way, so a damaged event is
//! found, not just counted.
//!
//! ```sh
//! cargo run --release -p jfr-format --example jfr-summary -- FILE
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::indexing_slicing)]

mod common;

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

use common::Out;

const USAGE: &str = "\
usage: jfr-summary FILE

Prints one JSON line per event type of a JDK Flight Recorder recording,
{\"type\": …, \"count\": N, \"bytes\": N}, with the counts and sizes `jfr summary` prints
(every type the metadata declares, jdk.Metadata and jdk.CheckPoint included).

options:
  -h, --help  print this help
  --version   print the version
";

fn main() -> ExitCode {
    let mut path: Option<String> = None;
    let mut args = lexopt::Parser::from_env();
    loop {
        let arg = match args.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return common::usage_error(USAGE, e),
        };
        if let Some(exit) = common::standard_flag(
            &arg,
            "jfr-summary",
            &format!("{USAGE}\n{}", common::EXIT_STATUS),
        ) {
            return exit;
        }
        match arg {
            lexopt::Arg::Value(v) if path.is_none() => path = Some(v.to_string_lossy().into()),
            other => return common::usage_error(USAGE, other.unexpected()),
        }
    }
    let Some(path) = path else {
        return common::usage_error(USAGE, "missing FILE");
    };
    let mut stats: HashMap<String, (u64, u64)> = HashMap::new();
    let result = common::for_each_chunk(&path, |chunk| {
        for name in ["jdk.Metadata", "jdk.CheckPoint"] {
            stats.entry(name.to_owned()).or_default();
        }
        for class in chunk.metadata.event_types() {
            stats.entry(class.name.clone()).or_default();
        }
        // Per type id first (no string, no hashing per event), names at the end of the chunk.
        let mut dense: Vec<(u64, u64)> = Vec::new();
        let mut sparse: HashMap<i64, (u64, u64)> = HashMap::new();
        let stop = chunk
            .check_records(|id, size| {
                let s = match usize::try_from(id) {
                    Ok(i) if i < 1 << 16 => {
                        if dense.len() <= i {
                            dense.resize(i + 1, (0, 0));
                        }
                        &mut dense[i]
                    }
                    _ => sparse.entry(id).or_default(),
                };
                s.0 += 1;
                s.1 += size as u64;
            })
            .err();
        let by_id = dense
            .into_iter()
            .enumerate()
            .filter(|(_, s)| s.0 > 0)
            .map(|(i, s)| (i as i64, s))
            .chain(sparse);
        for (id, (count, bytes)) in by_id {
            let name = match id {
                0 => "jdk.Metadata".to_owned(),
                1 => "jdk.CheckPoint".to_owned(),
                _ => chunk
                    .metadata
                    .class(id as u64)
                    .map_or_else(|| format!("type {id}"), |c| c.name.clone()),
            };
            let s = stats.entry(name).or_default();
            s.0 += count;
            s.1 += bytes;
        }
        Ok(stop)
    });
    let (any, stop) = match result {
        Err(e) => return common::file_error(&path, e),
        Ok(Err(Out::Closed)) => return ExitCode::SUCCESS,
        Ok(Err(Out::Failed(e))) => return common::file_error("<stdout>", e),
        Ok(Ok(r)) => r,
    };
    if let (false, Some(stop)) = (any, &stop) {
        return common::file_error(&path, stop);
    }
    let mut rows: Vec<_> = stats.into_iter().collect();
    rows.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = String::new();
    let written = rows.iter().try_for_each(|(name, (count, bytes))| {
        line.clear();
        line.push_str("{\"type\": ");
        line.push_str(&serde_json::to_string(name).unwrap_or_default());
        line.push_str(&format!(", \"count\": {count}, \"bytes\": {bytes}}}\n"));
        out.write_all(line.as_bytes())
    });
    match written.and_then(|()| out.flush()).map_err(Out::from) {
        Err(Out::Closed) => ExitCode::SUCCESS,
        Err(Out::Failed(e)) => common::file_error("<stdout>", e),
        Ok(()) => match stop {
            Some(stop) => common::partial(&path, stop),
            None => ExitCode::SUCCESS,
        },
    }
}
