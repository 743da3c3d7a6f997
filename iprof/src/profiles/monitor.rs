//! Monitor profiles (iprof format document, "Monitor profiles"): the types synchronized on,
//! and how often; one entry with the dummy context `0:0`.

use crate::error::Error;
use crate::model::Section;
use crate::profiles::{TypeCount, type_counts, view};

/// A view of one `monitorProfiles` entry: `(type id, count)` pairs.
#[derive(Debug, Clone, Copy)]
pub struct MonitorProfile<'p, 'a> {
    entry: &'p crate::model::ProfileEntry<'a>,
}

view!(MonitorProfile, Section::Monitor);

impl MonitorProfile<'_, '_> {
    /// The `(type id, count)` pairs, after checking that `records` is a multiple of 2 long.
    pub fn types(&self) -> Result<impl ExactSizeIterator<Item = TypeCount> + '_, Error> {
        type_counts(Section::Monitor, &self.entry.records)
    }
}
