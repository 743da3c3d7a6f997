//! Call tree reports: TXT ([`txt`]), CSV ([`csv`]), and the graph model both read into
//! ([`graph`]) (`points-to-analysis-reports.ja.txt`, "コール・ツリー").

pub mod csv;
pub mod graph;
pub mod txt;

pub use graph::{
    CallGraph, CallGraphBuilder, Callee, Callees, CsvMethodInfo, DeclaredTarget, EntryPoint,
    IdHasher, IdMap, IdState, Invoke, InvokeEdge, InvokeKind, Method, TrailingSpaces, TxtLayout,
};
