//! The borrowed, validated view of a context string (`5:0<3:2<2:2<1:3`, innermost first).

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::FusedIterator;

use crate::cursor::{Cursor, after_last_separator, frame_fast, frame_unchecked, validate};
use crate::error::Error;
use crate::frame::Frame;

/// A partial call context borrowed from its text, validated once, never allocated.
///
/// Frames are innermost first: in `5:0<3:2`, method 5 at bci 0 was inlined into (or called
/// from) method 3 at bci 2. Equality, ordering and hashing compare the frames, so `007:0` and
/// `7:0` are equal; [`Context::as_str`] gives the text as it was, `Display` the canonical form.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    text: &'a str,
    len: usize,
}

impl<'a> Context<'a> {
    /// Parses and validates `text`. Nothing is allocated.
    ///
    /// ```
    /// let ctx = callctx::Context::parse("5:0<3:2<2:2<1:3")?;
    /// assert_eq!(ctx.len(), 4);
    /// let err = callctx::Context::parse("5:0<3").unwrap_err();
    /// assert_eq!(err.to_string(), "expected ':' at byte 5, found the end of the context");
    /// # Ok::<(), callctx::Error>(())
    /// ```
    #[inline]
    pub fn parse(text: &'a str) -> Result<Self, Error> {
        let len = validate(text.as_bytes())?;
        Ok(Context { text, len })
    }

    /// Parses and validates a context given as bytes (it must be ASCII to be valid).
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        let len = validate(bytes)?;
        // Validated text is ASCII digits, ':', '-' and '<': always UTF-8.
        let text = std::str::from_utf8(bytes).unwrap_or_default();
        Ok(Context { text, len })
    }

    /// The text this context was parsed from.
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// The number of frames (at least 1).
    #[allow(clippy::len_without_is_empty)] // a parsed context is never empty
    pub fn len(&self) -> usize {
        self.len
    }

    /// The frames, innermost first; `.rev()` gives them outermost first.
    #[inline]
    pub fn frames(&self) -> Frames<'a> {
        Frames {
            text: self.text.as_bytes(),
            front: 0,
            back: self.text.len(),
            remaining: self.len,
        }
    }

    /// The innermost frame (the location the profile is about).
    pub fn innermost(&self) -> Frame {
        frame_unchecked(self.text.as_bytes(), 0).0
    }

    /// The outermost frame (the compilation root, or the stack's bottom in sampling profiles).
    pub fn outermost(&self) -> Frame {
        self.frames()
            .next_back()
            .unwrap_or(Frame { method: 0, bci: 0 })
    }

    /// True when `self` begins with the frames of `prefix`: the same innermost frames.
    pub fn starts_with(&self, prefix: &Context<'_>) -> bool {
        prefix.len <= self.len && prefix.frames().zip(self.frames()).all(|(a, b)| a == b)
    }

    /// True when `self` ends with the frames of `suffix`: the same outer callers.
    pub fn ends_with(&self, suffix: &Context<'_>) -> bool {
        suffix.len <= self.len
            && suffix
                .frames()
                .rev()
                .zip(self.frames().rev())
                .all(|(a, b)| a == b)
    }

    /// The context of the caller: `self` without its innermost frame, or `None` for a
    /// single-frame context.
    ///
    /// ```
    /// let ctx = callctx::Context::parse("5:0<3:2<1:3")?;
    /// assert_eq!(ctx.callers().map(|c| c.as_str()), Some("3:2<1:3"));
    /// # Ok::<(), callctx::Error>(())
    /// ```
    pub fn callers(&self) -> Option<Context<'a>> {
        let at = self.text.find('<')?;
        let text = self.text.get(at + 1..)?;
        Some(Context {
            text,
            len: self.len - 1,
        })
    }

    /// Keeps the `n` innermost frames and drops the outer callers (`n` of 0 is taken as 1).
    ///
    /// ```
    /// let ctx = callctx::Context::parse("5:0<3:2<2:2<1:3")?;
    /// assert_eq!(ctx.truncated_outer(2).as_str(), "5:0<3:2");
    /// # Ok::<(), callctx::Error>(())
    /// ```
    pub fn truncated_outer(&self, n: usize) -> Context<'a> {
        let n = n.max(1);
        if n >= self.len {
            return *self;
        }
        // The n-th '<' ends the n innermost frames.
        let end = self
            .text
            .match_indices('<')
            .nth(n - 1)
            .map_or(self.text.len(), |(at, _)| at);
        Context {
            text: self.text.get(..end).unwrap_or(self.text),
            len: n,
        }
    }
}

/// The frames of a [`Context`], innermost first (double-ended: `.rev()` is outermost first).
#[derive(Clone, Debug)]
pub struct Frames<'a> {
    /// The whole validated text.
    text: &'a [u8],
    /// Where the frames not yet read start: the first one at `front`; the last one ends at
    /// `back` (a `<` or the end of the text).
    front: usize,
    back: usize,
    remaining: usize,
}

