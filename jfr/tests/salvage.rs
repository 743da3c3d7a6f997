//! Recordings cut anywhere: every whole chunk decodes in full, the cut chunk gives every event
//! that ends before the cut and then `Truncated` with the offset; damaged and hand-made
//! hostile recordings give errors, never panics or allocations the input cannot back.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use jfr::testing::{self, ClassSpec, FieldSpec};

fn event_offsets(data: &[u8]) -> (Vec<usize>, Option<jfr::Error>) {
    let mut offsets = Vec::new();
    for chunk in jfr::Chunks::new(data) {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => return (offsets, Some(e)),
        };
        for e in chunk.events() {
            match e.and_then(|e| e.resolved().map(|_| e)) {
                Ok(e) => offsets.push(e.offset() + e.size()),
                Err(e) => return (offsets, Some(e)),
            }
        }
    }
    (offsets, None)
}

#[test]
fn cut_anywhere() {
    let data = std::fs::read("tests/data/alloc-chunks.jfr").unwrap();
    let (full, err) = event_offsets(&data);
    assert!(err.is_none());
    let first_end = jfr::ChunkHeader::parse(&data, 0).unwrap().end() as usize;
    let mut partial_seen = 0;
    for cut in (0..data.len())
        .step_by(97_003)
        .chain([first_end, first_end + 68, data.len() - 1])
    {
        let (got, err) = event_offsets(&data[..cut]);
        if cut == first_end {
            // A chunk boundary: a whole one-chunk recording.
            assert!(err.is_none(), "{err:?}");
            assert_eq!(got[..], full[..got.len()]);
            continue;
        }
        let err = err.unwrap_or_else(|| panic!("cut at {cut}: no error"));
        assert!(err.is_truncated(), "cut at {cut}: {err}");
        assert!(
            err.offset() as usize <= cut,
            "cut at {cut}: error at {}",
            err.offset()
        );
        // Every event decoded is one of the whole recording's, in order; and every event
        // of the whole chunks before the cut is there.
        assert_eq!(got[..], full[..got.len()], "cut at {cut}");
        let whole_chunks_end = if cut >= first_end { first_end } else { 0 };
        assert!(got.len() >= full.iter().filter(|&&end| end <= whole_chunks_end).count());
        if cut > first_end + 20_000 {
            assert!(
                got.iter().any(|&end| end > first_end),
                "cut at {cut}: nothing of the cut chunk"
            );
            partial_seen += 1;
        }
    }
    assert!(partial_seen > 0);
}

#[test]
fn damaged_bytes_never_panic() {
    let data = std::fs::read("tests/data/cpu-default.jfr").unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..60 {
        let mut d = data.clone();
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = (x % d.len() as u64) as usize;
            d[at] = (x >> 32) as u8;
        }
        let _ = event_offsets(&d);
    }
}

fn tiny_with(fields: Vec<FieldSpec<'static>>, body: &[u8]) -> Vec<u8> {
    let classes = [
        ClassSpec {
            id: 20,
            name: "long",
            ..ClassSpec::default()
        },
        ClassSpec {
            id: 21,
            name: "java.lang.String",
            ..ClassSpec::default()
        },
        ClassSpec {
            id: 23,
            name: "demo.Loop",
            fields: vec![FieldSpec {
                name: "again",
                class_id: 23,
                ..FieldSpec::default()
            }],
            ..ClassSpec::default()
        },
        ClassSpec {
            id: 30,
            name: "demo.E",
            super_type: Some("jdk.jfr.Event"),
            fields,
            ..ClassSpec::default()
        },
    ];
    let checkpoint = testing::checkpoint_event(0, &[]);
    testing::chunk(
        &testing::metadata_event(&classes),
        &[testing::record(30, body)],
        &checkpoint,
    )
}

