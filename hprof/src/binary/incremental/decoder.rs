//! The incremental decoder: state only, no buffer.

use super::event::{Event, Status};
use super::visit::{Fork, Visit, sub_records_into, sub_records_pair};
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::header::{Header, MAX_HEADER_LEN};
use crate::binary::heap_dump::{parse_sub_record, sub_record_what};
use crate::binary::records::{
    RECORD_HEADER_LEN, RecordHeader, UnknownTags, Wholeness, is_known_tag, parse_body, record_what,
};
use crate::binary::types::IdSize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Header,
    Records,
    HeapDump {
        header: RecordHeader,
        remaining: u64,
    },
    Skip {
        remaining: u64,
    },
}

/// The incremental decoder: state only, no buffer.
///
/// ```
/// use hprof::binary::incremental::{Decoder, Event, Status};
/// # let mut file = Vec::new();
/// # hprof::binary::Header { version: hprof::binary::Version::V1_0_2,
/// #     id_size: hprof::binary::IdSize::Eight, timestamp_ms: 0 }.write(&mut file);
/// let mut decoder = Decoder::new();
/// let mut pending = &file[..];
/// let mut events = 0;
/// while let Status::Complete { item, consumed } = decoder.decode(pending)? {
///     if let Event::Header(h) = item {
///         assert_eq!(h.id_size.bytes(), 8);
///     }
///     events += 1;
///     pending = &pending[consumed..];
/// }
/// assert_eq!(events, 1);
/// assert!(decoder.is_at_record_boundary());
/// # Ok::<(), hprof::binary::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    state: State,
    offset: u64,
    id_size: IdSize,
    unknown: UnknownTags,
    /// Size of the whole input, when the caller knows it.
    input_len: Option<u64>,
    /// The caller's limit on one buffered record or sub-record.
    max_item: Option<u64>,
    /// Whether the file-level checks of [`Decoder::finish`] apply (not for a range).
    whole_file: bool,
    /// What the file-level checks of [`Decoder::finish`] need.
    whole: Wholeness,
}

/// The most [`Decoder::decode_forked`] asks to have buffered (16 MiB) so that the rest of a
/// heap-dump record and the next record's header are decoded together: HotSpot writes
/// `HEAP_DUMP_SEGMENT`s of about 1 MiB.
const PAIR_WAIT: u64 = 16 << 20;

