//! Virtual invoke profiles (iprof format document, "Virtual invoke profiles"): the run-time
//! receiver types of a virtual call and how often each was seen.

use crate::error::Error;
use crate::model::Section;
use crate::profiles::{TypeCount, type_counts, view};

/// A view of one `virtualInvokeProfiles` entry: `(type id, count)` pairs.
#[derive(Debug, Clone, Copy)]
pub struct VirtualInvokeProfile<'p, 'a> {
    entry: &'p crate::model::ProfileEntry<'a>,
}

view!(VirtualInvokeProfile, Section::VirtualInvoke);

impl VirtualInvokeProfile<'_, '_> {
    /// The `(type id, count)` pairs, after checking that `records` is a multiple of 2 long.
    pub fn receivers(&self) -> Result<impl ExactSizeIterator<Item = TypeCount> + '_, Error> {
        type_counts(Section::VirtualInvoke, &self.entry.records)
    }
}
