//! gprofng / Sun Studio experiments as tables: `samples`, `stacks`, `functions` and
//! `load_objects` (schemas in the [crate docs](crate#experiment-tables)).
//!
//! Packets are read file by file, each data file in bounded chunks through the source's
//! [`Source::read_at`] (so memory does not grow with the experiment: give a source over
//! files a `read_at` that reads just the range), their stacks named by the caller's
//! [`Symbolizer`] and interned, so a stack is written once however many samples share it.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, Int64Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use experiment::log::FieldType;
use experiment::packets::Value;
use experiment::stacks::{FrameKind, StackId, Symbolizer};
use experiment::{Experiment, Source};

use crate::rows::{BATCH_ROWS, NULLABLE, REQUIRED, Rows, rows};
use crate::sink::BatchSink;
use crate::{Error, Result};

/// Table names, as the sink receives them.
pub mod table {
    /// One row per data packet.
    pub const SAMPLES: &str = "samples";
    /// One row per frame of each distinct stack.
    pub const STACKS: &str = "stacks";
    /// One row per function the stacks name.
    pub const FUNCTIONS: &str = "functions";
    /// One row per segment `map.xml` maps.
    pub const LOAD_OBJECTS: &str = "load_objects";
}

/// The packet fields every sample has its own column for (from `Common_packet`); the other
/// fields of the log's descriptors get a column each, named in lower case.
const COMMON_FIELDS: [&str; 5] = ["LWPID", "THRID", "CPUID", "TSTAMP", "FRINFO"];

/// A packet field's column: its name and Arrow type.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldColumn {
    field: String,
    column: String,
    data_type: DataType,
}

fn data_type(t: FieldType) -> DataType {
    match t {
        FieldType::Int32 | FieldType::Int64 => DataType::Int64,
        FieldType::Double => DataType::Float64,
        FieldType::String => DataType::Utf8,
        _ => DataType::UInt64,
    }
}

/// The packet-field columns of an experiment: every field of its log's descriptors but the
/// common ones, first type seen wins.
fn field_columns<S: Source>(exp: &Experiment<S>) -> Vec<FieldColumn> {
    let mut seen: BTreeMap<String, FieldColumn> = BTreeMap::new();
    let mut order = Vec::new();
    for d in &exp.log().packets {
        for f in &d.fields {
            if COMMON_FIELDS.contains(&f.name.as_str()) || seen.contains_key(&f.name) {
                continue;
            }
            let column = f.name.to_ascii_lowercase();
            order.push(f.name.clone());
            seen.insert(
                f.name.clone(),
                FieldColumn {
                    field: f.name.clone(),
                    column,
                    data_type: data_type(f.field_type),
                },
            );
        }
    }
    order.into_iter().filter_map(|n| seen.remove(&n)).collect()
}

fn samples_schema(fields: &[FieldColumn]) -> SchemaRef {
    let mut cols = vec![
        Field::new("experiment", DataType::Utf8, false),
        Field::new("data_file", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
        Field::new("tstamp", DataType::UInt64, false),
        Field::new("time_ns", DataType::UInt64, false),
        Field::new("thread", DataType::UInt64, false),
        Field::new("lwp", DataType::UInt64, false),
        Field::new("cpu", DataType::UInt32, false),
        Field::new("stack_id", DataType::UInt32, true),
    ];
    for f in fields {
        cols.push(Field::new(f.column.as_str(), f.data_type.clone(), true));
    }
    Arc::new(Schema::new(cols))
}

/// What an export wrote, and what it could not read.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rows per table.
    pub rows: BTreeMap<&'static str, u64>,
    /// Errors that ended the reading of a data file early (a collector killed mid-write);
    /// every packet before each was written.
    pub stopped: Vec<experiment::Error>,
}

impl Summary {
    /// Whether every packet of every data file was written.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_empty()
    }
}

