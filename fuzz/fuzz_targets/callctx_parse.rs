//! `callctx`: any bytes either parse into a context that displays canonically and re-parses to
//! the same frames (forwards and backwards), or give an error whose offset lies in the input;
//! `parse_frames` reads the same frames, or the same error after the frames before it.
#![no_main]

use callctx::{Context, ContextTree};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Several contexts per input, one per line, so the tree sees shared prefixes.
    let mut tree = ContextTree::new();
    let mut sum = 0u64;
    for line in data.split(|&b| b == b'\n') {
        if let Ok(text) = std::str::from_utf8(line) {
            let one_pass: Vec<_> = callctx::parse_frames(text).collect();
            match Context::parse(text) {
                Ok(ctx) => assert!(
                    one_pass
                        .iter()
                        .map(|f| *f.as_ref().unwrap())
                        .eq(ctx.frames())
                ),
                Err(err) => {
                    assert_eq!(one_pass.last(), Some(&Err(err)));
                    assert!(one_pass.iter().rev().skip(1).all(Result::is_ok));
                }
            }
        }
        match Context::parse_bytes(line) {
            Ok(ctx) => {
                let canonical = ctx.to_string();
                let again = Context::parse(&canonical).expect("canonical form parses");
                assert_eq!(again, ctx);
                let forward: Vec<_> = ctx.frames().collect();
                let mut backward: Vec<_> = ctx.frames().rev().collect();
                backward.reverse();
                assert_eq!(forward, backward);
                assert_eq!(forward.len(), ctx.len());
                assert_eq!(ctx.innermost(), forward[0]);
                assert_eq!(Some(&ctx.outermost()), forward.last());
                if let Some(callers) = ctx.callers() {
                    assert_eq!(callers.frames().collect::<Vec<_>>(), forward[1..]);
                }
                tree.insert(&ctx, 1u64);
                sum += 1;
            }
            Err(err) => assert!(err.offset <= line.len()),
        }
    }
    assert_eq!(*tree.total(), sum);
});
