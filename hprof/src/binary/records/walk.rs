//! The records of a whole file held in memory, one after another ([`Records`], over the walk of
//! their framing, `RecordBodies`, which the readers that decode bodies themselves share),
//! salvaging what a cut-off file holds, and the file-level judgement of a whole dump
//! ([`Wholeness`]).

use super::framing::{RECORD_HEADER_LEN, RecordHeader, UnknownTags};
use super::model::Record;
use super::parse::parse_body;
use super::tags::{is_known_tag, record_what, tag};
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::header::Header;
use crate::binary::types::IdSize;

/// A lazy, fallible iterator over the top-level records of a whole file held in memory.
///
/// Yields each record with its framing; stops at the end of the input or after the first
/// error.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    bodies: RecordBodies<'a>,
}

impl<'a> Records<'a> {
    /// Iterates over the records of `data` (a whole file, header included).
    ///
    /// # Errors
    /// Header errors (see [`Header::parse`]).
    pub fn parse(data: &'a [u8]) -> Result<(Header, Records<'a>)> {
        let (header, len) = Header::parse(data)?;
        let rest = data.get(len..).unwrap_or_default();
        Ok((
            header,
            Records::after_header(rest, len as u64, header.id_size),
        ))
    }

    /// Iterates over records in `data`, which starts at file offset `offset` (after a header).
    pub fn after_header(data: &'a [u8], offset: u64, id_size: IdSize) -> Records<'a> {
        Records {
            bodies: RecordBodies::after_header(data, offset, id_size),
        }
    }

    /// Reads as much as possible of a file that may be cut off, and checks that it is whole:
    /// a `HEAP_DUMP`/`HEAP_DUMP_SEGMENT` record that runs past the end of the input is yielded
    /// with the bytes present as its body (its last sub-record is then incomplete), followed
    /// by an [`Error::PastEnd`] saying how many bytes are missing; at the end of the input, a
    /// file with no record after its header, or with `HEAP_DUMP_SEGMENT`s but no
    /// `HEAP_DUMP_END` after them, yields an [`Error::Truncated`].
    pub fn salvaging(self) -> Records<'a> {
        Records {
            bodies: self.bodies.salvaging(),
        }
    }

    /// Sets what to do with unknown top-level tags (default: [`UnknownTags::Surface`]).
    pub fn unknown_tags(self, policy: UnknownTags) -> Records<'a> {
        Records {
            bodies: self.bodies.unknown_tags(policy),
        }
    }

    /// File offset of the next record.
    pub fn offset(&self) -> u64 {
        self.bodies.offset()
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(RecordHeader, Record<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let (header, body) = match self.bodies.next()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let record = parse_body(&header, body, self.bodies.c.id_size());
        if record.is_err() {
            self.bodies.done = true;
        }
        Some(record.map(|r| (header, r)))
    }
}

/// The walk over the framing of the top-level records of a whole file held in memory: each
/// record's header and body bytes, its body not decoded (that is
/// [`parse_body`](super::parse_body)'s job, or [`Records`]'s). A reader that decodes some
/// bodies itself walks the file through this, so every reader frames records, salvages a
/// cut-off heap dump and judges a file whole in the same way.
///
/// Stops at the end of the input or after the first error (a body that does not decode is
/// not one: its framing is intact).
#[derive(Debug, Clone)]
pub(crate) struct RecordBodies<'a> {
    c: Cursor<'a>,
    unknown: UnknownTags,
    done: bool,
    salvage: bool,
    /// The error to yield after a heap dump cut off by the end of the input (salvage mode).
    pending: Option<Error>,
    /// What the end-of-file checks need.
    whole: Wholeness,
}

impl<'a> RecordBodies<'a> {
    /// Iterates over records in `data`, which starts at file offset `offset` (after a header).
    pub(crate) fn after_header(data: &'a [u8], offset: u64, id_size: IdSize) -> RecordBodies<'a> {
        RecordBodies {
            c: Cursor::new(data, offset, id_size),
            unknown: UnknownTags::Surface,
            done: false,
            salvage: false,
            pending: None,
            whole: Wholeness::default(),
        }
    }

    /// Reads as much as possible of a file that may be cut off, and checks that it is whole:
    /// a `HEAP_DUMP`/`HEAP_DUMP_SEGMENT` record that runs past the end of the input is yielded
    /// with the bytes present as its body (its last sub-record is then incomplete), followed
    /// by an [`Error::PastEnd`] saying how many bytes are missing; at the end of the input, a
    /// file with no record after its header, or with `HEAP_DUMP_SEGMENT`s but no
    /// `HEAP_DUMP_END` after them, yields an [`Error::Truncated`].
    pub(crate) fn salvaging(mut self) -> RecordBodies<'a> {
        self.salvage = true;
        self
    }

