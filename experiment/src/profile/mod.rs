//! Function profiles and folded stacks: per function, the exclusive and inclusive metrics
//! gprofng's `-functions` shows by default for each data kind, with its `<Total>` row and its
//! order; and `frame;frame;frame value` lines for flame-graph tools (gprofng
//! `DbeView::get_hist_data`, `MetricList` defaults per data type).
//!
//! A function's exclusive value is what packets whose stack ends in it carry; its inclusive
//! value what packets whose stack contains it carry, counted once per packet however often the
//! function recurs in the stack. `<Total>` is the sum over all packets (also those without a
//! stack).

mod callers_callees;
mod functions;
mod heap;
mod metrics;
mod stack_profile;
mod table;

pub use callers_callees::{CallerCallee, CallersCallees};
pub use functions::FunctionList;
pub use heap::{HeapStack, HeapView, heap_stacks, heap_stacks_with};
pub use metrics::{Column, MAX_HWC_TAGS, Metric, Subtype, default_columns, hwc_columns};
pub use stack_profile::StackProfile;
pub(crate) use table::Calls;
pub use table::{FunctionTable, Row};
