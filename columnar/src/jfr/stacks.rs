//! The `stacks` and `stack_frames` tables: their schemas, and each stack trace of a chunk
//! written once, its frames one row each.

use arrow_array::builder::{
    BooleanBuilder, Int32Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_schema::DataType;

use ::jfr::Chunk;

use super::exporter::Exporter;
use super::reader::Stop;
use super::table;
use crate::rows::{REQUIRED, Rows, rows};

impl Exporter<'_> {
    /// Writes the stack trace with pool key `key` of `chunk` as a new stack; its id, or
    /// `None` if the pool has no such entry.
    pub(super) fn add_stack(
        &mut self,
        chunk: &Chunk<'_>,
        key: i64,
    ) -> std::result::Result<Option<u64>, Stop> {
        let Some(st) = chunk.stack_trace(key)? else {
            return Ok(None);
        };
        let id = self.next_stack;
        self.next_stack += 1;
        let s = &mut self.stacks;
        s.stack_id.append_value(id);
        s.truncated.append_value(st.truncated);
        s.frame_count
            .append_value(u32::try_from(st.frames.len()).unwrap_or(u32::MAX));
        s.len += 1;
        let n = s.flush_if_full(self.sink)?;
        *self
            .summary
            .rows
            .entry(table::STACKS.to_owned())
            .or_default() += n;
        for (depth, f) in st.frames.iter().enumerate() {
            let r = &mut self.frames;
            r.stack_id.append_value(id);
            r.depth
                .append_value(u32::try_from(depth).unwrap_or(u32::MAX));
            r.method.append_value(&f.method.name);
            r.class.append_value(&f.method.class);
            r.descriptor.append_value(&f.method.descriptor);
            r.line.append_value(f.line_number);
            r.bci.append_value(f.bytecode_index);
            r.frame_type.append_value(f.frame_type.as_str());
            r.len += 1;
            let n = r.flush_if_full(self.sink)?;
            *self
                .summary
                .rows
                .entry(table::STACK_FRAMES.to_owned())
                .or_default() += n;
        }
        Ok(Some(id))
    }
}

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
