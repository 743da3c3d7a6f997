//! The caller-supplied source of an experiment's files: the crate never does I/O itself.
//! Paths are relative to the experiment directory and use `/` (`"log.xml"`, `"_f1.er/log.xml"`).

use crate::error::Result;
use bytes::Bytes;
use std::collections::BTreeMap;

/// Where an experiment's files come from.
pub trait Source {
    /// The bytes of the file at `path` (relative to the experiment directory): `Ok(None)` when
    /// it does not exist, an error naming the path ([`Error::Read`](crate::Error::Read)) when
    /// it exists but cannot be read — missing and unreadable stay distinct.
    fn read(&self, path: &str) -> Result<Option<Bytes>>;
    /// The names of the entries of directory `dir` (`""` = the experiment directory itself).
    fn list(&self, dir: &str) -> Vec<String>;
    /// A load object the experiment does not archive, given the path `map.xml` recorded for it
    /// (`/usr/lib/libc.so.6`): where gprofng would find it on the analysing machine (its
    /// search path, then the recorded path), or `None`. The default finds none: native PCs of
    /// unarchived objects are then named gprofng's way for a missing object
    /// (`<static>@0x1000 (<prog>) --  no functions found`).
    /// `experiment::fs::DirSource` (feature `fs`) searches like gprofng.
    fn load_object(&self, recorded_path: &str) -> Option<Bytes> {
        let _ = recorded_path;
        None
    }
    /// Up to `len` bytes of the file at `path` from byte `offset` (fewer only at its end, none
    /// past it); `Ok(None)` when it does not exist. Data files are read this way, in bounded
    /// chunks, by the readers that stream them ([`Experiment::stream_packets`](crate::Experiment::stream_packets)).
    /// The default reads the whole file through [`Source::read`] and slices it — right for
    /// sources in memory; a source over files reads just the range
    /// (`experiment::fs::DirSource` does).
    fn read_at(&self, path: &str, offset: u64, len: usize) -> Result<Option<Bytes>> {
        Ok(self.read(path)?.map(|b| {
            let start = usize::try_from(offset).unwrap_or(usize::MAX).min(b.len());
            let end = start.saturating_add(len).min(b.len());
            b.slice(start..end)
        }))
    }
}

impl<S: Source + ?Sized> Source for &S {
    fn read(&self, path: &str) -> Result<Option<Bytes>> {
        (**self).read(path)
    }
    fn list(&self, dir: &str) -> Vec<String> {
        (**self).list(dir)
    }
    fn load_object(&self, recorded_path: &str) -> Option<Bytes> {
        (**self).load_object(recorded_path)
    }
    fn read_at(&self, path: &str, offset: u64, len: usize) -> Result<Option<Bytes>> {
        (**self).read_at(path, offset, len)
    }
}

/// An in-memory experiment: file paths mapped to their bytes (directories are implied).
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    files: BTreeMap<String, Bytes>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: impl Into<String>, data: impl Into<Bytes>) -> &mut Self {
        self.files.insert(path.into(), data.into());
        self
    }

    /// Builder form of [`MemorySource::insert`].
    pub fn with(mut self, path: impl Into<String>, data: impl Into<Bytes>) -> Self {
        self.insert(path, data);
        self
    }
}

impl Source for MemorySource {
    fn read(&self, path: &str) -> Result<Option<Bytes>> {
        Ok(self.files.get(path).cloned())
    }

    fn list(&self, dir: &str) -> Vec<String> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", dir.trim_end_matches('/'))
        };
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter_map(|k| k.strip_prefix(prefix.as_str()))
            .filter_map(|rest| rest.split('/').next())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        names.dedup();
        names
    }
}

/// Adapts two closures (`read` and `list`) into a [`Source`].
#[derive(Debug, Clone)]
pub struct FnSource<R, L> {
    read: R,
    list: L,
}

impl<R, L> FnSource<R, L>
where
    R: Fn(&str) -> Result<Option<Bytes>>,
    L: Fn(&str) -> Vec<String>,
{
    /// A source answering reads with `read` and directory listings with `list`.
    pub fn new(read: R, list: L) -> Self {
        FnSource { read, list }
    }
}

/// A source from one `read` closure **that lists no directories: no `archives/` (native
/// functions unnamed), no descendant experiments, no `jdynclasses/`**. Use
/// [`FnSource::new`] with a listing closure, or the `fs` feature's directory source, for those.
pub fn from_fn<R>(read: R) -> FnSource<R, fn(&str) -> Vec<String>>
where
    R: Fn(&str) -> Result<Option<Bytes>>,
{
    FnSource {
        read,
        list: |_| Vec::new(),
    }
}

impl<R, L> Source for FnSource<R, L>
where
    R: Fn(&str) -> Result<Option<Bytes>>,
    L: Fn(&str) -> Vec<String>,
{
    fn read(&self, path: &str) -> Result<Option<Bytes>> {
        (self.read)(path)
    }
    fn list(&self, dir: &str) -> Vec<String> {
        (self.list)(dir)
    }
}

/// A view of a subdirectory of another source (how descendant experiments are opened).
#[derive(Debug, Clone)]
pub struct SubSource<S> {
    inner: S,
    prefix: String,
}

impl<S: Source> SubSource<S> {
    /// `inner`'s directory `dir` as a source of its own.
    pub fn new(inner: S, dir: &str) -> Self {
        SubSource {
            inner,
            prefix: dir.trim_end_matches('/').to_owned(),
        }
    }

    fn join(&self, path: &str) -> String {
        match (self.prefix.is_empty(), path.is_empty()) {
            (true, _) => path.to_owned(),
            (false, true) => self.prefix.clone(),
            (false, false) => format!("{}/{}", self.prefix, path),
        }
    }
}

impl<S: Source> Source for SubSource<S> {
    fn read(&self, path: &str) -> Result<Option<Bytes>> {
        // Errors name the path inside the outer source (`_f1.er/log.xml`).
        self.inner.read(&self.join(path))
    }
    fn list(&self, dir: &str) -> Vec<String> {
        self.inner.list(&self.join(dir))
    }
    fn load_object(&self, recorded_path: &str) -> Option<Bytes> {
        self.inner.load_object(recorded_path)
    }
    fn read_at(&self, path: &str, offset: u64, len: usize) -> Result<Option<Bytes>> {
        self.inner.read_at(&self.join(path), offset, len)
    }
}
