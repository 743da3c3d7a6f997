//! A column's Arrow builder, made from its data type, and how a cell is appended to it.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{
    BooleanBuilder, DurationNanosecondBuilder, Float32Builder, Float64Builder, Int8Builder,
    Int16Builder, Int32Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
    UInt8Builder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_schema::DataType;

/// A column's Arrow builder.
pub(super) enum Builder {
    Boolean(BooleanBuilder),
    Int8(Int8Builder),
    Int16(Int16Builder),
    Int32(Int32Builder),
    Int64(Int64Builder),
    UInt8(UInt8Builder),
    UInt16(UInt16Builder),
    UInt32(UInt32Builder),
    UInt64(UInt64Builder),
    Float32(Float32Builder),
    Float64(Float64Builder),
    Text(StringBuilder),
    Timestamp(TimestampMicrosecondBuilder),
    Duration(DurationNanosecondBuilder),
}

impl Builder {
    pub(super) fn new(t: &DataType) -> Builder {
        match t {
            DataType::Boolean => Builder::Boolean(BooleanBuilder::new()),
            DataType::Int8 => Builder::Int8(Int8Builder::new()),
            DataType::Int16 => Builder::Int16(Int16Builder::new()),
            DataType::Int32 => Builder::Int32(Int32Builder::new()),
            DataType::UInt8 => Builder::UInt8(UInt8Builder::new()),
            DataType::UInt16 => Builder::UInt16(UInt16Builder::new()),
            DataType::UInt32 => Builder::UInt32(UInt32Builder::new()),
            DataType::UInt64 => Builder::UInt64(UInt64Builder::new()),
            DataType::Float32 => Builder::Float32(Float32Builder::new()),
            DataType::Float64 => Builder::Float64(Float64Builder::new()),
            DataType::Utf8 => Builder::Text(StringBuilder::new()),
            DataType::Timestamp(_, _) => {
                Builder::Timestamp(TimestampMicrosecondBuilder::new().with_timezone("UTC"))
            }
            DataType::Duration(_) => Builder::Duration(DurationNanosecondBuilder::new()),
            _ => Builder::Int64(Int64Builder::new()),
        }
    }

    /// Appends `c`, or a null if it is not of the column's type; `false` for a value that
    /// was not null but did not fit.
    pub(super) fn append(&mut self, c: &Cell<'_>) -> bool {
        let int = match c {
            Cell::Int(n) => Some(*n),
            Cell::UInt(n) => i64::try_from(*n).ok(),
            _ => None,
        };
        let uint = match c {
            Cell::UInt(n) => Some(*n),
            Cell::Int(n) => u64::try_from(*n).ok(),
            _ => None,
        };
        let fits = match self {
            Builder::Boolean(b) => {
                let v = match c {
                    Cell::Bool(v) => Some(*v),
                    _ => None,
                };
                b.append_option(v);
                v.is_some()
            }
            Builder::Int8(b) => push(b, int.and_then(|n| i8::try_from(n).ok())),
            Builder::Int16(b) => push(b, int.and_then(|n| i16::try_from(n).ok())),
            Builder::Int32(b) => push(b, int.and_then(|n| i32::try_from(n).ok())),
            Builder::Int64(b) => push(b, int),
            Builder::UInt8(b) => push(b, uint.and_then(|n| u8::try_from(n).ok())),
            Builder::UInt16(b) => push(b, uint.and_then(|n| u16::try_from(n).ok())),
            Builder::UInt32(b) => push(b, uint.and_then(|n| u32::try_from(n).ok())),
            Builder::UInt64(b) => push(b, uint),
            Builder::Float32(b) => push(
                b,
                match c {
                    Cell::Float(x) => Some(*x as f32),
                    _ => None,
                },
            ),
            Builder::Float64(b) => push(
                b,
                match c {
                    Cell::Float(x) => Some(*x),
                    _ => None,
                },
            ),
            Builder::Timestamp(b) => push(b, int),
            Builder::Duration(b) => push(b, int),
            Builder::Text(b) => match c {
                Cell::Text(s) => {
                    b.append_value(s);
                    true
                }
                _ => {
                    b.append_null();
                    false
                }
            },
        };
        fits || matches!(c, Cell::Null)
    }

    pub(super) fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Boolean(b) => Arc::new(b.finish()),
            Builder::Int8(b) => Arc::new(b.finish()),
            Builder::Int16(b) => Arc::new(b.finish()),
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::UInt8(b) => Arc::new(b.finish()),
            Builder::UInt16(b) => Arc::new(b.finish()),
            Builder::UInt32(b) => Arc::new(b.finish()),
            Builder::UInt64(b) => Arc::new(b.finish()),
            Builder::Float32(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Text(b) => Arc::new(b.finish()),
            Builder::Timestamp(b) => Arc::new(b.finish()),
            Builder::Duration(b) => Arc::new(b.finish()),
        }
    }
}

/// Appends `v` or a null; whether `v` was a value.
fn push<T: arrow_array::types::ArrowPrimitiveType>(
    b: &mut arrow_array::builder::PrimitiveBuilder<T>,
    v: Option<T::Native>,
) -> bool {
    b.append_option(v);
    v.is_some()
}

/// One value of a row, before it is appended.
pub(super) enum Cell<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Text(Cow<'a, str>),
}
