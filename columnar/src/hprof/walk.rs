//! The walk both passes make over the dump: every record and heap-dump sub-record, through
//! `hprof`'s incremental decoder over the bytes in memory.

use hprof::binary::incremental::{Decoder, Visit};
use hprof::binary::{Header, Wholeness};

use crate::{Error, Result};

/// A pass over the dump: a [`Visit`]or of its records and sub-records that keeps the first
/// sink error it meets (the walk stops there).
pub(super) trait Pass<'a>: Visit<'a> {
    /// The first sink error, if any.
    fn failed(&mut self) -> Option<Error>;
}

/// Bytes handed to the decoder at a time; `progress` is called after each.
const CHUNK: usize = 16 << 20;

/// How a walk ended.
pub(super) struct Walked {
    /// The decoding error that stopped it before the end of the input.
    pub(super) stopped: Option<hprof::binary::Error>,
    /// The records it saw, for the file-level checks.
    pub(super) whole: Wholeness,
}

/// Walks every record and heap-dump sub-record of `data` (whose header, `header_len` bytes,
/// is `header`) into `pass`, through `hprof`'s incremental decoder: a dump cut mid-record
/// gives every sub-record before the cut.
///
/// # Errors
/// The first sink error the pass met.
pub(super) fn walk<'a, P: Pass<'a>>(
    data: &'a [u8],
    header: &Header,
    header_len: usize,
    progress: &mut dyn FnMut(u64),
    pass: &mut P,
) -> Result<Walked> {
    let mut decoder = Decoder::after_header(header, header_len as u64).input_len(data.len() as u64);
    let mut at = header_len;
    let mut want = CHUNK;
    loop {
        let end = at.saturating_add(want).min(data.len());
        let decoded = decoder.decode_with(data.get(at..end).unwrap_or_default(), pass);
        if let Some(e) = pass.failed() {
            return Err(e);
        }
        let (consumed, needed) = match decoded {
            Ok(r) => r,
            Err(e) => {
                return Ok(Walked {
                    stopped: Some(e),
                    whole: *decoder.wholeness(),
                });
            }
        };
        at += consumed;
        progress(at as u64);
        if end == data.len() {
            return Ok(Walked {
                stopped: decoder.finish(data.get(at..).unwrap_or_default()).err(),
                whole: *decoder.wholeness(),
            });
        }
        // A record longer than a chunk is handed over whole.
        want = CHUNK.max((end - at).saturating_add(needed));
    }
}
