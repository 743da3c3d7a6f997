//! HPROF heap dumps and HPROF ASCII reports.
//!
//! [`binary`] decodes and encodes binary heap dumps (`JAVA PROFILE 1.0.1`, `1.0.2`, Android
//! `1.0.3`): zero-copy records and sub-records over `&[u8]`, an incremental decoder for files
//! larger than memory, a writer, class layouts, strings, GC roots, stack traces and a class
//! histogram. [`ascii`] holds the parser and writer for `java.hprof.txt` reports.
//!
//! ```
//! use hprof::binary::{GcRoot, Header, Id, IdSize, InstanceDump, LoadClass, Record, Records};
//! use hprof::binary::{ClassSerial, StackTraceSerial, SubRecord, Utf8, Version};
//! use hprof::binary::histogram::Histogram;
//! use hprof::binary::write::Writer;
//!
//! // A small dump, written with the crate's writer: one class, 1000 instances, one root.
//! let header = Header { version: Version::V1_0_2, id_size: IdSize::Eight, timestamp_ms: 0 };
//! let mut writer = Writer::new(Vec::new(), &header)?;
//! writer.write_record(0, &Record::Utf8(Utf8 { id: Id(0x20), bytes: b"java/lang/String" }))?;
//! let (class_serial, stack_trace_serial) = (ClassSerial(1), StackTraceSerial(0));
//! let load = LoadClass { class_serial, class_id: Id(0x10), stack_trace_serial, name_id: Id(0x20) };
//! writer.write_record(0, &Record::LoadClass(load))?;
//! writer.write_sub_record(&SubRecord::Root(GcRoot::StickyClass { object_id: Id(0x10) }))?;
//! for object_id in (0x1000..0x1000 + 1000).map(Id) {
//!     let dump = InstanceDump { object_id, stack_trace_serial, class_id: Id(0x10), data: &[0; 12] };
//!     writer.write_sub_record(&SubRecord::InstanceDump(dump))?;
//! }
//! let data = writer.finish()?; // a HEAP_DUMP_SEGMENT, then HEAP_DUMP_END
//!
//! // Walk every record and heap-dump sub-record, borrowing from `data`.
//! let (header, records) = Records::parse(&data)?;
//! assert_eq!(header.id_size.bytes(), 8);
//! let (mut roots, mut instances) = (0, 0);
//! for record in records {
//!     let (_framing, record) = record?;
//!     if let Record::HeapDumpSegment(segment) = record {
//!         for sub in segment.sub_records() {
//!             match sub? {
//!                 SubRecord::Root(_) => roots += 1,
//!                 SubRecord::InstanceDump(_) => instances += 1,
//!                 _ => {}
//!             }
//!         }
//!     }
//! }
//! assert_eq!((roots, instances), (1, 1000));
//!
//! // The class histogram, largest class first.
//! let rows = Histogram::parse(&data)?.rows();
//! assert_eq!(rows[0].class_name, "java.lang.String");
//! assert_eq!((rows[0].instances, rows[0].shallow_bytes), (1000, 12_000));
//!
//! // A dump cut off part-way: what it holds, and where and why reading stopped.
//! let salvaged = Histogram::salvage(&data[..data.len() / 2])?;
//! assert!(salvaged.value.total_instances() > 400);
//! assert!(salvaged.error.unwrap().to_string().contains("byte(s) missing"));
//!
//! // Decode → encode is byte-identical.
//! let mut writer = Writer::new(Vec::new(), &header)?;
//! for record in Records::parse(&data)?.1 {
//!     let (framing, record) = record?;
//!     writer.write_record(framing.time, &record)?;
//! }
//! assert!(writer.finish()? == data);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(unsafe_code)]

pub mod ascii;
pub mod binary;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
