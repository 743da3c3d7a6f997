//! Row builders: one struct of Arrow builders per table, sent to a sink as record batches of
//! [`BATCH_ROWS`] rows.

/// Rows per record batch handed to the sink.
pub const BATCH_ROWS: usize = 64 * 1024;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;

use crate::Result;
use crate::sink::BatchSink;

/// Row builders of one table: `columns` turns them into arrays, `flush` sends a batch.
pub(crate) trait Rows {
    const TABLE: &'static str;
    fn schema() -> SchemaRef;
    fn len(&self) -> usize;
    fn reset_len(&mut self);
    fn columns(&mut self) -> Vec<ArrayRef>;

    fn flush_if_full(&mut self, sink: &mut dyn BatchSink) -> Result<()> {
        if self.len() >= BATCH_ROWS {
            self.flush(sink)?;
        }
        Ok(())
    }

    /// Sends the rows built so far as one batch; returns how many.
    fn flush(&mut self, sink: &mut dyn BatchSink) -> Result<u64> {
        let n = self.len();
        if n == 0 {
            return Ok(0);
        }
        let batch = RecordBatch::try_new(Self::schema(), self.columns())?;
        self.reset_len();
        sink.write(Self::TABLE, batch)?;
        Ok(n as u64)
    }
}

/// Declares a table's row builders: `rows!(Name, TABLE, schema(), { column: Builder, … })`,
/// columns in schema order.
macro_rules! rows {
    ($name:ident, $table:expr, $schema:expr, { $($col:ident: $builder:ty),* $(,)? }) => {
        #[derive(Default)]
        struct $name {
            len: usize,
            $($col: $builder,)*
        }
        impl $crate::rows::Rows for $name {
            const TABLE: &'static str = $table;
            fn schema() -> arrow_schema::SchemaRef {
                $schema
            }
            fn len(&self) -> usize {
                self.len
            }
            fn reset_len(&mut self) {
                self.len = 0;
            }
            fn columns(&mut self) -> Vec<arrow_array::ArrayRef> {
                vec![$(std::sync::Arc::new(self.$col.finish()) as arrow_array::ArrayRef),*]
            }
        }
    };
}

pub(crate) use rows;