/// The largest record or sub-record a [`Decoder`] asks to buffer when the input's size is not
/// known and the caller set no limit (1 GiB): a corrupt length cannot make it ask for 4 GiB.
pub const DEFAULT_MAX_ITEM_LEN: u64 = 1 << 30;

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// A decoder expecting the file header first.
    pub fn new() -> Decoder {
        Decoder {
            state: State::Header,
            offset: 0,
            id_size: IdSize::Four,
            unknown: UnknownTags::Surface,
            input_len: None,
            max_item: None,
            whole_file: true,
            whole: Wholeness::default(),
        }
    }

    /// A decoder for a range of records after a header already decoded (the next byte is at
    /// `offset`), e.g. one of several ranges decoded in parallel. Its [`finish`](Decoder::finish)
    /// checks only that the range ends on a record boundary; the checks that concern the whole
    /// file (at least one record, `HEAP_DUMP_END` after `HEAP_DUMP_SEGMENT`s) are the caller's.
    pub fn after_header(header: &Header, offset: u64) -> Decoder {
        Decoder {
            state: State::Records,
            offset,
            id_size: header.id_size,
            whole_file: false,
            ..Decoder::new()
        }
    }

    /// Tells the decoder the size of the whole input in bytes (e.g. the file's size; for
    /// [`after_header`](Decoder::after_header), the file offset where the range ends). No
    /// declared length then makes it ask for more bytes than the input still holds: such a
    /// record or sub-record is an [`Error::PastEnd`] as soon as its length is read.
    pub fn input_len(mut self, total: u64) -> Decoder {
        self.input_len = Some(total);
        self
    }

    /// Sets the largest record or sub-record the decoder asks to buffer (default: no limit when
    /// [`input_len`](Decoder::input_len) is known, else [`DEFAULT_MAX_ITEM_LEN`]); a larger
    /// declared size is an [`Error::OverLimit`].
    pub fn max_item_len(mut self, limit: u64) -> Decoder {
        self.max_item = Some(limit);
        self
    }

    /// Counts a top-level record (for the file-level checks of [`Decoder::finish`]).
    fn count_record(&mut self, t: u8) {
        self.whole.see(t);
    }

    /// Checks that an item starting at file offset `start` (the decoder's offset), of which
    /// `have` bytes are buffered and `needed` more are wanted, fits in what the input still
    /// holds and under the limit; returns `needed`.
    fn bound(&self, start: u64, have: usize, needed: usize, item: Item) -> Result<usize> {
        let size = have as u64 + needed as u64;
        if let Some(total) = self.input_len {
            let available = total.saturating_sub(start);
            if size > available {
                return Err(match item {
                    Item::Record(t) => Error::PastEnd {
                        offset: start,
                        at: start,
                        what: record_what(t),
                        needed: size,
                        available,
                    },
                    Item::SubRecord(_, header) => {
                        let len = RECORD_HEADER_LEN as u64 + u64::from(header.length);
                        Error::PastEnd {
                            offset: header.offset,
                            at: start,
                            what: record_what(header.tag),
                            needed: len.max(start - header.offset + size),
                            available: total.saturating_sub(header.offset),
                        }
                    }
                });
            }
        }
        let limit = match (self.max_item, self.input_len) {
            (Some(limit), _) => limit,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_MAX_ITEM_LEN,
        };
        if size > limit {
            let what = match item {
                Item::Record(t) => record_what(t),
                Item::SubRecord(t, _) => sub_record_what(t),
            };
            return Err(Error::OverLimit {
                offset: start,
                what,
                needed: size,
                limit,
            });
        }
        Ok(needed)
    }

    /// Sets what to do with unknown top-level tags. With [`UnknownTags::Skip`] their bodies
    /// are skipped without being buffered.
    pub fn unknown_tags(mut self, policy: UnknownTags) -> Decoder {
        self.unknown = policy;
        self
    }

    /// File offset of the next byte the decoder expects.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The id size (valid once the header has been decoded).
    pub fn id_size(&self) -> IdSize {
        self.id_size
    }

    /// The top-level records seen so far, for the file-level checks (which
    /// [`finish`](Decoder::finish) makes only for a whole file, not for a range).
    pub fn wholeness(&self) -> &Wholeness {
        &self.whole
    }

    /// Whether the input seen so far ends exactly after a complete record, so that the end of
    /// the input here is a clean end of file.
    pub fn is_at_record_boundary(&self) -> bool {
        self.state == State::Records
    }

    /// Checks the end of the input: `Ok` at a record boundary with no bytes left over, else the
    /// truncation error with its offset.
    ///
    /// # Errors
    /// [`Error::Truncated`] when the file ends inside the header or a record.
    pub fn finish(&self, unconsumed: &[u8]) -> Result<()> {
        let end = self.offset + unconsumed.len() as u64;
        match self.state {
            State::Records if unconsumed.is_empty() => {
                if self.whole_file {
                    self.whole.check(end)?;
                }
                return Ok(());
            }
            State::Records if unconsumed.len() >= RECORD_HEADER_LEN => {
                let mut c = Cursor::new(unconsumed, self.offset, self.id_size);
                let header = RecordHeader::parse(&mut c)?;
                return Err(Error::PastEnd {
                    offset: self.offset,
                    at: self.offset,
                    what: record_what(header.tag),
                    needed: RECORD_HEADER_LEN as u64 + u64::from(header.length),
                    available: unconsumed.len() as u64,
                });
            }
            State::HeapDump { header, remaining } if remaining > 0 => {
                return Err(Error::PastEnd {
                    offset: header.offset,
                    at: self.offset,
                    what: record_what(header.tag),
                    needed: RECORD_HEADER_LEN as u64 + u64::from(header.length),
                    available: end - header.offset,
                });
            }
            _ => {}
        }
        let expected = match self.state {
            State::Header => "the file header",
            State::Records => "a record header (tag, time, length)",
            State::HeapDump { .. } => "the end of a heap dump record",
            State::Skip { .. } => "the rest of an unknown record",
        };
        let needed = match self.decode_peek(unconsumed) {
            Ok(Status::Partial { needed, .. }) => needed,
            Err(e) => return Err(e),
            _ => 1,
        };
        Err(Error::Truncated {
            offset: end,
            expected,
            needed: needed as u64,
        })
    }

    fn decode_peek(&self, input: &[u8]) -> Result<Status<()>> {
        let mut d = self.clone();
        Ok(match d.decode(input)? {
            Status::Complete { consumed, .. } => Status::Complete { item: (), consumed },
            Status::Partial { consumed, needed } => Status::Partial { consumed, needed },
        })
    }

    /// Decodes the next event from the start of `input` (the bytes after everything consumed
    /// so far). On [`Status::Complete`], drop `consumed` bytes before calling again; on
    /// [`Status::Partial`], drop `consumed` bytes and call again with at least `needed` more.
    ///
    /// # Errors
    /// Any decoding [`Error`]; the decoder should not be used after one.
    pub fn decode<'a>(&mut self, input: &'a [u8]) -> Result<Status<Event<'a>>> {
        let mut skipped = 0;
        loop {
            let rest = input.get(skipped..).unwrap_or_default();
            match self.step(rest)? {
                Step::Event(item, n) => {
                    return Ok(Status::Complete {
                        item,
                        consumed: skipped + n,
                    });
                }
                Step::Skipped(n) => {
                    skipped += n;
                }
                Step::Partial(needed) => {
                    return Ok(Status::Partial {
                        consumed: skipped,
                        needed,
                    });
                }
            }
        }
    }

    /// Decodes every complete event in `input`, calling `f` for each, and returns how many
    /// bytes were consumed and how many more are needed for the next event. Keep the
    /// unconsumed tail, append more input, and call again.
    ///
    /// # Errors
    /// Any decoding [`Error`]; the decoder should not be used after one.
    #[inline]
    pub fn decode_all<'a, F: FnMut(Event<'a>)>(
        &mut self,
        input: &'a [u8],
        mut f: F,
    ) -> Result<(usize, usize)> {
        self.decode_with(input, &mut f)
    }

    /// Like [`Decoder::decode_all`], into a [`Visit`]or: the fast path, where instance and
    /// array dumps of a heap dump are decoded in a tight loop and handed over without the
    /// [`Event`] enum.
    ///
    /// # Errors
    /// Any decoding [`Error`]; the decoder should not be used after one.
    #[inline]
    pub fn decode_with<'a, V: Visit<'a> + ?Sized>(
        &mut self,
        input: &'a [u8],
        v: &mut V,
    ) -> Result<(usize, usize)> {
        let mut pos = 0usize;
        loop {
            match self.advance(input.get(pos..).unwrap_or_default(), v)? {
                Advance::Consumed(n) => pos += n,
                Advance::Needs(n, needed) => return Ok((pos + n, needed)),
            }
        }
    }

    /// Like [`Decoder::decode_with`], walking two heap-dump records at once: where the rest
    /// of the current heap-dump record and the header of the next are both in `input`, the
    /// next one's sub-records are decoded into a [`Fork`] of `v`, an object dump of each
    /// record in turn, as far as the current record goes; the fork is joined into `v` once
    /// the current record has ended without error. The two chains of positions (where each
    /// sub-record starts depends on the one before) do not depend on each other, so one
    /// thread walks both in little more time than one: a histogram of a dump in memory takes
    /// about 0.8 of the time.
    ///
    /// `v` is given the same events as by [`Decoder::decode_with`], in the same order, except
    /// that the sub-records a fork took arrive through [`Fork::join`], right after the next
    /// record's [`Event::HeapDumpStart`]. On an error, `v` has been given exactly what comes
    /// before it.
    ///
    /// When the input's length is known ([`Decoder::input_len`]) and says more is coming, the
    /// decoder asks for the rest of the current heap-dump record and the next record's header
    /// (at most 16 MiB) rather than walk the part it has alone: the `needed` it returns may
    /// then be up to that.
    ///
    /// # Errors
    /// Any decoding [`Error`]; the decoder should not be used after one.
    #[inline]
    pub fn decode_forked<'a, V: Fork<'a>>(
        &mut self,
        input: &'a [u8],
        v: &mut V,
    ) -> Result<(usize, usize)> {
        let mut fork = None;
        let mut pos = 0usize;
        loop {
            let rest = input.get(pos..).unwrap_or_default();
            let advanced = match self.pair(rest) {
                Some(pair) => {
                    let w = fork.get_or_insert_with(|| v.fork());
                    self.decode_pair(pair, v, w)?
                }
                None => match self.wait_for_pair(rest.len()) {
                    Some(needed) => Advance::Needs(0, needed),
                    None => self.advance(rest, v)?,
                },
            };
            match advanced {
                Advance::Consumed(n) => pos += n,
                Advance::Needs(n, needed) => return Ok((pos + n, needed)),
            }
        }
    }

    /// Decodes what comes first in `input` into `v`: the sub-records of the current
    /// heap-dump record that `input` holds, or one record or event.
    #[inline(always)]
    fn advance<'a, V: Visit<'a> + ?Sized>(
        &mut self,
        input: &'a [u8],
        v: &mut V,
    ) -> Result<Advance> {
        if let State::HeapDump { header, remaining } = self.state {
            if remaining > 0 {
                let lim = (remaining as usize).min(input.len());
                let body = input.get(..lim).unwrap_or_default();
                let mut c = Cursor::new(body, self.offset, self.id_size);
                let failure = sub_records_into(&mut c, v);
                let used = lim - c.remaining();
                self.offset += used as u64;
                let remaining = remaining - used as u64;
                self.state = State::HeapDump { header, remaining };
                if let Some(e) = failure {
                    let needed = self.sub_record_shortfall(e, &header, remaining, c.remaining())?;
                    let t = c.rest().first().copied().unwrap_or(0);
                    let item = Item::SubRecord(t, header);
                    let needed = self.bound(self.offset, c.remaining(), needed, item)?;
                    return Ok(Advance::Needs(used, needed));
                }
                if remaining > 0 {
                    // Input exhausted exactly at a sub-record boundary.
                    return Ok(Advance::Needs(used, 1));
                }
                return Ok(Advance::Consumed(used));
            }
        }
        Ok(match self.step(input)? {
            Step::Event(ev, n) => {
                v.event(ev);
                Advance::Consumed(n)
            }
            Step::Skipped(n) => Advance::Consumed(n),
            Step::Partial(needed) => Advance::Needs(0, needed),
        })
    }

    /// The rest of the current heap-dump record and the next heap-dump record, when `input`
    /// holds the first whole and the second's header (and as much of its body as it holds).
    fn pair<'a>(&self, input: &'a [u8]) -> Option<Pair<'a>> {
        let State::HeapDump { header, remaining } = self.state else {
            return None;
        };
        let current = input.get(..usize::try_from(remaining).ok().filter(|&r| r > 0)?)?;
        let after = input.get(current.len()..)?;
        let mut c = Cursor::new(after, self.offset + current.len() as u64, self.id_size);
        let next_header = RecordHeader::parse(&mut c).ok()?;
        if !next_header.is_heap_dump() {
            return None;
        }
        let next = c.rest();
        let next = next.get(..next.len().min(next_header.length as usize))?;
        Some(Pair {
            header,
            current,
            next_header,
            next,
        })
    }

    /// How many more bytes than the `have` buffered would make a [`Pair`], when it is worth
    /// waiting for them: the current heap-dump record's rest and the next header are at most
    /// [`PAIR_WAIT`] bytes (and the caller's limit), and the input's length says they come.
    fn wait_for_pair(&self, have: usize) -> Option<usize> {
        let State::HeapDump { remaining, .. } = self.state else {
            return None;
        };
        let want = remaining.checked_add(RECORD_HEADER_LEN as u64)?;
        let limit = self.max_item.unwrap_or(PAIR_WAIT).min(PAIR_WAIT);
        let comes = self.input_len? >= self.offset.checked_add(want)?;
        (remaining > 0 && want > have as u64 && want <= limit && comes)
            .then(|| (want - have as u64) as usize)
    }

    /// Decodes a [`Pair`]: the current record's sub-records into `v` and, beside them, the
    /// next one's into `w` ([`sub_records_pair`]); then `w` is joined into `v`, and the
    /// decoder stands in the next record after what `w` took.
    fn decode_pair<'a, V: Fork<'a>>(
        &mut self,
        pair: Pair<'a>,
        v: &mut V,
        w: &mut V,
    ) -> Result<Advance> {
        let Pair {
            header,
            current,
            next_header,
            next,
        } = pair;
        let next_offset = next_header.offset + RECORD_HEADER_LEN as u64;
        let mut a = Cursor::new(current, self.offset, self.id_size);
        let mut b = Cursor::new(next, next_offset, self.id_size);
        if let Some(e) = sub_records_pair(&mut a, &mut b, v, w) {
            // The record is whole in the input, so this is not a shortfall: what `w` took
            // comes after the error, and is dropped with it.
            self.offset = a.offset();
            let remaining = a.remaining() as u64;
            self.state = State::HeapDump { header, remaining };
            return Err(self.sub_record_error(e, &header));
        }
        v.event(Event::HeapDumpBodyEnd(header));
        self.count_record(next_header.tag);
        v.event(Event::HeapDumpStart(next_header));
        v.join(w);
        let taken = next.len() - b.remaining();
        self.offset = next_offset + taken as u64;
        self.state = State::HeapDump {
            header: next_header,
            remaining: u64::from(next_header.length) - taken as u64,
        };
        Ok(Advance::Consumed(current.len() + RECORD_HEADER_LEN + taken))
    }

    /// Turns a sub-record decoding error into "needs more" or a hard error.
    fn sub_record_shortfall(
        &self,
        e: Error,
        header: &RecordHeader,
        remaining: u64,
        available: usize,
    ) -> Result<usize> {
        match e {
            Error::Truncated {
                needed, expected, ..
            } => {
                if (available as u64) < remaining && available as u64 + needed <= remaining {
                    Ok(needed as usize)
                } else {
                    Err(overrun(header, expected))
                }
            }
            other => Err(other),
        }
    }

    /// A sub-record error in a heap-dump record held whole: a sub-record cut off is one that
    /// runs past the record's end.
    fn sub_record_error(&self, e: Error, header: &RecordHeader) -> Error {
        match e {
            Error::Truncated { expected, .. } => overrun(header, expected),
            other => other,
        }
    }

    fn step<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>> {
        match self.state {
            State::Header => match Header::parse(input) {
                Ok((header, len)) => {
                    self.id_size = header.id_size;
                    self.state = State::Records;
                    self.offset += len as u64;
                    Ok(Step::Event(Event::Header(header), len))
                }
                Err(Error::Truncated { needed, .. }) if input.len() < MAX_HEADER_LEN => {
                    Ok(Step::Partial(needed as usize))
                }
                Err(e) => Err(e),
            },
            State::Records => {
                let mut c = Cursor::new(input, self.offset, self.id_size);
                let Ok(header) = RecordHeader::parse(&mut c) else {
                    return Ok(Step::Partial(RECORD_HEADER_LEN - input.len()));
                };
                if header.is_heap_dump() {
                    self.count_record(header.tag);
                    self.offset += RECORD_HEADER_LEN as u64;
                    self.state = State::HeapDump {
                        header,
                        remaining: header.length.into(),
                    };
                    return Ok(Step::Event(Event::HeapDumpStart(header), RECORD_HEADER_LEN));
                }
                if !is_known_tag(header.tag) {
                    match self.unknown {
                        UnknownTags::Surface => {}
                        UnknownTags::Skip => {
                            self.count_record(header.tag);
                            self.offset += RECORD_HEADER_LEN as u64;
                            self.state = State::Skip {
                                remaining: header.length.into(),
                            };
                            return Ok(Step::Skipped(RECORD_HEADER_LEN));
                        }
                        UnknownTags::Error => {
                            return Err(Error::UnknownTag {
                                offset: header.offset,
                                tag: header.tag,
                            });
                        }
                    }
                }
                let len = header.length as usize;
                let Some(body) = c.rest().get(..len) else {
                    let needed = len - c.remaining();
                    let item = Item::Record(header.tag);
                    let needed = self.bound(self.offset, input.len(), needed, item)?;
                    return Ok(Step::Partial(needed));
                };
                let record = parse_body(&header, body, self.id_size)?;
                self.count_record(header.tag);
                let total = RECORD_HEADER_LEN + len;
                self.offset += total as u64;
                Ok(Step::Event(Event::Record(header, record), total))
            }
            State::HeapDump { header, remaining } => {
                if remaining == 0 {
                    self.state = State::Records;
                    return Ok(Step::Event(Event::HeapDumpBodyEnd(header), 0));
                }
                let lim = (remaining as usize).min(input.len());
                let mut c = Cursor::new(
                    input.get(..lim).unwrap_or_default(),
                    self.offset,
                    self.id_size,
                );
                let at = c.offset();
                match parse_sub_record(&mut c) {
                    Ok(s) => {
                        let used = lim - c.remaining();
                        self.offset += used as u64;
                        self.state = State::HeapDump {
                            header,
                            remaining: remaining - used as u64,
                        };
                        Ok(Step::Event(Event::SubRecord(at, s), used))
                    }
                    Err(e) => {
                        let needed = self.sub_record_shortfall(e, &header, remaining, lim)?;
                        let item = Item::SubRecord(input.first().copied().unwrap_or(0), header);
                        Ok(Step::Partial(self.bound(self.offset, lim, needed, item)?))
                    }
                }
            }
            State::Skip { remaining } => {
                if remaining == 0 {
                    self.state = State::Records;
                    return Ok(Step::Skipped(0));
                }
                if input.is_empty() {
                    return Ok(Step::Partial(remaining.min(usize::MAX as u64) as usize));
                }
                let n = (remaining as usize).min(input.len());
                self.offset += n as u64;
                self.state = State::Skip {
                    remaining: remaining - n as u64,
                };
                Ok(Step::Skipped(n))
            }
        }
    }
}

