//! Top-level records (`hprof.md` §1.2–1.3): `u1 tag, u4 time, u4 length, body[length]`, and
//! the body of every tag: UTF8, LOAD_CLASS, UNLOAD_CLASS, FRAME, TRACE, ALLOC_SITES,
//! HEAP_SUMMARY, START_THREAD, END_THREAD, HEAP_DUMP, CPU_SAMPLES, CONTROL_SETTINGS,
//! HEAP_DUMP_SEGMENT, HEAP_DUMP_END.
//!
//! | part | file |
//! |---|---|
//! | tags | `tags.rs` |
//! | framing | `framing.rs` |
//! | bodies | `model.rs` (types), `parse.rs` (decoding) |
//! | the records of a file | `walk.rs` |

mod framing;
mod model;
mod parse;
mod tags;
mod walk;

pub use framing::{RECORD_HEADER_LEN, RecordHeader, UnknownTags};
pub use model::{
    ALLOC_SITE_LEN, AllocSite, AllocSites, ControlSettings, CpuSample, CpuSamples, EndThread,
    Frame, HeapDump, HeapSummary, LoadClass, Record, StartThread, Trace, UnloadClass, Utf8,
};
pub use parse::parse_body;
pub(crate) use tags::record_what;
pub use tags::{is_known_tag, tag};
pub(crate) use walk::RecordBodies;
pub use walk::{Records, Wholeness};
