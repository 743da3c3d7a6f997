//! Helpers shared by the integration tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use experiment::bytes::Bytes;
use experiment::profile::Metric;
use experiment::{Experiment, MemorySource, Source};

/// The fixtures directory.
pub(crate) fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The native fixture cases (stock gprofng 2.40, C programs).
pub(crate) const NATIVE_CASES: [&str; 7] = [
    "clock_basic",
    "descendants",
    "dynfunc_api",
    "heap",
    "iotrace",
    "sync_all",
    "tiny",
];

/// Every fixture case: the native ones plus a Java experiment (`java_heap`: gprofng 2.40 built
/// with Java support, `-j on -H on`; dyntext and all archives but symbols-only extracts of
/// libjava.so and of a rebuilt libgp-collector.so left out to keep it small).
pub(crate) const CASES: [&str; 8] = [
    "clock_basic",
    "descendants",
    "dynfunc_api",
    "heap",
    "iotrace",
    "sync_all",
    "tiny",
    "java_heap",
];

#[path = "../../examples/common/fs_source.rs"]
mod fs_source;
/// A file-system source (tests may do I/O), the one the examples use.
#[allow(unused_imports)] // not every test binary opens an experiment itself
pub(crate) use fs_source::FsSource;

/// Runs example `name` (built by `cargo test` next to the test binaries) and returns stdout.
pub(crate) fn run_example(name: &str, args: &[&str]) -> String {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let bin = dir.join(name);
    let out = Command::new(&bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    assert!(
        out.status.success(),
        "{name} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A case's experiment in memory, with its load objects found like the recording machine
/// would (symbols-only extracts of the system libraries, the program beside a case that
/// archived nothing).
pub(crate) struct Case {
    files: MemorySource,
    dir: String,
}

impl Source for Case {
    fn read(&self, path: &str) -> experiment::Result<Option<Bytes>> {
        self.files.read(path)
    }
    fn list(&self, dir: &str) -> Vec<String> {
        self.files.list(dir)
    }
    fn load_object(&self, recorded_path: &str) -> Option<Bytes> {
        let name = recorded_path.rsplit('/').next()?;
        let beside = data().join(&self.dir).join(name);
        let file = if beside.is_file() {
            beside
        } else {
            data().join("load-objects").join(name)
        };
        std::fs::read(file).ok().map(Bytes::from)
    }
}

/// Every file under `dir` in memory, named by its path below `dir`.
pub(crate) fn load_dir(dir: &Path) -> MemorySource {
    fn walk(root: &Path, dir: &Path, src: &mut MemorySource) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, src);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
                src.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut src = MemorySource::new();
    walk(dir, dir, &mut src);
    src
}

pub(crate) fn open(case: &str) -> Experiment<Case> {
    let files = load_dir(&data().join(case).join("test.1.er"));
    Experiment::open(Case {
        files,
        dir: case.to_owned(),
    })
    .unwrap()
}

/// gprofng's text for a value: seconds with 3 decimals (`0.` under a microsecond), else the
/// integer.
pub(crate) fn gprofng_text(metric: Metric, v: u64) -> String {
    if metric.is_time() {
        if v < 1000 {
            "0.".into()
        } else {
            format!("{:.3}", v as f64 / 1e9)
        }
    } else {
        v.to_string()
    }
}

/// The stacks of gprofng's `-leaks` or `-allocs` text (leaks.txt, allocs.txt): (instances,
/// bytes, frames leaf first).
pub(crate) fn gprofng_stacks(text: &str) -> Vec<(u64, u64, Vec<String>)> {
    let mut out: Vec<(u64, u64, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line
            .strip_prefix("Leak #")
            .or_else(|| line.strip_prefix("Allocation #"))
        {
            let num = |key: &str| -> u64 {
                let at = rest.find(key).unwrap() + key.len();
                rest[at..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let bytes = if rest.contains("Bytes Leaked = ") {
                num("Bytes Leaked = ")
            } else {
                num("Bytes Allocated = ")
            };
            out.push((num("Instances = "), bytes, Vec::new()));
        } else if let (Some(frame), Some(last)) = (line.strip_prefix("  "), out.last_mut()) {
            last.2.push(frame.to_owned());
        }
    }
    out
}
