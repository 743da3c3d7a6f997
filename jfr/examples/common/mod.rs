//! What the jfr examples share: the command line's standard flags, exit statuses, quiet
//! closed pipes, and reading a recording one chunk at a time (memory bounded by the largest
//! chunk, never by the file).
#![allow(dead_code, clippy::print_stderr, clippy::print_stdout, unsafe_code)]

use std::fmt::Display;
use std::fs::File;
use std::io::{self, Read, Write};
use std::process::ExitCode;

/// Exit status of a partial result (input cut off or damaged part-way).
pub(crate) const EXIT_PARTIAL: u8 = 3;

/// The text every example's usage ends with.
pub(crate) const EXIT_STATUS: &str = "\
exit status:
  0  the whole recording was read
  1  error: the file is missing, unreadable, empty or not a recording (`error: FILE: reason`)
  2  bad command line
  3  partial: the recording is cut off or damaged part-way; every event before that point is
     printed, and `warning: FILE: partial: <why, where>` on stderr says what is missing";

/// A usage error: message and usage on stderr, exit 2.
pub(crate) fn usage_error(usage: &str, message: impl Display) -> ExitCode {
    eprintln!("error: {message}");
    eprintln!("{usage}");
    ExitCode::from(2)
}

/// `error: PATH: reason` on stderr, exit 1.
pub(crate) fn file_error(path: &str, reason: impl Display) -> ExitCode {
    eprintln!("error: {path}: {reason}");
    ExitCode::FAILURE
}

/// `warning: PATH: partial: reason` on stderr, exit 3.
pub(crate) fn partial(path: &str, reason: impl Display) -> ExitCode {
    eprintln!("warning: {path}: partial: {reason}");
    ExitCode::from(EXIT_PARTIAL)
}

/// Handles `--version`/`--help`; `Some(exit)` when the program should stop.
pub(crate) fn standard_flag(arg: &lexopt::Arg<'_>, name: &str, usage: &str) -> Option<ExitCode> {
    use lexopt::Arg::{Long, Short};
    let text = match arg {
        Short('h') | Long("help") => usage.to_owned(),
        Long("version") => format!("{name} {}", env!("CARGO_PKG_VERSION")),
        _ => return None,
    };
    let _ = writeln!(io::stdout().lock(), "{text}");
    Some(ExitCode::SUCCESS)
}

/// Why reading stopped.
pub(crate) enum Stop {
    /// Reading the file failed.
    Io(io::Error),
    /// The decoder found an error (a cut, or damage) at a byte offset of the file.
    Decode(jfr::Error),
}

impl Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Io(e) => write!(f, "reading stopped: {e}"),
            Stop::Decode(e) => e.fmt(f),
        }
    }
}

/// What went wrong writing to stdout: a closed pipe (stop quietly) or another error.
pub(crate) enum Out {
    /// The reader went away.
    Closed,
    /// Writing failed.
    Failed(io::Error),
}

impl From<io::Error> for Out {
    fn from(e: io::Error) -> Out {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Out::Closed
        } else {
            Out::Failed(e)
        }
    }
}

/// Reads the recording at `path` chunk by chunk and hands each decoded chunk to `each`, which
/// returns the decoding error that stopped it, if one did. Only one chunk is in memory at a
/// time: a regular file is memory-mapped, each chunk's pages mapped in one call before it is
/// decoded and unmapped after (the kernel keeps them in its page cache); anything else is read
/// a chunk at a time. Returns whether any chunk was read and why reading stopped early, if it
/// did (offsets in the returned error are offsets in the file).
pub(crate) fn for_each_chunk(
    path: &str,
    mut each: impl FnMut(&jfr::Chunk<'_>) -> Result<Option<jfr::Error>, Out>,
) -> io::Result<Result<(bool, Option<Stop>), Out>> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    if meta.is_file() && meta.len() > 0 {
        // SAFETY: the map is only read; a file cut by someone else while mapped would fault,
        // as with every memory-mapped reader.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(mapped(&map, &mut each));
        }
    }
    streamed(file, meta.len(), &mut each)
}

/// Pages are unmapped in multiples of this (a multiple of every page size in use).
const UNMAP_GRAIN: usize = 64 << 10;

