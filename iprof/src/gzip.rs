//! gzip input (RFC 1952 members holding RFC 1951 deflate data): GraalVM's `--pgo` accepts
//! gzip-compressed profiles, so this module inflates them, with an output limit chosen by the
//! caller and the members' CRC-32 and size checked. No dependencies, no I/O.
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
//! let profile = iprof::Profile::from_slice(&json)?;
//! assert_eq!(profile.version, "1.0.0");
//! # Ok::<(), iprof::Error>(())
//! ```

use std::sync::OnceLock;

use crate::error::Error;

/// The gzip magic bytes.
pub const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Inflates every gzip member of `input`, refusing to produce more than `limit` bytes.
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, Error> {
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

fn gz(what: &'static str, offset: usize) -> Error {
    Error::Gzip { what, offset }
}

/// One member starting at `start`; returns the offset after it.
fn member(input: &[u8], start: usize, out: &mut Vec<u8>, limit: usize) -> Result<usize, Error> {
    let byte = |i: usize| {
        input
            .get(i)
            .copied()
            .ok_or_else(|| gz("truncated gzip header", i))
    };
    if byte(start)? != 0x1f || byte(start + 1)? != 0x8b {
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
    let begin = out.len();
    let mut bits = Bits {
        data: input,
        pos,
        buf: 0,
        count: 0,
    };
    inflate(&mut bits, out, begin, limit)?;
    let mut pos = bits.pos; // byte-aligned after the last block
    let mut word = || -> Result<u32, Error> {
        let b = input
            .get(pos..pos + 4)
            .ok_or_else(|| gz("truncated gzip trailer", pos))?;
        pos += 4;
        Ok(b.iter().rev().fold(0u32, |acc, &x| acc << 8 | u32::from(x)))
    };
    let crc = word()?;
    let size = word()?;
    let produced = out.get(begin..).unwrap_or(&[]);
    if crc != crc32(produced) {
        return Err(gz("CRC-32 mismatch: the data is corrupt", pos - 8));
    }
    // ISIZE is the length modulo 2^32.
    if size != produced.len() as u32 {
        return Err(gz("size mismatch: the data is corrupt", pos - 4));
    }
    Ok(pos)
}

/// Little-endian bit reader over deflate data.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
}

impl Bits<'_> {
    /// The next `n` (≤ 16) bits, least significant first.
    fn take(&mut self, n: u32) -> Result<u32, Error> {
        while self.count < n {
            let byte = self
                .data
                .get(self.pos)
                .ok_or_else(|| gz("truncated deflate data", self.pos))?;
            self.buf |= u64::from(*byte) << self.count;
            self.count += 8;
            self.pos += 1;
        }
        let value = (self.buf & ((1u64 << n) - 1)) as u32;
        self.buf >>= n;
        self.count -= n;
        Ok(value)
    }

    /// Drops the bits left in the current byte.
    fn align(&mut self) {
        self.buf = 0;
        self.count = 0;
    }
}

/// A canonical Huffman code: how many codes of each length, symbols in code order.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    fn new(lengths: &[u8], at: usize) -> Result<Self, Error> {
        let mut counts = [0u16; 16];
        for &len in lengths {
            if let Some(c) = counts.get_mut(usize::from(len)) {
                *c += 1;
            }
        }
        // Over-subscribed codes are invalid; incomplete ones fail only if an unused code shows.
        let mut left: i32 = 1;
        for &c in counts.iter().skip(1) {
            left = left * 2 - i32::from(c);
            if left < 0 {
                return Err(gz("over-subscribed Huffman code", at));
            }
        }
        let mut offsets = [0u16; 16];
        for len in 1..15 {
            let next =
                offsets.get(len).copied().unwrap_or(0) + counts.get(len).copied().unwrap_or(0);
            if let Some(o) = offsets.get_mut(len + 1) {
                *o = next;
            }
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (symbol, &len) in lengths.iter().enumerate() {
            if len != 0 {
                if let Some(o) = offsets.get_mut(usize::from(len)) {
                    if let Some(slot) = symbols.get_mut(usize::from(*o)) {
                        *slot = symbol as u16;
                    }
                    *o += 1;
                }
            }
        }
        Ok(Huffman { counts, symbols })
    }

    fn decode(&self, bits: &mut Bits<'_>) -> Result<u16, Error> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for &count in self.counts.iter().skip(1) {
            code |= bits.take(1)? as i32;
            let count = i32::from(count);
            if code - first < count {
                let i = usize::try_from(index + code - first).unwrap_or(usize::MAX);
                return self
                    .symbols
                    .get(i)
                    .copied()
                    .ok_or_else(|| gz("invalid Huffman code", bits.pos));
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(gz("invalid Huffman code", bits.pos))
    }
}

const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const CODE_LENGTH_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Inflates deflate blocks until the final one, appending to `out`, whose bytes from `begin`
/// on are this member's (back-references may not reach before them: each member is a
/// deflate stream of its own).
fn inflate(
    bits: &mut Bits<'_>,
    out: &mut Vec<u8>,
    begin: usize,
    limit: usize,
) -> Result<(), Error> {
    loop {
        let last = bits.take(1)? == 1;
        match bits.take(2)? {
            0 => stored(bits, out, limit)?,
            1 => {
                let (lit, dist) = fixed_codes(bits.pos)?;
                codes(bits, out, begin, limit, lit, dist)?;
            }
            2 => {
                let (lit, dist) = dynamic(bits)?;
                codes(bits, out, begin, limit, &lit, &dist)?;
            }
            _ => return Err(gz("invalid deflate block type 3", bits.pos)),
        }
        if last {
            bits.align();
            return Ok(());
        }
    }
}

