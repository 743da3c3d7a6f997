//! Object tree reports (`points-to-analysis-reports.ja.txt`, "オブジェクト・ツリー";
//! `iprof-pointsto.md` §2.6): the TXT lines ([`txt`]) and the tree model they read into
//! ([`tree`]), as [`crate::call_tree`] has them for call trees.

pub mod tree;
pub mod txt;

pub use tree::{ObjectNode, ObjectTree};
pub use txt::{
    Contents, HEADER, ObjectEntry, ObjectNodeLine, ObjectTreeLine, Reader, parse_line, write_line,
};
