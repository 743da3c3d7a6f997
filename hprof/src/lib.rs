//! HPROF heap dumps and HPROF ASCII reports.
//!
//! [`binary`] decodes and encodes binary heap dumps (`JAVA PROFILE 1.0.1`, `1.0.2`, Android
//! `1.0.3`): zero-copy records and sub-records over `&[u8]`, an incremental decoder for files
//! larger than memory, a writer, class layouts, strings, GC roots, stack traces and a class
//! histogram. [`ascii`] holds the parser and writer for `java.hprof.txt` reports.
//!
//! ```
//! use hprof::binary::{Record, Records, SubRecord};
//! use hprof::binary::histogram::Histogram;
//!
//! // A real JDK 17 dump (HotSpot, id size 8, HEAP_DUMP_SEGMENTs).
//! let data = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/tests/data/binary/heapgen_jdk17.hprof"))?;
//!
//! // Walk every record and heap-dump sub-record, borrowing from `data`.
//! let (header, records) = Records::new(&data)?;
//! assert_eq!(header.id_size.bytes(), 8);
//! let (mut classes, mut instances) = (0, 0);
//! for record in records {
//!     let (_framing, record) = record?;
//!     if let Record::HeapDumpSegment(segment) = record {
//!         for sub in segment.sub_records() {
//!             match sub? {
//!                 SubRecord::ClassDump(_) => classes += 1,
//!                 SubRecord::InstanceDump(_) => instances += 1,
//!                 _ => {}
//!             }
//!         }
//!     }
//! }
//! assert!(classes > 100 && instances > 1_000);
//!
//! // The class histogram, largest class first.
//! let rows = Histogram::from_bytes(&data)?.rows();
//! assert!(rows.iter().any(|r| r.class_name == "java.lang.String" && r.instances > 1000));
//!
//! // Decode → encode is byte-identical.
//! use hprof::binary::write::Writer;
//! let mut writer = Writer::new(Vec::new(), &header)?;
//! for record in Records::new(&data)?.1 {
//!     let (framing, record) = record?;
//!     writer.write_record(framing.time, &record)?;
//! }
//! assert!(writer.finish()? == data);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod ascii;
pub mod binary;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
