//! The export: the tables begun, the records before the first heap dump, the heap pass, the
//! deferred pass when a class dump came after instances of its class, and the small tables
//! written last; and the walk both passes make over the dump.

use std::collections::HashMap;

use hprof::binary::Header;
use hprof::binary::incremental::{Decoder, Visit};
use hprof::binary::records::Records;

use super::deferred::DeferredPass;
use super::heap::HeapPass;
use super::schema::tables;
use super::top_level::TopLevel;
use crate::sink::BatchSink;
use crate::{Error, Result};

/// What an export wrote, and where reading stopped when the dump is cut off or damaged.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rows per table.
    pub rows: HashMap<&'static str, u64>,
    /// The decoding error that ended the export early: everything before it was written. A
    /// dump that ends without its `HEAP DUMP END` after segments, or holds no record after
    /// its header, is incomplete too ([`hprof::binary::Error::Truncated`]).
    pub stopped: Option<hprof::binary::Error>,
    /// Instances whose class has no usable `CLASS_DUMP` (their references are not written).
    pub instances_without_layout: u64,
}

impl Summary {
    /// Whether everything the dump holds was written.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none()
    }

    /// Counts `n` rows sent to `table`.
    #[inline]
    pub(super) fn add_rows(&mut self, table: &'static str, n: u64) {
        *self.rows.entry(table).or_default() += n;
    }
}

/// Writes the tables of the dump in `data` to `sink`; `progress` is called now and then with
/// the number of bytes read so far: up to `data.len()`, then up to `2 × data.len()` when a
/// second pass is needed (see the [module docs](super)).
///
/// A dump cut off or damaged mid-way is not an error: every table gets the rows before the
/// damage, and [`Summary::stopped`] says what stopped the export and where.
///
/// # Errors
/// The sink's errors, and a file that is not an HPROF dump at all (its header does not parse).
pub fn export(
    data: &[u8],
    sink: &mut dyn BatchSink,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary> {
    let (header, header_len) = Header::parse(data).map_err(Error::Hprof)?;
    for (name, schema) in tables() {
        sink.begin(name, schema)?;
    }
    let mut summary = Summary::default();
    let records = Records::after_header(
        data.get(header_len..).unwrap_or_default(),
        header_len as u64,
        header.id_size,
    );
    let (top, top_from) =
        TopLevel::before_heap_dumps(records, data.len() as u64, sink, &mut summary)?;
    let mut heap = HeapPass::new(top, top_from, header.id_size, data.len(), sink, summary);
    let stopped = walk(data, &header, header_len, progress, &mut heap)?;
    heap.flush()?;
    heap.summary.stopped = stopped;
    if heap.defer() {
        let total = data.len() as u64;
        let mut deferred = DeferredPass::new(&mut heap);
        walk(
            data,
            &header,
            header_len,
            &mut |at| progress(total + at),
            &mut deferred,
        )?;
        deferred.flush()?;
    }
    heap.finish()
}

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
fn walk<'a, P: Pass<'a>>(
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
