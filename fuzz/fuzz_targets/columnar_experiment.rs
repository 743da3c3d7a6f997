//! `columnar`'s experiment export over a whole experiment from the input (see `bundle.rs`):
//! it either fails (no experiment, or one whose data files cannot be read) or writes tables
//! whose row counts match its summary, and each data file it stopped reading early is named.
//! Never a panic.
#![no_main]
mod bundle;

use columnar::MemorySink;
use experiment::Experiment;
use experiment::stacks::Symbolizer;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = bundle::source(data);
    let Ok(exp) = Experiment::open(&src) else {
        return;
    };
    let mut sink = MemorySink::new();
    let symbols = Symbolizer::new(&exp);
    let Ok(summary) =
        columnar::experiment::export("fuzz.er", &exp, symbols, &mut sink, &mut |_| {})
    else {
        return;
    };
    for (table, rows) in &summary.rows {
        assert_eq!(*rows as usize, sink.rows(table), "{table}");
    }
    for e in &summary.stopped {
        assert!(e.file().is_some(), "a stop names its file: {e}");
    }
    assert_eq!(summary.is_complete(), summary.stopped.is_empty());
});
