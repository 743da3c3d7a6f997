//! An event type's columns in one chunk: each field a column, a struct or constant of several
//! fields one column per field of it, and how each column's values are converted.

use std::collections::HashSet;

use arrow_schema::{DataType, TimeUnit};

use ::jfr::{FieldKind, Metadata, Unit};

use super::MAX_UNWRAP;

/// The class name of stack-trace constants: a field of this class is a key into `stacks`.
const STACK_TRACE_CLASS: &str = "jdk.types.StackTrace";

/// How a column's values are made from a field's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conv {
    Boolean,
    /// An integer of this many bits, unsigned with `@Unsigned`.
    Int {
        bits: u8,
        unsigned: bool,
    },
    Float,
    Double,
    /// A `char` or a string.
    Text,
    /// A point in time: `Timestamp(µs, UTC)`, the finest Spark reads from Parquet.
    Timestamp(Unit),
    /// A span of time: `Duration(ns)`.
    Timespan(Unit),
    /// A stack trace: its id in `stacks`.
    StackId,
    /// A struct or constant shown by its name (or its one field), or an array of them.
    Label,
}

impl Conv {
    pub(super) fn data_type(self) -> DataType {
        match self {
            Conv::Boolean => DataType::Boolean,
            Conv::Int { bits, unsigned } => match (bits, unsigned) {
                (8, false) => DataType::Int8,
                (8, true) => DataType::UInt8,
                (16, false) => DataType::Int16,
                (16, true) => DataType::UInt16,
                (32, false) => DataType::Int32,
                (32, true) => DataType::UInt32,
                (_, false) => DataType::Int64,
                (_, true) => DataType::UInt64,
            },
            Conv::Float => DataType::Float32,
            Conv::Double => DataType::Float64,
            Conv::Text | Conv::Label => DataType::Utf8,
            Conv::Timestamp(_) => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            Conv::Timespan(_) => DataType::Duration(TimeUnit::Nanosecond),
            Conv::StackId => DataType::UInt64,
        }
    }
}

/// One column of an event type in one chunk: the field indexes leading to its value (the
/// event's field, then the field of that struct), its name and conversion.
#[derive(Debug, Clone)]
pub(super) struct Column {
    pub(super) name: String,
    pub(super) path: [usize; 2],
    pub(super) depth: usize,
    pub(super) conv: Conv,
}

/// The conversion of a field's values: its primitive kind and annotations, or that of the one
/// field of a one-field struct, recursively; `None` for a struct of several fields.
fn conv_of(md: &Metadata, f: &::jfr::Field, levels: usize) -> Option<Conv> {
    if f.array {
        return Some(Conv::Label);
    }
    let int = |bits| match f.unit {
        Some(u @ (Unit::TimestampTicks | Unit::TimestampMillis)) => Conv::Timestamp(u),
        Some(u) => Conv::Timespan(u),
        None => Conv::Int {
            bits,
            unsigned: f.unsigned,
        },
    };
    Some(match f.kind {
        FieldKind::Boolean => Conv::Boolean,
        FieldKind::Byte => int(8),
        FieldKind::Short => int(16),
        FieldKind::Int => int(32),
        FieldKind::Long => int(64),
        FieldKind::Float => Conv::Float,
        FieldKind::Double => Conv::Double,
        FieldKind::Char | FieldKind::String => Conv::Text,
        FieldKind::Constant(c) | FieldKind::Struct(c) => {
            let class = md.classes.get(c)?;
            if class.name == STACK_TRACE_CLASS {
                return Some(Conv::StackId);
            }
            match class.fields.as_slice() {
                [one] if levels < MAX_UNWRAP => conv_of(md, one, levels + 1).unwrap_or(Conv::Label),
                [] => Conv::Label,
                _ => return None,
            }
        }
        _ => Conv::Label,
    })
}

/// The columns of the event type at `class` in metadata `md`: each field as a column, a
/// struct or constant of several fields as one column per field of it (`eventThread_javaName`),
/// deeper structs as labels.
pub(super) fn columns(md: &Metadata, class: usize) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::new();
    let Some(c) = md.classes.get(class) else {
        return out;
    };
    for (i, f) in c.fields.iter().enumerate() {
        match conv_of(md, f, 0) {
            Some(conv) => out.push(Column {
                name: f.name.clone(),
                path: [i, 0],
                depth: 1,
                conv,
            }),
            None => {
                let sub = match f.kind {
                    FieldKind::Constant(s) | FieldKind::Struct(s) => md.classes.get(s),
                    _ => None,
                };
                for (j, sf) in sub
                    .map(|s| s.fields.as_slice())
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                {
                    out.push(Column {
                        name: format!("{}_{}", f.name, sf.name),
                        path: [i, j],
                        depth: 2,
                        conv: match conv_of(md, sf, 1) {
                            Some(Conv::StackId) | None => Conv::Label,
                            Some(c) => c,
                        },
                    });
                }
            }
        }
    }
    // Two columns of one name (a field `a_b` beside a struct `a` with a field `b`): the later
    // ones get `_2`, `_3`…
    let mut seen: HashSet<String> = HashSet::new();
    for col in &mut out {
        let base = col.name.clone();
        let mut n = 1;
        while seen.contains(&col.name) {
            n += 1;
            col.name = format!("{base}_{n}");
        }
        seen.insert(col.name.clone());
    }
    out
}

/// An event type's columns in one chunk, and where each goes in its table.
pub(super) struct Plan {
    pub(super) table: usize,
    pub(super) columns: Vec<Column>,
    /// For each column of the table, the index in `columns` that fills it (`None`: null).
    pub(super) fills: Vec<Option<usize>>,
    /// The columns that fill none of the table's (another name or type than its first
    /// chunk gave them): their values are dropped.
    pub(super) unused: Vec<usize>,
}
