//! The `stacks` and `stack_frames` tables' schemas and rows (filled in `tables.rs`: each stack
//! trace of a chunk written once, its frames one row each).

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_schema::DataType;

use super::table;
use crate::rows::{REQUIRED, rows};

rows! {
    /// The `stacks` table's schema.
    pub fn stacks_schema() -> StackRows in table::STACKS {
        stack_id: UInt64Builder = DataType::UInt64, REQUIRED;
        truncated: BooleanBuilder = DataType::Boolean, REQUIRED;
        frame_count: UInt32Builder = DataType::UInt32, REQUIRED;
    }
}

rows! {
    /// The `stack_frames` table's schema.
    pub fn stack_frames_schema() -> FrameRows in table::STACK_FRAMES {
        stack_id: UInt64Builder = DataType::UInt64, REQUIRED;
        depth: UInt32Builder = DataType::UInt32, REQUIRED;
        method: StringBuilder = DataType::Utf8, REQUIRED;
        class: StringBuilder = DataType::Utf8, REQUIRED;
        descriptor: StringBuilder = DataType::Utf8, REQUIRED;
        line: Int32Builder = DataType::Int32, REQUIRED;
        bci: Int32Builder = DataType::Int32, REQUIRED;
        frame_type: StringBuilder = DataType::Utf8, REQUIRED;
    }
}
