//! A chunk: its header, its metadata, its constant pools and its events; and the sequence of
//! chunks a recording file is. A chunk cut off (a recording still being written, or a file
//! cut mid-chunk) is read by scanning its events from the start, using the metadata and
//! checkpoints found before the cut.

use std::sync::Arc;

use crate::check;
use crate::constant_pool::{Checkpoint, ConstantPools};
use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::header::{ChunkHeader, HEADER_SIZE};
use crate::metadata::Metadata;
use crate::value::{self, Value};

/// Deepest chain of constant-pool references resolved inside one value (a thread group's
/// parents, a class loader's class's loader…); a hostile pool may refer to itself.
const MAX_RESOLVE_DEPTH: usize = 64;

/// One chunk of a recording, ready to decode its events.
#[derive(Debug, Clone)]
pub struct Chunk<'a> {
    /// The chunk's header.
    pub header: ChunkHeader,
    /// The chunk's metadata (the last metadata event it holds).
    pub metadata: Arc<Metadata>,
    /// Its constant pools.
    pub pools: ConstantPools,
    /// Its checkpoint events, oldest first.
    pub checkpoints: Vec<Checkpoint>,
    data: &'a [u8],
    start: usize,
    end: usize,
    cut: Option<Error>,
}

impl<'a> Chunk<'a> {
    /// Reads the chunk that starts at `offset` in `data`: header, metadata and constant pools.
    /// A chunk the input holds only part of is read as far as it goes (see [`Chunk::cut`]).
    pub fn parse(data: &'a [u8], offset: usize) -> Result<Chunk<'a>> {
        Chunk::parse_reusing(data, offset, None)
    }

    /// [`Chunk::parse`], sharing `previous` (an earlier chunk's metadata) when this chunk's
    /// metadata event holds the same bytes, as the chunks of one recording mostly do: the
    /// metadata is then not decoded again.
    pub fn parse_reusing(
        data: &'a [u8],
        offset: usize,
        previous: Option<&Arc<Metadata>>,
    ) -> Result<Chunk<'a>> {
        let header = ChunkHeader::parse(data, offset)?;
        let compressed = header.compressed_integers();
        let declared_end = usize::try_from(header.end()).unwrap_or(usize::MAX);
        if header.chunk_size == 0 || declared_end > data.len() {
            return Chunk::salvage(data, header, previous);
        }
        let end = declared_end;
        let at = |rel: u64, what: &'static str| -> Result<usize> {
            match usize::try_from(rel) {
                Ok(rel)
                    if rel >= HEADER_SIZE && offset.checked_add(rel).is_some_and(|a| a < end) =>
                {
                    Ok(offset + rel)
                }
                _ => Err(Error::invalid(
                    what,
                    "an offset inside the chunk, past its header",
                    rel,
                    offset as u64,
                )),
            }
        };
        let md_at = at(header.metadata_offset, "metadata offset")?;
        let metadata = Metadata::parse(&mut Cursor::new(data, md_at, end, compressed), previous)?;
        let cp_at = at(header.constant_pool_offset, "constant pool offset")?;
        let (pools, checkpoints) =
            ConstantPools::read_chain(&metadata, data, offset, end, cp_at, compressed)?;
        Ok(Chunk {
            header,
            metadata,
            pools,
            checkpoints,
            data,
            start: offset,
            end,
            cut: None,
        })
    }

    /// Reads a chunk that the input holds only part of: walks its events from the header,
    /// taking the last metadata event and every checkpoint before the cut.
    fn salvage(
        data: &'a [u8],
        header: ChunkHeader,
        previous: Option<&Arc<Metadata>>,
    ) -> Result<Chunk<'a>> {
        let start = header.offset as usize;
        let compressed = header.compressed_integers();
        let mut pos = start + HEADER_SIZE;
        let mut metadata: Option<Arc<Metadata>> = None;
        let mut checkpoint_at = Vec::new();
        let cut = loop {
            let mut c = Cursor::new(data, pos, data.len(), compressed);
            if c.remaining() == 0 {
                break Error::Truncated {
                    what: "chunk",
                    offset: pos as u64,
                    needed: header
                        .chunk_size
                        .saturating_sub((pos - start) as u64)
                        .max(1),
                    available: 0,
                };
            }
            let (size, kind) = match record_head(&mut c) {
                Ok(head) => head,
                Err(e) => break e,
            };
            match kind {
                0 => match Metadata::parse(
                    &mut Cursor::new(data, pos, pos + size, compressed),
                    previous,
                ) {
                    Ok(md) => metadata = Some(md),
                    Err(e) => break e,
                },
                1 => checkpoint_at.push(pos),
                _ => {}
            }
            pos += size;
        };
        let metadata = metadata.ok_or_else(|| cut.clone())?;
        let mut pools = ConstantPools::default();
        let mut checkpoints = Vec::new();
        for at in checkpoint_at {
            let mut c = Cursor::new(data, at, data.len(), compressed);
            checkpoints.push(pools.read_checkpoint(&metadata, &mut c, true)?);
        }
        Ok(Chunk {
            header,
            metadata,
            pools,
            checkpoints,
            data,
            start,
            end: pos,
            cut: Some(cut),
        })
    }

    /// Why the chunk ends before its declared end: `Some(Truncated…)` for a chunk the input
    /// holds only part of, `None` for a whole chunk.
    #[inline]
    pub fn cut(&self) -> Option<&Error> {
        self.cut.as_ref()
    }

    /// The byte range of the chunk in the input (up to the cut, for a cut chunk).
    #[inline]
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.end
    }

    /// The input the chunk lies in.
    #[inline]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Walks every record of the chunk in file order, decoding and checking every field of
    /// every event against its class (what [`Event::validate`](crate::Event::validate) does,
    /// without building an [`Event`](crate::Event) per record), and calls `each(type id, size)` for each record, metadata and
    /// checkpoint events included. Stops at the first error; for a cut chunk, ends with its
    /// `Truncated` error. The fast path of `jfr-summary`.
    pub fn check_records(&self, mut each: impl FnMut(i64, usize)) -> Result<()> {
        let md = &*self.metadata;
        let compressed = self.header.compressed_integers();
        let mut at = self.start + HEADER_SIZE;
        while at < self.end {
            if compressed {
                if let Some((size, kind)) = check::record(md, self.data, at, self.end) {
                    each(kind, size);
                    at += size;
                    continue;
                }
            }
            // The careful path: every record the fast path is not sure of, and every record
            // of a chunk with uncompressed integers; it gives the error, if there is one.
            let mut c = Cursor::new(self.data, at, self.end, compressed);
            let (size, kind) = record_head(&mut c)?;
            if kind > 1 {
                let index = md.index_of(kind as u64).ok_or_else(|| {
                    Error::invalid(
                        "event type",
                        "a type id the chunk's metadata declares",
                        kind,
                        at as u64,
                    )
                })?;
                let mut body = Cursor::new(self.data, c.pos(), at + size, compressed);
                value::skip_event(md, &mut body, index)?;
            }
            each(kind, size);
            at += size;
        }
        match &self.cut {
            Some(cut) => Err(cut.clone()),
            None => Ok(()),
        }
    }

    /// Looks up a constant: the decoded value of entry `key` of the pool of the class at
    /// index `class` (its references left unresolved), or `Value::Null` if the pool has no
    /// such entry.
    pub fn constant(&self, class: usize, key: i64) -> Result<Value<'a>> {
        let Some(cls) = self.metadata.classes.get(class) else {
            return Ok(Value::Null);
        };
        let Some(at) = self.pools.get(cls.id, key) else {
            return Ok(Value::Null);
        };
        let mut c = Cursor::new(self.data, at, self.end, self.header.compressed_integers());
        value::read_struct(&self.metadata, &mut c, class, 0)
    }

    /// Resolves every constant-pool reference inside `value`, recursively.
    pub fn resolve(&self, value: Value<'a>) -> Result<Value<'a>> {
        self.resolve_depth(value, 0)
    }

    fn resolve_depth(&self, value: Value<'a>, depth: usize) -> Result<Value<'a>> {
        if depth > MAX_RESOLVE_DEPTH {
            return Err(Error::invalid(
                "constant-pool reference",
                "a chain of at most 64 references",
                "a longer (or circular) chain",
                self.start as u64,
            ));
        }
        Ok(match value {
            Value::Constant(r) => self.resolve_depth(self.constant(r.class, r.key)?, depth + 1)?,
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|v| self.resolve_depth(v, depth + 1))
                    .collect::<Result<_>>()?,
            ),
            Value::Object(mut o) => {
                o.fields = std::mem::take(&mut o.fields)
                    .into_iter()
                    .map(|v| self.resolve_depth(v, depth + 1))
                    .collect::<Result<_>>()?;
                Value::Object(o)
            }
            other => other,
        })
    }

    /// Converts a tick count of this chunk's clock into nanoseconds since the epoch, as the
    /// JDK converts it.
    pub fn ticks_to_epoch_nanos(&self, ticks: i64) -> i64 {
        crate::time::ticks_to_epoch_nanos(&self.header, ticks)
    }

    /// Converts a duration in this chunk's ticks into nanoseconds, as the JDK converts it.
    pub fn ticks_to_nanos(&self, ticks: i64) -> i64 {
        crate::time::ticks_to_nanos(&self.header, ticks)
    }
}

