//! `Context` parses, iterates and queries without allocating: checked with a counting
//! allocator (`testkit`) over real contexts.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use callctx::Context;
use testkit::allocs_of;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

#[test]
fn parsing_and_iterating_allocates_nothing() {
    let text = include_str!("data/contexts-v0.4.0.txt");
    // The counter itself works: a Vec allocates.
    let ((), one) = allocs_of(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(one, 1);
    let (acc, allocations) = allocs_of(|| {
        let mut acc = 0i64;
        for line in text.lines() {
            let ctx = Context::parse(line).unwrap();
            acc += ctx.frames().map(|f| i64::from(f.bci)).sum::<i64>();
            acc += ctx.frames().rev().map(|f| i64::from(f.method)).sum::<i64>();
            acc += i64::from(ctx.innermost().method) + i64::from(ctx.outermost().method);
            acc += ctx.callers().map_or(0, |c| c.len() as i64);
            acc += ctx.truncated_outer(2).len() as i64;
            acc += i64::from(ctx.starts_with(&ctx.truncated_outer(1)));
            acc += i64::from(ctx.ends_with(&ctx));
            acc += callctx::parse_frames(line)
                .map(|f| i64::from(f.unwrap().bci))
                .sum::<i64>();
        }
        assert!(Context::parse("5:0<").is_err());
        assert!(callctx::parse_frames("5:0<").any(|f| f.is_err()));
        acc
    });
    assert_eq!(allocations, 0, "allocations while parsing ({acc})");
}
