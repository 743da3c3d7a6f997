//! The tables an export writes: each event type's table announced on its first event (named
//! after its type, made unique), its rows sent in batches; the `stacks` and `stack_frames`
//! rows; and the [`Summary`] of what was written.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};

use ::jfr::Chunk;

use super::builder::Builder;
use super::columns::Column;
use super::stacks::{FrameRows, StackRows, stack_frames_schema, stacks_schema};
use super::{Stop, Summary, table, table_name};
use crate::Result;
use crate::rows::Rows;
use crate::sink::BatchSink;

/// Every table of an export being written, and what was written so far.
pub(super) struct Tables<'s> {
    pub(super) sink: &'s mut dyn BatchSink,
    pub(super) tables: Vec<Table>,
    by_type: HashMap<String, usize>,
    taken: HashSet<String>,
    pub(super) stacks: StackRows,
    pub(super) frames: FrameRows,
    pub(super) next_stack: u64,
    pub(super) summary: Summary,
}

impl<'s> Tables<'s> {
    /// The tables of an export to `sink`; announces `stacks` and `stack_frames`.
    ///
    /// # Errors
    /// The sink's.
    pub(super) fn new(sink: &'s mut dyn BatchSink) -> Result<Self> {
        sink.begin(table::STACKS, stacks_schema())?;
        sink.begin(table::STACK_FRAMES, stack_frames_schema())?;
        let mut summary = Summary::default();
        summary.rows.insert(table::STACKS.to_owned(), 0);
        summary.rows.insert(table::STACK_FRAMES.to_owned(), 0);
        let taken = [table::STACKS, table::STACK_FRAMES]
            .into_iter()
            .map(str::to_owned)
            .collect();
        Ok(Tables {
            sink,
            tables: Vec::new(),
            by_type: HashMap::new(),
            taken,
            stacks: StackRows::default(),
            frames: FrameRows::default(),
            next_stack: 0,
            summary,
        })
    }

    /// Sends the rows not yet sent and returns what was written.
    ///
    /// # Errors
    /// The sink's.
    pub(super) fn finish(mut self) -> Result<Summary> {
        for i in 0..self.tables.len() {
            self.flush_table(i)?;
        }
        let n = self.stacks.flush(self.sink)?;
        *self
            .summary
            .rows
            .entry(table::STACKS.to_owned())
            .or_default() += n;
        let n = self.frames.flush(self.sink)?;
        *self
            .summary
            .rows
            .entry(table::STACK_FRAMES.to_owned())
            .or_default() += n;
        Ok(self.summary)
    }

    /// The table of event type `name` with the columns `columns`, announced on first use.
    pub(super) fn table_for(&mut self, name: &str, columns: &[Column]) -> Result<usize> {
        if let Some(&i) = self.by_type.get(name) {
            return Ok(i);
        }
        let base = table_name(name);
        let mut table = base.clone();
        let mut n = 1;
        while self.taken.contains(&table) {
            n += 1;
            table = format!("{base}_{n}");
        }
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|c| Field::new(c.name.as_str(), c.conv.data_type(), true))
                .collect::<Vec<_>>(),
        ));
        self.sink.begin(&table, Arc::clone(&schema))?;
        self.taken.insert(table.clone());
        self.summary.tables.insert(name.to_owned(), table.clone());
        self.summary.rows.insert(table.clone(), 0);
        let builders = schema
            .fields()
            .iter()
            .map(|f| Builder::new(f.data_type()))
            .collect();
        self.tables.push(Table {
            name: table,
            schema,
            builders,
            len: 0,
        });
        let i = self.tables.len() - 1;
        self.by_type.insert(name.to_owned(), i);
        Ok(i)
    }

    pub(super) fn flush_table(&mut self, i: usize) -> Result<()> {
        let Some(t) = self.tables.get_mut(i) else {
            return Ok(());
        };
        if t.len == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = t.builders.iter_mut().map(Builder::finish).collect();
        // The row count is given: an event type may declare no field at all.
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(&t.schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(t.len)),
        )?;
        let n = t.len as u64;
        t.len = 0;
        self.sink.write(&t.name, batch)?;
        *self.summary.rows.entry(t.name.clone()).or_default() += n;
        Ok(())
    }

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

/// One event table being filled.
pub(super) struct Table {
    name: String,
    pub(super) schema: SchemaRef,
    pub(super) builders: Vec<Builder>,
    pub(super) len: usize,
}
