//! xz input (`.iprof.xz`, the `xz` tool's container around LZMA2 data): profiles travel
//! xz-compressed (elide's `serve.iprof.xz`). Decoded with `liblzma`, the reference xz
//! implementation, streaming into an output buffer that never grows past the caller's limit.
//! Feature `xz` (on by default). Concatenated streams and stream padding are accepted, as by
//! `xz -d`.
//!
//! ```
//! # let xz: &[u8] = &[
//! #     0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46,
//! #     0x02, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3,
//! #     0x01, 0x00, 0x2a, 0x7b, 0x22, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e,
//! #     0x22, 0x3a, 0x22, 0x31, 0x2e, 0x30, 0x2e, 0x30, 0x22, 0x2c, 0x22, 0x74,
//! #     0x79, 0x70, 0x65, 0x73, 0x22, 0x3a, 0x5b, 0x5d, 0x2c, 0x22, 0x6d, 0x65,
//! #     0x74, 0x68, 0x6f, 0x64, 0x73, 0x22, 0x3a, 0x5b, 0x5d, 0x7d, 0x00, 0x00,
//! #     0x5b, 0x98, 0xc5, 0xd7, 0xdf, 0x72, 0x38, 0xce, 0x00, 0x01, 0x43, 0x2b,
//! #     0xad, 0x50, 0x6e, 0x57, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00,
//! #     0x00, 0x04, 0x59, 0x5a,
//! # ];
//! // `xz`: `{"version":"1.0.0","types":[],"methods":[]}` compressed by `xz`.
//! assert!(xz.starts_with(&iprof::xz::MAGIC));
//! let json = iprof::xz::decompress(xz, 64 << 20)?;
//! let profile = iprof::Profile::parse(&json)?;
//! assert_eq!(profile.version, "1.0.0");
//! # Ok::<(), iprof::Error>(())
//! ```

use liblzma::stream::{Action, CONCATENATED, Error as LzmaError, Status, Stream};

use crate::error::{Error, Result};

/// The xz magic bytes.
pub const MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0];

/// The decoder's memory limit when the caller's output limit is smaller: enough for every
/// preset of the `xz` tool (`-9e` uses a 64 MiB dictionary).
const MIN_MEMLIMIT: u64 = 128 << 20;

/// Decompresses the xz streams of `input`, refusing to produce more than `limit` bytes.
///
/// Errors ([`Error::Xz`]) give what is wrong (not xz, corrupt data, an integrity check
/// mismatch, a dictionary larger than the decoder may use, truncated input, output past
/// `limit`) and the byte offset in `input` the decoder had reached.
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>> {
    let head = input.get(..MAGIC.len()).unwrap_or(input);
    if MAGIC.get(..head.len()) != Some(head) {
        return Err(xz(describe(LzmaError::Format), 0));
    }
    let memlimit = MIN_MEMLIMIT.max(u64::try_from(limit).unwrap_or(u64::MAX));
    let mut stream =
        Stream::new_stream_decoder(memlimit, CONCATENATED).map_err(|e| xz(describe(e), 0))?;
    let mut out: Vec<u8> = Vec::new();
    // One byte past the limit, so that output of exactly `limit` bytes can end normally.
    let cap = limit.saturating_add(1);
    loop {
        if out.len() == out.capacity() {
            if out.len() >= cap {
                return Err(xz(
                    "the decompressed data exceeds the caller's limit",
                    consumed(&stream),
                ));
            }
            let grown = (out.len() * 2).max(out.len() + (64 << 10)).min(cap);
            out.reserve_exact(grown - out.len());
        }
        let rest = input.get(consumed(&stream)..).unwrap_or(&[]);
        let before = (stream.total_in(), stream.total_out());
        // `Finish`: all the input is here; the decoder reports a truncated stream as an error.
        match stream.process_vec(rest, &mut out, Action::Finish) {
            Ok(Status::StreamEnd) => break,
            Ok(Status::Ok | Status::GetCheck | Status::MemNeeded) => {
                let stuck = (stream.total_in(), stream.total_out()) == before;
                if stuck && out.len() < out.capacity() {
                    return Err(xz("truncated xz data", input.len()));
                }
            }
            Err(e) => return Err(xz(describe(e), consumed(&stream))),
        }
    }
    if out.len() > limit {
        return Err(xz(
            "the decompressed data exceeds the caller's limit",
            consumed(&stream),
        ));
    }
    Ok(out)
}

fn consumed(stream: &Stream) -> usize {
    usize::try_from(stream.total_in()).unwrap_or(usize::MAX)
}

fn xz(what: &'static str, offset: usize) -> Error {
    Error::Xz { what, offset }
}

fn describe(e: LzmaError) -> &'static str {
    match e {
        LzmaError::Data => "corrupt xz data (a bad block, index, header or integrity check)",
        LzmaError::Format => "not xz data (expected the xz magic fd 37 7a 58 5a 00)",
        LzmaError::Options => "unsupported xz options (filters or header flags)",
        LzmaError::MemLimit => "the xz dictionary needs more memory than the decoder may use",
        LzmaError::Mem => "the xz decoder could not allocate memory",
        LzmaError::UnsupportedCheck => "unsupported xz integrity check",
        LzmaError::NoCheck | LzmaError::Program => "the xz decoder failed",
    }
}
