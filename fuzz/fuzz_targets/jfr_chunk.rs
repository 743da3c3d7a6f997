//! `jfr` over any bytes, read as a whole (possibly cut-off) recording: chunk headers, the
//! metadata event, the checkpoint chain, salvage of a cut chunk, and every event decoded,
//! checked, resolved, printed as JSON and typed never panic; every error's offset lies in
//! the input; iteration ends; `check_records` sees the records the event iterator does and
//! stops where, and why, it does.
#![no_main]

use jfr::json::{JsonOptions, write_event};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let mut chunks = 0usize;
    for chunk in jfr::Chunks::new(data) {
        chunks += 1;
        assert!(
            chunks <= data.len() / jfr::HEADER_SIZE + 1,
            "chunks do not end"
        );
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
        // The fast checker (with its fast path) and the event iterator agree on every record
        // and on where, and why, the chunk stops.
        let mut fast_records = Vec::new();
        let fast = chunk.check_records(|id, size| fast_records.push((id, size)));
        let mut slow_records = Vec::new();
        let slow = chunk.records().try_for_each(|e| -> jfr::Result<()> {
            let e = e?;
            if e.type_id() > 1 {
                e.validate()?;
            }
            slow_records.push((e.type_id(), e.size()));
            Ok(())
        });
        assert_eq!(fast_records, slow_records);
        assert_eq!(
            fast.as_ref().err().map(ToString::to_string),
            slow.as_ref().err().map(ToString::to_string)
        );
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
            assert_eq!(
                checked.is_ok(),
                values.is_ok(),
                "validate and values disagree"
            );
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