fn mapped(
    map: &memmap2::Mmap,
    each: &mut impl FnMut(&jfr::Chunk<'_>) -> Result<Option<jfr::Error>, Out>,
) -> Result<(bool, Option<Stop>), Out> {
    let data: &[u8] = map;
    let (mut pos, mut any, mut metadata, mut unmapped) = (0usize, false, None, 0usize);
    loop {
        if pos >= data.len() && any {
            return Ok((any, None));
        }
        let rest = data.get(pos..).unwrap_or_default();
        let want = match chunk_len(rest.get(..jfr::HEADER_SIZE).unwrap_or(rest), rest.len()) {
            Ok(want) => want,
            Err(e) => return Ok((any, Some(Stop::Decode(e.with_base(pos as u64))))),
        };
        // The chunk's pages mapped in one call, rather than on a fault every few pages.
        #[cfg(target_os = "linux")]
        let _ = map.advise_range(memmap2::Advice::PopulateRead, pos, want);
        let bytes = rest.get(..want).unwrap_or(rest);
        match chunk_at(bytes, pos as u64, &mut metadata, &mut any, each)? {
            Ok(len) => pos += len,
            Err(stop) => return Ok((any, Some(stop))),
        }
        let done = pos / UNMAP_GRAIN * UNMAP_GRAIN;
        if done > unmapped {
            // SAFETY: nothing borrowed from the bytes before `done` is used again (each chunk
            // is dropped before the next is read): the pages are only unmapped, and would be
            // read back from the file if they were touched.
            #[cfg(unix)]
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    unmapped,
                    done - unmapped,
                )
            };
            unmapped = done;
        }
    }
}

fn streamed(
    mut file: File,
    size: u64,
    each: &mut impl FnMut(&jfr::Chunk<'_>) -> Result<Option<jfr::Error>, Out>,
) -> io::Result<Result<(bool, Option<Stop>), Out>> {
    let (mut pos, mut any, mut metadata) = (0u64, false, None);
    let mut buf = Vec::new();
    loop {
        if pos >= size && any {
            return Ok(Ok((any, None)));
        }
        let mut head = [0u8; jfr::HEADER_SIZE];
        let n = read_full(&mut file, &mut head)?;
        let left = usize::try_from(size - pos).unwrap_or(usize::MAX);
        let want = match chunk_len(head.get(..n).unwrap_or_default(), left) {
            Ok(want) => want,
            Err(e) => return Ok(Ok((any, Some(Stop::Decode(e.with_base(pos)))))),
        };
        buf.clear();
        buf.extend_from_slice(head.get(..n).unwrap_or_default());
        (&mut file)
            .take((want as u64).saturating_sub(n as u64))
            .read_to_end(&mut buf)?;
        match chunk_at(&buf, pos, &mut metadata, &mut any, each) {
            Err(out) => return Ok(Err(out)),
            Ok(Ok(len)) => pos += len as u64,
            Ok(Err(stop)) => return Ok(Ok((any, Some(stop)))),
        }
    }
}

/// How many bytes the chunk whose header starts `head` takes, of the `left` bytes the file
/// still holds: what its header says, never more than is left, or everything left for a
/// chunk still being written.
fn chunk_len(head: &[u8], left: usize) -> jfr::Result<usize> {
    let header = jfr::ChunkHeader::parse(head, 0)?;
    Ok(match usize::try_from(header.chunk_size) {
        Ok(0) => left,
        Ok(size) => size.min(left),
        Err(_) => left,
    })
}

/// Decodes the chunk in `bytes` (found at `pos` in the file) and hands it to `each`: its
/// length, or why reading stops. `any` says whether a chunk was decoded; `metadata` is the
/// previous chunk's, shared when this one's is the same.
fn chunk_at(
    bytes: &[u8],
    pos: u64,
    metadata: &mut Option<std::sync::Arc<jfr::Metadata>>,
    any: &mut bool,
    each: &mut impl FnMut(&jfr::Chunk<'_>) -> Result<Option<jfr::Error>, Out>,
) -> Result<Result<usize, Stop>, Out> {
    let chunk = match jfr::Chunk::parse_reusing(bytes, 0, metadata.as_ref()) {
        Ok(c) => c,
        Err(e) => return Ok(Err(Stop::Decode(e.with_base(pos)))),
    };
    *any = true;
    *metadata = Some(std::sync::Arc::clone(&chunk.metadata));
    if let Some(e) = each(&chunk)? {
        return Ok(Err(Stop::Decode(e.with_base(pos))));
    }
    if let Some(cut) = chunk.cut() {
        return Ok(Err(Stop::Decode(cut.clone().with_base(pos))));
    }
    Ok(Ok(chunk.range().end))
}

fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(buf.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
