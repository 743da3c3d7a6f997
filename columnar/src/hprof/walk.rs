//! The walk both passes make over the dump: every record and heap-dump sub-record, through
//! `hprof`'s incremental decoder over the bytes in memory.

use hprof::binary::Header;
use hprof::binary::incremental::{Decoder, Visit};

use crate::{Error, Result};

/// A pass over the dump: a [`Visit`]or of its records and sub-records that keeps the first
/// sink error it meets (the walk stops there).
pub(super) trait Pass<'a>: Visit<'a> {
    /// The first sink error, if any.
    fn failed(&mut self) -> Option<Error>;
}

/// Bytes handed to the decoder at a time; `progress` is called after each.
const CHUNK: usize = 16 << 20;

/// Walks every record and heap-dump sub-record of `data` (whose header, `header_len` bytes,
/// is `header`) into `pass`, through `hprof`'s incremental decoder: a dump cut mid-record
/// gives every sub-record before the cut. Returns why reading stopped before the end of a
/// whole dump (`None`: it did not).
///
/// # Errors
/// The first sink error the pass met.
pub(super) fn walk<'a, P: Pass<'a>>(
    data: &'a [u8],
    header: &Header,
    header_len: usize,
    progress: &mut dyn FnMut(u64),
    pass: &mut P,
) -> Result<Option<hprof::binary::Error>> {
    let mut decoder =
        Decoder::after_file_header(header, header_len as u64).input_len(data.len() as u64);
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
            Err(e) => return Ok(Some(e)),
        };
        at += consumed;
        progress(at as u64);
        if end == data.len() {
            return Ok(decoder.finish(data.get(at..).unwrap_or_default()).err());
        }
        // A record longer than a chunk is handed over whole.
        want = CHUNK.max((end - at).saturating_add(needed));
    }
}
