//! Call tree reports: TXT ([`txt`]), CSV ([`csv`]), and the graph model both read into
//! ([`graph`]) (`points-to-analysis-reports.ja.txt`, "コール・ツリー").

mod builder;
pub mod csv;
pub mod graph;
mod ids;
pub mod txt;

pub use builder::CallGraphBuilder;
pub use graph::{
    CallGraph, Callee, Callees, CsvMethodInfo, DeclaredTarget, EntryPoint, Invoke, InvokeEdge,
    InvokeKind, Method, TrailingSpaces, TxtLayout,
};
pub use ids::IdMap;
pub(crate) use ids::IdState;
pub(crate) use ids::{IdIndex, IdSet};
