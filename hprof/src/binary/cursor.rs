//! The one reader every binary parser is written against: a cursor over a byte slice that
//! knows the file's identifier size and the absolute file offset of its bytes. Every read is
//! big-endian and returns [`Result`] (`hprof.md` §1.2: "all integers big-endian").

use super::error::{Error, Result};
use super::types::{BasicType, Id, IdSize, Value};

/// A big-endian reader over `&'a [u8]`. Slices it returns borrow from the input.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    rest: &'a [u8],
    /// Absolute file offset of the end of `rest`.
    end: u64,
    id_size: IdSize,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte is at file offset `offset`.
    #[inline]
    pub fn new(data: &'a [u8], offset: u64, id_size: IdSize) -> Cursor<'a> {
        Cursor {
            rest: data,
            end: offset + data.len() as u64,
            id_size,
        }
    }

    /// The file's identifier size.
    #[inline]
    pub fn id_size(&self) -> IdSize {
        self.id_size
    }

    /// The absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.end - self.rest.len() as u64
    }

    /// The bytes not read yet.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Moves back to `rest`, which must be a suffix of the input this cursor started with
    /// (a value of [`Cursor::rest`] saved earlier).
    #[inline(always)]
    pub(crate) fn rewind(&mut self, rest: &'a [u8]) {
        self.rest = rest;
    }

    /// How many bytes are left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// Whether every byte has been read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    #[cold]
    #[inline(never)]
    fn eof(&self, expected: &'static str, wanted: usize) -> Error {
        Error::Truncated {
            offset: self.end,
            expected,
            needed: (wanted - self.rest.len()) as u64,
        }
    }

    /// Reads `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self, expected: &'static str) -> Result<&'a [u8; N]> {
        match self.rest.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(head)
            }
            None => Err(self.eof(expected, N)),
        }
    }

    /// Reads one byte.
    #[inline]
    pub fn u1(&mut self, expected: &'static str) -> Result<u8> {
        match self.rest.split_first() {
            Some((&b, tail)) => {
                self.rest = tail;
                Ok(b)
            }
            None => Err(self.eof(expected, 1)),
        }
    }

    /// Reads a big-endian `u16`.
    #[inline]
    pub fn u2(&mut self, expected: &'static str) -> Result<u16> {
        self.array::<2>(expected).map(|b| u16::from_be_bytes(*b))
    }

    /// Reads a big-endian `u32`.
    #[inline]
    pub fn u4(&mut self, expected: &'static str) -> Result<u32> {
        self.array::<4>(expected).map(|b| u32::from_be_bytes(*b))
    }

    /// Reads a big-endian `i32`.
    #[inline]
    pub fn i4(&mut self, expected: &'static str) -> Result<i32> {
        self.array::<4>(expected).map(|b| i32::from_be_bytes(*b))
    }

    /// Reads a big-endian `u64`.
    #[inline]
    pub fn u8(&mut self, expected: &'static str) -> Result<u64> {
        self.array::<8>(expected).map(|b| u64::from_be_bytes(*b))
    }

    /// Reads an identifier of the file's id size.
    #[inline]
    pub fn id(&mut self, expected: &'static str) -> Result<Id> {
        match self.id_size {
            IdSize::Four => self.u4(expected).map(Id::from),
            IdSize::Eight => self.u8(expected).map(Id),
        }
    }

    /// Reads `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8]> {
        match self.rest.split_at_checked(n) {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(head)
            }
            None => Err(self.eof(expected, n)),
        }
    }

    /// Reads `count` elements of `size` bytes each as one slice, checking the product against
    /// the bytes left first (never trusting `count`). `count_offset` is where the count was read.
    #[inline]
    pub fn counted(
        &mut self,
        count: u64,
        size: usize,
        count_offset: u64,
        what: &'static str,
    ) -> Result<&'a [u8]> {
        match count.checked_mul(size as u64) {
            Some(n) if n <= self.rest.len() as u64 => self.bytes(n as usize, what),
            _ => Err(self.too_long(count, size, count_offset, what)),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_long(&self, count: u64, size: usize, offset: u64, what: &'static str) -> Error {
        match count.checked_mul(size as u64) {
            // Fits arithmetically: report as a truncation so incremental callers can wait.
            Some(n) => Error::Truncated {
                offset: self.end,
                expected: what,
                needed: n - self.rest.len() as u64,
            },
            None => Error::TooLong {
                offset,
                what,
                count,
                size: size as u64,
                available: self.rest.len() as u64,
            },
        }
    }

    /// Skips `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize, expected: &'static str) -> Result<()> {
        self.bytes(n, expected).map(|_| ())
    }

    /// Reads a basic-type code (2 or 4..=11).
    #[inline]
    pub fn basic_type(&mut self, expected: &'static str) -> Result<BasicType> {
        let offset = self.offset();
        let code = self.u1(expected)?;
        BasicType::from_code(code).ok_or(Error::BadBasicType {
            offset,
            found: code,
            expected: "2 (object) or 4..=11 (boolean, char, float, double, byte, short, int, long)",
        })
    }

    /// Reads a primitive basic-type code (4..=11).
    #[inline]
    pub fn primitive_type(&mut self, expected: &'static str) -> Result<BasicType> {
        let offset = self.offset();
        let code = self.u1(expected)?;
        match BasicType::from_code(code) {
            Some(t) if t != BasicType::Object => Ok(t),
            _ => Err(Error::BadBasicType {
                offset,
                found: code,
                expected: "4..=11 (boolean, char, float, double, byte, short, int, long)",
            }),
        }
    }

    /// Reads a value of type `ty`.
    #[inline]
    pub fn value(&mut self, ty: BasicType, expected: &'static str) -> Result<Value> {
        Ok(match ty {
            BasicType::Object => Value::Object(self.id(expected)?),
            BasicType::Boolean => Value::Boolean(self.u1(expected)?),
            BasicType::Char => Value::Char(self.u2(expected)?),
            BasicType::Float => Value::Float(self.u4(expected)?),
            BasicType::Double => Value::Double(self.u8(expected)?),
            BasicType::Byte => Value::Byte(self.u1(expected)? as i8),
            BasicType::Short => Value::Short(self.u2(expected)? as i16),
            BasicType::Int => Value::Int(self.i4(expected)?),
            BasicType::Long => Value::Long(self.u8(expected)? as i64),
        })
    }
}
