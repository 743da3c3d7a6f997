//! Cut-off and damaged dumps: the library gives what could be read *and* why reading stopped
//! (offset, record, bytes missing), for the histogram, strings, classes and roots; the
//! incremental decoder never asks for more than the input holds.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use hprof::binary::incremental::{Decoder, Status};
use hprof::binary::records::tag;
use hprof::binary::{Error, Histogram, Index, Records};

const JDK17: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/binary/heapgen_jdk17.hprof"
);
const JDK5: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/binary/haha_sun_jdk5_64bit.hprof"
);

/// The offset of the middle of the second `HEAP_DUMP_SEGMENT`, and that segment's offset.
fn middle_of_a_segment(data: &[u8]) -> (usize, u64) {
    let (_, records) = Records::parse(data).unwrap();
    let segment = records
        .map(|r| r.unwrap().0)
        .filter(|h| h.tag == tag::HEAP_DUMP_SEGMENT)
        .nth(1)
        .unwrap();
    (
        (segment.body_offset() + u64::from(segment.length) / 2) as usize,
        segment.offset,
    )
}

#[test]
fn histogram_and_index_of_a_dump_cut_in_a_segment() {
    let data = std::fs::read(JDK17).unwrap();
    let whole = Histogram::salvage(&data).unwrap();
    assert!(whole.is_complete(), "{:?}", whole.error);
    let whole_index = Index::salvage(&data).unwrap();
    assert!(whole_index.is_complete());
    let (cut, segment_at) = middle_of_a_segment(&data);
    let part = &data[..cut];

    let h = Histogram::salvage(part).unwrap();
    let e = h.error.clone().unwrap();
    match e {
        Error::PastEnd {
            offset,
            at,
            what,
            needed,
            available,
        } => {
            assert_eq!(offset, segment_at);
            assert_eq!(what, "HEAP_DUMP_SEGMENT record");
            assert!(at > offset && at <= cut as u64, "{e}");
            assert_eq!(available, cut as u64 - offset);
            assert!(needed > available);
        }
        other => panic!("{other}"),
    }
    let (n, total) = (h.value.total_instances(), whole.value.total_instances());
    assert!(n > 0 && n < total, "{n} of {total}");

    // Strings, classes and roots read before the cut, and the same error.
    let ix = Index::salvage(part).unwrap();
    let ie = ix.error.clone().unwrap();
    assert!(
        matches!(ie, Error::PastEnd { offset, .. } if offset == segment_at),
        "{ie}"
    );
    assert!(ie.to_string().contains("byte(s) missing"), "{ie}");
    assert_eq!(ix.value.string_count(), whole_index.value.string_count());
    assert!(ix.value.class_dumps().count() > 0);
    assert!(
        ix.value
            .class_name(ix.value.class_dumps().next().unwrap().class_id)
            .is_some()
    );
    // The strict entry points give the error.
    assert_eq!(Index::build(part).unwrap_err(), ie);

    // Cut just before the end (HotSpot writes the GC roots last): the roots are there.
    let near_end = &data[..data.len() - 30];
    let ix = Index::salvage(near_end).unwrap();
    assert!(ix.error.is_some());
    let (roots, all) = (ix.value.roots().len(), whole_index.value.roots().len());
    assert!(roots > 0 && roots <= all, "{roots} of {all}");
}

#[test]
fn a_segmented_dump_without_heap_dump_end_is_incomplete() {
    let data = std::fs::read(JDK17).unwrap();
    let cut = &data[..data.len() - 9];
    let whole = Histogram::salvage(&data).unwrap().value.rows();
    let h = Histogram::salvage(cut).unwrap();
    let e = h.error.unwrap();
    assert!(e.to_string().contains("HEAP_DUMP_END"), "{e}");
    assert_eq!(e.offset(), cut.len() as u64);
    // Every object is there.
    assert_eq!(h.value.rows(), whole);
    let ix = Index::salvage(cut).unwrap();
    assert!(ix.error.unwrap().to_string().contains("HEAP_DUMP_END"));
}

#[test]
fn a_header_only_file_is_incomplete() {
    let data = std::fs::read(JDK17).unwrap();
    let header = &data[..31];
    let h = Histogram::salvage(header).unwrap();
    let e = h.error.unwrap();
    assert!(e.to_string().contains("only its header"), "{e}");
    assert!(Index::build(header).is_err());
    let mut d = Decoder::new();
    assert!(matches!(d.decode(header).unwrap(), Status::Complete { .. }));
    assert!(d.finish(&[]).is_err());
    // Not even a header: an error, no partial result.
    assert!(Histogram::salvage(&data[..20]).is_err());
}