/// Writes the tables of the experiment `exp`, named `name` in the `experiment` columns, to
/// `sink`; `symbols` names the stacks (give it the load objects' bytes with
/// [`Symbolizer::with_load_objects`] for native names). `progress` gets the number of packets
/// read so far.
///
/// # Errors
/// The sink's errors, and an experiment whose data files cannot be listed or read.
pub fn export<S: Source>(
    name: &str,
    exp: &Experiment<S>,
    mut symbols: Symbolizer<'_, S>,
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary> {
    let fields = field_columns(exp);
    let schema = samples_schema(&fields);
    sink.begin(table::SAMPLES, schema.clone())?;
    sink.begin(table::STACKS, stacks_schema())?;
    sink.begin(table::FUNCTIONS, functions_schema())?;
    sink.begin(table::LOAD_OBJECTS, load_objects_schema())?;
    let mut summary = Summary::default();
    let run_start = exp.log().run_start().unwrap_or(0);
    let endian = exp.endian();
    let mut samples = Samples::new(schema, &fields);
    let mut read = 0u64;
    // Each data file is streamed in bounded chunks through the source's `read_at`
    // (`Experiment::stream_packets`): memory holds one chunk and one batch of rows, whatever
    // the file's size.
    for file in exp.log().data_files() {
        // After an error reading stops for this file (its later packets are skipped); a sink
        // error ends the export.
        let mut stopped = false;
        let mut sink_error = None;
        exp.stream_packets(&file, |p| {
            if stopped {
                return;
            }
            let p = match p {
                Ok(p) => p,
                Err(e) => {
                    summary.stopped.push(e);
                    stopped = true;
                    return;
                }
            };
            let common = match p.layout.common(p.raw(), endian) {
                Ok(c) => c,
                Err(e) => {
                    summary.stopped.push(e.in_file(&file));
                    stopped = true;
                    return;
                }
            };
            let stack = (common.frinfo != 0).then(|| symbols.stack(common.frinfo, common.tstamp));
            samples.fixed.experiment.append_value(name);
            samples.fixed.data_file.append_value(&file);
            samples.fixed.kind.append_value(p.kind().name());
            samples.fixed.tstamp.append_value(common.tstamp);
            samples
                .fixed
                .time_ns
                .append_value(common.tstamp.saturating_sub(run_start));
            samples.fixed.thread.append_value(common.thr_id);
            samples.fixed.lwp.append_value(common.lwp_id);
            samples.fixed.cpu.append_value(common.cpu_id);
            samples
                .fixed
                .stack_id
                .append_option(stack.map(|StackId(id)| id));
            samples.push_fields(&fields, &p.packet);
            read += 1;
            if read % 65_536 == 0 {
                progress(read);
            }
            if samples.len >= BATCH_ROWS {
                match samples.flush(sink) {
                    Ok(rows) => add(&mut summary, table::SAMPLES, rows),
                    Err(e) => {
                        sink_error = Some(e);
                        stopped = true;
                    }
                }
            }
        })
        .map_err(Error::Experiment)?;
        if let Some(e) = sink_error {
            return Err(e);
        }
    }
    add(&mut summary, table::SAMPLES, samples.flush(sink)?);
    write_stacks(&symbols, sink, &mut summary)?;
    write_load_objects(name, exp, sink, &mut summary)?;
    Ok(summary)
}

fn add(summary: &mut Summary, table: &'static str, rows: u64) {
    *summary.rows.entry(table).or_default() += rows;
}

#[derive(Default)]
struct Fixed {
    experiment: StringBuilder,
    data_file: StringBuilder,
    kind: StringBuilder,
    tstamp: UInt64Builder,
    time_ns: UInt64Builder,
    thread: UInt64Builder,
    lwp: UInt64Builder,
    cpu: UInt32Builder,
    stack_id: UInt32Builder,
}

enum FieldBuilder {
    Int(Int64Builder),
    UInt(UInt64Builder),
    Float(Float64Builder),
    Str(StringBuilder),
}

impl FieldBuilder {
    fn new(t: &DataType) -> Self {
        match t {
            DataType::Int64 => FieldBuilder::Int(Int64Builder::new()),
            DataType::Float64 => FieldBuilder::Float(Float64Builder::new()),
            DataType::Utf8 => FieldBuilder::Str(StringBuilder::new()),
            _ => FieldBuilder::UInt(UInt64Builder::new()),
        }
    }

    fn push(&mut self, v: Option<&Value>) {
        match self {
            FieldBuilder::Int(b) => b.append_option(match v {
                Some(Value::Int(i)) => Some(*i),
                Some(Value::UInt(u)) => i64::try_from(*u).ok(),
                _ => None,
            }),
            FieldBuilder::UInt(b) => b.append_option(v.and_then(Value::as_u64)),
            FieldBuilder::Float(b) => b.append_option(match v {
                Some(Value::Double(d)) => Some(*d),
                _ => None,
            }),
            FieldBuilder::Str(b) => b.append_option(match v {
                Some(Value::Str(s)) => Some(s.as_str()),
                _ => None,
            }),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            FieldBuilder::Int(b) => Arc::new(b.finish()),
            FieldBuilder::UInt(b) => Arc::new(b.finish()),
            FieldBuilder::Float(b) => Arc::new(b.finish()),
            FieldBuilder::Str(b) => Arc::new(b.finish()),
        }
    }
}

struct Samples {
    schema: SchemaRef,
    fixed: Fixed,
    fields: Vec<FieldBuilder>,
    len: usize,
}

impl Samples {
    fn new(schema: SchemaRef, fields: &[FieldColumn]) -> Self {
        Samples {
            schema,
            fixed: Fixed::default(),
            fields: fields
                .iter()
                .map(|f| FieldBuilder::new(&f.data_type))
                .collect(),
            len: 0,
        }
    }

    /// The packet's own fields, in column order (a field its descriptor lacks is null).
    fn push_fields(&mut self, columns: &[FieldColumn], packet: &experiment::packets::Packet<'_>) {
        for (col, b) in columns.iter().zip(self.fields.iter_mut()) {
            let v = packet.get(&col.field).ok().flatten();
            b.push(v.as_ref());
        }
        self.len += 1;
    }

    fn flush(&mut self, sink: &mut dyn BatchSink) -> Result<u64> {
        let n = self.len;
        if n == 0 {
            return Ok(0);
        }
        let f = &mut self.fixed;
        let mut cols: Vec<ArrayRef> = vec![
            Arc::new(f.experiment.finish()),
            Arc::new(f.data_file.finish()),
            Arc::new(f.kind.finish()),
            Arc::new(f.tstamp.finish()),
            Arc::new(f.time_ns.finish()),
            Arc::new(f.thread.finish()),
            Arc::new(f.lwp.finish()),
            Arc::new(f.cpu.finish()),
            Arc::new(f.stack_id.finish()),
        ];
        cols.extend(self.fields.iter_mut().map(FieldBuilder::finish));
        let batch = RecordBatch::try_new(self.schema.clone(), cols)?;
        self.len = 0;
        sink.write(table::SAMPLES, batch)?;
        Ok(n as u64)
    }
}

fn frame_kind(k: FrameKind) -> &'static str {
    match k {
        FrameKind::Native => "native",
        FrameKind::Java => "java",
        FrameKind::JavaInterpreted => "java_interpreted",
        FrameKind::JavaCompiled => "java_compiled",
        FrameKind::Jni => "jni",
        FrameKind::Pseudo => "pseudo",
        #[allow(unreachable_patterns)] // FrameKind may grow
        _ => "other",
    }
}

