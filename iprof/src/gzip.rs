//! gzip input (RFC 1952 members holding RFC 1951 deflate data): GraalVM's `--pgo` accepts
//! gzip-compressed profiles. This module reads the member framing (header, CRC-32, size) and
//! inflates each member's deflate data with `miniz_oxide` (the pure-Rust inflater behind
//! `flate2`), with an output limit chosen by the caller. Feature `gzip` (on by default).
//!
//! Each member is inflated into its own non-wrapping output window, so a back-reference
//! reaching before the start of its member's data is an error, as in zlib (`flate2`'s streaming
//! decoder reads zeros there instead).
//!
//! ```
//! # let gz: &[u8] = &[
//! #     0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56,
//! #     0x2a, 0x4b, 0x2d, 0x2a, 0xce, 0xcc, 0xcf, 0x53, 0xb2, 0x52, 0x32, 0xd4,
//! #     0x33, 0xd0, 0x33, 0x50, 0xd2, 0x51, 0x2a, 0xa9, 0x2c, 0x48, 0x2d, 0x56,
//! #     0xb2, 0x8a, 0x8e, 0xd5, 0x51, 0xca, 0x4d, 0x2d, 0xc9, 0xc8, 0x4f, 0x01,
//! #     0x73, 0x6a, 0x01, 0x9f, 0x4b, 0x1a, 0x66, 0x2b, 0x00, 0x00, 0x00,
//! # ];
//! // `gz`: `{"version":"1.0.0","types":[],"methods":[]}` compressed by gzip.
//! assert!(iprof::is_gzip(gz));
//! let json = iprof::gzip::decompress(gz, 64 << 20)?;
//! let profile = iprof::Profile::parse(&json)?;
//! assert_eq!(profile.version, "1.0.0");
//! # Ok::<(), iprof::Error>(())
//! ```

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress as inflate, inflate_flags};

use crate::error::{Error, Result};

/// The gzip magic bytes.
pub const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Inflates every gzip member of `input`, refusing to produce more than `limit` bytes.
///
/// Errors ([`Error::Gzip`]) give the byte offset in `input` and what is wrong there: a bad
/// header, truncated or invalid deflate data, a CRC-32 or size mismatch, or output past `limit`.
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        pos = member(input, pos, &mut out, limit)?;
        // Concatenated members form one stream; trailing zero padding is tolerated.
        let rest = input.get(pos..).unwrap_or(&[]);
        if !rest.starts_with(&MAGIC) {
            if rest.iter().all(|&b| b == 0) {
                return Ok(out);
            }
            return Err(gz(
                "expected another gzip member or the end of the input",
                pos,
            ));
        }
    }
}

fn too_big(offset: usize) -> Error {
    gz("the decompressed data exceeds the caller's limit", offset)
}

fn gz(what: &'static str, offset: usize) -> Error {
    Error::Gzip { what, offset }
}

/// One member starting at `start`; returns the offset after it.
fn member(input: &[u8], start: usize, out: &mut Vec<u8>, limit: usize) -> Result<usize> {
    let pos = header(input, start)?;
    let begin = out.len();
    let end = deflate(input, pos, out, begin, limit)?;
    let word = |at: usize| -> Result<u32> {
        let b = input
            .get(at..at + 4)
            .ok_or_else(|| gz("truncated gzip trailer", input.len().min(at)))?;
        Ok(b.iter().rev().fold(0u32, |acc, &x| acc << 8 | u32::from(x)))
    };
    let crc = word(end)?;
    let size = word(end + 4)?;
    let produced = out.get(begin..).unwrap_or(&[]);
    if crc != crc32fast::hash(produced) {
        return Err(gz("CRC-32 mismatch: the data is corrupt", end));
    }
    // ISIZE is the length modulo 2^32.
    if size != produced.len() as u32 {
        return Err(gz("size mismatch: the data is corrupt", end + 4));
    }
    Ok(end + 8)
}

/// The member header at `start` (RFC 1952 section 2.3); returns the offset of the deflate data.
fn header(input: &[u8], start: usize) -> Result<usize> {
    // Past the end, the header is truncated where the input ends (an FEXTRA length may point
    // far beyond it).
    let byte = |i: usize| {
        input
            .get(i)
            .copied()
            .ok_or_else(|| gz("truncated gzip header", input.len()))
    };
    if byte(start)? != MAGIC[0] || byte(start + 1)? != MAGIC[1] {
        return Err(gz("expected the gzip magic 1f 8b", start));
    }
    if byte(start + 2)? != 8 {
        return Err(gz(
            "unknown compression method (only deflate, 8, exists)",
            start + 2,
        ));
    }
    let flags = byte(start + 3)?;
    if flags & 0xe0 != 0 {
        return Err(gz("reserved header flags set", start + 3));
    }
    // MTIME (4), XFL, OS.
    byte(start + 9)?;
    let mut pos = start + 10;
    if flags & 4 != 0 {
        // FEXTRA: a 2-byte length and that many bytes.
        let xlen = usize::from(byte(pos)?) | usize::from(byte(pos + 1)?) << 8;
        pos += 2 + xlen;
    }
    for flag in [8, 16] {
        // FNAME, FCOMMENT: zero-terminated.
        if flags & flag != 0 {
            while byte(pos)? != 0 {
                pos += 1;
            }
            pos += 1;
        }
    }
    if flags & 2 != 0 {
        pos += 2; // FHCRC
    }
    if pos > input.len() {
        return Err(gz("truncated gzip header", input.len()));
    }
    Ok(pos)
}

/// Inflates the deflate data at `input[pos..]`, appending to `out` (whose bytes from `begin`
/// on are this member's); returns the offset after the deflate data.
fn deflate(
    input: &[u8],
    pos: usize,
    out: &mut Vec<u8>,
    begin: usize,
    limit: usize,
) -> Result<usize> {
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut state = DecompressorOxide::new();
    let mut in_pos = pos;
    let mut out_pos = 0; // within this member's output
    // One byte past the limit, so that output of exactly `limit` bytes can end normally.
    let cap = limit.saturating_add(1);
    loop {
        // The window is full (or not there yet): grow it by at least 32 KiB, or double it,
        // never past `cap`.
        if out.len() >= cap {
            return Err(too_big(in_pos));
        }
        let grown = (out.len() * 2).max(out.len() + (32 << 10)).min(cap);
        out.resize(grown, 0);
        let rest = input.get(in_pos..).unwrap_or(&[]);
        let window = out.get_mut(begin..).unwrap_or(&mut []);
        let (status, read, written) = inflate(&mut state, rest, window, out_pos, flags);
        in_pos += read;
        out_pos += written;
        match status {
            TINFLStatus::Done => {
                out.truncate(begin + out_pos);
                if out.len() > limit {
                    return Err(too_big(in_pos));
                }
                return Ok(in_pos);
            }
            TINFLStatus::HasMoreOutput => {}
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(gz("truncated deflate data", input.len()));
            }
            _ => {
                return Err(gz(
                    "invalid deflate data (a bad block type, stored length, Huffman code or \
                     code length, or a distance reaching before the start of the member's data)",
                    in_pos,
                ));
            }
        }
    }
}
