//! Experiments on the file system (feature `fs`, off by default; the rest of the crate does
//! no I/O): [`DirSource`] serves an experiment directory's files, lists its `archives/`,
//! descendant experiments (`_f1.er`, `_x1.er`) and `jdynclasses/`, and finds load objects the
//! experiment does not archive where gprofng finds them (its search path: the experiment's
//! parent folder, the current folder, then folders you add, then the recorded path).
//!
//! ```no_run
//! // no_run: reads an experiment directory that only exists where one was recorded.
//! use experiment::profile::FunctionList;
//!
//! let exp = experiment::fs::open("test.1.er")?;
//! for row in FunctionList::read(&exp, None)?.rows {
//!     println!("{}", row.name);
//! }
//! # Ok::<(), experiment::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::experiment::Experiment;
use crate::source::Source;
use bytes::Bytes;
use std::path::{Path, PathBuf};

/// The largest file [`DirSource`] reads (data files of hours-long profiles are large, but a
/// device or a sparse file of terabytes is not an experiment file).
pub const MAX_FILE_BYTES: u64 = 1 << 34;

/// The largest load object [`DirSource::load_object`] reads (libjvm.so is about 24 MB).
pub const MAX_LOAD_OBJECT_BYTES: u64 = 1 << 30;

/// An experiment directory on the file system, with gprofng's search path for load objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirSource {
    dir: PathBuf,
    search_path: Vec<PathBuf>,
    recorded_paths: bool,
}

impl DirSource {
    /// The experiment directory `dir`. Load objects the experiment does not archive are looked
    /// for by file name in gprofng's default search path — `dir`'s parent folder, then the
    /// current folder — and then at the path the experiment recorded.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        DirSource {
            dir,
            search_path: vec![parent, PathBuf::from(".")],
            recorded_paths: true,
        }
    }

    /// Adds `folder` to the end of the search path (gprofng's `addpath`); folders are searched
    /// in the order added, all before the recorded path.
    pub fn with_search_path(mut self, folder: impl Into<PathBuf>) -> Self {
        self.search_path.push(folder.into());
        self
    }

    /// Reads load objects only from the experiment's `archives/`: no search path, no recorded
    /// paths (what the experiment alone says).
    pub fn archives_only(mut self) -> Self {
        self.search_path.clear();
        self.recorded_paths = false;
        self
    }

    /// The experiment directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folders searched for load objects, in order.
    pub fn search_path(&self) -> &[PathBuf] {
        &self.search_path
    }
}

/// The bytes of the regular file at `path` of at most `max` bytes; `Ok(None)` when there is
/// none.
fn read_regular(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // Only regular files: a device or FIFO (or a link to one) would never end.
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if meta.len() > max {
        return Err(std::io::Error::other(format!(
            "{} bytes, more than the {max} read at most",
            meta.len()
        )));
    }
    std::fs::read(path).map(Some)
}

impl Source for DirSource {
    fn read(&self, path: &str) -> Result<Option<Bytes>> {
        read_regular(&self.dir.join(path), MAX_FILE_BYTES)
            .map(|b| b.map(Bytes::from))
            .map_err(|e| Error::Read {
                path: path.to_owned(),
                reason: e.to_string(),
            })
    }

    /// Reads just the range (data files are streamed in chunks this way).
    fn read_at(&self, path: &str, offset: u64, len: usize) -> Result<Option<Bytes>> {
        use std::io::{Read, Seek, SeekFrom};
        let unreadable = |e: std::io::Error| Error::Read {
            path: path.to_owned(),
            reason: e.to_string(),
        };
        let full = self.dir.join(path);
        let meta = match std::fs::metadata(&full) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unreadable(e)),
        };
        if !meta.is_file() {
            return Err(unreadable(std::io::Error::other("not a regular file")));
        }
        let mut file = std::fs::File::open(&full).map_err(unreadable)?;
        let start = offset.min(meta.len());
        file.seek(SeekFrom::Start(start)).map_err(unreadable)?;
        let want = u64::try_from(len)
            .unwrap_or(u64::MAX)
            .min(meta.len() - start);
        let mut buf = Vec::with_capacity(usize::try_from(want).unwrap_or(0));
        file.take(want).read_to_end(&mut buf).map_err(unreadable)?;
        Ok(Some(Bytes::from(buf)))
    }

    /// The entries of `dir`, sorted (none when it is not a readable directory).
    fn list(&self, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.join(dir))
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The first regular file named like `recorded_path`'s file name in a folder of the search
    /// path, else the file at `recorded_path` itself (unless [`DirSource::archives_only`]).
    /// Files that cannot be read are passed over, as gprofng does.
    fn load_object(&self, recorded_path: &str) -> Option<Bytes> {
        let name = Path::new(recorded_path).file_name()?;
        let found = self
            .search_path
            .iter()
            .map(|folder| folder.join(name))
            .chain(self.recorded_paths.then(|| PathBuf::from(recorded_path)))
            .find_map(|p| read_regular(&p, MAX_LOAD_OBJECT_BYTES).ok().flatten());
        found.map(Bytes::from)
    }
}

/// Opens the experiment directory `dir` with a [`DirSource`] (gprofng's default search path);
/// an error when `dir` is not a directory.
pub fn open(dir: impl AsRef<Path>) -> Result<Experiment<DirSource>> {
    let dir = dir.as_ref();
    let shown = dir.display().to_string();
    match std::fs::metadata(dir) {
        Err(e) => Err(Error::Read {
            path: shown,
            reason: e.to_string(),
        }),
        Ok(m) if !m.is_dir() => Err(Error::Read {
            path: shown,
            reason: "not an experiment directory (expected a directory holding log.xml)".into(),
        }),
        Ok(_) => Experiment::open(DirSource::new(dir)),
    }
}
