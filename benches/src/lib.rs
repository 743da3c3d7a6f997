//! Benchmarks for the jvmprof-formats crates.
//!
//! The benchmarks themselves live in `benches/benches/<crate>.rs` and run with
//! `cargo bench -p benches`; this library only holds helpers they share.

use std::path::PathBuf;

/// The repository root (the parent of this crate's folder), for benches that read fixtures.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}
