//! `columnar`'s JFR export over any bytes: it either fails on a first chunk header that is not
//! JFR or writes tables whose row counts match its summary, every event table named in the
//! summary, and a stop it reports lies in the input. Never a panic.
#![no_main]

use columnar::MemorySink;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut sink = MemorySink::new();
    let Ok(summary) = columnar::jfr::export(data, &mut sink, &mut |_| {}) else {
        return;
    };
    for (table, rows) in &summary.rows {
        assert_eq!(*rows as usize, sink.rows(table), "{table}");
    }
    for table in summary.tables.values() {
        assert!(summary.rows.contains_key(table), "{table}");
    }
    if let Some(e) = &summary.stopped {
        assert!(e.offset() <= data.len() as u64, "{e}");
    }
});
