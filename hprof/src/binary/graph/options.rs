//! How a [`Graph`](super::Graph) is built ([`Options`]: which references are edges, how
//! shallow sizes count, where the working arrays live, how many threads decode) and what it
//! met on the way ([`Warnings`]).

use super::super::error::Error;
use super::classes::NodeClasses;
use super::retained::Shallow;
use super::roots::MissingRoots;
use super::scratch::{IN_MEMORY, Scratch};

/// Which references are edges (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum EdgePolicy {
    /// Every recorded reference, class edges included.
    #[default]
    Recorded,
    /// Android ahat's references (instance fields, array elements, static values; weak
    /// referents outside the dominator tree).
    Ahat,
}

/// How to build a [`Graph`](super::Graph).
#[derive(Debug, Clone, Copy)]
pub struct Options<'f> {
    /// Which references are edges.
    pub policy: EdgePolicy,
    /// How shallow sizes are counted.
    pub shallow: Shallow<'f>,
    /// What stands in for the GC roots when the dump has objects but no root (a dump cut
    /// before its root records); see [`Warnings::roots_missing`].
    pub missing_roots: MissingRoots,
    /// Where the arrays needed while building (and for paths and reverse references later)
    /// are kept; heap memory by default. See the [memory model](super#memory).
    pub scratch: &'f dyn Scratch,
    /// Whether to keep each object's class from the build (4 bytes per object in the
    /// scratch storage) for [`Graph::class_retained`](super::Graph::class_retained) and
    /// [`Graph::leak_suspects`](super::Graph::leak_suspects), which
    /// otherwise decode every object again.
    pub classes: NodeClasses,
    /// How many threads read the heap-dump records for the index (while the calling one
    /// walks the records), decode the references (each a stretch of the objects, the calling
    /// thread included) and, past 2^26 objects, build the predecessor lists; 1, the default,
    /// does all of it on the calling thread alone. The graph is the same whatever the number.
    pub threads: usize,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            policy: EdgePolicy::default(),
            shallow: Shallow::default(),
            missing_roots: MissingRoots::default(),
            scratch: &IN_MEMORY,
            classes: NodeClasses::default(),
            threads: 1,
        }
    }
}

impl Options<'_> {
    /// ahat's semantics: [`EdgePolicy::Ahat`] and [`Shallow::Ahat`].
    pub fn ahat() -> Options<'static> {
        Options {
            policy: EdgePolicy::Ahat,
            shallow: Shallow::Ahat,
            ..Options::default()
        }
    }
}

/// Problems met building the graph; the answer covers what the dump holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Warnings {
    /// Sub-records whose id was already taken by an earlier one (ignored).
    pub duplicate_ids: u64,
    /// References to nonzero ids that name no node (dropped).
    pub dangling_references: u64,
    /// Root sub-records naming no node (dropped).
    pub dangling_roots: u64,
    /// Instances whose class has no `CLASS_DUMP` (their fields are not followed).
    pub unknown_classes: u64,
    /// Instances with fewer field bytes than their class layout (fields past the end are
    /// not followed).
    pub short_instances: u64,
    /// Classes whose superclass chain names a class with no `CLASS_DUMP`.
    pub missing_superclasses: u64,
    /// The dump has objects but no GC root names one: it was most likely cut before its
    /// root records (HotSpot writes them after the objects), so nothing is reachable unless
    /// [`Options::missing_roots`] chose stand-ins.
    pub roots_missing: bool,
    /// Where decoding stopped early (a dump cut short, or sub-records that stop decoding):
    /// the first such error. Everything before it is in the graph; the rest of a damaged
    /// heap-dump record is skipped, later records are still read.
    pub stopped_at: Option<Error>,
}

impl Warnings {
    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        *self == Warnings::default()
    }
}

/// One clause per problem, `; `-separated (empty when there is none).
impl std::fmt::Display for Warnings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(e) = &self.stopped_at {
            parts.push(format!("stopped early: {e}"));
        }
        if self.roots_missing {
            parts.push(
                "no GC root names an object (the dump was likely cut before its root records)"
                    .to_owned(),
            );
        }
        for (count, what) in [
            (self.duplicate_ids, "sub-records with an id already taken"),
            (
                self.dangling_references,
                "references to ids that name no object",
            ),
            (self.dangling_roots, "roots naming no object"),
            (
                self.unknown_classes,
                "instances of classes with no CLASS_DUMP",
            ),
            (
                self.short_instances,
                "instances shorter than their class layout",
            ),
            (
                self.missing_superclasses,
                "classes with a missing superclass",
            ),
        ] {
            if count > 0 {
                parts.push(format!("{count} {what}"));
            }
        }
        f.write_str(&parts.join("; "))
    }
}
