//! HPROF heap dumps and HPROF ASCII reports.
//!
//! Not built yet. [`binary`] will hold the decoder and encoder for binary heap dumps
//! (`JAVA PROFILE 1.0.x`); [`ascii`] the parser and writer for `java.hprof.txt` reports.

pub mod ascii;
pub mod binary;
