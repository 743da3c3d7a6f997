//! JDK Flight Recorder recordings as tables: one table per event type the recording holds,
//! its fields as columns, and the stack traces as `stacks` and `stack_frames` (schemas in the
//! [crate docs](crate#jfr-tables)).
//!
//! The tables are decided by each recording's own metadata, chunk by chunk: an event type
//! gets its table the first time one of its events is read. A recording is read one chunk at
//! a time ([`Exporter::chunk`]), so memory is bounded by the largest chunk (and a batch of
//! rows per table), never by the recording: stack ids and resolved constants are kept for the
//! chunk being read only.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{
    BooleanBuilder, DurationNanosecondBuilder, Float32Builder, Float64Builder, Int8Builder,
    Int16Builder, Int32Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
    UInt8Builder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use ::jfr::{Chunk, Duration, FieldKind, Metadata, Timestamp, Unit, Value};

use crate::rows::{BATCH_ROWS, REQUIRED, Rows, rows};
use crate::sink::BatchSink;
use crate::{Error, Result};

/// The names of the tables every export has; event tables are named after their type.
pub mod table {
    /// One row per distinct stack trace of each chunk.
    pub const STACKS: &str = "stacks";
    /// One row per frame of each stack trace.
    pub const STACK_FRAMES: &str = "stack_frames";
}

/// The class name of stack-trace constants: a field of this class is a key into `stacks`.
const STACK_TRACE_CLASS: &str = "jdk.types.StackTrace";

/// Most levels of one-field structs unwrapped, and of constants followed for a label.
const MAX_UNWRAP: usize = 8;

/// The table an event type is written to: its name with every character other than an ASCII
/// letter, digit or `_` replaced by `_` (`jdk.ExecutionSample` → `jdk_ExecutionSample`), and
/// `event_` before a name that does not start with a letter (engines skip folders whose name
/// starts with `_` or `.`). [`Exporter`] adds `_2`, `_3`… to a name already taken by another
/// type or by `stacks` and `stack_frames`.
pub fn table_name(event_type: &str) -> String {
    let name: String = event_type
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("event_{name}")
    }
}

/// What an export wrote, and what it could not read.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rows per table.
    pub rows: BTreeMap<String, u64>,
    /// The table of each event type written (`jdk.ExecutionSample` → `jdk_ExecutionSample`).
    pub tables: BTreeMap<String, String>,
    /// Chunks read (a cut chunk included).
    pub chunks: u64,
    /// Events skipped because the metadata declares no type for them.
    pub undeclared_events: u64,
    /// Values left out because a later chunk's metadata declares their field differently
    /// (another type, or a field the table's first chunk did not have): the table keeps the
    /// columns of the first chunk that held its type.
    pub mismatched_values: u64,
    /// Why reading stopped before the end of the recording (a recording cut mid-chunk, or
    /// damage), with its byte offset in the recording; every event before it was written.
    pub stopped: Option<::jfr::Error>,
}

impl Summary {
    /// Whether every event of the recording was written.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none()
    }
}

