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
