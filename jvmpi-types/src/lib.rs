//! JVMPI (the JDK 1.2 – 5.0 Java Virtual Machine Profiler Interface) as Rust data: every
//! constant of the Sun `jvmpi.h` headers, a model of every event struct, and decoders and
//! encoders for the three dump buffers a VM hands an agent (heap dump levels 0/1/2, object
//! dump, monitor dump). No I/O: everything works on byte slices you pass in.
//!
//! The buffers record neither the identifier size nor the byte order of the VM that wrote
//! them, so every decoder takes [`DumpOptions`]: identifiers are 4 or 8 bytes in the VM's
//! native order, while every `u2`/`u4`/`u8` count and every primitive value is big-endian.
//! A `JVMPI_GC_CLASS_DUMP` record does not say how many interfaces and which static fields
//! follow: those come from the class's CLASS_LOAD event, through a [`ClassResolver`].
//!
//! ```
//! use jvmpi_types::{
//!     ClassLayout, ClassLayouts, DumpLevel, DumpOptions, HeapDumpTag, IdOrder, IdSize, ObjectId,
//!     TypeCode,
//!     dump::heap::{self, HeapDumpRecord},
//! };
//!
//! // A level-2 heap dump from a 32-bit little-endian VM: one sticky-class root, then the class
//! // dump of that class (no interfaces, one `int` static = 42).
//! let mut buf = vec![0x05, 0x10, 0x20, 0x30, 0x40];
//! buf.push(0x20);
//! buf.extend_from_slice(&0x4030_2010u32.to_le_bytes()); // class
//! buf.extend_from_slice(&[0; 6 * 4]); // super, loader, signers, domain, name, reserved
//! buf.extend_from_slice(&16u32.to_be_bytes()); // instance size
//! buf.extend_from_slice(&0u16.to_be_bytes()); // no constant pool entries
//! buf.extend_from_slice(&42i32.to_be_bytes()); // the static int
//!
//! let options = DumpOptions::new(IdSize::Four, IdOrder::Little);
//! let mut classes = ClassLayouts::new();
//! classes.insert(ObjectId(0x4030_2010), ClassLayout { interfaces: 0, statics: vec![TypeCode::Int] });
//!
//! let records = heap::parse(&buf, options, DumpLevel::Level2, &classes)?;
//! assert_eq!(records[0].tag(), HeapDumpTag::RootStickyClass);
//! assert_eq!(records[1].tag().to_string(), "JVMPI_GC_CLASS_DUMP");
//! let HeapDumpRecord::ClassDump(class) = &records[1] else { unreachable!() };
//! assert_eq!(class.statics, [jvmpi_types::dump::Value::Int(42)]);
//!
//! // Encoding gives back the same bytes.
//! let mut out = Vec::new();
//! heap::write(&records, options, DumpLevel::Level2, &mut out)?;
//! assert_eq!(out, buf);
//!
//! // Without the class's layout the decoder stops with a clear error.
//! let err = heap::parse(&buf, options, DumpLevel::Level2, &jvmpi_types::NoClasses).unwrap_err();
//! assert!(err.to_string().starts_with("at byte offset 5: JVMPI_GC_CLASS_DUMP of class id 0x40302010"));
//! # Ok::<(), jvmpi_types::Error>(())
//! ```
//!
//! Modules follow the specification's own sections: [`constants`] (the header's `#define`s),
//! [`events`] (§3 events, §5 data types), [`dump`] (§4 dump formats: [`dump::heap`],
//! [`dump::object`], [`dump::monitor`]), and [`cursor`] (the reader and writer every codec is
//! built on).
//!
//! Iterators are lazy and fallible (`next_record()` returns `Result<Option<_>>`, and they are
//! `Iterator`s of `Result`s that stop after the first error); [`dump::heap::HeapDumpRecords`]
//! can also locate records without building them ([`dump::heap::HeapDumpRecords::next_raw`]),
//! borrowing each record's bytes from the buffer. Encoders mirror the decoders
//! (`decode(encode(x)) == x`, and decoded buffers re-encode byte for byte).

#![forbid(unsafe_code)]

pub mod constants;
pub mod cursor;
pub mod dump;
mod error;
pub mod events;
mod ids;

pub use constants::{
    DumpLevel, EventType, HeapDumpTag, MonitorDumpTag, Priority, REQUESTED_EVENT, ReturnCode,
    ThreadState, ThreadStatus, TypeCode, Version,
};
pub use cursor::{Cursor, DumpOptions, IdOrder, IdSize, Writer};
pub use dump::{
    ClassLayout, ClassLayouts, ClassResolver, ClassTable, InstanceLayoutCache, NoClasses, Value,
};
pub use error::{Error, Result};
pub use events::{Event, JvmpiEvent};
pub use ids::{EnvId, JniRef, MethodId, ObjectId, Pointer, RawMonitorId};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
