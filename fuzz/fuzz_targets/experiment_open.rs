//! A whole experiment from the input (see `bundle.rs`: `@@FILE NAME\n` parts, the part before
//! the first marker being log.xml): opened through a `MemorySource` and read as `er-dump` and
//! `er-summary` read it — truncations, overview and samples, dyntext, jclasses, labels, notes,
//! ifreq, archives and archive.log, jdynclasses, every packet of every data file (typed, by name,
//! and its stack), why it is partial, the heap trace streamed in chunks, a stack profile with
//! the archived load objects (function list, callers–callees, leaks and allocations), and each
//! descendant the same
//! way (one level down). Never a panic; every truncation names its file.
#![no_main]
mod bundle;

use experiment::profile::{FunctionTable, HeapView, Metric, StackProfile};
use experiment::stacks::Symbolizer;
use experiment::{Experiment, Source};
use libfuzzer_sys::fuzz_target;

/// Packets looked at per data file (stacks are resolved for each).
const PACKETS: usize = 4096;

fn read<S: Source>(exp: &Experiment<S>) {
    if let Ok(cut) = exp.truncations() {
        for e in &cut {
            assert!(e.file().is_some(), "a truncation names its file: {e}");
            let _ = e.to_string();
        }
        if !cut.is_empty() {
            assert!(
                exp.incomplete(),
                "cut data files make the experiment incomplete"
            );
        }
    }
    let _ = exp.incomplete();
    for p in exp.partial() {
        let _ = (p.file(), p.reason(), p.to_string());
    }
    let _ = exp.stream_packets("heaptrace", |p| {
        let _ = p.map(|p| p.typed());
    });
    let _ = exp.overview();
    let _ = exp.samples();
    let _ = exp.dyntext();
    if let Ok(Some(j)) = exp.jclasses() {
        let _ = j.method(0);
    }
    let _ = exp.labels();
    let _ = exp.notes();
    let _ = exp.ifreq();
    for a in exp.archives() {
        let _ = experiment::archives::load_object(exp.map(), &a);
    }
    if let Ok(Some(log)) = exp.file("archive.log") {
        let _ = experiment::archives::parse_log(&String::from_utf8_lossy(&log));
    }
    for c in exp.jdynclasses() {
        let _ = c.is_class_file();
    }
    let log = exp.log();
    let _ = (log.samples(), log.messages(), log.end(), log.hw_counters());
    if let Ok(files) = exp.data_files() {
        for file in &files {
            for p in file.packets().take(PACKETS) {
                let Ok(p) = p else { break };
                let _ = p.packet.record();
                if let Ok(t) = p.typed() {
                    let frinfo = t.common().frinfo;
                    if frinfo != 0 {
                        let _ = exp.stack(frinfo);
                    }
                }
            }
        }
    }
    // Native lines from the archived programs' DWARF, as the line view reads them.
    if let Ok(p) = StackProfile::collect(exp, Symbolizer::new(exp).with_native_lines(), None) {
        let list = experiment::lines::LineList::of_table(&p.line_table());
        assert_eq!(list.lines.first().map(|l| l.name.as_str()), Some("<Total>"));
        let _ = p.heap_stacks(HeapView::Leaks);
    }
    if let Ok(p) = StackProfile::collect(exp, Symbolizer::new(exp), None) {
        let t = p.function_table();
        let columns = t.default_columns();
        let _ = t.rows(&columns, FunctionTable::sort_column(&columns));
        let _ = p.folded(Metric::TotalCpu);
        let _ = t.callers_callees();
        let _ = t.function_list();
        let _ = p.heap_stacks(HeapView::Leaks);
        let _ = p.heap_stacks(HeapView::Allocations);
    }
}

fuzz_target!(|data: &[u8]| {
    let src = bundle::source(data);
    let Ok(exp) = Experiment::open(&src) else {
        return;
    };
    read(&exp);
    for d in exp.descendants().iter().take(8) {
        let _ = experiment::descendants::parse_lineage(&d.name);
        if let Ok(sub) = exp.open_descendant(&d.name) {
            read(&sub);
        }
    }
});
