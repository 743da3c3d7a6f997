//! The one cursor every binary parser of the crate reads through: a position in a byte slice
//! that knows the experiment's byte order and word size and returns `Result` on every read.

use crate::error::{Error, Result};

/// Byte order of the recording machine (derived from `<system arch>` in log.xml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Endian {
    /// Intel / AMD64 / AArch64.
    #[default]
    Little,
    /// SPARC.
    Big,
}

impl Endian {
    /// Byte order of an architecture name as gprofng decides it: `i86pc`, `i686`, `x86_64`
    /// and `aarch64` are little-endian, everything else (SPARC) big-endian.
    pub fn from_arch(arch: &str) -> Self {
        match arch {
            "i86pc" | "i686" | "x86_64" | "aarch64" | "" => Endian::Little,
            _ => Endian::Big,
        }
    }
}

/// Word size of the recorded process (`<process wsize>`): the size of `long` and addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WordSize {
    /// 32-bit process.
    W32,
    /// 64-bit process (also what gprofng assumes when `wsize` is absent).
    #[default]
    W64,
}

impl WordSize {
    /// Bytes in one word.
    pub fn bytes(self) -> usize {
        match self {
            WordSize::W32 => 4,
            WordSize::W64 => 8,
        }
    }
}

/// A read position in a byte slice, with a byte order and a word size.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    endian: Endian,
    word: WordSize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`; `base` is the offset of `data` in its file (for errors).
    pub fn new(data: &'a [u8], base: u64, endian: Endian, word: WordSize) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            endian,
            word,
        }
    }

    /// Byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Word size.
    pub fn word_size(&self) -> WordSize {
        self.word
    }

    /// Position relative to the start of the slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Absolute file offset of the position.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Moves to `pos` (relative to the slice start), which may be at most the slice length.
    pub fn seek(&mut self, pos: usize, what: &'static str) -> Result<()> {
        if pos > self.data.len() {
            return Err(Error::Truncated {
                what,
                offset: self.base + pos as u64,
                needed: 0,
                available: 0,
            });
        }
        self.pos = pos;
        Ok(())
    }

    /// Reads `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.data.get(self.pos..end)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(Error::Truncated {
                what,
                offset: self.offset(),
                needed: n as u64,
                available: self.remaining() as u64,
            }),
        }
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Reads everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = self.data.get(self.pos..).unwrap_or_default();
        self.pos = self.data.len();
        s
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let b = self.bytes(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// Reads a `u8`.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// Reads a `u16` in the cursor's byte order.
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        let a = self.array(what)?;
        Ok(match self.endian {
            Endian::Little => u16::from_le_bytes(a),
            Endian::Big => u16::from_be_bytes(a),
        })
    }

    /// Reads a `u32` in the cursor's byte order.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        let a = self.array(what)?;
        Ok(match self.endian {
            Endian::Little => u32::from_le_bytes(a),
            Endian::Big => u32::from_be_bytes(a),
        })
    }

    /// Reads a `u64` in the cursor's byte order.
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        let a = self.array(what)?;
        Ok(match self.endian {
            Endian::Little => u64::from_le_bytes(a),
            Endian::Big => u64::from_be_bytes(a),
        })
    }

    /// Reads a `u64` stored least-significant byte first whatever the byte order
    /// (the link uid of compressed stacks).
    pub fn u64_le(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// Reads a word (`long`, address): 4 or 8 bytes, zero-extended.
    pub fn word(&mut self, what: &'static str) -> Result<u64> {
        match self.word {
            WordSize::W32 => self.u32(what).map(u64::from),
            WordSize::W64 => self.u64(what),
        }
    }

    /// Reads a NUL-terminated string (lossy UTF-8); without a NUL it takes the rest.
    pub fn cstr(&mut self) -> String {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let len = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let s = String::from_utf8_lossy(rest.get(..len).unwrap_or_default()).into_owned();
        self.pos = (self.pos + len + 1).min(self.data.len());
        s
    }
}

/// Reads a `u16` at `off` of `b` in byte order `e`.
#[inline]
pub(crate) fn get_u16(b: &[u8], off: usize, e: Endian) -> Option<u16> {
    let a: [u8; 2] = b.get(off..off.checked_add(2)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u16::from_le_bytes(a),
        Endian::Big => u16::from_be_bytes(a),
    })
}

/// Reads a `u32` at `off` of `b` in byte order `e`.
#[inline]
pub(crate) fn get_u32(b: &[u8], off: usize, e: Endian) -> Option<u32> {
    let a: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u32::from_le_bytes(a),
        Endian::Big => u32::from_be_bytes(a),
    })
}

/// Reads a `u64` at `off` of `b` in byte order `e`.
#[inline]
pub(crate) fn get_u64(b: &[u8], off: usize, e: Endian) -> Option<u64> {
    let a: [u8; 8] = b.get(off..off.checked_add(8)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u64::from_le_bytes(a),
        Endian::Big => u64::from_be_bytes(a),
    })
}
