//! `Chunk::check_records` (what `jfr-summary` runs, with its fast path for chunks with
//! compressed integers) agrees with the careful walk, every record through the event
//! iterator and `Event::validate`: the same records with the same type ids and sizes, and the
//! same error at the same offset, on every real recording, on damaged copies of one (bytes
//! overwritten all over its events) and on copies cut anywhere.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

/// What a walk saw: every record's (type id, size), then the error that stopped it.
type Walk = (Vec<(i64, usize)>, Option<String>);

fn fast(chunk: &jfr::Chunk<'_>) -> Walk {
    let mut seen = Vec::new();
    let err = chunk
        .check_records(|id, size| seen.push((id, size)))
        .err()
        .map(|e| e.to_string());
    (seen, err)
}

fn careful(chunk: &jfr::Chunk<'_>) -> Walk {
    let mut seen = Vec::new();
    for record in chunk.records() {
        let checked = record.and_then(|e| {
            if e.type_id() > 1 {
                e.validate()?;
            }
            Ok(e)
        });
        match checked {
            Ok(e) => seen.push((e.type_id(), e.size())),
            Err(e) => return (seen, Some(e.to_string())),
        }
    }
    (seen, None)
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("tests/data").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jfr") {
            out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    assert!(out.len() >= 10, "{}", out.len());
    out
}

#[test]
fn agrees_on_every_recording() {
    for (name, data) in fixtures() {
        let mut records = 0;
        for chunk in jfr::Chunks::new(&data) {
            let chunk = chunk.unwrap();
            let (seen, err) = fast(&chunk);
            let want = careful(&chunk);
            assert_eq!((&seen, &err), (&want.0, &want.1), "{name}");
            if chunk.cut().is_none() {
                assert!(err.is_none(), "{name}: {err:?}");
            }
            records += seen.len();
        }
        assert!(records > 1000, "{name}: {records}");
    }
}

/// Bytes of the first chunk overwritten with values that end, continue or pad an integer, or
/// are a string encoding: every byte of a few records spread over the chunk (their sizes,
/// type ids and fields), and every 4001st byte. Whatever the careful walk says, the fast one
/// says.
#[test]
fn agrees_on_damaged_events() {
    let data = std::fs::read("tests/data/cpu-profile.jfr").unwrap();
    let first = jfr::Chunk::parse(&data, 0).unwrap();
    let end = first.range().end;
    let metadata = Arc::clone(&first.metadata);
    let records: Vec<(usize, usize)> = first
        .records()
        .map(|r| r.map(|e| (e.offset(), e.size())).unwrap())
        .collect();
    let mut places: Vec<usize> = (1..8)
        .flat_map(|i| {
            let (at, size) = records[i * records.len() / 8];
            at..at + size.min(24)
        })
        .collect();
    places.extend((jfr::HEADER_SIZE..end).step_by(4001));
    let (mut tried, mut differed, mut failed) = (0, 0, 0);
    let mut copy = data[..end].to_vec();
    for at in places {
        for value in [0x00, 0x04, 0x7f, 0xff, data[at] ^ 0x80] {
            if value == data[at] {
                continue;
            }
            copy[at] = value;
            if let Ok(chunk) = jfr::Chunk::parse_reusing(&copy, 0, Some(&metadata)) {
                let want = careful(&chunk);
                let got = fast(&chunk);
                assert_eq!(got, want, "byte {at} set to {value:#x}");
                tried += 1;
                differed += usize::from(got.0.len() != records.len());
                failed += usize::from(got.1.is_some());
            }
        }
        copy[at] = data[at];
    }
    // The damage was seen: some copies fail, some lose or gain records.
    assert!(
        tried > 500 && failed > tried / 5 && differed > tried / 5,
        "{tried} {failed} {differed}"
    );
}

/// Copies cut at many places: a chunk the input holds only part of is checked up to the cut,
/// where its last record is read the careful way (fewer than 8 bytes may follow it).
#[test]
fn agrees_on_cut_recordings() {
    let data = std::fs::read("tests/data/alloc-chunks.jfr").unwrap();
    for cut in (jfr::HEADER_SIZE..data.len())
        .step_by(49_999)
        .chain((1..9).map(|k| data.len() - k))
    {
        for chunk in jfr::Chunks::new(&data[..cut]) {
            let Ok(chunk) = chunk else { break };
            assert_eq!(fast(&chunk), careful(&chunk), "cut at {cut}");
        }
    }
}
