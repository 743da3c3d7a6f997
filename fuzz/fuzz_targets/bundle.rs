//! A whole experiment directory in one fuzz input, for the targets that open experiments.
//!
//! The input is split at each `@@FILE ` marker; every part after a marker is `NAME\nCONTENT`
//! (the file's path in the experiment, e.g. `log.xml`, `_f1.er/profile`, `archives/prog_x`),
//! and the part before the first marker is `log.xml`, so a plain log.xml is an experiment of
//! one file. `fuzz/bundle.py` packs real experiments (from `experiment/tests/data`) this way.

use experiment::MemorySource;

/// The marker that starts each file after the first.
pub const MARKER: &[u8] = b"@@FILE ";

/// At most this many files are taken from one input.
const MAX_FILES: usize = 64;

/// The files of `data`, as (path, bytes), in input order; a later file of the same path wins.
pub fn files(data: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut parts = split(data);
    if let Some(first) = parts.next() {
        if !first.is_empty() {
            out.push(("log.xml".to_owned(), first.to_vec()));
        }
    }
    for part in parts.take(MAX_FILES) {
        let (name, content) = match part.iter().position(|&b| b == b'\n') {
            Some(i) => (&part[..i], &part[i + 1..]),
            None => (part, &[][..]),
        };
        out.push((String::from_utf8_lossy(name).into_owned(), content.to_vec()));
    }
    out
}

/// The experiment of `data` as an in-memory source.
pub fn source(data: &[u8]) -> MemorySource {
    let mut src = MemorySource::new();
    for (name, content) in files(data) {
        src.insert(name, content);
    }
    src
}

fn split(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(data);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(MARKER.len()).position(|w| w == MARKER) {
            Some(i) => {
                rest = Some(&r[i + MARKER.len()..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}