/// Writes the tables of the recording `data` (a whole `.jfr` file, every chunk) to `sink`;
/// `progress` gets the bytes read so far after each chunk. To keep only one chunk in memory
/// at a time, read the chunks yourself and give them to an [`Exporter`].
///
/// # Errors
/// [`Error::Jfr`] when the first chunk does not decode (not a recording: no chunk header,
/// or not even its metadata), and the sink's errors. A recording cut off or damaged after
/// that is not an error: the summary says where reading stopped ([`Summary::stopped`]).
pub fn export(
    data: &[u8],
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary> {
    let mut chunks = ::jfr::Chunks::new(data);
    let first = match chunks.next() {
        Some(Ok(c)) => c,
        Some(Err(e)) => return Err(Error::Jfr(e)),
        None => {
            return Err(Error::Jfr(::jfr::Error::Truncated {
                what: "chunk header",
                offset: 0,
                needed: ::jfr::HEADER_SIZE as u64,
                available: 0,
            }));
        }
    };
    let mut exporter = Exporter::new(sink)?;
    exporter.chunk(&first, 0)?;
    progress(first.range().end as u64);
    for chunk in chunks {
        if exporter.stopped().is_some() {
            break;
        }
        match chunk {
            Ok(c) => {
                exporter.chunk(&c, 0)?;
                progress(c.range().end as u64);
            }
            Err(e) => {
                exporter.stop(e);
                break;
            }
        }
    }
    exporter.finish()
}

/// Writes the chunks of a recording it is given, one at a time, to a sink: read each chunk's
/// bytes (its header gives its size) into a buffer, parse it there, hand it over with the
/// offset it had in the file, and only one chunk is in memory at a time.
///
/// ```
/// use columnar::{MemorySink, jfr::Exporter};
///
/// // One chunk read from a file (here built by hand: one `demo.Tick` event).
/// let buffer = ::jfr::testing::tiny_recording();
/// let mut sink = MemorySink::new();
/// let mut exporter = Exporter::new(&mut sink)?;
/// for (offset, chunk) in [(0, ::jfr::Chunk::parse(&buffer, 0))] {
///     match chunk {
///         Ok(chunk) => exporter.chunk(&chunk, offset)?,
///         Err(e) => exporter.stop(e.with_base(offset)),
///     }
/// }
/// let summary = exporter.finish()?;
/// assert!(summary.is_complete());
/// assert_eq!(summary.tables["demo.Tick"], "demo_Tick");
/// assert_eq!(sink.rows("demo_Tick"), 1);
/// # Ok::<(), columnar::Error>(())
/// ```
pub struct Exporter<'s> {
    sink: &'s mut dyn BatchSink,
    tables: Vec<Table>,
    by_type: HashMap<String, usize>,
    taken: HashSet<String>,
    stacks: StackRows,
    frames: FrameRows,
    next_stack: u64,
    summary: Summary,
}

impl std::fmt::Debug for Exporter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

