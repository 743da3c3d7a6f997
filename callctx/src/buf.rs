//! The owned, growable form of a context, for building contexts and keeping them past the
//! buffer they were parsed from.

use std::fmt;
use std::str::FromStr;

use crate::context::Context;
use crate::error::ParseError;
use crate::frame::Frame;

/// An owned call context: frames innermost first, editable at both ends.
///
/// ```
/// use callctx::{ContextBuf, Frame};
///
/// let mut ctx = ContextBuf::new();
/// ctx.push_outer(Frame::new(3, 2));
/// ctx.push_outer(Frame::new(1, 3));
/// ctx.push_inner(Frame::new(5, 0));
/// assert_eq!(ctx.to_string(), "5:0<3:2<1:3");
/// assert_eq!(ctx, "5:0<3:2<1:3".parse::<ContextBuf>()?);
/// # Ok::<(), callctx::ParseError>(())
/// ```
///
/// An empty `ContextBuf` displays as the empty string, which is not a valid context.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContextBuf {
    frames: Vec<Frame>,
}

impl ContextBuf {
    /// An empty context.
    pub fn new() -> Self {
        ContextBuf::default()
    }

    /// A context of `frames`, innermost first.
    pub fn from_frames(frames: impl IntoIterator<Item = Frame>) -> Self {
        ContextBuf {
            frames: frames.into_iter().collect(),
        }
    }

    /// The frames, innermost first.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The number of frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when there are no frames.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The innermost frame.
    pub fn innermost(&self) -> Option<Frame> {
        self.frames.first().copied()
    }

    /// The outermost frame.
    pub fn outermost(&self) -> Option<Frame> {
        self.frames.last().copied()
    }

    /// Adds a new innermost frame (a callee inlined at the current innermost location).
    pub fn push_inner(&mut self, frame: Frame) {
        self.frames.insert(0, frame);
    }

    /// Adds a new outermost frame (a caller of the current outermost method).
    pub fn push_outer(&mut self, frame: Frame) {
        self.frames.push(frame);
    }

    /// Removes and returns the innermost frame.
    pub fn pop_inner(&mut self) -> Option<Frame> {
        if self.frames.is_empty() {
            None
        } else {
            Some(self.frames.remove(0))
        }
    }

    /// Removes and returns the outermost frame.
    pub fn pop_outer(&mut self) -> Option<Frame> {
        self.frames.pop()
    }

    /// Keeps the `n` innermost frames.
    pub fn truncate_outer(&mut self, n: usize) {
        self.frames.truncate(n);
    }

    /// True when `self` begins with the frames of `prefix` (the same innermost frames).
    pub fn starts_with(&self, prefix: &[Frame]) -> bool {
        self.frames.starts_with(prefix)
    }

    /// True when `self` ends with the frames of `suffix` (the same outer callers).
    pub fn ends_with(&self, suffix: &[Frame]) -> bool {
        self.frames.ends_with(suffix)
    }
}

impl From<Context<'_>> for ContextBuf {
    fn from(ctx: Context<'_>) -> Self {
        ctx.to_context_buf()
    }
}

impl FromIterator<Frame> for ContextBuf {
    fn from_iter<I: IntoIterator<Item = Frame>>(iter: I) -> Self {
        ContextBuf::from_frames(iter)
    }
}

impl FromStr for ContextBuf {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Self, ParseError> {
        Context::parse(text).map(ContextBuf::from)
    }
}

impl fmt::Display for ContextBuf {
    /// The canonical form: `method:bci` frames joined by `<`, innermost first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::write_frames(f, self.frames.iter().copied())
    }
}

impl PartialEq<Context<'_>> for ContextBuf {
    fn eq(&self, other: &Context<'_>) -> bool {
        other == self
    }
}

impl serde::Serialize for ContextBuf {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ContextBuf {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ContextBuf;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a call context string such as \"5:0<3:2\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                v.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}
