//! Bad input: every error names what was expected and the byte offset; nothing panics,
//! nothing allocates by an untrusted count.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use hprof::binary::incremental::{BufferedDecoder, Decoder, Event, Status};
use hprof::binary::*;

fn header(id_size: u32) -> Vec<u8> {
    let mut v = b"JAVA PROFILE 1.0.2\0".to_vec();
    v.extend_from_slice(&id_size.to_be_bytes());
    v.extend_from_slice(&0u64.to_be_bytes());
    v
}

fn record(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![tag, 0, 0, 0, 0];
    v.extend_from_slice(&(body.len() as u32).to_be_bytes());
    v.extend_from_slice(body);
    v
}

/// Decodes everything one-shot (descending into heap dumps), with the whole-file checks.
fn one_shot(data: &[u8]) -> Result<usize> {
    let (_, records) = Records::parse(data)?;
    let records = records.salvaging();
    let mut n = 0;
    for r in records {
        let (_, record) = r?;
        n += 1;
        if let Record::HeapDump(d) | Record::HeapDumpSegment(d) = record {
            for s in d.sub_records() {
                s?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Decodes everything incrementally in 3-byte chunks.
fn incremental(data: &[u8]) -> Result<usize> {
    let mut d = BufferedDecoder::new();
    let mut n = 0;
    for c in data.chunks(3) {
        d.feed(c);
        while let Some(e) = d.next_event()? {
            if !matches!(e, Event::Header(_) | Event::HeapDumpBodyEnd(_)) {
                n += 1;
            }
        }
    }
    d.finish()?;
    Ok(n)
}

#[test]
fn gzip_is_named() {
    let e = Header::parse(&[0x1f, 0x8b, 8, 0, 0, 0]).unwrap_err();
    assert_eq!(e, Error::Gzip);
    assert!(e.to_string().contains("gzip"));
    assert_eq!(incremental(&[0x1f, 0x8b, 8, 0]).unwrap_err(), Error::Gzip);
}

#[test]
fn bad_magic_and_id_size() {
    let e = Header::parse(b"JAVA PROFILE 2.0\0\0\0\0\x04").unwrap_err();
    assert!(matches!(e, Error::BadMagic { .. }), "{e}");
    let e = Header::parse(b"PK\x03\x04 not a dump").unwrap_err();
    assert!(matches!(e, Error::BadMagic { .. }), "{e}");
    for bad in [0, 1, 2, 3, 5, 16, u32::MAX] {
        let e = Header::parse(&header(bad)).unwrap_err();
        assert_eq!(
            e,
            Error::BadIdSize {
                offset: 19,
                found: bad
            }
        );
        assert!(e.to_string().contains("byte 19"), "{e}");
    }
    // Truncated inside the header: an end-of-input error, and "needs more" incrementally.
    let h = header(8);
    for cut in 0..h.len() {
        let e = Header::parse(&h[..cut]).unwrap_err();
        assert!(matches!(e, Error::Truncated { .. }), "cut {cut}: {e}");
        let mut d = Decoder::new();
        assert!(matches!(
            d.decode(&h[..cut]).unwrap(),
            Status::Partial { .. }
        ));
    }
}

#[test]
fn unknown_sub_tag_names_tag_and_offset() {
    let mut data = header(4);
    let seg_at = data.len();
    // ROOT_UNKNOWN (5 bytes) then an unknown sub-tag 0x42.
    data.extend(record(0x1C, &[0xFF, 0, 0, 0, 1, 0x42, 0, 0]));
    let expected = Error::UnknownSubTag {
        offset: (seg_at + 9 + 5) as u64,
        tag: 0x42,
    };
    assert_eq!(one_shot(&data).unwrap_err(), expected);
    assert_eq!(incremental(&data).unwrap_err(), expected);
    assert!(expected.to_string().contains("0x42") && expected.to_string().contains("byte 45"));
}

#[test]
fn unknown_top_level_tags_follow_the_policy() {
    let mut data = header(4);
    data.extend(record(0x55, b"opaque body"));
    data.extend(record(0x03, &[0, 0, 0, 7]));
    // Surface (default).
    let (_, records) = Records::parse(&data).unwrap();
    let tags: Vec<u8> = records.map(|r| r.unwrap().1.tag()).collect();
    assert_eq!(tags, [0x55, 0x03]);
    // Skip.
    let (_, records) = Records::parse(&data).unwrap();
    let tags: Vec<u8> = records
        .unknown_tags(UnknownTags::Skip)
        .map(|r| r.unwrap().1.tag())
        .collect();
    assert_eq!(tags, [0x03]);
    // Error.
    let (_, records) = Records::parse(&data).unwrap();
    let e = records
        .unknown_tags(UnknownTags::Error)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e,
        Error::UnknownTag {
            offset: 31,
            tag: 0x55
        }
    );
    // Incremental skip, in 2-byte chunks, never buffering the skipped body.
    let mut d = BufferedDecoder::with_decoder(Decoder::new().unknown_tags(UnknownTags::Skip));
    let mut got = Vec::new();
    for c in data.chunks(2) {
        d.feed(c);
        while let Some(e) = d.next_event().unwrap() {
            if let Event::Record(_, r) = e {
                got.push(r.tag());
            }
        }
        assert!(d.buffered() < 31); // never more than a header or a record header + 4
    }
    d.finish().unwrap();
    assert_eq!(got, [0x03]);
}

#[test]
fn record_length_past_the_end() {
    let mut data = header(8);
    data.extend_from_slice(&[0x01, 0, 0, 0, 0, 0, 0, 0x10, 0]); // UTF8 claiming 4096 bytes
    data.extend_from_slice(&[0; 20]);
    // Without the whole-file checks: the body read runs out.
    let e = Records::parse(&data)
        .unwrap()
        .1
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Truncated {
                offset: 60,
                needed: 4076,
                ..
            }
        ),
        "{e}"
    );
    // With them, and incrementally: the record, its offset, and how much is missing.
    assert_eq!(
        one_shot(&data).unwrap_err(),
        incremental(&data).unwrap_err()
    );
    let e = incremental(&data).unwrap_err();
    assert_eq!(
        e,
        Error::PastEnd {
            offset: 31,
            at: 31,
            what: "UTF8 record",
            needed: 9 + 4096,
            available: 29
        }
    );
    assert!(e.to_string().contains("4076 byte(s) missing"), "{e}");
}

#[test]
fn huge_counts_are_errors_not_allocations() {
    // OBJ_ARRAY_DUMP claiming u32::MAX elements of 8 bytes inside a 40-byte segment.
    let mut sub = vec![0x22];
    sub.extend_from_slice(&[0; 8]); // array id
    sub.extend_from_slice(&[0; 4]); // trace
    sub.extend_from_slice(&u32::MAX.to_be_bytes());
    sub.extend_from_slice(&[0; 8]); // class id
    sub.extend_from_slice(&[0; 11]);
    let mut data = header(8);
    data.extend(record(0x1C, &sub));
    let e = one_shot(&data).unwrap_err();
    assert!(e.offset() >= 31, "{e}");
    // Incrementally this is a hard error (the record cannot hold it), not "needs 32 GB more".
    let mut d = Decoder::new();
    let r = d.decode_all(&data, |_| {});
    assert!(
        matches!(
            r,
            Err(Error::RecordOverrun {
                offset: 31,
                tag: 0x1C,
                ..
            })
        ),
        "{r:?}"
    );

    // TRACE with a frame count that overflows nothing but exceeds the body.
    let mut body = vec![0; 8];
    body.extend_from_slice(&0x4000_0000u32.to_be_bytes());
    let mut data = header(4);
    data.extend(record(0x05, &body));
    let e = one_shot(&data).unwrap_err();
    assert!(matches!(e, Error::RecordOverrun { tag: 0x05, .. }), "{e}");
}

#[test]
fn fixed_records_with_wrong_lengths() {
    let mut data = header(4);
    data.extend(record(0x03, &[0, 0, 0, 1, 9, 9])); // UNLOAD_CLASS is 4 bytes
    let e = one_shot(&data).unwrap_err();
    assert_eq!(
        e,
        Error::LengthMismatch {
            offset: 31,
            tag: 0x03,
            declared: 6,
            actual: 4
        }
    );
    let mut data = header(4);
    data.extend(record(0x02, &[0, 0, 0, 1])); // LOAD_CLASS needs 16 bytes
    let e = one_shot(&data).unwrap_err();
    assert!(
        matches!(
            e,
            Error::RecordOverrun {
                offset: 31,
                tag: 0x02,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn invalid_basic_types() {
    // PRIM_ARRAY_DUMP with element type 2 (object) and 12.
    for code in [0u8, 1, 2, 3, 12, 0xFF] {
        let mut sub = vec![0x23, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, code];
        sub.extend_from_slice(&[0; 4]);
        let mut data = header(4);
        data.extend(record(0x1C, &sub));
        let e = one_shot(&data).unwrap_err();
        assert_eq!(
            std::mem::discriminant(&e),
            std::mem::discriminant(&Error::BadBasicType {
                offset: 0,
                found: 0,
                expected: ""
            })
        );
        assert_eq!(e.offset(), (31 + 9 + 13) as u64, "{e}");
    }
}

#[test]
fn android_obsolete_sub_records_decode() {
    // 0x8C, 0x8E, 0x90 and 0xC3 appear in no real fixture: synthetic bytes from the layouts.
    let mut body = vec![0x8C, 0, 0, 0, 1];
    body.extend_from_slice(&[0x8E, 0, 0, 0, 2, 0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0xFF]);
    body.extend_from_slice(&[0x90, 0, 0, 0, 4]);
    body.extend_from_slice(&[0xC3, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 100, 10]);
    let mut data = b"JAVA PROFILE 1.0.3\0".to_vec();
    data.extend_from_slice(&4u32.to_be_bytes());
    data.extend_from_slice(&0u64.to_be_bytes());
    data.extend(record(0x1C, &body));
    let (_, mut records) = Records::parse(&data).unwrap();
    let Record::HeapDumpSegment(d) = records.next().unwrap().unwrap().1 else {
        panic!()
    };
    let subs: Vec<SubRecord<'_>> = d.sub_records().map(Result::unwrap).collect();
    assert_eq!(
        subs,
        [
            SubRecord::Root(GcRoot::ReferenceCleanup { object_id: Id(1) }),
            SubRecord::Root(GcRoot::JniMonitor {
                object_id: Id(2),
                thread_serial: ThreadSerial(3),
                stack_depth: -1
            }),
            SubRecord::Root(GcRoot::Unreachable { object_id: Id(4) }),
            SubRecord::PrimitiveArrayNoData(PrimitiveArrayNoData {
                array_id: Id(5),
                stack_trace_serial: StackTraceSerial(6),
                length: 100,
                element_type: BasicType::Int,
            }),
        ]
    );
    // The histogram counts the no-data array with its length × element size.
    let rows = histogram::Histogram::parse(&data).unwrap().rows();
    assert_eq!(
        rows,
        [histogram::HistogramRow {
            instances: 1,
            shallow_bytes: 400,
            class_name: "int[]".into()
        }]
    );
}

#[test]
fn every_prefix_of_a_synthetic_dump() {
    // Every cut of a small dump is either a clean file (at a record boundary) or an error
    // whose offset is within the input, one-shot and incremental alike.
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/binary/heapgen_jdk17.hprof"
    ))
    .unwrap();
    let data = &data[..4000];
    for cut in 0..data.len() {
        let part = &data[..cut];
        let a = one_shot(part);
        let b = incremental(part);
        assert_eq!(a.is_ok(), b.is_ok(), "cut {cut}: {a:?} {b:?}");
        if let (Err(a), Err(b)) = (a, b) {
            assert!(
                a.offset() <= cut as u64 && b.offset() <= cut as u64,
                "cut {cut}: {a} / {b}"
            );
        }
    }
}
