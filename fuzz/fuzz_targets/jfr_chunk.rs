//! `jfr` over any bytes, read as a whole (possibly cut-off) recording: chunk headers, the
//! metadata event, the checkpoint chain, salvage of a cut chunk, and every event decoded,
//! checked, resolved, printed as JSON and typed never panic; every error's offset lies in
//! the input; iteration ends; `check_records` stops where the event iterator does.
#![no_main]

use jfr::json::{JsonOptions, write_event};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let mut chunks = 0usize;
    for chunk in jfr::Chunks::new(data) {
        chunks += 1;
        assert!(chunks <= data.len() / jfr::HEADER_SIZE + 1, "chunks do not end");
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                assert!(e.offset() <= len, "{e}");
                break;
            }
        };
        if let Some(e) = chunk.cut() {
            assert!(e.offset() <= len, "{e}");
        }
        // The fast checker and the event iterator agree on where the chunk stops.
        let fast = chunk.check_records(|_, _| {});
        let slow = chunk.records().try_for_each(|e| {
            let e = e?;
            if e.type_id() > 1 { e.validate() } else { Ok(()) }
        });
        assert_eq!(fast.as_ref().err().map(jfr::Error::offset), slow.as_ref().err().map(jfr::Error::offset));
        let mut profile = jfr::profile::Profile::new("demo.Tick");
        let _ = profile.add_chunk(&chunk);
        let _ = profile.functions();
        let mut n = 0usize;
        let mut line = String::new();
        for event in chunk.records() {
            n += 1;
            assert!(n <= data.len(), "events do not end");
            let event = match event {
                Ok(e) => e,
                Err(e) => {
                    assert!(e.offset() <= len, "{e}");
                    break;
                }
            };
            assert!(event.offset() + event.size() <= data.len());
            if event.type_id() <= 1 {
                continue;
            }
            let checked = event.validate();
            let values = event.values();
            assert_eq!(checked.is_ok(), values.is_ok(), "validate and values disagree");
            if let Err(e) = &values {
                assert!(e.offset() <= len, "{e}");
            }
            let _ = event.resolved();
            let _ = event.typed();
            let _ = event.start_end_ticks();
            line.clear();
            let _ = write_event(&event, &JsonOptions { stack_depth: 64 }, &mut line);
            if let Ok(Some(key)) = event.get_i64("stackTrace") {
                let _ = chunk.stack_trace(key);
            }
        }
    }
});
