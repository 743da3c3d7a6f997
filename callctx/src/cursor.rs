//! The cursor every parser in this crate reads through: a byte slice and a position, with one
//! small method per token of the grammar `frame ('<' frame)*`, `frame = digits ':' '-'? digits`.

use crate::error::{ErrorKind, Expected, ParseError};
use crate::frame::Frame;

/// A position in the bytes of a context string.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The error for `expected` at the current position.
    fn unexpected(&self, expected: Expected) -> ParseError {
        let found = self
            .bytes
            .get(self.pos..)
            .and_then(|rest| {
                // The input may be arbitrary bytes: name the character when it is UTF-8.
                let end = rest.len().min(4);
                (1..=end).find_map(|n| std::str::from_utf8(rest.get(..n)?).ok()?.chars().next())
            })
            .or_else(|| self.bytes.get(self.pos).map(|&b| char::from(b)));
        ParseError {
            offset: self.pos,
            kind: ErrorKind::Unexpected { expected, found },
        }
    }

    /// Reads one or more decimal digits, failing past `limit`.
    fn digits(
        &mut self,
        expected: Expected,
        limit: u64,
        too_big: ErrorKind,
    ) -> Result<u64, ParseError> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(&b) = self.bytes.get(self.pos) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value * 10 + u64::from(digit);
            if value > limit {
                return Err(ParseError {
                    offset: start,
                    kind: too_big,
                });
            }
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.unexpected(expected));
        }
        Ok(value)
    }

    /// Consumes `byte` or fails with `expected`.
    fn byte(&mut self, byte: u8, expected: Expected) -> Result<(), ParseError> {
        if self.bytes.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Reads a method id.
    fn method(&mut self) -> Result<u32, ParseError> {
        let value = self.digits(
            Expected::MethodId,
            u64::from(u32::MAX),
            ErrorKind::MethodIdOutOfRange,
        )?;
        u32::try_from(value).map_err(|_| ParseError {
            offset: self.pos,
            kind: ErrorKind::MethodIdOutOfRange,
        })
    }

    /// Reads a bci, optionally negative.
    fn bci(&mut self) -> Result<i32, ParseError> {
        let start = self.pos;
        let negative = self.bytes.get(self.pos) == Some(&b'-');
        if negative {
            self.pos += 1;
        }
        // |i32::MIN| is one more than i32::MAX.
        let limit = if negative {
            1u64 << 31
        } else {
            (1u64 << 31) - 1
        };
        let value = self.digits(Expected::Bci, limit, ErrorKind::BciOutOfRange)?;
        let signed = if negative {
            -(value as i64)
        } else {
            value as i64
        };
        i32::try_from(signed).map_err(|_| ParseError {
            offset: start,
            kind: ErrorKind::BciOutOfRange,
        })
    }

    /// Reads one `method:bci` frame.
    pub(crate) fn frame(&mut self) -> Result<Frame, ParseError> {
        let method = self.method()?;
        self.byte(b':', Expected::Colon)?;
        let bci = self.bci()?;
        Ok(Frame { method, bci })
    }

    /// After a frame: consumes the `<` before the next frame, or accepts the end.
    /// Returns `true` when another frame follows.
    pub(crate) fn separator(&mut self) -> Result<bool, ParseError> {
        if self.at_end() {
            return Ok(false);
        }
        self.byte(b'<', Expected::SeparatorOrEnd)?;
        Ok(true)
    }
}

/// Checks a whole context, returning its number of frames.
///
/// The common case (numbers of up to 7 digits) runs through [`validate_fast`], which looks at
/// each number eight bytes at a time; anything it does not accept alone (errors, long numbers)
/// goes through the token-by-token [`validate_precisely`], which says what went wrong and where.
pub(crate) fn validate(bytes: &[u8]) -> Result<usize, ParseError> {
    match validate_fast(bytes) {
        Some(frames) => Ok(frames),
        None => validate_precisely(bytes),
    }
}

/// The eight bytes at `at`, little-endian, padded with zero bytes past the end.
#[inline(always)]
fn load8(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        Some(chunk) => u64::from_le_bytes(*chunk),
        None => load_short(bytes.get(at..).unwrap_or_default()),
    }
}

