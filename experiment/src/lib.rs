//! Sun Studio / gprofng experiment directories (`*.er`).
//!
//! Not built yet: this crate will read `log.xml`, `map.xml`, the data packet files and
//! `data.frameinfo` call stacks, through a caller-supplied source (no I/O of its own).