rows! {
    /// The `stacks` table's schema.
    pub fn stacks_schema() -> StackRows in table::STACKS {
        stack_id: UInt32Builder = DataType::UInt32, REQUIRED;
        depth: UInt32Builder = DataType::UInt32, REQUIRED;
        function_id: UInt32Builder = DataType::UInt32, REQUIRED;
        function: StringBuilder = DataType::Utf8, REQUIRED;
        offset: UInt64Builder = DataType::UInt64, REQUIRED;
        line: UInt32Builder = DataType::UInt32, NULLABLE;
        frame_kind: StringBuilder = DataType::Utf8, REQUIRED;
    }
}

rows! {
    /// The `functions` table's schema.
    pub fn functions_schema() -> FunctionRows in table::FUNCTIONS {
        function_id: UInt32Builder = DataType::UInt32, REQUIRED;
        name: StringBuilder = DataType::Utf8, REQUIRED;
        load_object: StringBuilder = DataType::Utf8, NULLABLE;
        signature: StringBuilder = DataType::Utf8, NULLABLE;
    }
}

rows! {
    /// The `load_objects` table's schema.
    pub fn load_objects_schema() -> LoadObjectRows in table::LOAD_OBJECTS {
        experiment: StringBuilder = DataType::Utf8, REQUIRED;
        name: StringBuilder = DataType::Utf8, REQUIRED;
        vaddr: UInt64Builder = DataType::UInt64, REQUIRED;
        size: UInt64Builder = DataType::UInt64, REQUIRED;
        file_offset: Int64Builder = DataType::Int64, REQUIRED;
        tstamp: UInt64Builder = DataType::UInt64, REQUIRED;
    }
}

