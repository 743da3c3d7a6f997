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
pub(crate) fn validate(bytes: &[u8]) -> Result<usize, ParseError> {
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
#[inline]
pub(crate) fn frame_unchecked(bytes: &[u8]) -> (Frame, &[u8]) {
    let mut i = 0;
    let mut method: u32 = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if b == b':' {
            break;
        }
        method = method
            .wrapping_mul(10)
            .wrapping_add(u32::from(b.wrapping_sub(b'0')));
    }
    let negative = bytes.get(i) == Some(&b'-');
    if negative {
        i += 1;
    }
    let mut bci: u32 = 0;
    let mut rest: &[u8] = &[];
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if b == b'<' {
            rest = bytes.get(i..).unwrap_or_default();
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
    (Frame { method, bci }, rest)
}
