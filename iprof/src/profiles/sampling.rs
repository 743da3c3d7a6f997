//! Sampling profiles (iprof format document, "Sampling profiles"): whole sampled call stacks,
//! innermost frame first, with how often each was sampled.

use crate::error::Error;
use crate::model::Section;
use crate::profiles::{single, view};

/// A view of one `samplingProfiles` entry: one count for a whole stack.
#[derive(Debug, Clone, Copy)]
pub struct SamplingProfile<'p, 'a> {
    entry: &'p crate::model::ProfileEntry<'a>,
}

view!(SamplingProfile, Section::Sampling);

impl SamplingProfile<'_, '_> {
    /// How often this stack was sampled.
    pub fn count(&self) -> Result<i64, Error> {
        single(Section::Sampling, &self.entry.records)
    }
}
