//! Typed views of the profile sections (iprof format document, "Call count profiles",
//! "Conditional profiles", "Virtual invoke profiles", "Monitor profiles", "Sampling profiles";
//! schema 1.1.0 `instanceofProfiles`).
//!
//! The model keeps each entry's `records` as the file has them; a view checks the section's
//! arity (one count; `(target bci, branch index, count)` triplets; `(type id, count)` pairs)
//! when asked and returns [`Error::Arity`] instead of guessing.

pub mod call_count;
pub mod conditional;
pub mod instanceof;
pub mod monitor;
pub mod sampling;
pub mod virtual_invoke;

pub use call_count::CallCountProfile;
pub use conditional::{Branch, ConditionalProfile};
pub use instanceof::InstanceofProfile;
pub use monitor::MonitorProfile;
pub use sampling::SamplingProfile;
pub use virtual_invoke::VirtualInvokeProfile;

use crate::error::Error;
use crate::model::{Profile, Section};

/// Checks `records` against `section`'s arity.
pub(crate) fn check_arity(section: Section, records: &[i64]) -> Result<(), Error> {
    let ok = if section.is_single() {
        records.len() == 1
    } else {
        records.len() % section.arity() == 0
    };
    if ok {
        Ok(())
    } else {
        Err(Error::Arity {
            section,
            len: records.len(),
        })
    }
}

/// A `(type id, count)` pair of virtual invoke, monitor and instanceof records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TypeCount {
    /// The id of a type in `types`.
    pub type_id: i64,
    /// How often it was seen.
    pub count: i64,
}

/// The `(type id, count)` pairs of `records`, after an arity check.
pub(crate) fn type_counts(
    section: Section,
    records: &[i64],
) -> Result<impl ExactSizeIterator<Item = TypeCount> + '_, Error> {
    check_arity(section, records)?;
    Ok(records.chunks_exact(2).map(|pair| match *pair {
        [type_id, count] => TypeCount { type_id, count },
        _ => TypeCount {
            type_id: 0,
            count: 0,
        },
    }))
}

/// The single count of a call-count or sampling entry.
pub(crate) fn single(section: Section, records: &[i64]) -> Result<i64, Error> {
    match *records {
        [count] => Ok(count),
        _ => Err(Error::Arity {
            section,
            len: records.len(),
        }),
    }
}

impl<'a> Profile<'a> {
    /// The `callCountProfiles` entries as typed views.
    pub fn call_counts(&self) -> impl ExactSizeIterator<Item = CallCountProfile<'_, 'a>> {
        self.entries(Section::CallCount)
            .iter()
            .map(CallCountProfile::new)
    }

    /// The `conditionalProfiles` entries as typed views.
    pub fn conditionals(&self) -> impl ExactSizeIterator<Item = ConditionalProfile<'_, 'a>> {
        self.entries(Section::Conditional)
            .iter()
            .map(ConditionalProfile::new)
    }

    /// The `virtualInvokeProfiles` entries as typed views.
    pub fn virtual_invokes(&self) -> impl ExactSizeIterator<Item = VirtualInvokeProfile<'_, 'a>> {
        self.entries(Section::VirtualInvoke)
            .iter()
            .map(VirtualInvokeProfile::new)
    }

    /// The `monitorProfiles` entries as typed views (normally exactly one).
    pub fn monitors(&self) -> impl ExactSizeIterator<Item = MonitorProfile<'_, 'a>> {
        self.entries(Section::Monitor)
            .iter()
            .map(MonitorProfile::new)
    }

    /// The `samplingProfiles` entries as typed views.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = SamplingProfile<'_, 'a>> {
        self.entries(Section::Sampling)
            .iter()
            .map(SamplingProfile::new)
    }

    /// The `instanceofProfiles` entries as typed views.
    pub fn instanceofs(&self) -> impl ExactSizeIterator<Item = InstanceofProfile<'_, 'a>> {
        self.entries(Section::Instanceof)
            .iter()
            .map(InstanceofProfile::new)
    }

    /// The sum of all call-count records (entries with a wrong arity are skipped),
    /// saturating at `i64::MAX`.
    pub fn total_calls(&self) -> i64 {
        self.call_counts()
            .filter_map(|p| p.count().ok())
            .fold(0i64, i64::saturating_add)
    }
}

/// Generates the shared part of a view type.
macro_rules! view {
    ($name:ident, $section:expr) => {
        impl<'p, 'a> $name<'p, 'a> {
            /// A view of `entry`.
            pub fn new(entry: &'p crate::model::ProfileEntry<'a>) -> Self {
                $name { entry }
            }

            /// The entry's context, innermost frame first.
            pub fn ctx(&self) -> &'p crate::model::Ctx<'a> {
                &self.entry.ctx
            }

            /// The raw record integers.
            pub fn records(&self) -> &'p [i64] {
                &self.entry.records
            }

            /// The underlying entry.
            pub fn entry(&self) -> &'p crate::model::ProfileEntry<'a> {
                self.entry
            }

            /// Checks the arity of the records.
            pub fn check(&self) -> Result<(), crate::Error> {
                crate::profiles::check_arity($section, &self.entry.records)
            }
        }
    };
}
pub(crate) use view;
