//! One event record: its size, its type id, then the fields its class declares, in order.
//! Decoded generically from the chunk's metadata: every field by name, arrays, nested
//! structs, strings, and references resolved through the chunk's constant pools. The records
//! of a chunk, one after another, are [`Chunk::events`] and [`Chunk::records`].

use crate::chunk::{Chunk, record_head};
use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::header::HEADER_SIZE;
use crate::metadata::Class;
use crate::value::{self, Object, Value};

/// One event of a chunk. Cheap to copy: it holds where the event lies; fields are decoded
/// when asked for.
#[derive(Debug, Clone, Copy)]
pub struct Event<'c, 'a> {
    chunk: &'c Chunk<'a>,
    offset: usize,
    size: usize,
    type_id: i64,
    body: usize,
    class: Option<usize>,
}

impl<'c, 'a> Event<'c, 'a> {
    pub(crate) fn new(
        chunk: &'c Chunk<'a>,
        offset: usize,
        size: usize,
        type_id: i64,
        body: usize,
    ) -> Self {
        let class = chunk.metadata.index_of(type_id as u64);
        Event {
            chunk,
            offset,
            size,
            type_id,
            body,
            class,
        }
    }

    /// The chunk the event belongs to.
    pub fn chunk(&self) -> &'c Chunk<'a> {
        self.chunk
    }

    /// Where the event starts in the input.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The event's size in bytes, as its size field says (what `jfr summary` adds up).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The event's type id (0 metadata, 1 checkpoint, otherwise a class id).
    pub fn type_id(&self) -> i64 {
        self.type_id
    }

    /// The event's bytes, size and type fields included.
    pub fn bytes(&self) -> &'a [u8] {
        self.chunk
            .data()
            .get(self.offset..self.offset + self.size)
            .unwrap_or_default()
    }

    /// The event's class, if the metadata declares its type id.
    pub fn class(&self) -> Option<&'c Class> {
        self.class.and_then(|i| self.chunk.metadata.classes.get(i))
    }

    /// The index of the event's class in the metadata's classes.
    pub fn class_index(&self) -> Option<usize> {
        self.class
    }

    /// The event type's name (`jdk.ExecutionSample`); `jdk.Metadata` and `jdk.CheckPoint` for
    /// types 0 and 1, as `jfr summary` names them.
    pub fn type_name(&self) -> Option<&'c str> {
        match self.type_id {
            0 => Some("jdk.Metadata"),
            1 => Some("jdk.CheckPoint"),
            _ => self.class().map(|c| c.name.as_str()),
        }
    }

    fn cursor(&self) -> Cursor<'a> {
        Cursor::new(
            self.chunk.data(),
            self.body,
            self.offset + self.size,
            self.chunk.header.compressed_integers(),
        )
    }

    fn class_or_error(&self) -> Result<(&'c Class, usize)> {
        match (self.class(), self.class) {
            (Some(c), Some(i)) => Ok((c, i)),
            _ => Err(Error::invalid(
                "event type",
                "a type id the chunk's metadata declares",
                self.type_id,
                self.offset as u64,
            )),
        }
    }

    /// Decodes every field (constant-pool references left unresolved).
    pub fn values(&self) -> Result<Object<'a>> {
        let (class, index) = self.class_or_error()?;
        let md = &self.chunk.metadata;
        let mut c = self.cursor();
        let mut fields = Vec::with_capacity(class.fields.len());
        for f in &class.fields {
            fields.push(value::read_field(md, &mut c, f, 0)?);
        }
        Ok(Object {
            class: index,
            fields,
        })
    }

    /// Decodes every field with every constant-pool reference resolved.
    pub fn resolved(&self) -> Result<Object<'a>> {
        let mut o = self.values()?;
        o.fields = std::mem::take(&mut o.fields)
            .into_iter()
            .map(|v| self.chunk.resolve(v))
            .collect::<Result<_>>()?;
        Ok(o)
    }

    /// Decodes and checks every field, building nothing: what `jfr-summary` does to find a
    /// damaged event rather than only count it.
    pub fn validate(&self) -> Result<()> {
        let (_, index) = self.class_or_error()?;
        let md = &self.chunk.metadata;
        let mut c = self.cursor();
        value::skip_event(md, &mut c, index)
    }

    /// The value of the field named `name`, resolved; `None` if the type has no such field.
    pub fn get(&self, name: &str) -> Result<Option<Value<'a>>> {
        let (class, _) = self.class_or_error()?;
        let Some(index) = class.field_index(name) else {
            return Ok(None);
        };
        let md = &self.chunk.metadata;
        let mut c = self.cursor();
        for f in class.fields.iter().take(index) {
            value::skip_field(md, &mut c, f, 0)?;
        }
        let Some(f) = class.fields.get(index) else {
            return Ok(None);
        };
        let v = value::read_field(md, &mut c, f, 0)?;
        self.chunk.resolve(v).map(Some)
    }

    /// The field named `name` as an integer (unresolved: a constant's key).
    pub fn get_i64(&self, name: &str) -> Result<Option<i64>> {
        let (class, _) = self.class_or_error()?;
        let Some(index) = class.field_index(name) else {
            return Ok(None);
        };
        let md = &self.chunk.metadata;
        let mut c = self.cursor();
        for f in class.fields.iter().take(index) {
            value::skip_field(md, &mut c, f, 0)?;
        }
        let Some(f) = class.fields.get(index) else {
            return Ok(None);
        };
        Ok(match value::read_field(md, &mut c, f, 0)? {
            Value::Constant(r) => Some(r.key),
            v => v.as_i64(),
        })
    }

    /// The start and end of the event in ticks (`startTime`, and `startTime + duration` for
    /// types with a duration); what `jfr print` orders a chunk's events by.
    pub fn start_end_ticks(&self) -> Result<(i64, i64)> {
        let (class, _) = self.class_or_error()?;
        let md = &self.chunk.metadata;
        let mut c = self.cursor();
        let (mut start, mut duration) = (None, 0i64);
        for f in class.fields.iter().take(2) {
            let v = value::read_field(md, &mut c, f, 0)?;
            match f.name.as_str() {
                "startTime" => start = v.as_i64(),
                "duration" => duration = v.as_i64().unwrap_or(0),
                _ => {}
            }
        }
        let start = start.unwrap_or(0);
        Ok((start, start.wrapping_add(duration)))
    }
}

