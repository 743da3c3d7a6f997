//! xz input: real `xz` output (XZ Utils 5.4.1: `-9` with a CRC-64 check; two concatenated
//! streams, `-0` with CRC-32 and `-6` with SHA-256) of the real extracts decompresses to the
//! original bytes; damaged, truncated and oversized input fails cleanly with an offset.

#![cfg(feature = "xz")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing)] // test helpers outside #[test] fns

use iprof::{Compression, Error, Profile};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

const PAIRS: [(&str, &str); 2] = [
    (
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof.xz",
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof",
    ),
    (
        "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof.xz",
        "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof",
    ),
];

/// Where the second stream of the two-stream file starts (`xz --robot -lvv`).
const SECOND_STREAM: usize = 784;

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn decompresses_real_xz_output() {
    for (xz, plain) in PAIRS {
        let xz = read(xz);
        let plain = read(plain);
        assert_eq!(Compression::detect(&xz), Compression::Xz);
        let err = Profile::parse(&xz).unwrap_err();
        assert!(
            matches!(err, Error::Compressed { format: "xz", .. }),
            "{err}"
        );
        assert!(iprof::xz::decompress(&xz, 1 << 20).unwrap() == plain);
        let json = iprof::decompress(&xz, 1 << 20).unwrap();
        assert!(*json == *plain);
        let from_xz = Profile::parse(&*json).unwrap();
        assert_eq!(from_xz, Profile::parse(&plain).unwrap());
        assert_eq!(from_xz.to_json().as_bytes(), &plain[..]);
    }
}

#[test]
fn limit_is_enforced() {
    for (xz, plain) in PAIRS {
        let xz = read(xz);
        let len = read(plain).len();
        assert_eq!(iprof::xz::decompress(&xz, len).unwrap().len(), len);
        let err = iprof::xz::decompress(&xz, len - 1).unwrap_err();
        assert!(matches!(err, Error::Xz { .. }), "{err:?}");
        assert!(
            err.to_string().contains("exceeds the caller's limit"),
            "{err}"
        );
    }
}

/// 64 MiB of zeros in 9,896 bytes: the output stops at the limit, not at the end of the data.
#[test]
fn a_bomb_stops_at_the_limit() {
    let bomb = read("tests/data/zeros-64MiB.handmade.xz");
    let (result, peak) = testkit::peak_of(|| iprof::xz::decompress(&bomb, 1 << 20));
    let err = result.unwrap_err();
    assert!(
        err.to_string().contains("exceeds the caller's limit"),
        "{err}"
    );
    assert!(peak < 3 << 20, "peak heap {peak} bytes for a 1 MiB limit");
    assert_eq!(
        iprof::xz::decompress(&bomb, 64 << 20).unwrap().len(),
        64 << 20
    );
}

#[test]
fn truncated_and_corrupt_xz_fails_cleanly() {
    for (xz, plain) in PAIRS {
        let xz = read(xz);
        let plain = read(plain);
        for cut in 0..xz.len() {
            match iprof::xz::decompress(&xz[..cut], 1 << 20) {
                Err(Error::Xz { offset, .. }) => assert!(offset <= cut, "prefix {cut}"),
                Err(e) => panic!("prefix {cut}: {e:?}"),
                // A cut exactly between two streams is a valid, shorter xz file.
                Ok(out) => assert!(
                    cut == SECOND_STREAM && out.len() < plain.len() && plain.starts_with(&out),
                    "prefix {cut}"
                ),
            }
        }
        // Every header, block, index and footer is checked (CRC-32, CRC-64, SHA-256).
        for i in (0..xz.len()).step_by(5) {
            let mut bad = xz.clone();
            bad[i] ^= 0x10;
            assert!(iprof::xz::decompress(&bad, 1 << 20).is_err(), "flip at {i}");
        }
    }
    let err = iprof::xz::decompress(b"{}", 10).unwrap_err();
    assert_eq!(
        err.to_string(),
        "byte 0 of the xz data: not xz data (expected the xz magic fd 37 7a 58 5a 00)"
    );
    let err = iprof::xz::decompress(&[], 10).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
}