impl<'s> Exporter<'s> {
    /// An exporter writing to `sink`; announces `stacks` and `stack_frames`.
    ///
    /// # Errors
    /// The sink's.
    pub fn new(sink: &'s mut dyn BatchSink) -> Result<Self> {
        sink.begin(table::STACKS, stacks_schema())?;
        sink.begin(table::STACK_FRAMES, stack_frames_schema())?;
        let mut summary = Summary::default();
        summary.rows.insert(table::STACKS.to_owned(), 0);
        summary.rows.insert(table::STACK_FRAMES.to_owned(), 0);
        let taken = [table::STACKS, table::STACK_FRAMES]
            .into_iter()
            .map(str::to_owned)
            .collect();
        Ok(Exporter {
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

    /// Why reading stopped, once it has: later chunks are not read.
    pub fn stopped(&self) -> Option<&::jfr::Error> {
        self.summary.stopped.as_ref()
    }

    /// Records why reading stopped (a chunk that does not parse, a file that cannot be read
    /// further); later chunks are not read.
    pub fn stop(&mut self, reason: ::jfr::Error) {
        self.summary.stopped.get_or_insert(reason);
    }

    /// Writes every event of `chunk`, which starts at byte `offset` of the recording (added to
    /// the offsets of errors; 0 for a chunk parsed from the whole recording). An event that
    /// does not decode (the cut of a cut chunk, or damage) stops reading: every event before
    /// it is written, and [`Exporter::stopped`] says why.
    ///
    /// # Errors
    /// The sink's.
    pub fn chunk(&mut self, chunk: &Chunk<'_>, offset: u64) -> Result<()> {
        if self.summary.stopped.is_some() {
            return Ok(());
        }
        self.summary.chunks += 1;
        let mut reader = ChunkReader {
            chunk,
            plans: Vec::new(),
            stack_ids: HashMap::default(),
            constants: HashMap::default(),
            row: Vec::new(),
        };
        for event in chunk.events() {
            let result = event
                .map_err(Stop::Jfr)
                .and_then(|e| reader.event(self, &e));
            match result {
                Ok(()) => {}
                Err(Stop::Jfr(e)) => {
                    self.stop(e.with_base(offset));
                    break;
                }
                Err(Stop::Sink(e)) => return Err(e),
            }
        }
        // The rows of the chunk leave with it: memory is bounded by a chunk's rows, however
        // many event tables the recording has and however long it is.
        for i in 0..self.tables.len() {
            self.flush_table(i)?;
        }
        Ok(())
    }

    /// Sends the rows not yet sent and returns what was written.
    ///
    /// # Errors
    /// The sink's.
    pub fn finish(mut self) -> Result<Summary> {
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
    fn table_for(&mut self, name: &str, columns: &[Column]) -> Result<usize> {
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

    fn flush_table(&mut self, i: usize) -> Result<()> {
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
    fn add_stack(&mut self, chunk: &Chunk<'_>, key: i64) -> std::result::Result<Option<u64>, Stop> {
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

/// Why an event could not be written: the recording (reading stops) or the sink (the
/// export fails).
enum Stop {
    Jfr(::jfr::Error),
    Sink(Error),
}

impl From<::jfr::Error> for Stop {
    fn from(e: ::jfr::Error) -> Stop {
        Stop::Jfr(e)
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Sink(e)
    }
}

/// One event table being filled.
struct Table {
    name: String,
    schema: SchemaRef,
    builders: Vec<Builder>,
    len: usize,
}

/// How a column's values are made from a field's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conv {
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
    fn data_type(self) -> DataType {
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
struct Column {
    name: String,
    path: [usize; 2],
    depth: usize,
    conv: Conv,
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
fn columns(md: &Metadata, class: usize) -> Vec<Column> {
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
struct Plan {
    table: usize,
    columns: Vec<Column>,
    /// For each column of the table, the index in `columns` that fills it (`None`: null).
    fills: Vec<Option<usize>>,
    /// The columns that fill none of the table's (another name or type than its first
    /// chunk gave them): their values are dropped.
    unused: Vec<usize>,
}

/// Hashes the integer keys of the per-chunk maps (pool keys, class indexes) with a folded
/// multiplication seeded per map from the standard library's random state: SipHash's cost
/// showed in profiles, and keys come from the recording, so the hash still depends on a
/// secret seed and on every bit of the key.
#[derive(Clone)]
struct KeyHasher {
    seed: u64,
}

impl Default for KeyHasher {
    fn default() -> Self {
        use std::hash::BuildHasher;
        KeyHasher {
            seed: std::collections::hash_map::RandomState::new().hash_one(0x006a_6672_u64),
        }
    }
}

impl std::hash::BuildHasher for KeyHasher {
    type Hasher = MulHasher;
    fn build_hasher(&self) -> MulHasher {
        MulHasher(self.seed)
    }
}

struct MulHasher(u64);

impl std::hash::Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        let product = u128::from(self.0 ^ n) * 0x9e37_79b9_7f4a_7c15_u128;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// One value of a row, before it is appended.
enum Cell<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Text(Cow<'a, str>),
}

/// The state of reading one chunk: plans per event type, stack ids and resolved constants.
struct ChunkReader<'c, 'a> {
    chunk: &'c Chunk<'a>,
    /// By class index (at most the metadata's classes).
    plans: Vec<Option<Plan>>,
    stack_ids: HashMap<i64, Option<u64>, KeyHasher>,
    constants: HashMap<(usize, i64), Value<'a>, KeyHasher>,
    row: Vec<Cell<'a>>,
}

impl<'a> ChunkReader<'_, 'a> {
    fn event(
        &mut self,
        ex: &mut Exporter<'_>,
        event: &::jfr::Event<'_, 'a>,
    ) -> std::result::Result<(), Stop> {
        let Some(class) = event.class_index() else {
            ex.summary.undeclared_events += 1;
            return Ok(());
        };
        // The plan is taken out while the row is made (and put back after: an error ends
        // the chunk's reading anyway).
        let plan = match self.plans.get_mut(class).and_then(Option::take) {
            Some(p) => p,
            None => self.plan(ex, class)?,
        };
        let values = event.values()?;
        self.row.clear();
        // The columns of one struct field follow each other: it is resolved once for them.
        let mut top: Option<(usize, Value<'a>)> = None;
        for col in &plan.columns {
            let cell = self.cell(ex, &values.fields, col, &mut top)?;
            self.row.push(cell);
        }
        let table = plan.table;
        if self.plans.len() <= class {
            self.plans.resize_with(class + 1, || None);
        }
        let Some(slot) = self.plans.get_mut(class) else {
            return Ok(());
        };
        let plan = slot.insert(plan);
        let Some(t) = ex.tables.get_mut(table) else {
            return Ok(());
        };
        let mut mismatched = plan
            .unused
            .iter()
            .filter(|&&k| !matches!(self.row.get(k), Some(Cell::Null) | None))
            .count() as u64;
        for (b, fill) in t.builders.iter_mut().zip(&plan.fills) {
            let cell = fill.and_then(|k| self.row.get(k)).unwrap_or(&Cell::Null);
            if !b.append(cell) {
                mismatched += 1;
            }
        }
        t.len += 1;
        ex.summary.mismatched_values += mismatched;
        if t.len >= BATCH_ROWS {
            ex.flush_table(table)?;
        }
        Ok(())
    }

    /// The columns of the event type at `class` in this chunk, and its table (made from them
    /// if it is the type's first event).
    fn plan(&self, ex: &mut Exporter<'_>, class: usize) -> std::result::Result<Plan, Stop> {
        let md = &self.chunk.metadata;
        let name = md.classes.get(class).map_or("", |c| c.name.as_str());
        let columns = columns(md, class);
        let table = ex.table_for(name, &columns)?;
        let fills = match ex.tables.get(table) {
            Some(t) => t
                .schema
                .fields()
                .iter()
                .map(|f| {
                    columns
                        .iter()
                        .position(|c| c.name == *f.name() && c.conv.data_type() == *f.data_type())
                })
                .collect(),
            None => Vec::new(),
        };
        let unused = (0..columns.len())
            .filter(|k| !fills.contains(&Some(*k)))
            .collect();
        Ok(Plan {
            table,
            columns,
            fills,
            unused,
        })
    }

    /// A constant, decoded once per chunk.
    fn constant(&mut self, class: usize, key: i64) -> std::result::Result<&Value<'a>, Stop> {
        if !self.constants.contains_key(&(class, key)) {
            let v = self.chunk.constant(class, key)?;
            self.constants.insert((class, key), v);
        }
        Ok(self.constants.get(&(class, key)).unwrap_or(&Value::Null))
    }

    /// `v`, or the constant it refers to.
    fn resolved(&mut self, v: &Value<'a>) -> std::result::Result<Value<'a>, Stop> {
        match v {
            Value::Constant(r) => Ok(self.constant(r.class, r.key)?.clone()),
            v => Ok(v.clone()),
        }
    }

    fn cell(
        &mut self,
        ex: &mut Exporter<'_>,
        fields: &[Value<'a>],
        col: &Column,
        top: &mut Option<(usize, Value<'a>)>,
    ) -> std::result::Result<Cell<'a>, Stop> {
        let [i, j] = col.path;
        let Some(field) = fields.get(i) else {
            return Ok(Cell::Null);
        };
        if col.conv == Conv::StackId && col.depth == 1 {
            let key = match field {
                Value::Constant(r) => r.key,
                v => match v.as_i64() {
                    Some(k) => k,
                    None => return Ok(Cell::Null),
                },
            };
            let id = match self.stack_ids.get(&key) {
                Some(&id) => id,
                None => {
                    let id = ex.add_stack(self.chunk, key)?;
                    self.stack_ids.insert(key, id);
                    id
                }
            };
            return Ok(id.map_or(Cell::Null, Cell::UInt));
        }
        let value = if col.depth == 1 {
            self.resolved(field)?
        } else {
            if !matches!(top, Some((at, _)) if *at == i) {
                *top = Some((i, self.resolved(field)?));
            }
            match top {
                Some((_, Value::Object(o))) => match o.fields.get(j) {
                    Some(v) => {
                        let v = v.clone();
                        self.resolved(&v)?
                    }
                    None => Value::Null,
                },
                _ => Value::Null,
            }
        };
        self.convert(col.conv, value)
    }

    fn convert(&mut self, conv: Conv, value: Value<'a>) -> std::result::Result<Cell<'a>, Stop> {
        let h = &self.chunk.header;
        if conv == Conv::Label {
            return Ok(self.label(value, 0)?.map_or(Cell::Null, Cell::Text));
        }
        let value = self.unwrap_one(value)?;
        Ok(match (conv, value) {
            (_, Value::Null) => Cell::Null,
            (Conv::Boolean, Value::Boolean(b)) => Cell::Bool(b),
            (Conv::Float | Conv::Double, v) => v.as_f64().map_or(Cell::Null, Cell::Float),
            (Conv::Text, Value::String(s)) => Cell::Text(s),
            (Conv::Text, Value::Char(c)) => Cell::Text(Cow::Owned(String::from_utf16_lossy(&[c]))),
            (Conv::Int { bits, unsigned }, v) => match v.as_i64() {
                Some(n) if unsigned => Cell::UInt(match bits {
                    8 => u64::from(n as u8),
                    16 => u64::from(n as u16),
                    32 => u64::from(n as u32),
                    _ => n as u64,
                }),
                Some(n) => Cell::Int(n),
                None => Cell::Null,
            },
            (Conv::Timestamp(unit), v) => {
                match v.as_i64().and_then(|n| Timestamp::of_field(h, unit, n, 0)) {
                    Some(Timestamp {
                        epoch_nanos: Some(ns),
                        ..
                    }) => i64::try_from(ns.div_euclid(1000)).map_or(Cell::Null, Cell::Int),
                    _ => Cell::Null,
                }
            }
            (Conv::Timespan(unit), v) => match v.as_i64() {
                Some(i64::MIN) | None => Cell::Null,
                Some(n) => {
                    Duration::of_field(h, unit, n).map_or(Cell::Null, |d| Cell::Int(d.as_nanos()))
                }
            },
            (Conv::StackId, v) => v.as_i64().map_or(Cell::Null, Cell::Int),
            _ => Cell::Null,
        })
    }

    /// The one field of a one-field struct, recursively.
    fn unwrap_one(&mut self, mut value: Value<'a>) -> std::result::Result<Value<'a>, Stop> {
        for _ in 0..MAX_UNWRAP {
            value = match value {
                Value::Constant(r) => self.constant(r.class, r.key)?.clone(),
                Value::Object(o) if o.fields.len() == 1 => {
                    o.fields.into_iter().next().unwrap_or(Value::Null)
                }
                v => return Ok(v),
            };
        }
        Ok(value)
    }

    /// A struct or constant as text: its `name` field, else its one field; numbers and
    /// strings as they are; an array as `[a, b]`.
    fn label(
        &mut self,
        value: Value<'a>,
        depth: usize,
    ) -> std::result::Result<Option<Cow<'a, str>>, Stop> {
        if depth > MAX_UNWRAP {
            return Ok(None);
        }
        Ok(match value {
            Value::Null => None,
            Value::Constant(r) => {
                let v = self.constant(r.class, r.key)?.clone();
                self.label(v, depth + 1)?
            }
            Value::String(s) => Some(s),
            Value::Boolean(b) => Some(Cow::Borrowed(if b { "true" } else { "false" })),
            Value::Char(c) => Some(Cow::Owned(String::from_utf16_lossy(&[c]))),
            Value::Float(x) => Some(Cow::Owned(x.to_string())),
            Value::Double(x) => Some(Cow::Owned(x.to_string())),
            Value::Array(items) => {
                let mut out = String::from("[");
                for (k, item) in items.into_iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    if let Some(s) = self.label(item, depth + 1)? {
                        out.push_str(&s);
                    } else {
                        out.push_str("null");
                    }
                }
                out.push(']');
                Some(Cow::Owned(out))
            }
            Value::Object(o) => {
                let md = &self.chunk.metadata;
                let name_at = md.classes.get(o.class).and_then(|c| c.field_index("name"));
                let pick = match (name_at, o.fields.len()) {
                    (Some(k), _) => o.fields.into_iter().nth(k),
                    (None, 1) => o.fields.into_iter().next(),
                    _ => None,
                };
                match pick {
                    Some(v) => self.label(v, depth + 1)?,
                    None => None,
                }
            }
            v => v.as_i64().map(|n| Cow::Owned(n.to_string())),
        })
    }
}

/// A column's Arrow builder.
enum Builder {
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
    fn new(t: &DataType) -> Builder {
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
    fn append(&mut self, c: &Cell<'_>) -> bool {
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

    fn finish(&mut self) -> ArrayRef {
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

#[cfg(test)]
mod tests {
    use super::table_name;

    #[test]
    fn table_names_are_folder_names_engines_read() {
        assert_eq!(table_name("jdk.ExecutionSample"), "jdk_ExecutionSample");
        assert_eq!(
            table_name("com.example.My-Event$1"),
            "com_example_My_Event_1"
        );
        assert_eq!(table_name("_SUCCESS"), "event__SUCCESS");
        assert_eq!(table_name(".hidden"), "event__hidden");
        assert_eq!(table_name("1x"), "event_1x");
        assert_eq!(table_name(""), "event_");
    }
}