/// Reads an event's size and type id; the size is checked against what the cursor holds.
#[inline]
pub(crate) fn record_head(c: &mut Cursor<'_>) -> Result<(usize, i64)> {
    let at = c.pos();
    let size = c.int("event size")?;
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(|| Error::invalid("event size", "a positive size", size, at as u64))?;
    let kind = c.long("event type")?;
    let available = c.end() - at;
    if size > available {
        return Err(Error::Truncated {
            what: "event",
            offset: at as u64,
            needed: size as u64,
            available: available as u64,
        });
    }
    if c.pos() > at + size {
        return Err(Error::invalid(
            "event size",
            "room for the size and type fields",
            size,
            at as u64,
        ));
    }
    Ok((size, kind))
}

/// The chunks of a recording, one after another: a recording file is a sequence of
/// self-contained chunks. A cut chunk is the last one given.
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
    metadata: Option<Arc<Metadata>>,
}

impl<'a> Chunks<'a> {
    /// The chunks of the recording in `data`.
    pub fn new(data: &'a [u8]) -> Chunks<'a> {
        Chunks {
            data,
            pos: 0,
            done: false,
            metadata: None,
        }
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || (self.pos >= self.data.len() && self.pos > 0) {
            return None;
        }
        match Chunk::parse_reusing(self.data, self.pos, self.metadata.as_ref()) {
            Ok(chunk) => {
                self.metadata = Some(Arc::clone(&chunk.metadata));
                if chunk.cut.is_some() {
                    self.done = true;
                }
                self.pos = chunk.end;
                Some(Ok(chunk))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
