//! The HPROF tables: their names and schemas, each written once (the small tables' schemas
//! with their row builders, by [`rows!`]; the two big tables' beside their plain columns'
//! order in [`columns`](super::columns)).

use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::rows::{NULLABLE, REQUIRED, rows};

/// Table names, as the sink receives them.
pub mod table {
    /// One row per class.
    pub const CLASSES: &str = "classes";
    /// One row per heap object (instances, arrays, class objects).
    pub const OBJECTS: &str = "objects";
    /// One row per non-null reference.
    pub const REFERENCES: &str = "references";
    /// One row per GC root sub-record.
    pub const ROOTS: &str = "roots";
    /// One row per `UTF8` record.
    pub const STRINGS: &str = "strings";
    /// One row per `FRAME` record.
    pub const STACK_FRAMES: &str = "stack_frames";
    /// One row per frame of each `TRACE` record.
    pub const STACK_TRACES: &str = "stack_traces";
}

/// A string column stored as a dictionary with `key` keys (Parquet: a UTF-8 column,
/// dictionary-encoded).
fn dictionary(key: DataType) -> DataType {
    DataType::Dictionary(Box::new(key), Box::new(DataType::Utf8))
}

rows! {
    /// The `classes` table's schema.
    pub fn classes_schema() -> ClassRows in table::CLASSES {
        class_id: UInt64Builder = DataType::UInt64, REQUIRED;
        name: StringBuilder = DataType::Utf8, REQUIRED;
        super_id: UInt64Builder = DataType::UInt64, NULLABLE;
        loader_id: UInt64Builder = DataType::UInt64, NULLABLE;
        instance_size: UInt32Builder = DataType::UInt32, NULLABLE;
        field_count: UInt16Builder = DataType::UInt16, NULLABLE;
        static_field_count: UInt16Builder = DataType::UInt16, NULLABLE;
        class_serial: UInt32Builder = DataType::UInt32, NULLABLE;
    }
}

/// The `objects` table's schema.
pub fn objects_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::UInt64, REQUIRED),
        Field::new("class_id", DataType::UInt64, NULLABLE),
        Field::new("kind", dictionary(DataType::UInt8), REQUIRED),
        Field::new("shallow_size", DataType::UInt64, REQUIRED),
        Field::new("array_length", DataType::UInt32, NULLABLE),
        Field::new("element_type", dictionary(DataType::UInt8), NULLABLE),
        Field::new("heap", dictionary(DataType::UInt32), NULLABLE),
        Field::new("offset", DataType::UInt64, REQUIRED),
    ]))
}

/// The `references` table's schema.
pub fn references_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("from_id", DataType::UInt64, REQUIRED),
        Field::new("to_id", DataType::UInt64, REQUIRED),
        Field::new("field", dictionary(DataType::UInt32), NULLABLE),
        Field::new("array_index", DataType::UInt32, NULLABLE),
    ]))
}

rows! {
    /// The `roots` table's schema.
    pub fn roots_schema() -> RootRows in table::ROOTS {
        object_id: UInt64Builder = DataType::UInt64, REQUIRED;
        root_kind: StringBuilder = DataType::Utf8, REQUIRED;
        thread_serial: UInt32Builder = DataType::UInt32, NULLABLE;
        frame: Int32Builder = DataType::Int32, NULLABLE;
        jni_global_ref_id: UInt64Builder = DataType::UInt64, NULLABLE;
        heap: StringBuilder = DataType::Utf8, NULLABLE;
    }
}

rows! {
    /// The `strings` table's schema.
    pub fn strings_schema() -> StringsRows in table::STRINGS {
        id: UInt64Builder = DataType::UInt64, REQUIRED;
        value: StringBuilder = DataType::Utf8, REQUIRED;
    }
}

rows! {
    /// The `stack_frames` table's schema.
    pub fn stack_frames_schema() -> FrameRows in table::STACK_FRAMES {
        frame_id: UInt64Builder = DataType::UInt64, REQUIRED;
        method_name: StringBuilder = DataType::Utf8, NULLABLE;
        method_signature: StringBuilder = DataType::Utf8, NULLABLE;
        source_file: StringBuilder = DataType::Utf8, NULLABLE;
        class_serial: UInt32Builder = DataType::UInt32, REQUIRED;
        class_name: StringBuilder = DataType::Utf8, NULLABLE;
        line: Int32Builder = DataType::Int32, REQUIRED;
    }
}

rows! {
    /// The `stack_traces` table's schema.
    pub fn stack_traces_schema() -> TraceRows in table::STACK_TRACES {
        stack_trace_serial: UInt32Builder = DataType::UInt32, REQUIRED;
        thread_serial: UInt32Builder = DataType::UInt32, REQUIRED;
        depth: UInt32Builder = DataType::UInt32, REQUIRED;
        frame_id: UInt64Builder = DataType::UInt64, REQUIRED;
    }
}

/// Every table with its schema, in the order an export begins them.
pub(super) fn tables() -> [(&'static str, SchemaRef); 7] {
    [
        (table::CLASSES, classes_schema()),
        (table::OBJECTS, objects_schema()),
        (table::REFERENCES, references_schema()),
        (table::ROOTS, roots_schema()),
        (table::STRINGS, strings_schema()),
        (table::STACK_FRAMES, stack_frames_schema()),
        (table::STACK_TRACES, stack_traces_schema()),
    ]
}
