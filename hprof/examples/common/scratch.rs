//! Scratch storage in memory-mapped files: `--scratch DIR` of the graph examples. Each array
//! the graph asks for is a new file in DIR, deleted at once (its space is freed when the array
//! is dropped or the process ends), mapped shared, so the kernel may write its pages out and
//! read them back: the graph's working set may exceed the machine's memory.

#![allow(unsafe_code)]
use std::fs::OpenOptions;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use hprof::binary::Error;
use hprof::binary::graph::{Array, Scratch, WRITTEN_SCATTERED};
use memmap2::MmapMut;

/// Element types whose every bit pattern is a value (so a zeroed or written-back page is a
/// valid array).
pub(crate) trait Plain: Copy + Send + Sync + 'static {}
impl Plain for u32 {}
impl Plain for u64 {}

/// Files in one folder.
#[derive(Debug)]
pub(crate) struct FileScratch {
    dir: PathBuf,
    next: AtomicU64,
    /// From how many bytes an array written in many places at once gets small pages.
    scattered_small_from: usize,
}

impl FileScratch {
    /// The scratch files of `--scratch DIR` when it was given; the error is the message to
    /// print after `error: `.
    pub(crate) fn from_arg(dir: Option<&str>) -> Result<Option<FileScratch>, String> {
        dir.map(FileScratch::new)
            .transpose()
            .map_err(|e| format!("--scratch {e}"))
    }

    /// Scratch files in `dir` (which must exist).
    pub(crate) fn new(dir: impl Into<PathBuf>) -> Result<FileScratch, String> {
        let dir = dir.into();
        if !dir.is_dir() {
            return Err(format!("{}: not a directory", dir.display()));
        }
        super::sigbus::scratch(&dir.display().to_string());
        Ok(FileScratch {
            dir,
            next: AtomicU64::new(0),
            scattered_small_from: memory_bytes().map_or(0, |m| m / 10),
        })
    }

    fn map<T: Plain>(&self, len: usize, what: &'static str) -> Result<Array<T>, Error> {
        if len == 0 {
            return Ok(Box::new(Vec::<T>::new().into_boxed_slice()));
        }
        let fail = |message: String| Error::Scratch {
            what,
            len: len as u64,
            message,
        };
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| fail("too large".to_owned()))?;
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let path = self
            .dir
            .join(format!("hprof-scratch-{}-{k}", std::process::id()));
        let io = |e: std::io::Error| fail(format!("{}: {e}", path.display()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        // Deleted now: the space lives as long as the mapping.
        std::fs::remove_file(&path).map_err(io)?;
        file.set_len(bytes as u64).map_err(io)?;
        // SAFETY: the file is new, unlinked and ours alone; nobody else can change its length
        // while it is mapped.
        let map = unsafe { MmapMut::map_mut(&file) }.map_err(io)?;
        // Huge pages save misses in the address translation, faults, and the write-protection
        // of each page before it is written out (on a VM, an interrupt to every other core
        // for each 4 KiB page), but not on a large array written in thousands of places at
        // once: once more than a tenth of the memory is dirty (the kernel's usual
        // `dirty_background_ratio`) pages are written out while they are still being written,
        // and each 2 MiB page written again is written out again whole. The predecessor
        // buckets, written in about a hundred places a thread, get huge pages: at 600 M
        // objects that made the dominator tree 0.88x as long, but the scratch disk was
        // written 2.7x the bytes (`benches/README.md`).
        #[cfg(target_os = "linux")]
        if !(WRITTEN_SCATTERED.contains(&what) && bytes >= self.scattered_small_from) {
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Box::new(Mapped::<T> {
            map,
            len,
            _t: PhantomData,
        }))
    }
}

impl Scratch for FileScratch {
    fn u32s(&self, len: usize, what: &'static str) -> hprof::binary::Result<Array<u32>> {
        self.map(len, what)
    }

    fn u64s(&self, len: usize, what: &'static str) -> hprof::binary::Result<Array<u64>> {
        self.map(len, what)
    }
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`), if known.
fn memory_bytes() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A mapped file seen as `[T]`.
struct Mapped<T> {
    map: MmapMut,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Plain> std::ops::Deref for Mapped<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the mapping is page-aligned (so aligned for T), holds `len * size_of::<T>()`
        // bytes, and every bit pattern is a T (`Plain`).
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Plain> std::ops::DerefMut for Mapped<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`, and the mapping is borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr().cast::<T>(), self.len) }
    }
}
