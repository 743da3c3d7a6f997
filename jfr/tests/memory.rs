//! Memory against the input: the peak heap (counting allocator, `testkit`) of decoding every
//! committed recording's chunks (metadata and constant-pool index kept) and of checking every
//! event, against the recording's size; the family's budget is 8× the input. And hostile
//! counts allocate nothing the input cannot back.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stderr
)]

use testkit::peak_of;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

#[test]
fn decoding_stays_within_budget() {
    for entry in std::fs::read_dir("tests/data").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "jfr") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let (chunks, peak) = peak_of(|| {
            let chunks: Vec<_> = jfr::Chunks::new(&data).map(|c| c.unwrap()).collect();
            for c in &chunks {
                c.check_records(|_, _| {}).unwrap();
            }
            chunks
        });
        let ratio = peak as f64 / data.len() as f64;
        eprintln!(
            "{}: {} bytes, peak {peak} ({ratio:.2}x)",
            path.display(),
            data.len()
        );
        assert!(!chunks.is_empty());
        assert!(ratio <= 8.0, "{}: {ratio:.2}x", path.display());
    }
}

#[test]
fn checking_events_allocates_nothing() {
    let data = std::fs::read("tests/data/cpu-default.jfr").unwrap();
    let chunk = jfr::Chunks::new(&data).next().unwrap().unwrap();
    let ((), allocs) = testkit::allocs_of(|| {
        chunk.check_records(|_, _| {}).unwrap();
        for e in chunk.events() {
            e.unwrap().validate().unwrap();
        }
    });
    assert_eq!(allocs, 0);
}

#[test]
fn hostile_lengths_allocate_nothing_large() {
    // The tiny recording with its last record's size (4 padded varint bytes, the checkpoint)
    // claiming about 2^28 bytes.
    let mut data = jfr::testing::tiny_recording();
    let size_at = data
        .windows(4)
        .rposition(|w| w[0] & 0x80 != 0 && w[1] & 0x80 != 0 && w[2] & 0x80 != 0 && w[3] & 0x80 == 0)
        .unwrap();
    data[size_at + 3] = 0x7f;
    let (r, peak) = peak_of(|| {
        let chunk = jfr::Chunks::new(&data).next().unwrap();
        chunk.map(|c| c.events().filter(Result::is_err).count())
    });
    assert!(r.is_err() || r == Ok(1), "{r:?}");
    assert!(peak < 64 * 1024, "peak {peak}");
}