impl Iterator for Frames<'_> {
    type Item = Frame;

    #[inline]
    fn next(&mut self) -> Option<Frame> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let (frame, next) = frame_unchecked(self.text, self.front);
        self.front = next;
        Some(frame)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl DoubleEndedIterator for Frames<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Frame> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        if self.remaining == 0 {
            // The one frame left starts at `front`.
            return Some(frame_unchecked(self.text, self.front).0);
        }
        // More than one frame is left, so they end with `<frame`.
        let rest = self.text.get(self.front..self.back).unwrap_or_default();
        let start = after_last_separator(rest)
            .unwrap_or_else(|| rest.iter().rposition(|&b| b == b'<').map_or(0, |at| at + 1));
        let start = self.front + start;
        let frame = frame_unchecked(self.text, start).0;
        self.back = start.saturating_sub(1);
        Some(frame)
    }
}

/// Reads the frames of a context string in one pass, checking as it goes: the frames of
/// [`Context::parse`] and [`Context::frames`] without a second pass over the text, for when
/// the frames are all that is wanted.
///
/// Yields each frame once it and the `<` (or the end) after it are read; an invalid context
/// ends with the error [`Context::parse`] gives, after the frames before it. Nothing is
/// allocated.
///
/// ```
/// let frames: Vec<_> = callctx::parse_frames("5:0<3:2").collect::<Result<_, _>>()?;
/// assert_eq!(frames, [callctx::Frame::new(5, 0), callctx::Frame::new(3, 2)]);
///
/// let mut bad = callctx::parse_frames("5:0<3:x");
/// assert_eq!(bad.next(), Some(Ok(callctx::Frame::new(5, 0))));
/// assert_eq!(bad.next().unwrap().unwrap_err().offset, 6);
/// assert_eq!(bad.next(), None);
/// # Ok::<(), callctx::Error>(())
/// ```
pub fn parse_frames(text: &str) -> ParseFrames<'_> {
    ParseFrames {
        bytes: text.as_bytes(),
        at: Some(0),
    }
}

/// The frames of a context string read in one pass: see [`parse_frames`].
#[derive(Clone, Debug)]
pub struct ParseFrames<'a> {
    bytes: &'a [u8],
    /// Where the next frame starts; `None` after the last frame or an error.
    at: Option<usize>,
}

impl ParseFrames<'_> {
    /// The frame at `at` read token by token: long numbers, and errors.
    #[cold]
    #[inline(never)]
    fn precisely(&mut self, at: usize) -> Result<Frame, Error> {
        let mut cursor = Cursor::at(self.bytes, at);
        let read = cursor
            .frame()
            .and_then(|frame| Ok((frame, cursor.separator()?)));
        self.at = None;
        let (frame, more) = read?;
        if more {
            self.at = Some(cursor.pos());
        }
        Ok(frame)
    }
}

impl Iterator for ParseFrames<'_> {
    type Item = Result<Frame, Error>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let at = self.at?;
        Some(match frame_fast(self.bytes, at) {
            Some((frame, next)) => {
                self.at = next;
                Ok(frame)
            }
            None => self.precisely(at),
        })
    }
}

impl FusedIterator for ParseFrames<'_> {}

impl ExactSizeIterator for Frames<'_> {}
impl FusedIterator for Frames<'_> {}

impl fmt::Display for Context<'_> {
    /// The canonical form: `method:bci` frames joined by `<`, innermost first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::write_frames(f, self.frames())
    }
}

impl fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Context({:?})", self.text)
    }
}

impl PartialEq for Context<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && (self.text == other.text || self.frames().eq(other.frames()))
    }
}

impl Eq for Context<'_> {}

impl PartialOrd for Context<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Context<'_> {
    /// Frame by frame, innermost first (a context sorts before the longer ones it starts).
    fn cmp(&self, other: &Self) -> Ordering {
        self.frames().cmp(other.frames())
    }
}

impl Hash for Context<'_> {
    /// Hashes the frames, consistently with [`ContextBuf`](crate::ContextBuf)'s `Hash`.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len);
        for frame in self.frames() {
            frame.hash(state);
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Context<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de: 'a, 'a> serde::Deserialize<'de> for Context<'a> {
    /// Borrows the string from the input; fails if the deserializer can only hand over a
    /// transient string (e.g. a JSON string with escapes). Use [`ContextBuf`](crate::ContextBuf)
    /// then.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Context<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a borrowed call context string such as \"5:0<3:2\"")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Context::parse(v).map_err(E::custom)
            }
            fn visit_borrowed_bytes<E: serde::de::Error>(
                self,
                v: &'de [u8],
            ) -> Result<Self::Value, E> {
                Context::parse_bytes(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor(std::marker::PhantomData))
    }
}
