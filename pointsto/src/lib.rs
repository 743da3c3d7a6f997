//! GraalVM Native Image points-to analysis reports.
//!
//! Not built yet: this crate will read call-tree reports (TXT and CSV) and object-tree
//! reports into graph models, write them back, and diff two call trees.