#[test]
fn a_dump_cut_in_a_record_says_which_and_how_much_is_missing() {
    let data = std::fs::read(JDK5).unwrap();
    // Cut 10 bytes into the record at the 100th record boundary.
    let (_, records) = Records::parse(&data).unwrap();
    let h = records.map(|r| r.unwrap().0).nth(100).unwrap();
    let cut = &data[..h.offset as usize + 10];
    let e = Histogram::salvage(cut).unwrap().error.unwrap();
    assert_eq!(
        e,
        Error::PastEnd {
            offset: h.offset,
            at: h.offset,
            what: match h.tag {
                tag::UTF8 => "UTF8 record",
                tag::LOAD_CLASS => "LOAD_CLASS record",
                tag::FRAME => "STACK_FRAME record",
                tag::TRACE => "STACK_TRACE record",
                _ => "?",
            },
            needed: 9 + u64::from(h.length),
            available: 10,
        }
    );
}

#[test]
fn hostile_lengths_never_ask_for_more_than_the_input_holds() {
    let data = std::fs::read(JDK5).unwrap();
    let (_, records) = Records::parse(&data).unwrap();
    let headers: Vec<_> = records.map(|r| r.unwrap().0).collect();
    for h in headers.iter().step_by(97) {
        let mut m = data.clone();
        let at = h.offset as usize + 5;
        m[at..at + 4].copy_from_slice(&[0xFF; 4]);
        // Fed in 64 KiB chunks, as a streaming caller does: every `needed` fits in the file.
        let mut d = Decoder::new().input_len(m.len() as u64);
        let mut pending: Vec<u8> = Vec::new();
        let mut fed = 0;
        let mut failed = None;
        'feed: for chunk in m.chunks(64 << 10) {
            pending.extend_from_slice(chunk);
            fed += chunk.len();
            loop {
                match d.decode(&pending) {
                    Ok(Status::Complete { consumed, .. }) => {
                        pending.drain(..consumed);
                    }
                    Ok(Status::Partial { consumed, needed }) => {
                        pending.drain(..consumed);
                        assert!(
                            (fed + needed) as u64 <= m.len() as u64 + 1,
                            "record at {}: asked for {needed} at {fed}",
                            h.offset
                        );
                        break;
                    }
                    Err(e) => {
                        failed = Some(e);
                        break 'feed;
                    }
                }
            }
        }
        let e = failed.unwrap_or_else(|| d.finish(&pending).unwrap_err());
        assert!(
            e.to_string().contains(&format!("at byte {}", h.offset)),
            "record at {}: {e}",
            h.offset
        );
        // Without the size, the limit applies.
        let mut d = Decoder::new().max_item_len(1 << 20);
        let r = d.decode_all(&m, |_| {});
        if let Err(e) = r {
            assert!(
                matches!(
                    e,
                    Error::OverLimit { .. }
                        | Error::PastEnd { .. }
                        | Error::RecordOverrun { .. }
                        | Error::UnknownSubTag { .. }
                        | Error::BadBasicType { .. }
                        | Error::UnknownTag { .. }
                        | Error::TooLong { .. }
                        | Error::LengthMismatch { .. }
                ),
                "{e}"
            );
        }
    }
}

#[test]
fn fuzz_regression_a_cut_record_header_asks_only_for_the_header() {
    // From the hprof_incremental fuzz target (crash-ba1884f0…): with the input's size known,
    // a cut record header is still "partial" (a few bytes), never an error or a large request.
    let data: &[u8] = &[
        0x4a, 0x41, 0x56, 0x41, 0x20, 0x50, 0x52, 0x4f, 0x46, 0x49, 0x4c, 0x45, 0x20, 0x31, 0x2e,
        0x30, 0x00, 0x00, 0x00, 0x00, 0x04, 0x4f, 0x46, 0x49, 0x4c, 0x45, 0x20, 0x31, 0x2e, 0x30,
        0x00, 0x42,
    ];
    let mut d = Decoder::new().input_len(data.len() as u64);
    let mut pending = data;
    loop {
        match d.decode(pending) {
            Ok(Status::Complete { consumed, .. }) => pending = &pending[consumed..],
            Ok(Status::Partial { needed, .. }) => {
                assert!(needed < 9, "{needed}");
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    let e = d.finish(pending).unwrap_err();
    assert!(e.to_string().contains("record header"), "{e}");
}
