//! What the pointsto examples share: reading the input file, and progress on stderr for big
//! inputs when stderr is a terminal.

// Each example uses what it needs of this module.
#![allow(dead_code)]

use std::io::{self, IsTerminal, Read};

use indicatif::{ProgressBar, ProgressStyle};

/// Inputs at least this big show progress on a terminal.
pub(crate) const PROGRESS_FROM: u64 = 64 << 20;

/// The file's bytes, with a progress bar on a terminal for big files.
pub(crate) fn read_input(path: &str) -> Result<Vec<u8>, String> {
    let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = progress(len, "reading");
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

/// A progress bar over `len` bytes on stderr, hidden unless stderr is a terminal and the input
/// is big.
pub(crate) fn progress(len: u64, what: &'static str) -> ProgressBar {
    if len < PROGRESS_FROM || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{msg} {wide_bar} {bytes}/{total_bytes} {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(len).with_style(style).with_message(what)
}

/// A line counter on stderr while the lines are checked, hidden unless stderr is a terminal
/// and the input is big.
pub(crate) fn line_progress(len: u64) -> ProgressBar {
    if len < PROGRESS_FROM || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{spinner} checking line {pos} {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    ProgressBar::new_spinner().with_style(style)
}
