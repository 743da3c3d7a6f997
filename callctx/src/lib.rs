//! Partial call contexts, as GraalVM's PGO profiles (`.iprof`) write them.
//!
//! A context is a list of `method_id:bci` frames joined by `<`, **innermost first**:
//! `5:0<3:2<2:2<1:3` is the start of method 5, inlined into method 3 at bci 2, which was
//! inlined into method 2 at bci 2, which was inlined into method 1 at bci 3. Method ids are
//! non-negative; bcis are signed 32-bit (real profiles hold -1, -4, -5 and -6). The monitor
//! profile's dummy context is `0:0`; sampling profiles hold whole stacks of 20 frames and more.
//!
//! ```
//! use callctx::{Context, ContextBuf, ContextTree, Frame};
//!
//! // Parse without allocating, then walk the frames either way.
//! let ctx = Context::parse("5:0<3:2<2:2<1:3")?;
//! assert_eq!(ctx.len(), 4);
//! assert_eq!(ctx.innermost(), Frame::new(5, 0));
//! assert_eq!(ctx.outermost(), Frame::new(1, 3));
//! let outer_first: Vec<String> = ctx.frames().rev().map(|f| f.to_string()).collect();
//! assert_eq!(outer_first, ["1:3", "2:2", "3:2", "5:0"]);
//!
//! // Prefix (same innermost frames) and suffix (same callers) queries.
//! assert!(ctx.starts_with(&Context::parse("5:0<3:2")?));
//! assert!(ctx.ends_with(&Context::parse("2:2<1:3")?));
//! assert_eq!(ctx.callers().unwrap().to_string(), "3:2<2:2<1:3");
//!
//! // Errors say what was expected and at which byte; running out of input is `Truncated`.
//! let err = Context::parse("5:0<3:x").unwrap_err();
//! assert_eq!(err.offset, 6);
//! assert_eq!(
//!     err.to_string(),
//!     "expected a bci (decimal digits, optionally negative) at byte 6, found 'x'"
//! );
//!
//! // Build contexts, and aggregate values over many of them into folded stacks.
//! let mut built = ContextBuf::new();
//! built.push_outer(Frame::new(2, 2));
//! built.push_inner(Frame::new(3, 2));
//! assert_eq!(built.to_string(), "3:2<2:2");
//!
//! let mut tree = ContextTree::new();
//! tree.insert(&ctx, 10u64);
//! tree.insert(&Context::parse("4:0<3:2<2:2<1:3")?, 5);
//! let mut folded = String::new();
//! tree.write_folded(&mut folded, |id| format!("m{id}"))?;
//! assert_eq!(folded, "m1;m2;m3;m5 10\nm1;m2;m3;m4 5\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! When only the frames are wanted, [`parse_frames`] reads and checks them in one pass.
//!
//! [`Context`] borrows its text and is validated once; [`ContextBuf`] owns its frames. Both
//! compare, order and hash by frames, display canonically, and, with the `serde` feature (on
//! by default), serialize as strings ([`Context`] borrows from the input when the
//! deserializer allows).

#![forbid(unsafe_code)]

mod buf;
mod context;
mod cursor;
mod error;
mod frame;
mod tree;

pub use buf::ContextBuf;
pub use context::{Context, Frames, ParseFrames, parse_frames};
pub use error::{Error, ErrorKind, Expected, Result};
pub use frame::Frame;
pub use tree::{ContextTree, DepthFirst, NodeId, NodeRef};

use std::fmt;

/// Writes frames as `m:bci<m:bci…`.
fn write_frames(f: &mut fmt::Formatter<'_>, frames: impl Iterator<Item = Frame>) -> fmt::Result {
    for (i, frame) in frames.enumerate() {
        if i > 0 {
            f.write_str("<")?;
        }
        write!(f, "{}:{}", frame.method, frame.bci)?;
    }
    Ok(())
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
