//! `hprof` salvage over any bytes, read as a whole (possibly cut-off) HPROF file: the header
//! reader, `Records::salvaging`, `Index::salvage`, `Histogram::salvage` and
//! `Histogram::parse_parallel` never panic; a stop's offset lies in the input; the two
//! salvaging readers agree on whether the file is whole; a whole file's salvaged histogram is
//! the one `from_bytes` and `from_bytes_parallel` count; and the partial index answers every
//! question (layouts, fields, stacks, strings) with a value or an error, its layout cache
//! decoding every instance as the index does.
#![no_main]

use hprof::binary::histogram::Histogram;
use hprof::binary::index::Index;
use hprof::binary::{Header, Records, SubRecord};
use libfuzzer_sys::fuzz_target;

/// The rows (in a fixed order) and the total, to compare histograms.
fn rows(h: &Histogram) -> (Vec<String>, u64) {
    let mut rows: Vec<String> = h.rows().iter().map(|r| format!("{r:?}")).collect();
    rows.sort();
    (rows, h.total_instances())
}

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    if let Ok((_, header_len)) = Header::parse(data) {
        assert!(header_len <= data.len());
    }

    if let Ok((_, records)) = Records::parse(data) {
        let mut n = 0usize;
        let mut errors = 0usize;
        for r in records.salvaging() {
            n += 1;
            assert!(n <= data.len() + 2, "salvaging reader does not terminate");
            if let Err(e) = r {
                errors += 1;
                assert!(e.offset() <= len, "{e}");
                assert!(errors <= 2, "salvaging reader goes on after its errors");
            }
        }
    }

    let hist = Histogram::salvage(data);
    let index = Index::salvage(data);
    assert_eq!(hist.is_ok(), index.is_ok(), "the header verdicts differ");
    if let (Ok(h), Ok(ix)) = (&hist, &index) {
        assert_eq!(
            h.is_complete(),
            ix.is_complete(),
            "histogram stop {:?}, index stop {:?}",
            h.error,
            ix.error
        );
    }

    if let Ok(h) = &hist {
        if let Some(e) = &h.error {
            assert!(e.offset() <= len, "{e}");
            let _ = e.to_string();
        }
        let whole = Histogram::parse(data);
        let parallel = Histogram::parse_parallel(data, 2);
        assert_eq!(whole.is_ok(), parallel.is_ok());
        if let (Ok(w), Ok(p)) = (&whole, &parallel) {
            assert_eq!(rows(w), rows(p));
        }
        if h.is_complete() {
            let w = whole
                .as_ref()
                .expect("a whole file counts without salvaging");
            assert_eq!(rows(w), rows(&h.value));
        }
    }

    if let Ok(ix) = &index {
        if let Some(e) = &ix.error {
            assert!(e.offset() <= len, "{e}");
        }
        let ix = &ix.value;
        for c in ix.class_dumps().take(256) {
            let _ = ix.layout(c.class_id);
            let _ = ix.class_name(c.class_id);
        }
        let _ = ix.thread_stacks();
        let _ = ix.java_strings();
        let _ = ix.roots().len();
        let mut cache = ix.layout_cache();
        for s in ix.sub_records().take(4096) {
            match s {
                Ok(SubRecord::InstanceDump(i)) => {
                    // The cached layouts decode every instance as the index does.
                    let direct = format!("{:?}", ix.instance_fields(&i));
                    assert_eq!(format!("{:?}", cache.instance_fields(&i)), direct);
                }
                Ok(_) => {}
                Err(e) => {
                    assert!(e.offset() <= len, "{e}");
                    break;
                }
            }
        }
    }
});
