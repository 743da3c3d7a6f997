//! Building a context frame by frame at either end allocates a logarithmic number of times and
//! keeps the frames in order (the buffer grows by doubling, never by shifting per frame).

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use callctx::{ContextBuf, Frame};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

#[test]
fn pushing_inner_frames_is_amortized() {
    let n = 100_000u32;
    let (ctx, allocations) = testkit::allocs_of(|| {
        let mut ctx = ContextBuf::new();
        for m in 0..n {
            ctx.push_inner(Frame::new(m, 0));
        }
        ctx
    });
    assert!(
        allocations <= 40,
        "{allocations} allocations for {n} pushes"
    );
    assert_eq!(ctx.len(), n as usize);
    assert_eq!(ctx.innermost(), Some(Frame::new(n - 1, 0)));
    assert_eq!(ctx.outermost(), Some(Frame::new(0, 0)));
    assert!(
        ctx.frames()
            .windows(2)
            .all(|w| w[0].method == w[1].method + 1)
    );
}

#[test]
fn both_ends_mixed() {
    let mut ctx = ContextBuf::new();
    let mut model = std::collections::VecDeque::new();
    for i in 0..1000u32 {
        match i % 5 {
            0 | 1 => {
                ctx.push_inner(Frame::new(i, 1));
                model.push_front(Frame::new(i, 1));
            }
            2 => {
                ctx.push_outer(Frame::new(i, 2));
                model.push_back(Frame::new(i, 2));
            }
            3 => assert_eq!(ctx.pop_inner(), model.pop_front()),
            _ => {
                ctx.truncate_outer(ctx.len().saturating_sub(1).max(1));
                model.truncate(model.len().saturating_sub(1).max(1));
            }
        }
        assert!(ctx.frames().iter().eq(model.iter()));
    }
    let copy = ContextBuf::from_frames(model.iter().copied());
    assert_eq!(ctx, copy);
    let hash = |c: &ContextBuf| {
        use std::hash::BuildHasher;
        std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
            .hash_one(c)
    };
    assert_eq!(hash(&ctx), hash(&copy));
    assert_eq!(ctx.cmp(&copy), std::cmp::Ordering::Equal);
    while ctx.pop_outer().is_some() {}
    assert!(ctx.is_empty());
    assert_eq!(ctx.pop_inner(), None);
}
