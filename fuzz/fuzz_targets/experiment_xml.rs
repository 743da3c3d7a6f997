//! Fuzzes the lenient XML readers: log.xml (header, descriptors, events), map.xml
//! (segments, PC resolution) and labels.xml, plus opening an experiment whose only file is that log.
#![no_main]
use experiment::log::Log;
use experiment::map::Map;
use experiment::{Experiment, MemorySource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = Log::parse(data) {
        let _ = (
            log.samples(),
            log.messages(),
            log.end(),
            log.data_files(),
            log.endian(),
            log.word_size(),
        );
        let _ = (log.thread_tags(), log.hw_counters());
    }
    let _ = experiment::labels::parse(data);
    if let Some(e) = experiment::xml::find_cut(data, "map.xml") {
        assert_eq!(e.file(), Some("map.xml"), "a cut names its file: {e}");
    }
    if let Ok(map) = Map::parse(data) {
        let _ = map.resolve(0x1000, u64::MAX);
        for s in map.segments().take(32) {
            let _ = map.resolve(s.vaddr.wrapping_add(1), s.tstamp);
        }
    }
    if let Ok(exp) = Experiment::open(MemorySource::new().with("log.xml", data.to_vec())) {
        let _ = exp.incomplete();
    }
});
