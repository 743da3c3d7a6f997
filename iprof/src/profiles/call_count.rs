//! Call count profiles (iprof format document, "Call count profiles"): how often a method
//! started executing (bci 0) in a context.

use crate::error::Error;
use crate::model::Section;
use crate::profiles::{single, view};

/// A view of one `callCountProfiles` entry: one count.
#[derive(Debug, Clone, Copy)]
pub struct CallCountProfile<'p, 'a> {
    entry: &'p crate::model::ProfileEntry<'a>,
}

view!(CallCountProfile, Section::CallCount);

impl CallCountProfile<'_, '_> {
    /// How often the method started in this context.
    pub fn count(&self) -> Result<i64, Error> {
        single(Section::CallCount, &self.entry.records)
    }

    /// The id of the counted method (the innermost frame's method).
    pub fn method(&self) -> Option<u32> {
        self.entry.ctx.innermost().map(|f| f.method)
    }
}
