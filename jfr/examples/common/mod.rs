//! What the jfr examples share: the command line's standard flags, exit statuses, quiet
//! closed pipes, and reading a recording one chunk at a time (memory bounded by the largest
//! chunk, never by the file).
#![allow(dead_code, clippy::print_stderr, clippy::print_stdout)]

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
/// returns the decoding error that stopped it, if one did. Only
/// one chunk is in memory at a time. Returns whether any chunk was read and why reading
/// stopped early, if it did (offsets in the returned error are offsets in the file).
pub(crate) fn for_each_chunk(
    path: &str,
    mut each: impl FnMut(&jfr::Chunk<'_>) -> Result<Option<jfr::Error>, Out>,
) -> io::Result<Result<(bool, Option<Stop>), Out>> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    let size = meta.len();
    let mut pos = 0u64;
    let mut any = false;
    let mut buf = Vec::new();
    let mut metadata = None;
    loop {
        if pos >= size && any {
            return Ok(Ok((any, None)));
        }
        // The header says how big the chunk is; read that much (never more than the file
        // still holds), or everything left for a chunk still being written.
        let mut head = [0u8; jfr::HEADER_SIZE];
        let n = read_full(&mut file, &mut head)?;
        let header = match jfr::ChunkHeader::parse(head.get(..n).unwrap_or_default(), 0) {
            Ok(h) => h,
            Err(e) => return Ok(Ok((any, Some(Stop::Decode(e.with_base(pos)))))),
        };
        let left = size - pos;
        let want = if header.chunk_size == 0 {
            left
        } else {
            header.chunk_size.min(left)
        };
        buf.clear();
        buf.extend_from_slice(head.get(..n).unwrap_or_default());
        (&mut file)
            .take(want.saturating_sub(n as u64))
            .read_to_end(&mut buf)?;
        let chunk = match jfr::Chunk::parse_reusing(&buf, 0, metadata.as_ref()) {
            Ok(c) => c,
            Err(e) => return Ok(Ok((any, Some(Stop::Decode(e.with_base(pos)))))),
        };
        any = true;
        metadata = Some(std::sync::Arc::clone(&chunk.metadata));
        match each(&chunk) {
            Err(out) => return Ok(Err(out)),
            Ok(Some(e)) => return Ok(Ok((any, Some(Stop::Decode(e.with_base(pos)))))),
            Ok(None) => {}
        }
        if let Some(cut) = chunk.cut() {
            return Ok(Ok((any, Some(Stop::Decode(cut.clone().with_base(pos))))));
        }
        pos += chunk.range().end as u64;
    }
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
