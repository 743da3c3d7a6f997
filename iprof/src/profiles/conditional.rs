//! Conditional profiles (iprof format document, "Conditional profiles"): per branching
//! bytecode, how often each successor was taken, as `(target bci, branch index, count)`
//! triplets.

use crate::error::Error;
use crate::model::Section;
use crate::profiles::{check_arity, view};

/// A view of one `conditionalProfiles` entry.
#[derive(Debug, Clone, Copy)]
pub struct ConditionalProfile<'p, 'a> {
    entry: &'p crate::model::ProfileEntry<'a>,
}

view!(ConditionalProfile, Section::Conditional);

/// One successor of a conditional: a `(target bci, branch index, count)` triplet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Branch {
    /// The bci the branch jumps to (negative for the JVMCI sentinel bcis).
    pub target_bci: i64,
    /// The branch's index (unique within the entry; several may share a target).
    pub index: i64,
    /// How often it was taken.
    pub count: i64,
}

impl ConditionalProfile<'_, '_> {
    /// The successors, after checking that `records` is a multiple of 3 long.
    pub fn branches(&self) -> Result<impl ExactSizeIterator<Item = Branch> + '_, Error> {
        check_arity(Section::Conditional, &self.entry.records)?;
        Ok(self.entry.records.chunks_exact(3).map(|t| match *t {
            [target_bci, index, count] => Branch {
                target_bci,
                index,
                count,
            },
            _ => Branch {
                target_bci: 0,
                index: 0,
                count: 0,
            },
        }))
    }

    /// The bci of the branching bytecode (the innermost frame's bci).
    pub fn bci(&self) -> Option<i32> {
        self.entry.ctx.innermost().map(|f| f.bci)
    }
}
