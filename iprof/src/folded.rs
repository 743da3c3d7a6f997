//! Sampling profiles as folded stacks for flame graphs (iprof format document, "Sampling
//! profiles"): one line per distinct stack, `outer;…;inner count`, built with
//! [`callctx::ContextTree`].

use std::num::Saturating;

use callctx::ContextTree;

use crate::model::{Profile, Section};
use crate::names::Names;

/// How frames are named in folded output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
    /// summed (saturating at the `i64` bounds). Entries with a wrong arity are skipped.
    pub fn folded_samples(&self, naming: FrameNames) -> String {
        folded(self, Section::Sampling, naming)
    }
}

/// The entries of any single-count section (`samplingProfiles` or `callCountProfiles`) as
/// folded stacks, frames named per `naming`.
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
    let _ = tree.write_folded(&mut out, |method| {
        let id = i64::from(method);
        match naming {
            FrameNames::Short => names.short_method(id),
            FrameNames::Qualified => names.qualified_method(id),
            FrameNames::Ids => method.to_string(),
        }
    });
    out
}
