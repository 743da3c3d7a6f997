//! JDK Flight Recorder recordings (`.jfr`), decoded from the recording's own metadata.
//!
//! A recording is a sequence of self-contained chunks ([`Chunks`]); each [`Chunk`] has a
//! [`ChunkHeader`], a [`Metadata`] event declaring every class (event types, constant-pool
//! types, structs) and their fields, [`ConstantPools`] filled by checkpoint events, and its
//! [`Event`]s, whose fields are decoded generically ([`Value`]) and resolved through the
//! pools. A chunk the input holds only part of is read up to the cut, and its events end with
//! [`Error::Truncated`].
//!
//! On top: [`Event::typed`] gives typed views of the events people profile with
//! ([`TypedEvent`]), [`Chunk::stack_trace`] resolves stack traces ([`StackTrace`]),
//! [`profile::Profile`] folds stacks with a weight and builds a function profile,
//! [`json::write_event`] prints an event as `jfr print --json` does, and
//! [`Chunk::check_records`] checks every field of every event of a chunk without building
//! anything.
//!
//! ```
//! // The smallest chunk there is: a header, a metadata event, one checkpoint, one event.
//! let data = jfr::testing::tiny_recording();
//! let mut seen = Vec::new();
//! for chunk in jfr::Chunks::new(&data) {
//!     let chunk = chunk?;
//!     for event in chunk.events() {
//!         let event = event?;
//!         let thread = event.get("thread")?.unwrap();
//!         let name = thread.as_object().unwrap().fields[0].as_str().unwrap().to_owned();
//!         seen.push((event.type_name().unwrap().to_owned(), event.get_i64("value")?, name));
//!     }
//! }
//! assert_eq!(seen, [("demo.Tick".to_owned(), Some(42), "main".to_owned())]);
//!
//! // Cut in the middle of the event: the chunk still reads, its events end with `Truncated`.
//! let cut = &data[..data.len() - 2];
//! let chunk = jfr::Chunks::new(cut).next().unwrap()?;
//! let last = chunk.events().last().unwrap();
//! assert!(last.unwrap_err().is_truncated());
//! # Ok::<(), jfr::Error>(())
//! ```

#![forbid(unsafe_code)]

mod check;
mod chunk;
mod constant_pool;
mod cursor;
mod error;
mod event;
mod header;
mod idmap;
pub mod json;
mod metadata;
pub mod profile;
mod stack;
mod strings;
pub mod testing;
mod time;
mod typed;
mod value;

pub use chunk::{Chunk, Chunks};
pub use constant_pool::{Checkpoint, ConstantPools};
pub use error::{Error, Result};
pub use event::{Event, Events};
pub use header::{ChunkHeader, HEADER_SIZE, MAGIC};
pub use metadata::{Annotation, Class, Field, FieldKind, Metadata, Region, Setting, Unit};
pub use stack::{Frame, FrameType, Method, StackTrace};
pub use time::{Duration, Timestamp};
pub use typed::{
    Allocation, AllocationSample, Common, CpuLoad, GarbageCollection, MethodSample, MonitorEnter,
    MonitorWait, ThreadPark, TypedEvent,
};
pub use value::{ConstantRef, Object, Value};

/// The README's examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
