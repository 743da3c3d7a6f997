//! `er-summary DIR`: one JSON object summarising the experiment in DIR (header, packets per
//! kind, heap/sync/io/clock totals, collector warnings and errors, descendants).
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use bytes::Bytes;
use experiment::summary::Summary;
use experiment::{Experiment, Source};
use std::path::PathBuf;

/// The experiment directory on the file system.
struct FsSource(PathBuf);

impl Source for FsSource {
    fn read(&self, path: &str) -> Option<Bytes> {
        std::fs::read(self.0.join(path)).ok().map(Bytes::from)
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

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: er-summary DIR");
        std::process::exit(2);
    };
    let result = Experiment::open(FsSource(PathBuf::from(dir))).and_then(|exp| Summary::of(&exp));
    match result {
        Ok(s) => match serde_json::to_string(&s) {
            Ok(j) => println!("{j}"),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        },
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
