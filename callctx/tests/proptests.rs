//! Property tests: Display/parse round trips, no panics on any string, agreement with a naive
//! reference parser, and tree sums equal to input sums.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use callctx::{Context, ContextBuf, ContextTree, Error, Frame};
use proptest::prelude::*;

fn frame() -> impl Strategy<Value = Frame> {
    prop_oneof![
        (any::<u32>(), any::<i32>()).prop_map(|(m, b)| Frame::new(m, b)),
        (0u32..50, -6i32..300).prop_map(|(m, b)| Frame::new(m, b)),
    ]
}

fn frames() -> impl Strategy<Value = Vec<Frame>> {
    prop::collection::vec(frame(), 1..30)
}

/// A reference parser written the obvious way: split, check the characters, parse with std
/// (which, like the grammar, accepts leading zeros).
fn reference(text: &str) -> Option<Vec<Frame>> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    text.split('<')
        .map(|f| {
            let (m, b) = f.split_once(':')?;
            if !digits(m) || !digits(b.strip_prefix('-').unwrap_or(b)) {
                return None;
            }
            let m = u32::try_from(m.parse::<u64>().ok()?).ok()?;
            let b = i32::try_from(b.parse::<i64>().ok()?).ok()?;
            Some(Frame::new(m, b))
        })
        .collect()
}

/// What reading `text` in one pass gives, checked against [`Context::parse`]: the same frames
/// when it is valid; otherwise some of its frames, then the same error, then nothing.
fn one_pass_agrees(text: &str) -> Result<(), TestCaseError> {
    let mut items = callctx::parse_frames(text);
    let got: Vec<Result<Frame, Error>> = items.by_ref().collect();
    prop_assert!(items.next().is_none(), "fused");
    match Context::parse(text) {
        Ok(ctx) => {
            let frames: Vec<Result<Frame, Error>> = ctx.frames().map(Ok).collect();
            prop_assert_eq!(got, frames, "{}", text);
        }
        Err(err) => {
            let (last, before) = got.split_last().expect("an error at least");
            prop_assert_eq!(last, &Err(err), "{}", text);
            prop_assert!(before.iter().all(Result::is_ok), "{}", text);
            // The frames before the error are the text's leading frames.
            for (frame, segment) in before.iter().zip(text.split('<')) {
                let alone = Context::parse(segment).unwrap().innermost();
                prop_assert_eq!(frame, &Ok(alone), "{}", text);
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn one_pass_agrees_on_any_string(text in any::<String>()) {
        one_pass_agrees(&text)?;
    }

    #[test]
    fn one_pass_agrees_on_grammar_strings(text in "[0-9:<-]{0,40}|([0-9]{1,12}:-?[0-9]{1,12}<){0,4}[0-9]{1,12}:-?[0-9]{1,12}x?") {
        one_pass_agrees(&text)?;
    }

    #[test]
    fn one_pass_agrees_on_displayed_frames(frames in frames()) {
        one_pass_agrees(&ContextBuf::from_frames(frames).to_string())?;
    }

    #[test]
    fn display_parse_round_trip(frames in frames()) {
        let buf = ContextBuf::from_frames(frames.clone());
        let text = buf.to_string();
        let ctx = Context::parse(&text).unwrap();
        prop_assert_eq!(ctx.len(), frames.len());
        prop_assert_eq!(ctx.frames().collect::<Vec<_>>(), frames.clone());
        let mut rev: Vec<Frame> = ctx.frames().rev().collect();
        rev.reverse();
        prop_assert_eq!(&rev, &frames);
        prop_assert_eq!(ctx.to_string(), text.clone());
        prop_assert_eq!(text.parse::<ContextBuf>().unwrap(), buf);
        prop_assert_eq!(ctx.innermost(), frames[0]);
        prop_assert_eq!(ctx.outermost(), *frames.last().unwrap());
    }

    #[test]
    fn any_string_never_panics(text in any::<String>()) {
        match Context::parse(&text) {
            Ok(ctx) => {
                let canonical = ctx.to_string();
                prop_assert_eq!(Context::parse(&canonical).unwrap(), ctx);
            }
            Err(err) => prop_assert!(err.offset <= text.len()),
        }
    }

    #[test]
    fn grammar_strings_agree_with_reference(text in "[0-9:<-]{0,40}|([0-9]{1,12}:-?[0-9]{1,12}<){0,4}[0-9]{1,12}:-?[0-9]{1,12}") {
        let ours = Context::parse(&text).ok().map(|c| c.frames().collect::<Vec<_>>());
        prop_assert_eq!(ours, reference(&text), "{}", text);
    }

    #[test]
    fn any_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(ctx) = Context::parse_bytes(&bytes) {
            prop_assert_eq!(ctx.as_str().as_bytes(), &bytes[..]);
        }
    }

    #[test]
    fn prefix_suffix_callers_truncation(frames in frames(), n in 0usize..32) {
        let text = ContextBuf::from_frames(frames.clone()).to_string();
        let ctx = Context::parse(&text).unwrap();
        let k = n.min(frames.len()).max(1);
        let prefix = ContextBuf::from_frames(frames[..k].iter().copied()).to_string();
        let suffix = ContextBuf::from_frames(frames[frames.len() - k..].iter().copied()).to_string();
        prop_assert!(ctx.starts_with(&Context::parse(&prefix).unwrap()));
        prop_assert!(ctx.ends_with(&Context::parse(&suffix).unwrap()));
        prop_assert_eq!(ctx.truncated_outer(n).frames().collect::<Vec<_>>(), frames[..k].to_vec());
        match ctx.callers() {
            Some(callers) => prop_assert_eq!(callers.frames().collect::<Vec<_>>(), frames[1..].to_vec()),
            None => prop_assert_eq!(frames.len(), 1),
        }
    }

    #[test]
    fn tree_sums_equal_input_sums(entries in prop::collection::vec((prop::collection::vec((0u32..4, 0i32..3).prop_map(|(m, b)| Frame::new(m, b)), 1..6), 0u64..1000), 0..40)) {
        let mut tree = ContextTree::new();
        let mut sum = 0u64;
        for (frames, value) in &entries {
            let text = ContextBuf::from_frames(frames.clone()).to_string();
            tree.insert(&Context::parse(&text).unwrap(), *value);
            sum += value;
        }
        prop_assert_eq!(*tree.total(), sum);
        prop_assert_eq!(tree.iter().map(|n| *n.self_value()).sum::<u64>(), sum);
        for node in tree.iter() {
            let below: u64 = node.children().map(|c| *c.total()).sum();
            prop_assert_eq!(*node.total(), *node.self_value() + below);
        }
        // Every inserted context is found, and its self value is the sum of its entries.
        for (frames, _) in &entries {
            let text = ContextBuf::from_frames(frames.clone()).to_string();
            let ctx = Context::parse(&text).unwrap();
            let expected: u64 = entries.iter().filter(|(f, _)| f == frames).map(|(_, v)| v).sum();
            prop_assert_eq!(*tree.find(&ctx).unwrap().self_value(), expected);
        }
    }
}
