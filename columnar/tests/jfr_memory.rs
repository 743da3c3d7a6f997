//! The JFR export's memory does not grow with the recording: constants and stack ids are kept
//! for the chunk being read only, and rows leave in batches. A recording of 2 copies of a
//! two-chunk recording and one of 8 copies (a `.jfr` file is a sequence of self-contained
//! chunks, as `jfr assemble` makes them) peak at the same heap.
#![cfg(feature = "jfr")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use columnar::BatchSink;
use columnar::arrow_array::RecordBatch;
use columnar::arrow_schema::SchemaRef;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// Counts rows and lets the batches go, as a sink that writes them out does.
#[derive(Default)]
struct Counting {
    rows: u64,
}

impl BatchSink for Counting {
    fn begin(&mut self, _: &str, _: SchemaRef) -> columnar::Result<()> {
        Ok(())
    }
    fn write(&mut self, _: &str, batch: RecordBatch) -> columnar::Result<()> {
        self.rows += batch.num_rows() as u64;
        Ok(())
    }
}

fn peak_of_copies(one: &[u8], copies: usize) -> (u64, usize) {
    let data = one.repeat(copies);
    let mut sink = Counting::default();
    let (summary, peak) =
        testkit::peak_of(|| columnar::jfr::export(&data, &mut sink, &mut |_| {}).unwrap());
    assert!(summary.is_complete());
    assert_eq!(summary.chunks, 2 * copies as u64);
    (sink.rows, peak)
}

#[test]
fn memory_is_bounded_by_the_chunk_not_the_recording() {
    let one = std::fs::read("../jfr/tests/data/alloc-chunks.jfr").unwrap();
    let (rows2, peak2) = peak_of_copies(&one, 2);
    let (rows8, peak8) = peak_of_copies(&one, 8);
    assert_eq!(rows8, rows2 * 4);
    assert!(
        peak8 < peak2 + peak2 / 4,
        "peak heap {peak8} bytes for 8 copies, {peak2} for 2"
    );
    // Far below the 8 copies' length (14 MB): a chunk's rows and constants.
    assert!(peak8 < 8 * one.len(), "{peak8}");
}
