//! `er-summary DIR`: one JSON object summarising the experiment in DIR (header, packets per
//! kind, heap/sync/io/clock totals, collector warnings and errors, descendants).
#![allow(clippy::print_stdout, clippy::print_stderr, missing_docs)]

use experiment::Experiment;
use experiment::summary::Summary;
use std::path::PathBuf;

#[path = "common/fs_source.rs"]
mod fs_source;
use fs_source::FsSource;

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
