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

/// A column that is never null (see [`rows!`]).
pub(crate) const REQUIRED: bool = false;
/// A column that may be null (see [`rows!`]).
pub(crate) const NULLABLE: bool = true;

/// Declares a table once: its schema function and its row builders, columns in schema order,
/// each named as its builder field.
///
/// ```text
/// rows! {
///     /// The `strings` table's schema.
///     pub fn strings_schema() -> StringsRows in table::STRINGS {
///         id: UInt64Builder = DataType::UInt64, REQUIRED;
///         value: StringBuilder = DataType::Utf8, REQUIRED;
///     }
/// }
/// ```
macro_rules! rows {
    (
        $(#[$doc:meta])*
        $vis:vis fn $schema:ident() -> $name:ident in $table:path {
            $($col:ident: $builder:ty = $data_type:expr, $nullable:expr;)*
        }
    ) => {
        $(#[$doc])*
        $vis fn $schema() -> arrow_schema::SchemaRef {
            std::sync::Arc::new(arrow_schema::Schema::new(vec![
                $(arrow_schema::Field::new(stringify!($col), $data_type, $nullable)),*
            ]))
        }

        #[derive(Default)]
        pub(crate) struct $name {
            pub(crate) len: usize,
            $(pub(crate) $col: $builder,)*
        }

        impl $crate::rows::Rows for $name {
            const TABLE: &'static str = $table;
            fn schema() -> arrow_schema::SchemaRef {
                $schema()
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
/// copying (no per-row builder calls), and string columns as small codes into a table of
/// names: Arrow dictionary arrays.
pub(crate) mod plain {
    use std::sync::Arc;

    use arrow_array::types::{ArrowDictionaryKeyType, ArrowPrimitiveType};
    use arrow_array::{Array, ArrayRef, DictionaryArray, PrimitiveArray, StringArray};
    use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};

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

    /// A dictionary-encoded string column from codes into `names` (the dictionary): rows whose
    /// code is not below `names.len()` are null. The codes become the keys as they are: no
    /// string is copied per row.
    pub(crate) fn dictionary<K>(mut codes: Vec<K::Native>, names: &ArrayRef) -> Result<ArrayRef>
    where
        K: ArrowDictionaryKeyType,
        K::Native: Into<u64>,
    {
        let n = names.len() as u64;
        let nulls = if codes.iter().all(|&c| c.into() < n) {
            None
        } else if codes.iter().all(|&c| c.into() >= n) {
            // A column with no value in this batch (a JDK dump's `heap`).
            codes.fill(K::Native::default());
            Some(NullBuffer::new_null(codes.len()))
        } else {
            let valid = nulls_of(&codes, |c| c.into() < n);
            // A null row's key still has to index the dictionary.
            for c in &mut codes {
                if (*c).into() >= n {
                    *c = K::Native::default();
                }
            }
            valid
        };
        let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(codes), nulls);
        Ok(Arc::new(DictionaryArray::<K>::try_new(
            keys,
            Arc::clone(names),
        )?))
    }

    /// The dictionary of a [`dictionary`] column: `names` as a string array.
    pub(crate) fn names<'n>(names: impl IntoIterator<Item = &'n str>) -> ArrayRef {
        Arc::new(StringArray::from_iter_values(names))
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
