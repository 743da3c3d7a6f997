//! Memory of the owned models against the size of their input, on the real contexts of
//! `tests/data/`: peak heap (counting allocator, `testkit`) while building a model from the
//! text and keeping it. The family's budget is 8× the input.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use callctx::{Context, ContextBuf, ContextTree};
use testkit::{Budget, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// The family's budget: an owned model takes at most 8× its input at its peak.
const LIMIT: f64 = 8.0;

const FILES: [(&str, &str); 2] = [
    (
        "contexts-v0.4.0.txt",
        include_str!("data/contexts-v0.4.0.txt"),
    ),
    ("demo.txt", include_str!("data/demo.txt")),
];

#[test]
fn owned_models_fit_in_eight_times_their_input() {
    let mut budget = Budget::default();
    for (name, text) in FILES {
        let (tree, peak) = peak_of(|| {
            let mut tree = ContextTree::new();
            for line in text.lines() {
                tree.insert(&Context::parse(line).unwrap(), 1u64);
            }
            tree
        });
        assert_eq!(*tree.total(), text.lines().count() as u64);
        drop(tree);
        budget.check("callctx `ContextTree<u64>`", name, text.len(), peak);
        let (contexts, peak) = peak_of(|| {
            text.lines()
                .map(|line| ContextBuf::from(Context::parse(line).unwrap()))
                .collect::<Vec<ContextBuf>>()
        });
        assert_eq!(contexts.len(), text.lines().count());
        drop(contexts);
        budget.check("callctx `Vec<ContextBuf>`", name, text.len(), peak);
    }
    budget.assert_within(LIMIT);
}
