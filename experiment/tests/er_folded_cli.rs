//! `er-folded` behaves like a tool (help, version, usage errors, `error: PATH: reason`, empty and
//! foreign input, closed pipe).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use testkit::cli::{Example, Inputs};

#[test]
fn er_folded_keeps_the_manners() {
    Example::new("gprofng-experiment", "er-folded").check_manners(&Inputs {
        good: &["tests/data/heap/test.1.er", "--kind", "heap"],
        foreign: "tests/data/heap/functions.txt",
        big_output: &["tests/data/heap/test.1.er", "--kind", "heap"],
    });
}
