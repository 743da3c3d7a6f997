//! The export: the tables begun, the records before the first heap dump, the heap pass, the
//! deferred pass when a class dump came after instances of its class, and the small tables
//! written last.

use hprof::binary::Header;
use hprof::binary::records::Records;

use super::deferred::DeferredPass;
use super::heap::HeapPass;
use super::schema::tables;
use super::summary::Summary;
use super::top_level::TopLevel;
use super::walk::walk;
use crate::sink::BatchSink;
use crate::{Error, Result};

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
    let walked = walk(data, &header, header_len, progress, &mut heap)?;
    heap.flush()?;
    let summary = &mut heap.summary;
    summary.stopped = walked.stopped;
    if summary.stopped.is_none() {
        if let Err(e) = walked.whole.check(data.len() as u64) {
            // The same judgement as hprof's readers: a file of only its header is cut short;
            // segments without HEAP_DUMP_END have a flag of their own.
            if walked.whole.records() == 0 {
                summary.stopped = Some(e);
            } else {
                summary.missing_heap_dump_end = true;
            }
        }
    }
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
