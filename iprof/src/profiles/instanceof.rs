//! Instanceof profiles (schema v1.1.0 `instanceofProfiles`): the run-time types seen at an
//! `instanceof` check, and how often.

use crate::error::Error;
use crate::model::Section;
use crate::profiles::{TypeCount, type_counts, view};

/// A view of one `instanceofProfiles` entry: `(type id, count)` pairs.
#[derive(Debug, Clone, Copy)]
pub struct InstanceofProfile<'p, 'a> {
    entry: &'p crate::model::ProfileEntry<'a>,
}

view!(InstanceofProfile, Section::Instanceof);

impl InstanceofProfile<'_, '_> {
    /// The `(type id, count)` pairs, after checking that `records` is a multiple of 2 long.
    pub fn types(&self) -> Result<impl ExactSizeIterator<Item = TypeCount> + '_, Error> {
        type_counts(Section::Instanceof, &self.entry.records)
    }
}
