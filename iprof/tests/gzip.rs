//! gzip input: real gzip output (Python's `gzip` module, levels 0, 1 and 9, a file-name header,
//! two members) of the real extracts inflates to the original bytes; damaged input fails
//! cleanly.

#![cfg(feature = "gzip")]
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

use iprof::{Error, Profile};

const PAIRS: [(&str, &str); 2] = [
    (
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof.gz",
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof",
    ),
    (
        "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof.gz",
        "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof",
    ),
];

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn inflates_real_gzip_output() {
    for (gz, plain) in PAIRS {
        let gz = read(gz);
        let plain = read(plain);
        assert!(iprof::is_gzip(&gz));
        let err = Profile::parse(&gz).unwrap_err();
        let out = iprof::decompress(&gz, 1 << 20).unwrap();
        assert!(*out == *plain);
        assert!(
            matches!(err, Error::Compressed { format: "gzip", .. }),
            "{err}"
        );
        let out = iprof::gzip::decompress(&gz, 1 << 20).unwrap();
        assert!(out == plain);
        Profile::parse(&out).unwrap();
    }
}

#[test]
fn limit_is_enforced() {
    let (gz, plain) = PAIRS[0];
    let gz = read(gz);
    let len = read(plain).len();
    assert!(iprof::gzip::decompress(&gz, len).is_ok());
    let err = iprof::gzip::decompress(&gz, len - 1).unwrap_err();
    assert!(
        err.to_string().contains("exceeds the caller's limit"),
        "{err}"
    );
}

#[test]
fn truncated_and_corrupt_gzip_fails_cleanly() {
    for (gz, plain) in PAIRS {
        let gz = read(gz);
        let plain = read(plain);
        for cut in 0..gz.len() {
            match iprof::gzip::decompress(&gz[..cut], 1 << 20) {
                Err(_) => {}
                // A cut exactly between two members is a valid, shorter gzip stream.
                Ok(out) => assert!(
                    out.len() < plain.len() && plain.starts_with(&out),
                    "prefix {cut}"
                ),
            }
        }
        // Flipping a bit past the header (and file name) is detected (CRC-32, sizes, or bad
        // codes).
        let headers: Vec<usize> = (0..gz.len() - 2)
            .filter(|&i| gz[i..i + 3] == [0x1f, 0x8b, 8])
            .collect();
        for i in (30..gz.len())
            .step_by(7)
            .filter(|i| !headers.iter().any(|h| (*h..h + 10).contains(i)))
        {
            let mut bad = gz.clone();
            bad[i] ^= 0x10;
            assert!(
                iprof::gzip::decompress(&bad, 1 << 20).is_err(),
                "flip at {i}"
            );
        }
    }
    let err = iprof::gzip::decompress(b"{}", 10).unwrap_err();
    assert_eq!(
        err.to_string(),
        "byte 0 of the gzip data: expected the gzip magic 1f 8b"
    );
}

/// Each gzip member is a deflate stream of its own: a back-reference in the second member
/// (length 3 at distance 2, a fixed-Huffman block) may not reach into the first member's
/// "ab". zlib says "invalid distance too far back"; a hand-written decoder once copied "aba",
/// and a streaming inflater with a wrapping window (flate2's) reads zeros there.
#[test]
fn back_references_stay_inside_their_member() {
    let gz = hex(
        "1f8b08000000000002034b4c02006d48839e020000001f8b08000000000000ff034200ee202adb03000000",
    );
    let err = iprof::gzip::decompress(&gz, 1 << 20).unwrap_err();
    // Inside the second member's deflate data (bytes 32..), not at its CRC-32.
    assert!(
        matches!(
            err,
            Error::Gzip {
                offset: 32..=35,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("a distance reaching before the start of the member's data"),
        "{err}"
    );
    // The first member alone is fine.
    assert_eq!(iprof::gzip::decompress(&gz[..22], 1 << 20).unwrap(), b"ab");
}

/// Found by the `iprof_gzip` fuzz target: a header whose FEXTRA length reaches past the end of
/// the input (then FNAME is looked for there) reported an offset beyond the input.
#[test]
fn header_errors_stay_inside_the_input() {
    let gz = read("tests/data/fuzz-iprof_gzip-fextra-past-the-end.gz");
    let err = iprof::gzip::decompress(&gz, 1 << 20).unwrap_err();
    assert_eq!(
        err,
        Error::Gzip {
            what: "truncated gzip header",
            offset: gz.len()
        }
    );
    // Every cut of a header with FEXTRA, FNAME and FCOMMENT: the offset is at most the length.
    let header = [
        0x1f, 0x8b, 8, 0x1c, 0, 0, 0, 0, 0, 0xff, 3, 0, b'x', b'y', b'z', b'n', 0, b'c', 0,
    ];
    for cut in 0..header.len() {
        match iprof::gzip::decompress(&header[..cut], 1 << 20).unwrap_err() {
            Error::Gzip { offset, .. } => assert!(offset <= cut, "cut {cut}: {offset}"),
            e => panic!("{e:?}"),
        }
    }
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}
