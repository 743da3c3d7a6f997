//! `hprof` binary records: any bytes either decode (every record, every heap-dump sub-record,
//! the index with layouts, strings and thread stacks) or give an error whose offset lies in
//! the input. Never a panic, never an allocation sized by an untrusted count.
#![no_main]

use hprof::binary::index::Index;
use hprof::binary::{Record, Records, UnknownTags};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let Ok((_, records)) = Records::parse(data) else {
        return;
    };
    for r in records.unknown_tags(UnknownTags::Skip) {
        match r {
            Ok((h, record)) => {
                assert!(h.offset < len);
                if let Record::HeapDump(d) | Record::HeapDumpSegment(d) = record {
                    for s in d.sub_records() {
                        if let Err(e) = s {
                            assert!(e.offset() <= len, "{e}");
                        }
                    }
                }
            }
            Err(e) => assert!(e.offset() <= len, "{e}"),
        }
    }
    if let Ok(index) = Index::build(data) {
        let _ = index.java_strings();
        let _ = index.thread_stacks();
        for c in index.class_dumps() {
            let _ = index.layout(c.class_id);
        }
        for s in index.sub_records().flatten() {
            if let hprof::binary::SubRecord::InstanceDump(i) = s {
                let _ = index.instance_fields(&i);
            }
        }
    }
});