    /// Sets what to do with unknown top-level tags (default: [`UnknownTags::Surface`]).
    pub(crate) fn unknown_tags(mut self, policy: UnknownTags) -> RecordBodies<'a> {
        self.unknown = policy;
        self
    }

    /// File offset of the next record.
    pub(crate) fn offset(&self) -> u64 {
        self.c.offset()
    }

    fn next_record(&mut self) -> Result<Option<(RecordHeader, &'a [u8])>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        loop {
            if self.c.is_empty() {
                if self.salvage {
                    self.whole.check(self.c.offset())?;
                }
                return Ok(None);
            }
            let header = RecordHeader::parse(&mut self.c)?;
            let len = header.length as usize;
            let body = match self.c.bytes(len, "a record body") {
                Ok(body) => body,
                Err(e) if !self.salvage => return Err(e),
                Err(_) => {
                    let body = self.c.rest();
                    let _ = self.c.skip(body.len(), "a record body");
                    let cut = |at| Error::PastEnd {
                        offset: header.offset,
                        at,
                        what: record_what(header.tag),
                        needed: RECORD_HEADER_LEN as u64 + u64::from(header.length),
                        available: (RECORD_HEADER_LEN + body.len()) as u64,
                    };
                    if !header.is_heap_dump() {
                        return Err(cut(header.offset));
                    }
                    // The sub-records present are still worth reading.
                    self.pending = Some(cut(self.c.offset()));
                    body
                }
            };
            self.whole.see(header.tag);
            if !is_known_tag(header.tag) {
                match self.unknown {
                    UnknownTags::Surface => {}
                    UnknownTags::Skip => continue,
                    UnknownTags::Error => {
                        return Err(Error::UnknownTag {
                            offset: header.offset,
                            tag: header.tag,
                        });
                    }
                }
            }
            return Ok(Some((header, body)));
        }
    }
}

impl<'a> Iterator for RecordBodies<'a> {
    type Item = Result<(RecordHeader, &'a [u8])>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The file-level judgement of "whole" that every reader of a dump shares: a file holds at
/// least one record after its header, and `HEAP_DUMP_SEGMENT`s are closed by a `HEAP_DUMP_END`.
/// Feed it every top-level record's tag with [`see`](Wholeness::see), then ask
/// [`check`](Wholeness::check) at the end of the input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wholeness {
    /// Top-level records seen.
    records: u64,
    /// A `HEAP_DUMP_SEGMENT` was seen and no `HEAP_DUMP_END` after it yet.
    segments_open: bool,
}

impl Wholeness {
    /// Counts one top-level record of tag `t`.
    pub fn see(&mut self, t: u8) {
        self.records += 1;
        match t {
            tag::HEAP_DUMP_SEGMENT => self.segments_open = true,
            tag::HEAP_DUMP_END => self.segments_open = false,
            _ => {}
        }
    }

    /// Top-level records seen so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The end-of-file checks, the input having ended at file offset `end`.
    ///
    /// # Errors
    /// [`Error::Truncated`] for a file that holds only its header, or whose
    /// `HEAP_DUMP_SEGMENT`s have no `HEAP_DUMP_END` after them.
    pub fn check(&self, end: u64) -> Result<()> {
        if self.records == 0 {
            return Err(Error::Truncated {
                offset: end,
                expected: "a record after the file header (the file holds only its header)",
                needed: RECORD_HEADER_LEN as u64,
            });
        }
        if self.segments_open {
            return Err(Error::Truncated {
                offset: end,
                expected: "the HEAP_DUMP_END record that ends the HEAP_DUMP_SEGMENTs",
                needed: RECORD_HEADER_LEN as u64,
            });
        }
        Ok(())
    }
}
