//! Temporary directories for tests, removed with everything in them when dropped, so that
//! `cargo test` leaves nothing behind in the system's temporary folder.
//!
//! ```
//! let dir = testkit::TempDir::new("doc-example");
//! std::fs::write(dir.join("a.txt"), b"hello").unwrap();
//! let kept = dir.path().to_path_buf();
//! assert!(kept.join("a.txt").exists());
//! drop(dir);
//! assert!(!kept.exists());
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test support

use std::io::ErrorKind;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Tells apart the directories one process makes (tests run in parallel threads of one
/// process).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A directory of its own under [`std::env::temp_dir`], named `LABEL-PID-N` (unique in the
/// process, and made with `create_dir`, so never one that exists already), removed with its
/// contents when dropped. It derefs to its [`Path`]: `dir.join("file")`.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A new empty directory; `label` (a test's or a tool's name) starts its name.
    ///
    /// # Panics
    /// When the directory cannot be made (a test cannot go on without it).
    pub fn new(label: &str) -> TempDir {
        let base = std::env::temp_dir();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("{label}-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return TempDir { path },
                // Left by an earlier process of the same id: take the next number.
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => panic!("making {}: {e}", path.display()),
            }
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::TempDir;

    #[test]
    fn unique_across_threads_and_removed_on_drop() {
        let dirs: Vec<TempDir> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| TempDir::new("testkit-temp")))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut paths: Vec<_> = dirs.iter().map(|d| d.path().to_path_buf()).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), 8);
        for d in &dirs {
            std::fs::write(d.join("f"), b"x").unwrap();
            std::fs::create_dir(d.join("sub")).unwrap();
        }
        drop(dirs);
        assert!(paths.iter().all(|p| !p.exists()));
    }
}