/// The fixed literal/length and distance codes (RFC 1951, 3.2.6), built once: a block using
/// them can be as short as 10 bits, so building them per block would cost far more than the
/// input is long.
fn fixed_codes(at: usize) -> Result<&'static (Huffman, Huffman), Error> {
    static FIXED: OnceLock<Option<(Huffman, Huffman)>> = OnceLock::new();
    FIXED
        .get_or_init(|| {
            let mut lengths = [0u8; 288 + 30];
            for (i, l) in lengths.iter_mut().enumerate() {
                *l = match i {
                    0..=143 => 8,
                    144..=255 => 9,
                    256..=279 => 7,
                    280..=287 => 8,
                    _ => 5,
                };
            }
            let (lit, dist) = lengths.split_at(288);
            Some((Huffman::new(lit, 0).ok()?, Huffman::new(dist, 0).ok()?))
        })
        .as_ref()
        .ok_or_else(|| gz("invalid fixed Huffman code", at))
}

fn stored(bits: &mut Bits<'_>, out: &mut Vec<u8>, limit: usize) -> Result<(), Error> {
    bits.align();
    let at = bits.pos;
    let header = bits
        .data
        .get(at..at + 4)
        .ok_or_else(|| gz("truncated stored block", at))?;
    let (len, nlen) = match *header {
        [a, b, c, d] => (u16::from_le_bytes([a, b]), u16::from_le_bytes([c, d])),
        _ => return Err(gz("truncated stored block", at)),
    };
    if len != !nlen {
        return Err(gz("stored block length check failed", at));
    }
    let start = at + 4;
    let data = bits
        .data
        .get(start..start + usize::from(len))
        .ok_or_else(|| gz("truncated stored block", start))?;
    if out.len() + data.len() > limit {
        return Err(gz("decompressed data exceeds the caller's limit", start));
    }
    out.extend_from_slice(data);
    bits.pos = start + usize::from(len);
    Ok(())
}

fn dynamic(bits: &mut Bits<'_>) -> Result<(Huffman, Huffman), Error> {
    let nlit = bits.take(5)? as usize + 257;
    let ndist = bits.take(5)? as usize + 1;
    let ncode = bits.take(4)? as usize + 4;
    if nlit > 286 || ndist > 30 {
        return Err(gz("too many length or distance codes", bits.pos));
    }
    let mut code_lengths = [0u8; 19];
    for &i in CODE_LENGTH_ORDER.iter().take(ncode) {
        if let Some(l) = code_lengths.get_mut(i) {
            *l = bits.take(3)? as u8;
        }
    }
    let lencode = Huffman::new(&code_lengths, bits.pos)?;
    let mut lengths = Vec::with_capacity(nlit + ndist);
    while lengths.len() < nlit + ndist {
        let symbol = lencode.decode(bits)?;
        let (value, repeat) = match symbol {
            0..=15 => (symbol as u8, 1),
            16 => {
                let prev = *lengths
                    .last()
                    .ok_or_else(|| gz("length repeat with no previous length", bits.pos))?;
                (prev, 3 + bits.take(2)? as usize)
            }
            17 => (0, 3 + bits.take(3)? as usize),
            _ => (0, 11 + bits.take(7)? as usize),
        };
        if lengths.len() + repeat > nlit + ndist {
            return Err(gz("too many code lengths", bits.pos));
        }
        lengths.extend(std::iter::repeat_n(value, repeat));
    }
    let (lit, dist) = lengths.split_at(nlit);
    if lit.get(256).copied().unwrap_or(0) == 0 {
        return Err(gz("no end-of-block code", bits.pos));
    }
    Ok((Huffman::new(lit, bits.pos)?, Huffman::new(dist, bits.pos)?))
}

fn codes(
    bits: &mut Bits<'_>,
    out: &mut Vec<u8>,
    begin: usize,
    limit: usize,
    lit: &Huffman,
    dist: &Huffman,
) -> Result<(), Error> {
    loop {
        let symbol = lit.decode(bits)?;
        match symbol {
            0..=255 => {
                if out.len() >= limit {
                    return Err(gz("decompressed data exceeds the caller's limit", bits.pos));
                }
                out.push(symbol as u8);
            }
            256 => return Ok(()),
            _ => {
                let i = usize::from(symbol - 257);
                let (Some(&base), Some(&extra)) = (LENGTH_BASE.get(i), LENGTH_EXTRA.get(i)) else {
                    return Err(gz("invalid length code", bits.pos));
                };
                let len = usize::from(base) + bits.take(u32::from(extra))? as usize;
                let d = usize::from(dist.decode(bits)?);
                let (Some(&base), Some(&extra)) = (DIST_BASE.get(d), DIST_EXTRA.get(d)) else {
                    return Err(gz("invalid distance code", bits.pos));
                };
                let distance = usize::from(base) + bits.take(u32::from(extra))? as usize;
                if distance > out.len() - begin {
                    return Err(gz(
                        "distance reaches before the start of the member's data",
                        bits.pos,
                    ));
                }
                if out.len() + len > limit {
                    return Err(gz("decompressed data exceeds the caller's limit", bits.pos));
                }
                let from = out.len() - distance;
                for k in 0..len {
                    let b = out.get(from + k).copied().unwrap_or(0);
                    out.push(b);
                }
            }
        }
    }
}

/// CRC-32 (IEEE, reflected) as gzip uses it.
fn crc32(data: &[u8]) -> u32 {
    static TABLE: OnceLock<[u32; 256]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u32; 256];
        for (n, slot) in table.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        table
    });
    !data.iter().fold(!0u32, |crc, &b| {
        table
            .get(((crc ^ u32::from(b)) & 0xff) as usize)
            .copied()
            .unwrap_or(0)
            ^ (crc >> 8)
    })
}