fn write_stacks<S: Source>(
    symbols: &Symbolizer<'_, S>,
    sink: &mut dyn BatchSink,
    summary: &mut Summary,
) -> Result<()> {
    let functions = symbols.functions();
    let mut rows = StackRows::default();
    for id in 0..symbols.stack_count() {
        let id = u32::try_from(id).unwrap_or(u32::MAX);
        for (depth, f) in symbols.frames(StackId(id)).iter().enumerate() {
            rows.stack_id.append_value(id);
            rows.depth
                .append_value(u32::try_from(depth).unwrap_or(u32::MAX));
            rows.function_id.append_value(f.function.0);
            let name = functions
                .get(f.function.0 as usize)
                .map_or("<Unknown>", |f| f.name.as_str());
            rows.function.append_value(name);
            rows.offset.append_value(f.offset);
            rows.line.append_option(f.line);
            rows.frame_kind.append_value(frame_kind(f.kind));
            rows.len += 1;
        }
        let n = rows.flush_if_full(sink)?;
        add(summary, table::STACKS, n);
    }
    add(summary, table::STACKS, rows.flush(sink)?);

    let mut rows = FunctionRows::default();
    for (i, f) in functions.iter().enumerate() {
        rows.function_id
            .append_value(u32::try_from(i).unwrap_or(u32::MAX));
        rows.name.append_value(&f.name);
        rows.load_object.append_option(f.load_object.as_deref());
        rows.signature.append_option(f.signature.as_deref());
        rows.len += 1;
        let n = rows.flush_if_full(sink)?;
        add(summary, table::FUNCTIONS, n);
    }
    add(summary, table::FUNCTIONS, rows.flush(sink)?);
    Ok(())
}

fn write_load_objects<S: Source>(
    name: &str,
    exp: &Experiment<S>,
    sink: &mut dyn BatchSink,
    summary: &mut Summary,
) -> Result<()> {
    let mut rows = LoadObjectRows::default();
    for s in exp.map().segments() {
        rows.experiment.append_value(name);
        rows.name.append_value(&s.name);
        rows.vaddr.append_value(s.vaddr);
        rows.size.append_value(s.size);
        rows.file_offset.append_value(s.foffset);
        rows.tstamp.append_value(s.tstamp);
        rows.len += 1;
        let n = rows.flush_if_full(sink)?;
        add(summary, table::LOAD_OBJECTS, n);
    }
    add(summary, table::LOAD_OBJECTS, rows.flush(sink)?);
    Ok(())
}
