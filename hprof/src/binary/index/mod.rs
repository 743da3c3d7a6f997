//! An index built in one pass over a dump held in memory: the string table, classes
//! (`LOAD_CLASS` + `CLASS_DUMP`), class layouts along the superclass chain for decoding
//! `INSTANCE_DUMP` field values on demand, GC roots, stack frames and traces, threads, and
//! `java.lang.String` contents (`char[]` and `byte[]` + `coder` layouts).
//!
//! Everything borrows from the input; nothing is decoded until asked for.
//!
//! | part | file |
//! |---|---|
//! | the index and its one pass | `build.rs` |
//! | class layouts | `layouts.rs` |
//! | frames, traces, threads | `frames.rs` |
//! | `java.lang.String` contents | `strings.rs` |

mod build;
mod frames;
mod layouts;
mod strings;

pub use build::Index;
pub use frames::{ResolvedFrame, ThreadStack};
pub use layouts::{ClassLayout, LayoutCache, LayoutField};
