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
    fn columns(&mut self) -> Result<Vec<ArrayRef>>;

    /// Sends the rows built so far if they fill a batch; returns how many were sent.
    fn flush_if_full(&mut self, sink: &mut dyn BatchSink) -> Result<u64> {
        if self.len() >= BATCH_ROWS {
            return self.flush(sink);
        }
        Ok(0)
    }

    /// Sends the rows built so far as one batch; returns how many.
    fn flush(&mut self, sink: &mut dyn BatchSink) -> Result<u64> {
        let n = self.len();
        if n == 0 {
            return Ok(0);
        }
        let batch = RecordBatch::try_new(Self::schema(), self.columns()?)?;
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
            fn columns(&mut self) -> $crate::Result<Vec<arrow_array::ArrayRef>> {
                Ok(vec![$(std::sync::Arc::new(self.$col.finish()) as arrow_array::ArrayRef),*])
            }
        }
    };
}

pub(crate) use rows;

/// Plain column buffers for the large tables: one vector per column, handed to Arrow without
/// copying (no per-row builder calls), and string columns kept as small codes into a table of
/// names until the batch is built.
pub(crate) mod plain {
    use std::sync::Arc;

    use arrow_array::types::ArrowPrimitiveType;
    use arrow_array::{ArrayRef, PrimitiveArray, StringArray};
    use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

    use crate::Result;

    /// A primitive column without nulls.
    pub(crate) fn primitive<T: ArrowPrimitiveType>(values: Vec<T::Native>) -> ArrayRef {
        with_nulls::<T>(values, None)
    }

    /// A primitive column from its values and validity.
    pub(crate) fn with_nulls<T: ArrowPrimitiveType>(
        values: Vec<T::Native>,
        nulls: Option<NullBuffer>,
    ) -> ArrayRef {
        Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls))
    }

    /// The validity of `len` rows, `valid(i)` for row `i`.
    #[inline]
    pub(crate) fn nulls(len: usize, valid: impl FnMut(usize) -> bool) -> Option<NullBuffer> {
        Some(NullBuffer::new(BooleanBuffer::collect_bool(len, valid)))
    }

    /// A string column from codes into `names`; rows whose code is not below `names.len()` are
    /// null.
    pub(crate) fn strings<K: Copy + Into<u64>>(codes: &[K], names: &[&str]) -> Result<ArrayRef> {
        let n = codes.len();
        let name = |c: K| names.get(usize::try_from(c.into()).unwrap_or(usize::MAX));
        let nulls = codes.iter().filter(|&&c| name(c).is_none()).count();
        if nulls == n {
            return Ok(Arc::new(StringArray::new_null(n)));
        }
        let longest = names.iter().map(|s| s.len()).max().unwrap_or(0);
        let bound = n.saturating_mul(longest);
        if i32::try_from(bound).is_err() {
            return Err(arrow_schema::ArrowError::InvalidArgumentError(
                "string column over 2 GiB in one batch".into(),
            )
            .into());
        }
        let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
        let mut bytes: Vec<u8> = Vec::with_capacity(bound);
        offsets.push(0);
        for &c in codes {
            if let Some(s) = name(c) {
                bytes.extend_from_slice(s.as_bytes());
            }
            // At most `bound` bytes, which fits an i32.
            offsets.push(bytes.len() as i32);
        }
        let nulls = if nulls == 0 {
            None
        } else {
            nulls_of(codes, |c| name(c).is_some())
        };
        let array = StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            Buffer::from_vec(bytes),
            nulls,
        )?;
        Ok(Arc::new(array))
    }

    /// The validity of one row per value of `values`.
    #[inline]
    pub(crate) fn nulls_of<T: Copy>(
        values: &[T],
        mut valid: impl FnMut(T) -> bool,
    ) -> Option<NullBuffer> {
        nulls(values.len(), |i| values.get(i).is_some_and(|&v| valid(v)))
    }
}
