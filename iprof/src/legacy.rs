//! The legacy layouts found in real files (not covered by any published schema), and how they
//! map onto the one model ([`crate::model`]).
//!
//! **0.4.0** (GraalVM 2023–2024): the member shapes of schema 1.0.0, only the top-level key
//! order differs (`version, types, methods, monitorProfiles, virtualInvokeProfiles,
//! callCountProfiles, conditionalProfiles, samplingProfiles`). It is read as schema 1.0.0
//! with [`Layout::Modern`](crate::Layout::Modern); [`Profile::key_order`](crate::Profile)
//! remembers the order so the writer reproduces the file byte for byte.
//!
//! **0.2.0** (GraalVM EE 22.x), read with [`Layout::Legacy`](crate::Layout::Legacy):
//!
//! | 0.2.0 | model (schema 1.x) |
//! |---|---|
//! | `types[].typeName` | [`Type::name`](crate::Type) (`name`) |
//! | `methods[].methodName` | [`Method::name`](crate::Method) (`name`) |
//! | `hotnessPoints` | [`Section::CallCount`](crate::Section) (`callCountProfiles`) |
//! | `conditionalPoints` | [`Section::Conditional`](crate::Section) (`conditionalProfiles`) |
//! | `invokePoints` | [`Section::VirtualInvoke`](crate::Section) (`virtualInvokeProfiles`) |
//! | `monitorsProfile: {"records": […]}` (an object, no context) | one `monitorProfiles` entry with the context `0:0` |
//! | `"methodBciList": "m:bci,m:bci"` (`,`-separated, innermost first) | `"ctx": "m:bci<m:bci"` (an owned [`Ctx`]) |
//!
//! The layout is recognised by its key names, not by the `version` string: any legacy key
//! (`typeName`, `methodName`, `hotnessPoints`, …) makes the profile
//! [`Layout::Legacy`](crate::Layout::Legacy). In `methodBciList`, a `<` between frames is
//! accepted as well as `,`.
//!
//! Record shapes are the same as in 1.x (one count, triplets, pairs). 0.2.0 has no sampling
//! or instanceof profiles. The writer turns a [`Layout::Legacy`](crate::Layout::Legacy)
//! profile back into this layout, pretty-printed the way GraalVM EE wrote it (2-space
//! indent, one entry per line), which reproduces the real files byte for byte.

use crate::model::{Ctx, ProfileEntry};

/// The dummy context of monitor profiles.
pub const MONITOR_CONTEXT: &str = "0:0";

/// The single monitor profile entry (context `0:0`) of a `records` list.
pub fn monitor_entry(records: Vec<i64>) -> ProfileEntry<'static> {
    let ctx = Ctx::Owned(callctx::ContextBuf::from_frames([callctx::Frame::new(
        0, 0,
    )]));
    ProfileEntry::new(ctx, records)
}
