//! `hprof` round trip: any input that decodes completely (header, every record, every
//! heap-dump sub-record) re-encodes byte for byte, both from whole records and from
//! individual sub-records.
#![no_main]

use hprof::binary::write::Writer;
use hprof::binary::{Record, Records, SubRecord};
use libfuzzer_sys::fuzz_target;

fn reencode(data: &[u8], per_sub_record: bool) -> Option<Vec<u8>> {
    let (header, records) = Records::parse(data).ok()?;
    let mut w = Writer::new(Vec::new(), &header).ok()?;
    for r in records {
        let (h, record) = r.ok()?;
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) if per_sub_record => {
                let subs: Vec<SubRecord<'_>> = d.sub_records().collect::<Result<_, _>>().ok()?;
                w.start_heap_dump_record(h.tag, h.time).ok()?;
                for s in &subs {
                    w.write_sub_record(s).ok()?;
                }
                w.close_heap_dump_record().ok()?;
            }
            other => w.write_record(h.time, &other).ok()?,
        }
    }
    w.finish().ok()
}

fuzz_target!(|data: &[u8]| {
    if let Some(out) = reencode(data, false) {
        assert_eq!(out, data, "whole records");
    }
    if let Some(out) = reencode(data, true) {
        assert_eq!(out, data, "sub-records");
    }
});
