//! GraalVM Native Image points-to analysis reports: call trees (TXT and CSV) and object trees.
//!
//! `native-image -H:+PrintAnalysisCallTree` writes `reports/call_tree_<image>_<timestamp>.txt`
//! (or CSV files with `-H:PrintAnalysisCallTreeType=CSV`), and `-H:+PrintImageObjectTree`
//! writes `object_tree_<image>_<timestamp>.txt`. This crate reads every version of them into
//! models, writes the TXT reports back byte for byte, and diffs two call trees. It does no I/O:
//! hand it bytes.
//!
//! ```
//! use pointsto::call_tree::{CallGraph, InvokeKind};
//!
//! // Lines as the 24.2+ printer writes them, trailing spaces included.
//! let report = [
//!     "VM Entry Points",
//!     "└── entry app:com.example.Main.main(java.lang.String[]):void id=0, parsing reason:  root method ",
//!     "    ├── directly calls app:com.example.Main.greet(java.lang.String):void id=1 @bci=3 ",
//!     "    │   └── virtually calls java.io.PrintStream.println(java.lang.String):void @bci=7",
//!     "    │       └── is overridden by null:java.io.PrintStream.println(java.lang.String):void id=2 ",
//!     "    └── directly calls app:com.example.Main.greet(java.lang.String):void id-ref=1 @bci=9 ",
//!     "",
//!     "",
//! ]
//! .join("\n");
//! let graph = CallGraph::parse_txt(report.as_bytes())?;
//! assert_eq!(graph.methods.len(), 3);
//! let greet = graph.method(1).unwrap().parsed_signature().unwrap();
//! assert_eq!((greet.loader, greet.name), (Some("app"), "greet"));
//! let virtual_edges = graph.invoke_edges().filter(|e| e.kind == InvokeKind::Virtual).count();
//! assert_eq!(virtual_edges, 1);
//!
//! // Written back byte for byte.
//! assert_eq!(pointsto::write::call_tree_txt(&graph)?, report);
//!
//! // What changed between two builds, by method string (ids differ between builds).
//! let before = CallGraph::parse_txt(report.replace("greet", "hello").as_bytes())?;
//! let diff = pointsto::diff::CallTreeDiff::new(&before, &graph);
//! assert_eq!(diff.methods_only_in_b, ["app:com.example.Main.greet(java.lang.String):void"]);
//! # Ok::<(), pointsto::Error>(())
//! ```
//!
//! Modules follow the reports: [`call_tree`] ([`call_tree::txt`], [`call_tree::csv`],
//! [`call_tree::graph`]), [`object_tree`], [`used`] (the `used_*` lists), [`signature`],
//! [`file_name`], [`write`](mod@write), [`diff`]; [`cursor`] holds the line cursor they all
//! read through, [`style`] how a report's tree is drawn.

#![forbid(unsafe_code)]

pub mod call_tree;
pub mod cursor;
pub mod diff;
pub mod error;
pub mod file_name;
pub mod object_tree;
pub mod signature;
pub mod style;
pub mod used;
pub mod write;

pub use error::{Error, Result};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
