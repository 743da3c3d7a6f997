//! What the hprof examples share: opening `.hprof` and gzip-compressed `.hprof.gz` inputs,
//! streaming a dump through the incremental decoder with a bounded buffer, the exit statuses,
//! quiet closed pipes and a progress bar on terminals.
#![allow(dead_code, clippy::print_stderr, clippy::indexing_slicing)]

use std::fmt::Display;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::process::ExitCode;

use flate2::read::MultiGzDecoder;
use hprof::binary::Error;
use hprof::binary::incremental::Decoder;
use indicatif::{ProgressBar, ProgressStyle};

pub(crate) mod huge_pages;
pub(crate) mod mapped;
pub(crate) mod scratch;
pub(crate) mod sigbus;

/// Exit status of a partial result (input cut off or damaged part-way).
pub(crate) const EXIT_PARTIAL: u8 = 3;

/// The initial read buffer. It grows only for a single record or sub-record larger than it,
/// and the decoder never asks for more than the input still holds.
const BUFFER: usize = 4 << 20;

/// The text every example's usage ends with.
pub(crate) const EXIT_STATUS: &str = "\
exit status:
  0  the whole input was read
  1  error: the file is missing, unreadable, empty or not of this format (`error: FILE: reason`)
  2  bad command line
  3  partial: the input is cut off or damaged part-way; everything read before that point is
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

/// The scratch files of `--scratch DIR` when it was given, or `error: --scratch …` on stderr
/// and exit 1.
pub(crate) fn scratch_files(dir: Option<&str>) -> Result<Option<scratch::FileScratch>, ExitCode> {
    scratch::FileScratch::from_arg(dir).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

/// The value of `--threads N` (a number above 0), or the usage error.
pub(crate) fn threads(parser: &mut lexopt::Parser, usage: &str) -> Result<usize, ExitCode> {
    use lexopt::ValueExt;
    match parser.value().map(|v| v.parse::<usize>()) {
        Ok(Ok(n)) if n > 0 => Ok(n),
        _ => Err(usage_error(usage, "--threads needs a number above 0")),
    }
}

/// How many threads the graph tools use unless told: the machine's cores.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Parses `--version`/`--help` and prints them; `Some(exit)` when the program should stop.
pub(crate) fn standard_flag(arg: &lexopt::Arg<'_>, name: &str, usage: &str) -> Option<ExitCode> {
    use lexopt::Arg::{Long, Short};
    match arg {
        Short('h') | Long("help") => {
            println_quiet(usage);
            Some(ExitCode::SUCCESS)
        }
        Long("version") => {
            println_quiet(&format!("{name} {}", env!("CARGO_PKG_VERSION")));
            Some(ExitCode::SUCCESS)
        }
        _ => None,
    }
}

fn println_quiet(text: &str) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

/// Writes the program's output through a buffer; a closed pipe is a clean stop.
///
/// Returns `Err(exit)` when writing failed for another reason (reported on stderr).
pub(crate) fn write_stdout(
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), ExitCode> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match f(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => Err(file_error("<stdout>", e)),
    }
}

/// An opened input: its (decompressed) bytes as a reader, and its size when it is known
/// (not for gzip-compressed inputs).
pub(crate) struct Input {
    /// The bytes of the dump.
    pub(crate) reader: Box<dyn Read + Send>,
    /// The size of the dump in bytes, when known.
    pub(crate) len: Option<u64>,
    /// Whether the file is gzip-compressed.
    pub(crate) gzip: bool,
    progress: Option<ProgressBar>,
}

impl Input {
    /// Opens `path`; a file starting with the gzip magic is decompressed as it is read.
    /// On a terminal, a progress bar on stderr follows the bytes read from the file.
    pub(crate) fn open(path: &str) -> io::Result<Input> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        let size = meta.len();
        let mut file = BufReader::with_capacity(1 << 16, file);
        let gzip = file.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        let progress = progress_bar(size);
        let raw: Box<dyn Read + Send> = match &progress {
            Some(bar) => Box::new(bar.wrap_read(file)),
            None => Box::new(file),
        };
        Ok(if gzip {
            Input {
                reader: Box::new(MultiGzDecoder::new(raw)),
                len: None,
                gzip,
                progress,
            }
        } else {
            Input {
                reader: raw,
                len: Some(size),
                gzip,
                progress,
            }
        })
    }

    /// Reads the whole (decompressed) input.
    pub(crate) fn read_all(mut self) -> io::Result<Vec<u8>> {
        let mut data = Vec::new();
        self.reader.read_to_end(&mut data)?;
        self.done();
        Ok(data)
    }

    /// Moves the progress bar (if any) to `bytes` read, for a caller that reads the file
    /// another way than through [`Input::reader`] (a memory map).
    pub(crate) fn progress(&self, bytes: u64) {
        if let Some(bar) = &self.progress {
            bar.set_position(bytes);
        }
    }

    /// Removes the progress bar.
    pub(crate) fn done(&self) {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
    }
}

/// A progress bar on stderr for a file of `size` bytes, only when stderr is a terminal.
fn progress_bar(size: u64) -> Option<ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(size);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
    {
        bar.set_style(style);
    }
    Some(bar)
}

/// Why streaming stopped before the end of the input.
pub(crate) enum Stop {
    /// Reading (or decompressing) the file failed.
    Io(io::Error),
    /// The decoder found an error (truncation, corruption) at a byte offset.
    Decode(Error),
}

impl Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Io(e) => write!(f, "reading stopped: {e}"),
            Stop::Decode(e) => e.fmt(f),
        }
    }
}

/// Streams `reader` through `decoder`: `step` decodes what is buffered and returns
/// `(consumed, needed)` as [`Decoder::decode_with`] does. The buffer grows only to what the
/// decoder asks for, which is bounded by what the input still holds (or the decoder's limit),
/// and at most doubles at a time. Ends with [`Decoder::finish`].
pub(crate) fn stream(
    reader: &mut dyn Read,
    decoder: &mut Decoder,
    mut step: impl FnMut(&mut Decoder, &[u8]) -> hprof::binary::Result<(usize, usize)>,
) -> Result<(), Stop> {
    let mut buf = vec![0u8; BUFFER];
    let mut filled = 0;
    loop {
        let n = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Stop::Io(e)),
        };
        filled += n;
        let (consumed, needed) = step(decoder, &buf[..filled]).map_err(Stop::Decode)?;
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        if n == 0 {
            return decoder.finish(&buf[..filled]).map_err(Stop::Decode);
        }
        if filled == buf.len() {
            // Full, inside one record or sub-record larger than the buffer: grow towards what
            // it needs, at most doubling, so that the buffer never holds much more than the
            // bytes actually read (a length the decoder could not check, in a gzip stream of
            // unknown size, costs no more than the data behind it).
            let want = filled + needed.max(1);
            buf.resize(want.min(buf.len().saturating_mul(2)), 0);
        }
    }
}
