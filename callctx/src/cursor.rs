//! The cursor every parser in this crate reads through: a byte slice and a position, with one
//! small method per token of the grammar `frame ('<' frame)*`, `frame = digits ':' '-'? digits`.

use crate::error::{Error, ErrorKind, Expected};
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

    /// A cursor at byte `pos` of `bytes`.
    pub(crate) fn at(bytes: &'a [u8], pos: usize) -> Self {
        Cursor { bytes, pos }
    }

    /// The current position.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The error for `expected` at the current position.
    fn unexpected(&self, expected: Expected) -> Error {
        let found = self.bytes.get(self.pos..).and_then(|rest| {
            // The input may be arbitrary bytes: name the character when it is UTF-8.
            let end = rest.len().min(4);
            (1..=end)
                .find_map(|n| std::str::from_utf8(rest.get(..n)?).ok()?.chars().next())
                .or_else(|| rest.first().map(|&b| char::from(b)))
        });
        Error {
            offset: self.pos,
            kind: match found {
                Some(found) => ErrorKind::Unexpected { expected, found },
                None => ErrorKind::Truncated { expected },
            },
        }
    }

    /// Reads one or more decimal digits, failing past `limit`.
    fn digits(&mut self, expected: Expected, limit: u64, too_big: ErrorKind) -> Result<u64, Error> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(&b) = self.bytes.get(self.pos) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value * 10 + u64::from(digit);
            if value > limit {
                return Err(Error {
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
    fn byte(&mut self, byte: u8, expected: Expected) -> Result<(), Error> {
        if self.bytes.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Reads a method id.
    fn method(&mut self) -> Result<u32, Error> {
        let value = self.digits(
            Expected::MethodId,
            u64::from(u32::MAX),
            ErrorKind::MethodIdOutOfRange,
        )?;
        u32::try_from(value).map_err(|_| Error {
            offset: self.pos,
            kind: ErrorKind::MethodIdOutOfRange,
        })
    }

    /// Reads a bci, optionally negative.
    fn bci(&mut self) -> Result<i32, Error> {
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
        i32::try_from(signed).map_err(|_| Error {
            offset: start,
            kind: ErrorKind::BciOutOfRange,
        })
    }

    /// Reads one `method:bci` frame.
    pub(crate) fn frame(&mut self) -> Result<Frame, Error> {
        let method = self.method()?;
        self.byte(b':', Expected::Colon)?;
        let bci = self.bci()?;
        Ok(Frame { method, bci })
    }

    /// After a frame: consumes the `<` before the next frame, or accepts the end.
    /// Returns `true` when another frame follows.
    pub(crate) fn separator(&mut self) -> Result<bool, Error> {
        if self.at_end() {
            return Ok(false);
        }
        self.byte(b'<', Expected::SeparatorOrEnd)?;
        Ok(true)
    }
}

/// Checks a whole context, returning its number of frames.
///
/// The common case (numbers of up to 6 digits) runs through [`validate_fast`], which looks at
/// each method id eight bytes at a time and at each (short) bci byte by byte; anything it does
/// not accept alone (errors, long numbers) goes through the token-by-token
/// [`validate_precisely`], which says what went wrong and where (out of line: it is cold).
#[inline]
pub(crate) fn validate(bytes: &[u8]) -> Result<usize, Error> {
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
/// After `^ 0x30` a digit is a byte of at most 9; adding 0x76 sets the high bit of every other
/// byte below 0x80, and `| t` catches the rest. Carries between bytes can only come out of a
/// non-digit and only disturb the bytes after it, which do not matter.
#[inline(always)]
fn digit_run(word: u64) -> usize {
    let t = word ^ (0x30 * ONES);
    let not_digit = (t.wrapping_add(0x76 * ONES) | t) & (0x80 * ONES);
    (not_digit.trailing_zeros() / 8) as usize
}

/// The byte `n` (0..8) of `word`.
#[inline(always)]
fn byte_at(word: u64, n: usize) -> u8 {
    (word.checked_shr(8 * n as u32).unwrap_or(0) & 0xFF) as u8
}

/// The common case of [`validate`]: `None` when the input is invalid or has a number of 7
/// digits or more (which [`validate_precisely`] then checks).
#[inline(always)]
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
        at = after_method(at, len);
        if byte_at(word, len + 1) == b'-' {
            // Rare, and a branch: see `after_method`.
            cold_path();
            at += 1;
        }
        // Bcis are short (one to three digits in real profiles): read byte by byte, whose
        // branches predict well; a word load would wait for the method id's length and need
        // tail handling at the end of the context.
        let start = at;
        while let Some(b) = bytes.get(at) {
            if b.wrapping_sub(b'0') > 9 {
                break;
            }
            at += 1;
        }
        if at == start || at - start >= 7 {
            return None;
        }
        match bytes.get(at) {
            None => return Some(frames),
            Some(b'<') => {}
            Some(_) => return None,
        }
        at += 1;
        frames += 1;
    }
}

/// The common case of a frame and the separator after it, read from not yet validated `bytes`
/// at `at`: the frame and where the next one starts (`None` after the last frame). `None` when
/// the text there is invalid or has a number of 7 digits or more, for the token-by-token
/// [`Cursor`] to report or read.
///
/// [`validate_fast`] is the same walk without the values, kept apart because computing no
/// values is faster than a loop over this function (figures: `benches/README.md`, callctx).
#[inline(always)]
pub(crate) fn frame_fast(bytes: &[u8], at: usize) -> Option<(Frame, Option<usize>)> {
    let word = load8(bytes, at);
    let len = digit_run(word);
    if len == 0 || len >= 7 || byte_at(word, len) != b':' {
        return None;
    }
    let method = digits8(word, len);
    let at = after_method(at, len);
    // A negative bci is rare: a branch (not a `+ 1` computed from the word) keeps the loads of
    // the bci from waiting for the word, as in `after_method`.
    let (bci, next) = if byte_at(word, len + 1) == b'-' {
        cold_path();
        let (bci, next) = bci_fast(bytes, at + 1)?;
        ((bci as i32).wrapping_neg(), next)
    } else {
        let (bci, next) = bci_fast(bytes, at)?;
        (bci as i32, next)
    };
    Some((Frame { method, bci }, next))
}

/// The digits of a bci at `at` and the separator after them.
#[inline(always)]
fn bci_fast(bytes: &[u8], mut at: usize) -> Option<(u32, Option<usize>)> {
    let start = at;
    let mut bci: u32 = 0;
    while let Some(b) = bytes.get(at) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        bci = bci.wrapping_mul(10).wrapping_add(u32::from(digit));
        at += 1;
    }
    if at == start || at - start >= 7 {
        return None;
    }
    let next = match bytes.get(at) {
        None => None,
        Some(b'<') => Some(at + 1),
        Some(_) => return None,
    };
    Some((bci, next))
}

/// The value of the `len` (1 to 8) leading digits of `word` (first byte lowest): digits to the
/// top of the word (the zero bytes below are leading zeros), then pairs, quads and eights of
/// digits combined by three multiplications.
#[inline(always)]
fn digits8(word: u64, len: usize) -> u32 {
    let v = (word & (0x0F * ONES)).wrapping_shl(64u32.wrapping_sub(8 * len as u32));
    let v = (v.wrapping_mul(10 << 8 | 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10000 << 32 | 1) >> 32) as u32
}

/// Checks a whole context token by token, returning its number of frames or the first error.
#[cold]
#[inline(never)]
fn validate_precisely(bytes: &[u8]) -> Result<usize, Error> {
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

/// Reads the frame at `at` of text already validated by [`validate`], up to (not including)
/// the next `<` or the end; returns the frame and where the next one starts (after the `<`, or
/// the length of the text).
///
/// Takes the position rather than a sub-slice so that `after_method` gets a base that is not
/// a constant: with a constant one the compiler folds its branches back into arithmetic.
///
/// Never fails and never panics: on text that is not valid it returns some frame, which
/// cannot happen for validated text.
#[inline(always)]
pub(crate) fn frame_unchecked(bytes: &[u8], at: usize) -> (Frame, usize) {
    // The method id (four or five digits in real profiles) eight bytes at a time, without a
    // branch per digit; the bci (one to three digits) byte by byte, as in `validate_fast`.
    let word = load8(bytes, at);
    // In validated text the first byte whose low nibble is past 9 (or a zero byte past the end)
    // is the ':' after the method id: adding 6 leaves 0x10 set only in digits.
    let method_len = (!word.wrapping_add(0x06 * ONES) & (0x10 * ONES)).trailing_zeros() / 8;
    let (method, mut at) = if method_len < 8 {
        let len = method_len as usize;
        (digits8(word, len), after_method(at, len))
    } else {
        let mut method: u32 = 0;
        let mut at = at;
        while let Some(&b) = bytes.get(at) {
            at += 1;
            if b == b':' {
                break;
            }
            method = method
                .wrapping_mul(10)
                .wrapping_add(u32::from(b.wrapping_sub(b'0')));
        }
        (method, at)
    };
    let negative = bytes.get(at) == Some(&b'-');
    if negative {
        // Rare, and a branch: see `after_method`.
        cold_path();
        at += 1;
    }
    let mut bci: u32 = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        if b == b'<' {
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
    (Frame { method, bci }, at)
}

/// High bit set in each byte of `word` that is `<`, when `word` holds validated text and zero
/// padding: every other byte of those is below 0x3C, and none carries into the next.
#[inline(always)]
fn separators(word: u64) -> u64 {
    word.wrapping_add(0x44 * ONES) & (0x80 * ONES)
}

/// The position just after the last `<` of validated text `bytes`, if it is among the last
/// sixteen bytes: two word loads instead of a backward byte loop (`None` sends the caller to
/// that loop, for frames of 16 bytes or more).
#[inline(always)]
pub(crate) fn after_last_separator(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    let (low, high) = match bytes.last_chunk::<8>() {
        Some(last) => {
            let high = u64::from_le_bytes(*last);
            // The eight bytes before those, zero before the start.
            let low = load8(bytes, len.saturating_sub(16))
                .checked_shl(8 * (16usize.saturating_sub(len)) as u32)
                .unwrap_or(0);
            (low, high)
        }
        None => (
            0,
            load_short(bytes)
                .checked_shl(8 * (8 - len as u32))
                .unwrap_or(0),
        ),
    };
    let lts = u128::from(separators(low)) | u128::from(separators(high)) << 64;
    let last = 127u32.checked_sub(lts.leading_zeros())? / 8;
    // `last` indexes the 16 bytes ending at `len`.
    Some((len + last as usize + 1).saturating_sub(16))
}

/// `at + len + 1`: where the bci starts after a method id of `len` digits at `at` and its `:`.
///
/// Written as one branch per common length (three to five digits in real profiles) on
/// purpose. Each frame's start depends on the lengths of the numbers before it; computed from
/// the loaded word, that is a chain of load, digit search and add that every frame waits for.
/// A predicted branch gives the next position at once, so the processor reads several frames
/// ahead and pays only when a length is mispredicted. Three arms: with a fourth, LLVM makes a
/// jump table, which is slower (figures for each variant: `benches/README.md`, callctx). A
/// constant `at` lets LLVM fold the arms back into the sum (see [`frame_unchecked`]).
#[inline(always)]
fn after_method(at: usize, len: usize) -> usize {
    match len {
        4 => at + 5,
        5 => at + 6,
        3 => at + 4,
        _ => at + len + 1,
    }
}

/// Marks the branch that calls it as rarely taken, so that the compiler keeps it a branch
/// instead of computing both outcomes without one (what `std::hint::cold_path`, stable only
/// since Rust 1.95, does; the workspace supports 1.86).
#[cold]
#[inline]
fn cold_path() {}
