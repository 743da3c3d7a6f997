//! A ready-made [`PartStore`] that writes parts as files under a folder (feature `fs`, off by
//! default: without it the crate does no I/O of its own).

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use crate::sink::PartStore;

/// Parts as files: part `N` of table `T` is written as `ROOT/T/.part-N.parquet.tmp` (`N` in
/// five digits) and renamed to `ROOT/T/part-N.parquet` once complete, so a reader never sees
/// a part that is not whole. Parts created but never committed (an export that failed) are
/// removed when the store is dropped.
///
/// ```no_run
/// // no_run: it writes files under `out/`.
/// use columnar::{ParquetSink, fs::DirStore};
///
/// let data = std::fs::read("heap.hprof")?;
/// let mut sink = ParquetSink::new(DirStore::new("out"));
/// let summary = columnar::hprof::export(&data, &mut sink, &mut |_| {})?;
/// sink.finish()?;
/// assert!(summary.is_complete());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DirStore {
    root: PathBuf,
    uncommitted: Vec<PathBuf>,
}

impl DirStore {
    /// A store writing under `root` (created with the tables' folders as needed).
    pub fn new(root: impl Into<PathBuf>) -> DirStore {
        DirStore {
            root: root.into(),
            uncommitted: Vec::new(),
        }
    }

    /// The folder the tables are written under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn tmp(&self, table: &str, part: u32) -> PathBuf {
        self.root
            .join(table)
            .join(format!(".part-{part:05}.parquet.tmp"))
    }
}

impl PartStore for DirStore {
    type Part = BufWriter<File>;

    fn create(&mut self, table: &str, part: u32) -> io::Result<Self::Part> {
        std::fs::create_dir_all(self.root.join(table))?;
        let path = self.tmp(table, part);
        let file = File::create(&path)?;
        self.uncommitted.push(path);
        Ok(BufWriter::with_capacity(1 << 20, file))
    }

    fn commit(&mut self, table: &str, part: u32, file: Self::Part) -> io::Result<()> {
        // Flushed and closed, then renamed: no reader sees a part that is not complete.
        drop(file.into_inner().map_err(io::IntoInnerError::into_error)?);
        let tmp = self.tmp(table, part);
        std::fs::rename(
            &tmp,
            self.root
                .join(table)
                .join(format!("part-{part:05}.parquet")),
        )?;
        self.uncommitted.retain(|p| p != &tmp);
        Ok(())
    }
}

impl Drop for DirStore {
    fn drop(&mut self) {
        for p in &self.uncommitted {
            let _ = std::fs::remove_file(p);
        }
    }
}
