//! HPROF heap dumps (and gprofng experiments, and JFR recordings) as Arrow record batches and
//! Parquet tables, so DuckDB, DataFusion, Polars or Spark answer SQL over them.
//!
//! This crate is a user of [`hprof`] (package `hprof-format`), [`experiment`] (package
//! `gprofng-experiment`) and, with the `jfr` feature (on by default), `jfr` (package
//! `jfr-format`) like any third party: the format crates stay free of Arrow. The
//! exporters stream the decoders' output into [`RecordBatch`](arrow_array::RecordBatch)es of
//! [`BATCH_ROWS`] rows and hand them to a [`BatchSink`]: [`ParquetSink`] writes each
//! table as Parquet parts (integers delta-packed, strings zstd-compressed; a thread per table,
//! and per column on machines with 4 cores or more) through a
//! [`PartStore`] the caller supplies (the crate does no I/O of its own), [`MemorySink`] keeps
//! them in memory.
//!
//! ```
//! use columnar::{MemorySink, hprof};
//!
//! # fn dump() -> Vec<u8> {
//! #     use ::hprof::binary::{BasicType, GcRoot, Id, IdSize, Value, write::HeapBuilder};
//! #     let mut heap = HeapBuilder::new(IdSize::Eight);
//! #     heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
//! #         .class(Id(0x20), "com.example.Node", Id(0x10), &[("next", BasicType::Object)])
//! #         .instance(Id(0x100), Id(0x20), &[Value::Object(Id(0x101))])
//! #         .instance(Id(0x101), Id(0x20), &[Value::Object(Id::NULL)])
//! #         .root(GcRoot::StickyClass { object_id: Id(0x20) });
//! #     heap.build().unwrap_or_default()
//! # }
//! // A heap dump's bytes, e.g. a memory map of `heap.hprof` (here two nodes of a linked list,
//! // made with `hprof::binary::write::HeapBuilder`).
//! let data: Vec<u8> = dump();
//! let mut sink = MemorySink::new();
//! let summary = hprof::export(&data, &mut sink, &mut |_bytes_read| {})?;
//! assert!(summary.is_complete());
//! assert_eq!((sink.rows("classes"), sink.rows("objects")), (2, 4));
//! assert_eq!(summary.rows["objects"] as usize, sink.rows("objects"));
//! # Ok::<(), columnar::Error>(())
//! ```
//!
//! # HPROF tables
//!
//! Ids are unsigned 64-bit (4-byte ids are widened). Every table exists in every export, with
//! no rows when the dump has none. The string columns of the big tables that hold a few
//! distinct names (`objects.kind`, `element_type`, `heap`, `references.field`) are Arrow
//! dictionaries in the record batches; in Parquet they are plain UTF-8 strings like the others.
//!
//! | table | columns |
//! |---|---|
//! | `classes` | `class_id`, `name` (as the `histogram` example spells it: `java.lang.String`, `int[]`, `java.lang.Object[]`), `super_id`, `loader_id` (null for 0), `instance_size`, `field_count` (declared instance fields), `static_field_count`, `class_serial` (null without `LOAD_CLASS`) |
//! | `objects` | `id`, `class_id` (null for primitive arrays; for class objects, `java.lang.Class`'s id), `kind` (`instance`, `object_array`, `primitive_array`, `class`), `shallow_size` (the recorded size: instance field bytes, length × id size, length × element size, 0 for classes), `array_length` (null for instances and classes), `element_type` (`int`, `byte`… for primitive arrays), `heap` (Android's heap name, else null), `offset` (the sub-record's byte offset in the file) |
//! | `references` | `from_id`, `to_id` (never 0; may name no object of the dump), `field` (the field name — inherited fields included — or `<super>`, `<loader>`, `<signers>`, `<protection_domain>`, a static field's name, `<constant_pool[i]>` for class objects; null for array elements), `array_index` (for object array elements) |
//! | `roots` | `object_id`, `root_kind` (the sub-record's name in snake case: `java_frame`, `sticky_class`, `thread_object`, `jni_global`, `interned_string`, …), `thread_serial`, `frame` (frame number, or stack depth for `jni_monitor`), `jni_global_ref_id`, `heap` |
//! | `strings` | `id`, `value` (the `UTF8` record, invalid UTF-8 replaced) |
//! | `stack_frames` | `frame_id`, `method_name`, `method_signature`, `source_file`, `class_serial`, `class_name`, `line` |
//! | `stack_traces` | `stack_trace_serial`, `thread_serial`, `depth` (0 = innermost), `frame_id` |
//!
//! # Experiment tables
//!
//! | table | columns |
//! |---|---|
//! | `samples` | `experiment` (the name the caller gives), `data_file`, `kind` (`clock`, `heap`, `sync`, `io`, `hwc`), `tstamp` (the packet's `TSTAMP`, ns), `time_ns` (since the run started), `thread` (`THRID`), `lwp`, `cpu`, `stack_id` (null without a call stack), then one column per other field of the log's packet descriptors, named in lower case (`ntick`, `msa_utime`, `hsize`, `hvaddr`, `srqst`, …; null where a packet's descriptor lacks it) |
//! | `stacks` | `stack_id`, `depth` (0 = the root frame), `function_id`, `function` (the name exactly as gprofng prints it), `offset` (in the function, or the bci), `line`, `frame_kind` (`native`, `java_interpreted`, `java_compiled`, `java` when the native stack does not tell, `jni`, `pseudo`) |
//! | `functions` | `function_id`, `name`, `load_object`, `signature` (Java methods) |
//! | `load_objects` | `experiment`, `name`, `vaddr`, `size`, `file_offset`, `tstamp` (one row per segment `map.xml` maps) |
//!
//! # JFR tables
//!
//! A JDK Flight Recorder recording gives one table per event type it holds (types the
//! metadata declares but no event uses get none), named after the type with every character
//! but ASCII letters, digits and `_` replaced by `_` (`jdk.ExecutionSample` →
//! `jdk_ExecutionSample`; `jfr::table_name`), plus `stacks` and `stack_frames`. An event
//! table's columns are the type's fields, in the order and with the names its metadata
//! declares them:
//!
//! * numbers as their Java type (`int` → `Int32`, `long` → `Int64`, `float` → `Float32`…),
//!   unsigned with `@Unsigned` (`UInt32`, `UInt64`…); `boolean` → `Boolean`; strings and
//!   `char`s → `Utf8`;
//! * `@Timestamp` fields (`startTime`, …) → `Timestamp(µs, UTC)`: microseconds, the finest
//!   precision Spark reads from Parquet; `@Timespan` fields (`duration`, …) → `Duration(ns)`,
//!   an `INT64` of nanoseconds in Parquet. The JDK's "minimum" time or span (`Long.MIN_VALUE`)
//!   is null;
//! * `stackTrace` → `UInt64`, a `stack_id` of `stacks` (null when the event has none);
//! * a struct or constant of one field stands for that field (`jdk.GarbageCollection.name`,
//!   a `jdk.types.GCName`, is the `Utf8` name; `state` of an execution sample is the thread
//!   state's name);
//! * a struct or constant of several fields gives one column per field of it, named
//!   `field_subfield`: a thread as `eventThread_osName`, `eventThread_osThreadId`,
//!   `eventThread_javaName`, `eventThread_javaThreadId`, `eventThread_group`; a class as
//!   `objectClass_classLoader`, `objectClass_name`, `objectClass_package`,
//!   `objectClass_modifiers`, `objectClass_hidden`; what lies deeper is a `Utf8` label: its
//!   `name` field (a thread group's, a class loader's, a package's, a class's), else its
//!   one field; an array is its elements' labels as `[a, b]`;
//! * names and class names are spelled as the recording spells them (`java/lang/String`,
//!   `[B`), as `jfr print` prints them.
//!
//! Every column is nullable. A later chunk whose metadata declares a type differently (a
//! field added, removed or retyped) fills the columns it shares with the table's first
//! chunk, by name and type, and leaves the others null (`jfr::Summary::mismatched_values`).
//!
//! | table | columns |
//! |---|---|
//! | `stacks` | `stack_id` (numbered from 0 across the recording, a stack used in two chunks is two stacks), `truncated` (the recorder cut the stack at its depth limit), `frame_count` |
//! | `stack_frames` | `stack_id`, `depth` (0 = the innermost frame, where the sample was taken), `method`, `class` (`java/lang/String`), `descriptor` (`(I)V`), `line` (as recorded: -1 when unknown), `bci`, `frame_type` (`Interpreted`, `JIT compiled`, `Inlined`, `Native`) |
//!
//! # Queries
//!
//! `references` holds no instance → class edge (that is `objects.class_id`). The class
//! histogram, as the `histogram` example prints it:
//!
//! ```sql
//! SELECT coalesce(c.name, o.element_type || '[]') AS class,
//!        count(*) AS instances, sum(o.shallow_size) AS shallow_bytes
//! FROM objects o LEFT JOIN classes c ON o.class_id = c.class_id
//! WHERE o.kind <> 'class'
//! GROUP BY class ORDER BY instances DESC, class;
//! ```

