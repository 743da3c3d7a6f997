//! Crafted input that once made the library use memory, output or work out of proportion to
//! its size. Memory and allocations are measured with a counting allocator (no timing).

use iprof::Profile;
use iprof::folded::FrameNames;

use testkit::{allocs_of, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// One long method name shared by every frame of a deep sampled stack: each frame of the
/// folded output once repeated the whole name (64 KiB per 4-byte frame: 64 MB of output
/// from 70 KB of input; now 2 MB). Frame names are now cut at `FRAME_NAME_LIMIT` bytes.
#[test]
fn folded_output_is_bounded_when_frames_share_a_long_name() {
    let name = "m".repeat(64 << 10);
    let ctx = vec!["1:0"; 1000].join("<");
    let text = format!(
        r#"{{"version":"1.0.0","types":[{{"id":1,"name":"T"}}],
        "methods":[{{"id":1,"name":"{name}","signature":[1,1]}}],
        "samplingProfiles":[{{"ctx":"{ctx}","records":[1]}}]}}"#
    );
    let p = Profile::parse(&text).unwrap();
    for naming in [FrameNames::Short, FrameNames::Qualified] {
        let (folded, peak) = peak_of(|| p.folded_samples(naming));
        assert!(folded.len() < 40 * text.len(), "{} bytes", folded.len());
        assert!(peak < 120 * text.len(), "peak {peak} bytes");
        // Each frame keeps the start of its name and says it was cut.
        let first = folded.split(';').next().unwrap();
        assert!(first.starts_with("T.mmmm"), "{}", &first[..20]);
        assert!(first.ends_with('…'));
        assert!(first.len() <= iprof::folded::FRAME_NAME_LIMIT + '…'.len_utf8());
        assert_eq!(folded.matches(';').count(), 999);
        assert!(folded.ends_with(" 1\n"));
    }
}

/// A signature repeating one long type name: rendering the method once wrote the name once
/// per parameter (5000 × 16 KiB = 80 MB for one frame of a 26 KB file).
#[test]
fn folded_output_is_bounded_when_a_signature_repeats_a_long_type() {
    let type_name = format!("pkg.{}.", "t".repeat(16 << 10));
    let signature = vec!["1"; 5000].join(",");
    let text = format!(
        r#"{{"version":"1.0.0","types":[{{"id":1,"name":"{type_name}"}},{{"id":2,"name":"[[[{}"}}],
        "methods":[{{"id":1,"name":"f","signature":[2,{signature}]}}],
        "samplingProfiles":[{{"ctx":"1:0","records":[3]}},{{"ctx":"1:0<1:1","records":[4]}}]}}"#,
        "L".repeat(16 << 10)
    );
    let p = Profile::parse(&text).unwrap();
    for naming in [FrameNames::Short, FrameNames::Qualified] {
        let (folded, peak) = peak_of(|| p.folded_samples(naming));
        assert!(folded.len() < 8 << 10, "{} bytes", folded.len());
        assert!(peak < 4 * text.len(), "peak {peak} bytes");
        assert_eq!(folded.lines().count(), 2);
    }
    // Names::short is still the whole name: only folded output is cut.
    let names = p.names();
    let short = names.short_method(1);
    assert!(short.starts_with("[[[LLL"));
    assert_eq!(short.matches(", ").count(), 4998); // 4999 parameters
}

/// Many unknown top-level keys: the writer checked each key against every key already
/// written (1.5 × 10^10 comparisons for 100 000 keys); now each key is checked once.
#[test]
fn writing_many_unknown_keys_is_linear() {
    let mut text = String::from(r#"{"version":"1.0.0","types":[],"methods":[]"#);
    for i in 0..100_000 {
        text.push_str(&format!(",\"k{i}\":{i}"));
    }
    text.push('}');
    let p = Profile::parse(&text).unwrap();
    let (json, allocs) = allocs_of(|| p.to_json());
    assert_eq!(json, text);
    assert!(allocs < 200, "{allocs} allocations");
}

/// A gzip member of many empty fixed-Huffman deflate blocks (10 bits each): the inflater
/// rebuilt the fixed code tables for every block, two allocations and ~1000 steps per
/// 10 input bits (20 000 allocations here). The fixed tables are now built once.
#[test]
#[cfg(feature = "gzip")]
fn empty_fixed_blocks_do_not_rebuild_tables() {
    const BLOCKS: usize = 10_000;
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let (mut acc, mut n) = (0u32, 0u32);
    for i in 0..BLOCKS {
        let last = u32::from(i == BLOCKS - 1);
        // BFINAL, BTYPE = 01 (LSB first), then the 7-bit all-zero end-of-block code.
        acc |= (last | 1 << 1) << n;
        n += 10;
        while n >= 8 {
            gz.push(acc as u8);
            acc >>= 8;
            n -= 8;
        }
    }
    if n > 0 {
        gz.push(acc as u8);
    }
    gz.extend_from_slice(&[0; 8]); // CRC-32 and size of nothing
    let (out, allocs) = allocs_of(|| iprof::gzip::decompress(&gz, 1 << 20));
    assert_eq!(out.unwrap(), b"");
    assert!(allocs < 100, "{allocs} allocations");
}
