//! One frame of a partial call context: a method id and a bytecode index (bci).

use std::fmt;

/// One `method:bci` frame of a context.
///
/// `method` is the method's id in the profile's `methods` table. `bci` is signed: real
/// profiles hold the special values -1 (unknown), -4, -5 (unknown) and -6 (invalid frame
/// state), in innermost and caller frames alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame {
    /// The method id.
    pub method: u32,
    /// The bytecode index within that method.
    pub bci: i32,
}

impl Frame {
    /// A frame of `method` at `bci`.
    pub const fn new(method: u32, bci: i32) -> Self {
        Frame { method, bci }
    }
}

impl fmt::Display for Frame {
    /// `method:bci`, as in the context strings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.method, self.bci)
    }
}