/// Up to seven bytes as a little-endian word, with two overlapping loads instead of a loop.
#[inline(always)]
fn load_short(rest: &[u8]) -> u64 {
    let len = rest.len();
    if len >= 4 {
        let lo = rest
            .first_chunk::<4>()
            .map_or(0, |c| u32::from_le_bytes(*c));
        let hi = rest.last_chunk::<4>().map_or(0, |c| u32::from_le_bytes(*c));
        u64::from(lo) | u64::from(hi) << (8 * (len as u32 - 4))
    } else if len >= 2 {
        let lo = rest
            .first_chunk::<2>()
            .map_or(0, |c| u16::from_le_bytes(*c));
        let hi = rest.last_chunk::<2>().map_or(0, |c| u16::from_le_bytes(*c));
        u64::from(lo) | u64::from(hi) << (8 * (len as u32 - 2))
    } else {
        rest.first().map_or(0, |&b| u64::from(b))
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// How many of the leading bytes of `word` (first byte lowest) are ASCII digits: 0 to 8.
///
/// Carries between bytes can only disturb bytes after a non-digit, which do not matter.
#[inline(always)]
fn digit_run(word: u64) -> usize {
    let high_nibble_not_3 = (word & (0xF0 * ONES)) ^ (0x30 * ONES);
    let low_nibble_over_9 = (word.wrapping_add(0x06 * ONES) & (0xF0 * ONES)) ^ (0x30 * ONES);
    let bad = high_nibble_not_3 | low_nibble_over_9;
    let nonzero = ((bad & (0x7F * ONES)).wrapping_add(0x7F * ONES) | bad) & (0x80 * ONES);
    (nonzero.trailing_zeros() / 8) as usize
}

/// The byte `n` (0..8) of `word`.
#[inline(always)]
fn byte_at(word: u64, n: usize) -> u8 {
    (word.checked_shr(8 * n as u32).unwrap_or(0) & 0xFF) as u8
}

/// The common case of [`validate`]: `None` when the input is invalid or has a number of 7
/// digits or more (which [`validate_precisely`] then checks).
#[inline]
fn validate_fast(bytes: &[u8]) -> Option<usize> {
    let end = bytes.len();
    let mut at = 0usize;
    let mut frames = 1usize;
    loop {
        let word = load8(bytes, at);
        let len = digit_run(word);
        if len == 0 || len >= 7 || byte_at(word, len) != b':' || at + len >= end {
            return None;
        }
        at += len + 1;
        let mut word = load8(bytes, at);
        if word & 0xFF == u64::from(b'-') {
            at += 1;
            word = load8(bytes, at);
        }
        let len = digit_run(word);
        if len == 0 || len >= 7 {
            return None;
        }
        at += len;
        if at >= end {
            return Some(frames);
        }
        if byte_at(word, len) != b'<' {
            return None;
        }
        at += 1;
        frames += 1;
    }
}

/// Checks a whole context token by token, returning its number of frames or the first error.
fn validate_precisely(bytes: &[u8]) -> Result<usize, ParseError> {
    let mut cursor = Cursor::new(bytes);
    let mut frames = 0usize;
    loop {
        cursor.frame()?;
        frames += 1;
        if !cursor.separator()? {
            return Ok(frames);
        }
    }
}

/// Reads a frame from text already validated by [`validate`], from its first byte up to (not
/// including) the next `<` or the end; returns the frame and the rest after the `<`.
///
/// Never fails and never panics: on text that is not valid it returns some frame, which
/// cannot happen for validated text.
#[inline(always)]
pub(crate) fn frame_unchecked(mut bytes: &[u8]) -> (Frame, &[u8]) {
    // Scalar on purpose: for numbers of one to five digits this beats the eight-byte tricks
    // used by `validate` (measured), because it needs no tail handling.
    let mut method: u32 = 0;
    while let [b, rest @ ..] = bytes {
        bytes = rest;
        if *b == b':' {
            break;
        }
        method = method
            .wrapping_mul(10)
            .wrapping_add(u32::from(b.wrapping_sub(b'0')));
    }
    let negative = bytes.first() == Some(&b'-');
    if negative {
        bytes = bytes.get(1..).unwrap_or_default();
    }
    let mut bci: u32 = 0;
    while let [b, rest @ ..] = bytes {
        bytes = rest;
        if *b == b'<' {
            break;
        }
        bci = bci
            .wrapping_mul(10)
            .wrapping_add(u32::from(b.wrapping_sub(b'0')));
    }
    let bci = if negative {
        (bci as i32).wrapping_neg()
    } else {
        bci as i32
    };
    (Frame { method, bci }, bytes)
}
