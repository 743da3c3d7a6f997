//! The profile sections (iprof format document, "Call count profiles" … "Sampling profiles";
//! schema 1.1.0 `instanceofProfiles`): arrays of `{"ctx": …, "records": […]}` entries, the
//! call contexts in them, and the legacy 0.2.0 `methodBciList` and `monitorsProfile` shapes.

use std::borrow::Cow;

use callctx::ContextBuf;

use super::json::Cursor;
use super::{set, unknown_member};
use crate::error::Error;
use crate::legacy::monitor_entry;
use crate::model::{Ctx, Extra, ProfileEntry};

impl<'a> Cursor<'a> {
    /// A context string: modern `m:bci<m:bci` or legacy `m:bci,m:bci`.
    pub(crate) fn ctx(&mut self, legacy: bool) -> Result<Ctx<'a>, Error> {
        self.ws();
        let start = self.pos + 1;
        let text = self.string()?;
        let result = match (&text, legacy) {
            (Cow::Borrowed(s), false) => Ctx::parse(s),
            (s, false) => s.parse::<ContextBuf>().map(Ctx::Owned),
            (s, true) => legacy_context(s).map(Ctx::Owned),
        };
        result.map_err(|source| Error::Context {
            at: self.position((start + source.offset).min(self.pos.saturating_sub(1))),
            text: text.clone().into_owned(),
            source,
        })
    }
}

/// A 0.2.0 `methodBciList` (`m:bci,m:bci`, innermost first) as a context.
fn legacy_context(text: &str) -> Result<ContextBuf, callctx::Error> {
    let mut frames = Vec::with_capacity(8);
    let mut base = 0;
    for piece in text.split(',') {
        let ctx = callctx::Context::parse(piece).map_err(|e| callctx::Error {
            offset: base + e.offset,
            kind: e.kind,
        })?;
        frames.extend(ctx.frames());
        base += piece.len() + 1;
    }
    Ok(ContextBuf::from_frames(frames))
}

/// A section array: `[{"ctx": …, "records": […]}, …]` (legacy `methodBciList`).
pub(crate) fn entries<'a>(
    cur: &mut Cursor<'a>,
    legacy: bool,
) -> Result<Vec<ProfileEntry<'a>>, Error> {
    cur.array(
        "'[' starting a profile array",
        "',' or ']' in a profile array",
        |cur| entry(cur, legacy),
    )
}

/// One `{"ctx": …, "records": […]}` object.
fn entry<'a>(cur: &mut Cursor<'a>, legacy: bool) -> Result<ProfileEntry<'a>, Error> {
    let start = cur.begin_object("'{' starting a profile entry")?;
    let (mut ctx, mut records) = (None, None);
    let mut extra = Extra::default();
    let mut first = true;
    let ctx_key = if legacy { "methodBciList" } else { "ctx" };
    while let Some((key, at)) = cur.next_key(&mut first)? {
        if *key == *ctx_key {
            set(&mut ctx, cur.ctx(legacy)?, &key, at, cur)?;
        } else if *key == *"records" {
            records_member(cur, &mut records, &key, at)?;
        } else {
            let known = usize::from(ctx.is_some()) + usize::from(records.is_some());
            unknown_member(cur, &mut extra, known, key, at)?;
        }
    }
    Ok(ProfileEntry {
        ctx: cur.required(ctx, ctx_key, "a profile entry", start)?,
        records: cur.required(records, "records", "a profile entry", start)?,
        extra,
    })
}

/// Reads the 0.2.0 `monitorsProfile` object into the entries of `monitorProfiles`
/// ([`crate::legacy`]).
pub(crate) fn monitors_profile<'a>(cur: &mut Cursor<'a>) -> Result<Vec<ProfileEntry<'a>>, Error> {
    let (records, extra) = records_object(cur)?;
    let mut entry = monitor_entry(records);
    entry.extra = extra;
    Ok(vec![entry])
}

/// Reads a legacy object holding `records` (the 0.2.0 `monitorsProfile`), with its unknown
/// members.
fn records_object<'a>(cur: &mut Cursor<'a>) -> Result<(Vec<i64>, Extra<'a>), Error> {
    let start = cur.begin_object("'{' starting the monitorsProfile object")?;
    let mut records = None;
    let mut extra = Extra::default();
    let mut first = true;
    while let Some((key, at)) = cur.next_key(&mut first)? {
        if *key == *"records" {
            records_member(cur, &mut records, &key, at)?;
        } else {
            // The writer puts `records` after a context: count it as the first known member.
            let known = 1 + usize::from(records.is_some());
            unknown_member(cur, &mut extra, known, key, at)?;
        }
    }
    Ok((
        cur.required(records, "records", "monitorsProfile", start)?,
        extra,
    ))
}

/// The value of a `records` member (an integer array) into `slot`.
fn records_member(
    cur: &mut Cursor<'_>,
    slot: &mut Option<Vec<i64>>,
    key: &str,
    at: usize,
) -> Result<(), Error> {
    let records = cur.integers("'[' starting the records")?;
    set(slot, records, key, at, cur)
}