impl<'a> Chunk<'a> {
    /// Every event of the chunk in file order (metadata and checkpoint events left out). For
    /// a cut chunk, the last item is the `Truncated` error saying where it was cut.
    pub fn events(&self) -> Events<'_, 'a> {
        Events {
            chunk: self,
            pos: self.range().start + HEADER_SIZE,
            done: false,
            all: false,
        }
    }

    /// Every record of the chunk in file order, metadata (type 0) and checkpoint (type 1)
    /// events included.
    pub fn records(&self) -> Events<'_, 'a> {
        Events {
            chunk: self,
            pos: self.range().start + HEADER_SIZE,
            done: false,
            all: true,
        }
    }
}

/// The events of a chunk, in file order (see [`Chunk::events`]).
#[derive(Debug, Clone)]
pub struct Events<'c, 'a> {
    chunk: &'c Chunk<'a>,
    pos: usize,
    done: bool,
    all: bool,
}

impl<'c, 'a> Iterator for Events<'c, 'a> {
    type Item = Result<Event<'c, 'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let chunk = self.chunk;
            let end = chunk.range().end;
            if self.pos >= end {
                self.done = true;
                return chunk.cut().cloned().map(Err);
            }
            let mut c = Cursor::new(
                chunk.data(),
                self.pos,
                end,
                chunk.header.compressed_integers(),
            );
            let (size, kind) = match record_head(&mut c) {
                Ok(head) => head,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let offset = self.pos;
            self.pos += size;
            if !self.all && (kind == 0 || kind == 1) {
                continue;
            }
            return Some(Ok(Event::new(chunk, offset, size, kind, c.pos())));
        }
    }
}
