//! HPROF binary heap dumps as tables: `classes`, `objects`, `references`, `roots`, `strings`,
//! `stack_frames` and `stack_traces` (schemas in the [crate docs](crate#hprof-tables)).
//!
//! One streaming pass over the dump (a memory map is the usual source): the records before the
//! first heap dump first (strings, class names, stack frames and traces), then the heap dumps,
//! one row per object, reference and root, class dumps kept as they come. Instances read
//! before their class's dump, or before a field name their layout needs, get their references
//! in a second pass. HotSpot's JDK 17 dumps (class dumps first) need none; ART's, which dump
//! some classes after instances of them, do. Memory holds the class dumps and class names,
//! never objects.
//!
//! | file | job |
//! |---|---|
//! | `schema.rs` | table names and schemas |
//! | `export.rs` | [`export`]: the passes in order |
//! | `summary.rs` | its [`Summary`] |
//! | `walk.rs` | the walk each pass makes over the dump |
//! | `top_level.rs` | records outside heap dumps: names, `strings`, `stack_traces`, `stack_frames` |
//! | `heap.rs` | the heap pass: `objects`, `references`, `roots`, `classes` |
//! | `deferred.rs` | the second pass, for instances read before their class dump |
//! | `columns.rs` | the column stores |

mod columns;
mod deferred;
mod export;
mod heap;
mod schema;
mod summary;
mod top_level;
mod walk;

pub use columns::root_kind;
pub use export::export;
pub use schema::{
    classes_schema, objects_schema, references_schema, roots_schema, stack_frames_schema,
    stack_traces_schema, strings_schema, table,
};
pub use summary::Summary;

/// `bytes` as text, invalid UTF-8 replaced.
fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}
