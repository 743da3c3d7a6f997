//! GraalVM Native Image PGO profiles (`.iprof`): read, validate, write, merge.
//!
//! An `.iprof` file is the JSON object that an instrumented native image writes at exit and
//! that `native-image --pgo` reads. This crate reads every layout found in real files
//! (schema 1.0.0 and 1.1.0, the identical 0.4.0, the legacy 0.2.0) into one [`Profile`],
//! borrowing names and contexts from the input; checks it against the schema
//! ([`Profile::validate`]); resolves ids to names ([`Names`]); writes it back in GraalVM's
//! layout ([`Profile::to_json`]); merges profiles of several runs ([`merge()`]), ranks the
//! hottest methods ([`Profile::hottest_methods`]) and folds sampled stacks for flame graphs
//! ([`folded`]); gzip- and xz-compressed profiles are
//! decompressed by [`decompress`] (features `gzip`, `xz`). It does no I/O.
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
//! // Keys this crate does not know (a newer GraalVM's) are kept and written back.
//! let newer = r#"{"version":"1.2.0","types":[],"methods":[],"callCountProfiles":[{"ctx":"1:0","records":[5],"weight":0.5}],"tier":2}"#;
//! assert_eq!(iprof::Profile::parse(newer)?.to_json(), newer);
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
#[cfg(feature = "gzip")]
pub mod gzip;
pub mod hot;
pub mod legacy;
pub mod merge;
pub mod model;
pub mod names;
pub mod profiles;
mod read;
pub mod validate;
pub mod write;
#[cfg(feature = "xz")]
pub mod xz;

use std::borrow::Cow;

/// The call-context crate whose types this crate's contexts and errors use.
pub use callctx;
pub use callctx::{Context, ContextBuf, Frame};
pub use error::{Error, Position, Result};
pub use hot::HotMethod;
pub use merge::{MergeOptions, merge};
pub use model::{
    Ctx, Extra, ExtraMember, Layout, Method, Profile, ProfileEntry, RawJson, Section, TopLevelKey,
    Type,
};
pub use names::Names;
pub use profiles::{Branch, TypeCount};
pub use validate::{Issue, IssueKind, Report};

impl<'a> Profile<'a> {
    /// Reads an `.iprof` file (JSON text, as `&str`, `&[u8]`, `&String` or `&Vec<u8>`),
    /// borrowing names and contexts from it.
    ///
    /// Accepts any key order, keeps unknown keys (top level and inside entries) so that
    /// [`Profile::to_json`] writes them back, and reads the 0.2.0 layout into the same model.
    /// Fails only on input that is not JSON or not shaped like a profile, saying where
    /// (`line:column`); schema violations are left to [`Profile::validate`]. Compressed input
    /// is refused with [`Error::Compressed`]: decompress it first with [`decompress`].
    pub fn parse<T: AsRef<[u8]> + ?Sized>(input: &'a T) -> Result<Self> {
        read::parse_bytes(input.as_ref())
    }
}

/// How an `.iprof` file's bytes are compressed, by their magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed (JSON text, or something else).
    None,
    /// gzip (`1f 8b`), which GraalVM's `--pgo` accepts.
    Gzip,
    /// xz (`fd 37 7a 58 5a 00`).
    Xz,
}

impl Compression {
    /// The compression of `bytes`, by their first bytes.
    pub fn detect(bytes: &[u8]) -> Compression {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// The JSON text of an `.iprof` file that may be gzip- or xz-compressed: `bytes` themselves
/// when they are not compressed, else the decompressed data, of at most `limit` bytes.
///
/// ```
/// let bytes = br#"{"version":"1.0.0","types":[],"methods":[]}"#;
/// let json = iprof::decompress(bytes, 1 << 30)?; // not compressed: borrowed as is
/// assert_eq!(iprof::Profile::parse(&*json)?.version, "1.0.0");
/// # Ok::<(), iprof::Error>(())
/// ```
///
/// Fails with [`Error::Gzip`] or [`Error::Xz`] (with the byte offset in `bytes`) on damaged or
/// truncated data and on output past `limit`, and with [`Error::Unsupported`] when the
/// format's cargo feature (`gzip`, `xz`) is off.
pub fn decompress(bytes: &[u8], limit: usize) -> Result<Cow<'_, [u8]>> {
    let _ = limit;
    match Compression::detect(bytes) {
        Compression::None => Ok(Cow::Borrowed(bytes)),
        #[cfg(feature = "gzip")]
        Compression::Gzip => gzip::decompress(bytes, limit).map(Cow::Owned),
        #[cfg(not(feature = "gzip"))]
        Compression::Gzip => Err(Error::Unsupported { format: "gzip" }),
        #[cfg(feature = "xz")]
        Compression::Xz => xz::decompress(bytes, limit).map(Cow::Owned),
        #[cfg(not(feature = "xz"))]
        Compression::Xz => Err(Error::Unsupported { format: "xz" }),
    }
}

/// True when `bytes` start with the gzip magic `1f 8b` (GraalVM's `--pgo` accepts
/// gzip-compressed profiles; [`decompress`] inflates them).
pub fn is_gzip(bytes: &[u8]) -> bool {
    Compression::detect(bytes) == Compression::Gzip
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
