//! Monitor dump buffers. The whole input is the buffer, decoded under every identifier size
//! and order; whatever decodes must re-encode to the same bytes.
#![no_main]
use jvmpi_types::dump::monitor;
use jvmpi_types::{DumpOptions, IdOrder, IdSize};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for size in [IdSize::Four, IdSize::Eight] {
        for order in [IdOrder::Little, IdOrder::Big] {
            let o = DumpOptions::new(size, order);
            let mut decoded = Vec::new();
            let mut it = monitor::MonitorDumpRecords::new(data, o);
            let complete = loop {
                match it.next_record() {
                    Ok(Some(r)) => decoded.push(r),
                    Ok(None) => break true,
                    Err(_) => break false,
                }
            };
            let mut out = Vec::new();
            monitor::write(&decoded, o, &mut out).unwrap();
            if complete {
                assert_eq!(out, data);
            } else {
                assert!(data.starts_with(&out));
            }
        }
    }
});
