//! Sun Studio / Oracle Developer Studio / GNU gprofng experiment directories (`*.er`).
//!
//! The crate does no I/O: [`Experiment::open`] reads files through a [`Source`] the caller
//! supplies (an in-memory [`MemorySource`], closures via [`FnSource`], or your own type); the
//! `fs` feature adds `fs::DirSource`, an experiment directory on the file system that lists
//! `archives/` and descendants and finds load objects where gprofng does. The answers:
//! gprofng's function list ([`profile::FunctionList::read`]), folded stacks
//! ([`profile::StackProfile::read`], then `folded`), callers and callees
//! ([`profile::CallersCallees::read`]), heap leaks and allocations
//! ([`profile::heap_stacks`]), source lines ([`lines::LineList::read`]: gprofng's `-lines`,
//! native lines from DWARF with the `dwarf` feature), descendants ([`Experiment::descendants`]),
//! and whether and why the experiment is partial ([`Experiment::partial`]).
//!
//! ```
//! use experiment::{Experiment, MemorySource, packets::TypedPacket};
//!
//! let log = br#"<experiment version="12.4"><collector>2.40.00</collector></experiment>
//! <system hostname="vm" arch="x86_64" pagesz="4096"/>
//! <process wsize="64"></process>
//! <event kind="run" tstamp="100.000000000"/>
//! <profile name="profile" ptimer="10007">
//!   <profdata fname="profile"/>
//!   <profpckt kind="8" uname="Clock profiling data">
//!     <field name="THRID" offset="16" type="INT64"/>
//!     <field name="TSTAMP" offset="28" type="INT64"/>
//!     <field name="FRINFO" offset="36" type="INT64"/>
//!     <field name="NTICK" offset="48" type="INT32"/>
//!   </profpckt>
//! </profile>
//! <event kind="exit" tstamp="1.000000000"/>"#;
//! // One 56-byte clock packet (tsize 56, type 8) followed by padding to the end of the block.
//! let mut profile = vec![0u8; 64];
//! profile[0..4].copy_from_slice(&[56, 0, 8, 0]);
//! profile[28..36].copy_from_slice(&100_500_000_000u64.to_le_bytes());
//! profile[48..52].copy_from_slice(&1u32.to_le_bytes());
//! profile[56..60].copy_from_slice(&[8, 0, 0, 0]);
//!
//! let source = MemorySource::new().with("log.xml", &log[..]).with("profile", profile);
//! let exp = Experiment::open(source)?;
//! assert_eq!(exp.log().version, "12.4");
//! let data = exp.data("profile")?.unwrap();
//! let packets: Vec<_> = data.packets().collect::<Result<_, _>>()?;
//! assert_eq!(packets.len(), 1);
//! let TypedPacket::Clock(tick) = packets[0].typed()? else { unreachable!() };
//! assert_eq!(tick.common.tstamp - exp.log().run_start().unwrap(), 500_000_000);
//! assert_eq!(tick.nticks, 1);
//! assert!(!exp.incomplete());
//! # Ok::<(), experiment::Error>(())
//! ```
//!
//! Layout (one module per file of the experiment): [`log`] (`log.xml`), [`map`] (`map.xml`),
//! [`packets`] (data files), [`frameinfo`] (`data.frameinfo`), [`overview`], [`dyntext`],
//! [`jclasses`], [`archives`], [`classfile`] (the class files of `jdynclasses/` and `archives/`, for Java source lines), [`descendants`] (`jdynclasses/` and `ifreq` are read by
//! [`Experiment`] itself), plus [`elf`] (function symbols of the load objects, to name native
//! PCs like gprofng's user view), with [`cursor`] the one binary reader and [`xml`] the lenient
//! tokenizer for the XML-ish logs; [`summary`] computes gprofng's report totals (heap
//! allocations/leaks, sync wait, I/O bytes, clock ticks); [`stacks`] names every packet's
//! stack as gprofng's user view does (interned, one id per distinct stack) and [`profile`]
//! turns them into gprofng's function list (`<Total>` first, its default metrics per data
//! kind) and folded stacks for flame graphs; [`lines`] lists the same metrics per source line.
//!
//! Reading can stop short (a collector killed mid-write, a copy cut off, a damaged file):
//! [`Experiment::partial`] says whether and why — [`Partial::NoExitEvent`] for a collector
//! that stopped before the program ended, [`Partial::Damaged`] naming the file and the byte
//! offset or line:column — while everything before the damage is still served. Files come through [`Source::read`], whose `Ok(None)`
//! (missing) and `Err` ([`Error::Read`], naming the path) stay distinct; every decoder error
//! names the file it came from ([`Error::File`]).
//!
//! Features: `serde` (default) derives `Serialize`/`Deserialize` for the data models;
//! `demangle` (default) demangles C++ function names as gprofng prints them (`cpp_demangle`);
//! `fs` (off by default) adds the `fs` module, the only one doing I/O; `dwarf` (off by
//! default) adds the `dwarf` module, the load objects' DWARF line tables (through `gimli`), for
//! native source lines.
//!
//! Nothing in the crate panics on input: every reader returns [`Result`], iterators over
//! records are lazy and fallible, and no allocation is sized by an unchecked length.

#![forbid(unsafe_code)]

pub mod archives;
pub mod classfile;
pub mod cursor;
pub mod descendants;
#[cfg(feature = "dwarf")]
pub mod dwarf;
pub mod dyntext;
pub mod elf;
mod error;
mod experiment;
pub mod frameinfo;
#[cfg(feature = "fs")]
pub mod fs;
mod hash;
pub mod jclasses;
pub mod labels;
pub mod lines;
pub mod log;
pub mod map;
pub mod overview;
pub mod packets;
pub mod profile;
pub mod source;
pub mod stacks;
pub mod summary;
mod tags;
pub mod xml;

pub use bytes;
pub use error::{Error, Result};
pub use experiment::{
    DATA_FILE_NAMES, DataFile, DataPacket, DataPackets, DynClass, Experiment, JDYNCLASSES_DEPTH,
    JDYNCLASSES_ENTRIES, Partial, STREAM_CHUNK,
};
pub use source::{FnSource, MemorySource, Source, SubSource, from_fn};

/// The README's examples, compiled and run as doc tests (they use the `fs` feature).
#[cfg(all(doctest, feature = "fs"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
