//! One chunk's events as rows: each event type's plan (its columns and where they go in its
//! table), constants resolved once per chunk, stack traces given their ids, values converted
//! to cells.

use std::borrow::Cow;
use std::collections::HashMap;

use ::jfr::{Chunk, Duration, Timestamp, Value};

use super::MAX_UNWRAP;
use super::Stop;
use super::builder::Cell;
use super::columns::{Column, Conv, Plan, columns};
use super::tables::Tables;
use crate::rows::BATCH_ROWS;

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

/// The state of reading one chunk: plans per event type, stack ids and resolved constants.
pub(super) struct ChunkReader<'c, 'a> {
    chunk: &'c Chunk<'a>,
    /// By class index (at most the metadata's classes).
    plans: Vec<Option<Plan>>,
    stack_ids: HashMap<i64, Option<u64>, KeyHasher>,
    constants: HashMap<(usize, i64), Value<'a>, KeyHasher>,
    row: Vec<Cell<'a>>,
}

impl<'c, 'a> ChunkReader<'c, 'a> {
    /// A reader of `chunk`, nothing resolved yet.
    pub(super) fn new(chunk: &'c Chunk<'a>) -> Self {
        ChunkReader {
            chunk,
            plans: Vec::new(),
            stack_ids: HashMap::default(),
            constants: HashMap::default(),
            row: Vec::new(),
        }
    }

    pub(super) fn event(
        &mut self,
        ex: &mut Tables<'_>,
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
    fn plan(&self, ex: &mut Tables<'_>, class: usize) -> std::result::Result<Plan, Stop> {
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
        ex: &mut Tables<'_>,
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
