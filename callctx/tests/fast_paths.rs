//! The word-at-a-time paths (validation, the one-pass reader, method ids, the search for the
//! last `<`) against their byte-by-byte fallbacks: numbers of every length (each method id
//! length takes its own branch), leading zeros, frames longer than the sixteen bytes the
//! reverse search looks at, and contexts of every short length.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use callctx::{Context, Frame};

fn check(text: &str, expected: &[Frame]) {
    let ctx = Context::parse(text).unwrap();
    assert_eq!(ctx.len(), expected.len(), "{text}");
    assert_eq!(ctx.frames().collect::<Vec<_>>(), expected, "{text}");
    let one_pass: Result<Vec<Frame>, _> = callctx::parse_frames(text).collect();
    assert_eq!(one_pass.unwrap(), expected, "{text}");
    let mut rev: Vec<Frame> = ctx.frames().rev().collect();
    rev.reverse();
    assert_eq!(rev, expected, "{text}");
    // Mixed ends meet in the middle.
    let mut frames = ctx.frames();
    let mut front = Vec::new();
    let mut back = Vec::new();
    while let Some(f) = frames.next() {
        front.push(f);
        match frames.next_back() {
            Some(f) => back.push(f),
            None => break,
        }
    }
    back.reverse();
    front.extend(back);
    assert_eq!(front, expected, "{text}");
}

#[test]
fn numbers_of_every_length_and_leading_zeros() {
    for method_digits in 1..=12usize {
        for bci_digits in 1..=12usize {
            for negative in [false, true] {
                let method = "0".repeat(method_digits.saturating_sub(3))
                    + &"987"[3usize.saturating_sub(method_digits)..];
                let bci = "0".repeat(bci_digits.saturating_sub(2))
                    + &"45"[2usize.saturating_sub(bci_digits)..];
                let sign = if negative { "-" } else { "" };
                let frame_text = format!("{method}:{sign}{bci}");
                let frame = Frame::new(
                    method.parse().unwrap(),
                    format!("{sign}{bci}").parse().unwrap(),
                );
                for count in 1..=4 {
                    let text = vec![frame_text.as_str(); count].join("<");
                    check(&text, &vec![frame; count]);
                    let mixed = format!("1:2<{text}<3:4");
                    let mut expected = vec![Frame::new(1, 2)];
                    expected.extend(vec![frame; count]);
                    expected.push(Frame::new(3, 4));
                    check(&mixed, &expected);
                }
            }
        }
    }
}

#[test]
fn extremes_and_errors_at_every_length() {
    check(
        "4294967295:-2147483648<0:2147483647",
        &[Frame::new(u32::MAX, i32::MIN), Frame::new(0, i32::MAX)],
    );
    assert!(Context::parse("4294967296:0").is_err());
    assert!(Context::parse("1:2147483648").is_err());
    assert!(Context::parse("1:-2147483649").is_err());
    // Every prefix of a valid context is either valid (ends in a digit after a ':') or an
    // error, never a panic; the valid ones agree with the frames of the whole.
    let text = "12345:-6<7:89<1011:1<0:0";
    for end in 0..=text.len() {
        let prefix = &text[..end];
        let one_pass: Result<Vec<Frame>, _> = callctx::parse_frames(prefix).collect();
        match Context::parse(prefix) {
            Ok(ctx) => {
                assert_eq!(ctx.frames().count(), ctx.len());
                assert_eq!(ctx.frames().rev().count(), ctx.len());
                assert_eq!(one_pass.unwrap(), ctx.frames().collect::<Vec<_>>());
            }
            Err(err) => assert_eq!(one_pass.unwrap_err(), err, "{prefix}"),
        }
    }
}
