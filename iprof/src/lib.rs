//! GraalVM Native Image PGO profiles (`.iprof`): read, validate, write, merge.
//!
//! An `.iprof` file is the JSON object that an instrumented native image writes at exit and
//! that `native-image --pgo` reads. This crate reads every layout found in real files
//! (schema 1.0.0 and 1.1.0, the identical 0.4.0, the legacy 0.2.0) into one [`Profile`],
//! borrowing names and contexts from the input; checks it against the schema
//! ([`Profile::validate`]); resolves ids to names ([`Names`]); writes it back in GraalVM's
//! layout ([`Profile::to_json`]); merges profiles of several runs ([`merge()`]) and folds
//! sampled stacks for flame graphs ([`folded`]); gzip-compressed profiles inflate with
//! [`gzip::decompress`]. It does no I/O.
//!
//! ```
//! let text = r#"{"version":"1.0.0",
//!   "types":[{"id":8,"name":"void"},{"id":10,"name":"Fib"}],
//!   "methods":[{"id":19551,"name":"fibonacci","signature":[10,8]}],
//!   "callCountProfiles":[{"ctx":"19551:0","records":[1]}],
//!   "conditionalProfiles":[{"ctx":"19551:11","records":[20,0,10,53,1,1]}]}"#;
//! let profile = iprof::Profile::parse(text)?;
//! assert_eq!(profile.total_calls(), 1);
//!
//! // Typed views check each section's arity.
//! let branches: Vec<_> = profile.conditionals().next().unwrap().branches()?.collect();
//! assert_eq!((branches[0].target_bci, branches[0].count), (20, 10));
//!
//! // Names come from the signature's type ids.
//! let names = profile.names();
//! assert_eq!(names.method(19551).unwrap().short().to_string(), "Fib.fibonacci()");
//!
//! // Validation is a report, not a parse failure.
//! assert!(profile.validate().is_clean());
//!
//! // Writing gives GraalVM's compact layout, and reads back to the same profile.
//! let json = profile.to_json();
//! assert_eq!(iprof::Profile::parse(&json)?, profile);
//!
//! // Errors say where: line and column.
//! let err = iprof::Profile::parse("{\"version\":\"1.0.0\",\n\"types\":[{\"id\":1,").unwrap_err();
//! assert_eq!(err.to_string(), "2:18: unexpected end of input (truncated file?), expected a key");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Modules follow the format document: [`model`] (root object, `types`, `methods`),
//! [`profiles`] (one module per profile section), [`legacy`] (0.2.0/0.4.0 mapping), and the
//! operations [`validate`], [`names`], [`write`](mod@write), [`merge`](mod@merge),
//! [`folded`].

#![forbid(unsafe_code)]

pub mod error;
pub mod folded;
pub mod gzip;
pub mod legacy;
pub mod merge;
pub mod model;
pub mod names;
pub mod profiles;
mod read;
pub mod validate;
pub mod write;

pub use callctx::{Context, ContextBuf, Frame};
pub use error::{Error, Position};
pub use merge::{MergeOptions, merge};
pub use model::{Ctx, Layout, Method, Profile, ProfileEntry, RawJson, Section, TopLevelKey, Type};
pub use names::Names;
pub use profiles::{ArityError, Branch, TypeCount};
pub use validate::{Issue, IssueKind, Report};

impl<'a> Profile<'a> {
    /// Reads an `.iprof` file from text, borrowing names and contexts from it.
    ///
    /// Accepts any key order, keeps unknown top-level keys, and reads the 0.2.0 layout into
    /// the same model. Fails only on input that is not JSON or not shaped like a profile;
    /// schema violations are left to [`Profile::validate`].
    pub fn parse(text: &'a str) -> Result<Self, Error> {
        read::parse_str(text)
    }

    /// Reads an `.iprof` file from bytes: like [`Profile::parse`], and says so clearly when
    /// the bytes are gzip or xz compressed or not UTF-8.
    pub fn from_slice(bytes: &'a [u8]) -> Result<Self, Error> {
        read::parse_bytes(bytes)
    }
}

/// True when `bytes` start with the gzip magic `1f 8b` (GraalVM's `--pgo` accepts
/// gzip-compressed profiles; inflate them with [`gzip::decompress`] before reading).
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
