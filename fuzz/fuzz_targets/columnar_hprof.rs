//! `columnar` over any bytes: the HPROF export either fails on a header that is not HPROF (and
//! on nothing else: building the record batches never fails) or writes tables whose row counts
//! match its summary, and a stop it reports lies in the input. Never a panic.
#![no_main]

use columnar::MemorySink;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut sink = MemorySink::new();
    let summary = match columnar::hprof::export(data, &mut sink, &mut |_| {}) {
        Ok(summary) => summary,
        Err(columnar::Error::Hprof(_)) => return,
        Err(e) => panic!("not a header error: {e}"),
    };
    for (table, rows) in &summary.rows {
        assert_eq!(*rows as usize, sink.rows(table), "{table}");
    }
    if let Some(e) = &summary.stopped {
        assert!(e.offset() <= data.len() as u64, "{e}");
    }
});