/// What a [`Decoder`] is buffering: a record (by tag) or a heap-dump sub-record (by tag, in
/// the heap-dump record with this header).
#[derive(Clone, Copy)]
enum Item {
    Record(u8),
    SubRecord(u8, RecordHeader),
}

enum Step<'a> {
    Event(Event<'a>, usize),
    Skipped(usize),
    Partial(usize),
}

/// A sub-record of the heap-dump record with this header runs past the record's end, where a
/// sub-record of kind `expected` was being read.
fn overrun(header: &RecordHeader, expected: &'static str) -> Error {
    // Where the record ends, wherever the buffered input happened to end.
    let end = header.offset + RECORD_HEADER_LEN as u64 + u64::from(header.length);
    Error::RecordOverrun {
        offset: header.offset,
        tag: header.tag,
        declared: header.length.into(),
        expected,
        at: end,
    }
}

/// What [`Decoder::advance`] did: consumed this many bytes, or consumed this many and needs
/// this many more.
enum Advance {
    Consumed(usize),
    Needs(usize, usize),
}

/// The rest of the current heap-dump record, whole, and the next heap-dump record, as much
/// of its body as the input holds ([`Decoder::decode_forked`]).
struct Pair<'a> {
    header: RecordHeader,
    current: &'a [u8],
    next_header: RecordHeader,
    next: &'a [u8],
}