#[test]
fn hostile_counts_and_nesting() {
    // An array claiming 2^62 elements in a 20-byte event.
    let arr = vec![FieldSpec {
        name: "xs",
        class_id: 20,
        array: true,
        ..FieldSpec::default()
    }];
    let data = tiny_with(
        arr,
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 1, 2],
    );
    let chunk = jfr::Chunks::new(&data).next().unwrap().unwrap();
    let e = chunk.events().next().unwrap().unwrap();
    let err = e.values().unwrap_err();
    assert!(err.to_string().contains("array length"), "{err}");
    assert!(e.validate().is_err());
    // A string claiming 1 GB.
    let s = vec![FieldSpec {
        name: "s",
        class_id: 21,
        ..FieldSpec::default()
    }];
    let data = tiny_with(s, &[3, 0x80, 0x80, 0x80, 0x80, 0x04, b'x']);
    let chunk = jfr::Chunks::new(&data).next().unwrap().unwrap();
    let err = chunk
        .events()
        .next()
        .unwrap()
        .unwrap()
        .values()
        .unwrap_err();
    assert!(err.is_truncated(), "{err}");
    // A struct that contains itself.
    let looped = vec![FieldSpec {
        name: "l",
        class_id: 23,
        ..FieldSpec::default()
    }];
    let data = tiny_with(looped, &[]);
    let chunk = jfr::Chunks::new(&data).next().unwrap().unwrap();
    let err = chunk
        .events()
        .next()
        .unwrap()
        .unwrap()
        .values()
        .unwrap_err();
    assert!(err.to_string().contains("struct nesting"), "{err}");
}

#[test]
fn errors_say_where() {
    let mut data = testing::tiny_recording();
    data[0] = b'X';
    let err = jfr::Chunks::new(&data).next().unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid chunk magic at byte offset 0: expected \"FLR\\0\", found [58, 4c, 52, 00]"
    );
    let mut data = testing::tiny_recording();
    data[5] = 9;
    let err = jfr::Chunks::new(&data).next().unwrap().unwrap_err();
    assert!(
        err.to_string().contains("expected 1.x or 2.x, found 9.1"),
        "{err}"
    );
}

/// Inputs the fuzz targets found crashing (`tests/data/fuzz/<target>-<what>`), each now an
/// error or a partial result.
#[test]
fn fuzz_regressions() {
    let mut n = 0;
    for entry in std::fs::read_dir("tests/data/fuzz").unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let _ = event_offsets(&data);
        for chunk in jfr::Chunks::new(&data).flatten() {
            let _ = chunk.check_records(|_, _| {});
            for e in chunk.events().flatten() {
                assert_eq!(
                    e.validate().is_ok(),
                    e.values().is_ok(),
                    "{}",
                    path.display()
                );
                let mut line = String::new();
                let _ = jfr::json::write_event(&e, &jfr::json::JsonOptions::default(), &mut line);
                let _ = e.typed();
            }
        }
        n += 1;
    }
    assert!(n >= 1);
}

/// A chunk still being written (the recorder's repository file, copied mid-run): its header
/// covers what the last flush wrote; every event up to there decodes. Bytes the recorder had
/// written past the flush (here: the chunk's own first bytes, appended) are reported, not
/// decoded as a chunk.
#[test]
fn chunk_still_being_written() {
    let data = std::fs::read("tests/data/alloc-inprogress.jfr").unwrap();
    let chunk = jfr::ChunkHeader::parse(&data, 0).unwrap();
    assert_ne!(chunk.generation(), 0, "{chunk:?}");
    assert!(!chunk.is_final());
    let (events, err) = event_offsets(&data);
    assert!(err.is_none(), "{err:?}");
    assert!(events.len() > 1000);
    let mut longer = data.clone();
    longer.extend_from_slice(&data[68..4000]);
    let (again, err) = event_offsets(&longer);
    assert_eq!(again, events);
    let err = err.unwrap();
    assert_eq!(err.offset() as usize, data.len(), "{err}");
}
