//! Binary HPROF heap dumps (`JAVA PROFILE 1.0.1`, `1.0.2`, Android `1.0.3`): decoding and
//! encoding, following `hprof.md` §1 (the format's own table of contents):
//!
//! | format section | module |
//! |---|---|
//! | §1.1 file header | [`header`] |
//! | §1.2–1.3 top-level records | [`records`] |
//! | §1.4 basic types | [`types`] |
//! | §1.5 heap-dump sub-records | [`heap_dump`] |
//! | reading chunk by chunk | [`incremental`] |
//! | writing | [`write`](mod@write) |
//! | class layouts, strings, roots, traces | [`index`] |
//! | string and class-name tables | [`names`] |
//! | object-field layouts (the graph's and `jvmprof-columnar`'s) | `layout` |
//! | class histogram | [`histogram`] |
//! | the heap as a graph: dominators, retained sizes | [`graph`] |
//!
//! Every parser reads through one [`Cursor`]; every error is an [`Error`] with a byte offset.

pub mod cursor;
pub mod diff;
pub mod error;
pub mod graph;
#[doc(hidden)]
pub mod hash;
pub mod header;
pub mod heap_dump;
pub mod histogram;
pub mod incremental;
pub mod index;
#[doc(hidden)]
pub mod layout;
pub mod names;
pub mod records;
mod tags;
pub mod types;
pub mod write;

pub use cursor::Cursor;
pub use error::{Error, Result, Salvaged};
pub use header::{Header, Version};
pub use heap_dump::{
    ClassDump, ConstantPoolEntry, FieldDescriptor, GcRoot, HeapDumpInfo, InstanceDump,
    ObjectArrayDump, PrimitiveArrayDump, PrimitiveArrayNoData, StaticField, SubRecord, SubRecords,
    parse_sub_record,
};
pub use histogram::{Histogram, HistogramRow};
pub use incremental::{BufferedDecoder, Decoder, Event, Status, Visit};
pub use index::{Index, LayoutCache};
pub use names::ClassNames;
pub use records::{
    AllocSite, AllocSites, ControlSettings, CpuSample, CpuSamples, EndThread, Frame, HeapDump,
    HeapSummary, LoadClass, Record, RecordHeader, Records, StartThread, Trace, UnknownTags,
    UnloadClass, Utf8, Wholeness,
};
pub use types::{
    BasicType, ClassSerial, Id, IdList, IdSize, StackTraceSerial, ThreadSerial, Value,
};
pub use write::Writer;
