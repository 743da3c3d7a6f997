//! `hprof` heap-dump sub-records: the input (after one byte choosing the id size) is a
//! heap-dump body. Every sub-record that decodes re-encodes to exactly the bytes it came from;
//! errors carry an offset inside the input.
#![no_main]

use hprof::binary::histogram::Histogram;
use hprof::binary::write::encode_sub_record;
use hprof::binary::{IdSize, SubRecords};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let id_size = if first & 1 == 0 {
        IdSize::Four
    } else {
        IdSize::Eight
    };
    let mut subs = SubRecords::new(body, 1, id_size);
    let mut hist = Histogram::new();
    let mut out = Vec::new();
    loop {
        let start = (subs.offset() - 1) as usize;
        match subs.next() {
            None => break,
            Some(Ok(s)) => {
                let end = (subs.offset() - 1) as usize;
                out.clear();
                encode_sub_record(&s, id_size, &mut out).expect("lengths come from a u4");
                assert_eq!(&out[..], &body[start..end], "{s:?}");
                hist.add_sub_record(&s);
            }
            Some(Err(e)) => {
                assert!(e.offset() <= data.len() as u64, "{e}");
                break;
            }
        }
    }
    let _ = hist.rows();
});