#![forbid(unsafe_code)]

pub mod experiment;
#[cfg(feature = "fs")]
pub mod fs;
pub mod hprof;
#[cfg(feature = "jfr")]
pub mod jfr;
mod rows;
pub mod sink;

pub use rows::BATCH_ROWS;
pub use sink::{BatchSink, MemorySink, ParquetSink, PartStore, TableWritten};

/// Re-exported so users name the same Arrow and Parquet types this crate builds with.
pub use arrow_array;
/// Re-exported: the schemas' types.
pub use arrow_schema;
/// Re-exported: the Parquet writer's types.
pub use parquet;

/// What can go wrong in an export.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not a heap dump at all (its header does not decode).
    #[error("{0}")]
    Hprof(::hprof::binary::error::Error),
    /// Building a record batch.
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// An experiment's data files could not be listed or read.
    #[error("{0}")]
    Experiment(::experiment::Error),
    /// The input is not a JFR recording at all (its first chunk header does not decode).
    #[cfg(feature = "jfr")]
    #[error("{0}")]
    Jfr(::jfr::Error),
    /// Encoding Parquet.
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// The part store failed.
    #[error("{table}/part-{part:05}: {source}")]
    Io {
        /// The table being written.
        table: String,
        /// Its part number.
        part: u32,
        /// The store's error.
        source: std::io::Error,
    },
    /// A table's writer thread ended without saying why (it panicked).
    #[error("a Parquet writer thread stopped")]
    WriterPanicked,
    /// A batch for a table the sink was never told about.
    #[error("table {0} was not announced to the sink")]
    UnknownTable(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The README's examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
