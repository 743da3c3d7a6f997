//! The owned, growable form of a context, for building contexts and keeping them past the
//! buffer they were parsed from.

use std::fmt;
use std::str::FromStr;

use crate::context::Context;
use crate::error::Error;
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
/// # Ok::<(), callctx::Error>(())
/// ```
///
/// An empty `ContextBuf` displays as the empty string, which is not a valid context.
///
/// Frames can be added at either end in amortized constant time, so building a context of
/// `n` frames by [`push_inner`](ContextBuf::push_inner) (callee by callee, as a stack walk
/// from the outermost frame gives them) or by [`push_outer`](ContextBuf::push_outer) costs
/// O(n) overall.
#[derive(Clone, Default)]
pub struct ContextBuf {
    /// `slots[start..]` are the frames, innermost first; `slots[..start]` is room for inner
    /// frames, so that pushing one does not move the others.
    slots: Vec<Frame>,
    start: usize,
}

/// What fills the room before the innermost frame (never read as a frame).
const UNUSED: Frame = Frame::new(0, 0);

impl ContextBuf {
    /// An empty context.
    pub fn new() -> Self {
        ContextBuf::default()
    }

    /// A context of `frames`, innermost first.
    pub fn from_frames(frames: impl IntoIterator<Item = Frame>) -> Self {
        ContextBuf {
            slots: frames.into_iter().collect(),
            start: 0,
        }
    }

    /// The frames, innermost first.
    pub fn frames(&self) -> &[Frame] {
        self.slots.get(self.start..).unwrap_or_default()
    }

    /// The number of frames.
    pub fn len(&self) -> usize {
        self.slots.len() - self.start
    }

    /// True when there are no frames.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The innermost frame.
    pub fn innermost(&self) -> Option<Frame> {
        self.frames().first().copied()
    }

    /// The outermost frame.
    pub fn outermost(&self) -> Option<Frame> {
        self.frames().last().copied()
    }

    /// Adds a new innermost frame (a callee inlined at the current innermost location).
    pub fn push_inner(&mut self, frame: Frame) {
        if self.start == 0 {
            // Out of room: move the frames up by as many slots as there are frames (at least
            // four), which keeps a run of pushes linear overall.
            let room = self.len().max(4);
            let mut slots = Vec::with_capacity(room + self.slots.len());
            slots.resize(room, UNUSED);
            slots.extend_from_slice(&self.slots);
            self.slots = slots;
            self.start = room;
        }
        self.start -= 1;
        if let Some(slot) = self.slots.get_mut(self.start) {
            *slot = frame;
        }
    }

    /// Adds a new outermost frame (a caller of the current outermost method).
    pub fn push_outer(&mut self, frame: Frame) {
        self.slots.push(frame);
    }

    /// Removes and returns the innermost frame.
    pub fn pop_inner(&mut self) -> Option<Frame> {
        let frame = self.innermost()?;
        self.start += 1;
        Some(frame)
    }

    /// Removes and returns the outermost frame.
    pub fn pop_outer(&mut self) -> Option<Frame> {
        if self.is_empty() {
            return None;
        }
        self.slots.pop()
    }

    /// Keeps the `n` innermost frames.
    pub fn truncate_outer(&mut self, n: usize) {
        self.slots.truncate(self.start.saturating_add(n));
    }

    /// True when `self` begins with the frames of `prefix` (the same innermost frames).
    pub fn starts_with(&self, prefix: &[Frame]) -> bool {
        self.frames().starts_with(prefix)
    }

    /// True when `self` ends with the frames of `suffix` (the same outer callers).
    pub fn ends_with(&self, suffix: &[Frame]) -> bool {
        self.frames().ends_with(suffix)
    }
}

impl fmt::Debug for ContextBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextBuf")
            .field("frames", &self.frames())
            .finish()
    }
}

impl PartialEq for ContextBuf {
    fn eq(&self, other: &Self) -> bool {
        self.frames() == other.frames()
    }
}

impl Eq for ContextBuf {}

impl PartialOrd for ContextBuf {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ContextBuf {
    /// Frame by frame, innermost first, as [`Context`] orders.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.frames().cmp(other.frames())
    }
}

impl std::hash::Hash for ContextBuf {
    /// Hashes the frames, consistently with [`Context`]'s `Hash`.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.frames().hash(state);
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
    type Err = Error;

    fn from_str(text: &str) -> crate::Result<Self> {
        Context::parse(text).map(ContextBuf::from)
    }
}

impl fmt::Display for ContextBuf {
    /// The canonical form: `method:bci` frames joined by `<`, innermost first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::write_frames(f, self.frames().iter().copied())
    }
}

impl Context<'_> {
    /// An owned copy of the frames.
    pub fn to_context_buf(&self) -> ContextBuf {
        ContextBuf::from_frames(self.frames())
    }
}

impl PartialEq<ContextBuf> for Context<'_> {
    fn eq(&self, other: &ContextBuf) -> bool {
        self.frames().eq(other.frames().iter().copied())
    }
}

impl PartialEq<Context<'_>> for ContextBuf {
    fn eq(&self, other: &Context<'_>) -> bool {
        other == self
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ContextBuf {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
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
