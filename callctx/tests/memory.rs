//! Memory of the owned models against the size of their input, on the real contexts of
//! `tests/data/`: peak heap (counting allocator, `testkit`) while building a model from the
//! text and keeping it. The family's budget is 8× the input (issue 15).

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use callctx::{Context, ContextBuf, ContextTree};
use testkit::peak_of;

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

/// Prints one row (`model, fixture, input bytes, peak heap bytes, ratio`) and gives the ratio.
fn row(model: &str, fixture: &str, input: usize, peak: usize) -> f64 {
    let ratio = peak as f64 / input as f64;
    eprintln!("| {model} | {fixture} | {input} | {peak} | {ratio:.2}× |");
    ratio
}

#[test]
fn owned_models_fit_in_eight_times_their_input() {
    let mut worst: (f64, String) = (0.0, String::new());
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
        let ratio = row("callctx `ContextTree<u64>`", name, text.len(), peak);
        if ratio > worst.0 {
            worst = (ratio, format!("ContextTree of {name}"));
        }
        let (contexts, peak) = peak_of(|| {
            text.lines()
                .map(|line| ContextBuf::from(Context::parse(line).unwrap()))
                .collect::<Vec<ContextBuf>>()
        });
        assert_eq!(contexts.len(), text.lines().count());
        drop(contexts);
        let ratio = row("callctx `Vec<ContextBuf>`", name, text.len(), peak);
        if ratio > worst.0 {
            worst = (ratio, format!("ContextBufs of {name}"));
        }
    }
    assert!(worst.0 <= LIMIT, "{}: {:.2}× its input", worst.1, worst.0);
}
