//! Sampling profiles as folded stacks for flame graphs (iprof format document, "Sampling
//! profiles"): one line per distinct stack, `outer;…;inner count`, built with
//! [`callctx::ContextTree`].
//!
//! Every line repeats the names of all its frames, so a name shared by many frames is copied
//! into each: frame names are cut at [`FRAME_NAME_LIMIT`] bytes (ending in `…`), which keeps
//! the output within a fixed multiple of the input's size whatever the names' lengths.

use std::fmt::{self, Write as _};
use std::num::Saturating;

use callctx::ContextTree;

use crate::model::{Profile, Section};
use crate::names::Names;

/// The most bytes of a frame's name written to folded output; longer names are cut there
/// (at a character boundary) and end in `…`. The longest name in the real files we have is
/// 1721 bytes (fully qualified, with its parameter types); short names stay under 600.
pub const FRAME_NAME_LIMIT: usize = 2048;

/// How frames are named in folded output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FrameNames {
    /// `Fib.fibonacci()`.
    #[default]
    Short,
    /// `Fib.fibonacci()` with fully qualified type names.
    Qualified,
    /// The raw method id.
    Ids,
}

impl Profile<'_> {
    /// The sampling profiles as folded stacks (`outer;…;inner count` lines), identical stacks
    /// summed (saturating at the `i64` bounds). Entries with a wrong arity are skipped; frame
    /// names are cut at [`FRAME_NAME_LIMIT`] bytes.
    pub fn folded_samples(&self, naming: FrameNames) -> String {
        folded(self, Section::Sampling, naming)
    }
}

/// The entries of any single-count section (`samplingProfiles` or `callCountProfiles`) as
/// folded stacks, frames named per `naming` (cut at [`FRAME_NAME_LIMIT`] bytes).
///
/// Sections whose records are not one count (conditional, pairs) give an empty string.
pub fn folded(profile: &Profile<'_>, section: Section, naming: FrameNames) -> String {
    // Counts come from the file: sums saturate instead of overflowing.
    let mut tree: ContextTree<Saturating<i64>> = ContextTree::new();
    if section.is_single() {
        for e in profile.entries(section) {
            if let [count] = *e.records {
                tree.insert_outermost_first(e.ctx.frames().rev(), Saturating(count));
            }
        }
    }
    let names = Names::new(profile);
    let mut out = String::new();
    let _ = tree.write_folded(&mut out, |method| FrameName {
        names: &names,
        method,
        naming,
    });
    out
}

/// One frame's name in folded output, written straight into it and cut at
/// [`FRAME_NAME_LIMIT`] bytes.
struct FrameName<'n, 'p> {
    names: &'n Names<'p>,
    method: u32,
    naming: FrameNames,
}

impl fmt::Display for FrameName<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut capped = Capped {
            out: f,
            left: FRAME_NAME_LIMIT,
            cut: false,
        };
        let written = match (self.naming, self.names.method(i64::from(self.method))) {
            (FrameNames::Ids, _) => write!(capped, "{}", self.method),
            (FrameNames::Short, Some(m)) => write!(capped, "{}", m.short()),
            (FrameNames::Qualified, Some(m)) => write!(capped, "{}", m.qualified()),
            (_, None) => write!(capped, "<method {}>", self.method),
        };
        match written {
            Err(_) if capped.cut => capped.out.write_str("…"),
            written => written,
        }
    }
}

/// A writer that passes on at most `left` bytes, then fails (setting `cut`) so that the
/// rendering stops instead of going through the rest of a long name.
struct Capped<'f, 'o> {
    out: &'f mut fmt::Formatter<'o>,
    left: usize,
    cut: bool,
}

impl fmt::Write for Capped<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() <= self.left {
            self.left -= s.len();
            return self.out.write_str(s);
        }
        let mut end = self.left;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.out.write_str(s.get(..end).unwrap_or(""))?;
        self.left = 0;
        self.cut = true;
        Err(fmt::Error)
    }
}
