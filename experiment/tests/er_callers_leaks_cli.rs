//! `er-callers` and `er-leaks` behave like tools (help, version, usage errors,
//! `error: PATH: reason`, empty and foreign input, closed pipe).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use testkit::cli::{Example, Inputs};

#[test]
fn er_callers_keeps_the_manners() {
    Example::new("gprofng-experiment", "er-callers").check_manners(&Inputs {
        good: &["tests/data/heap/test.1.er"],
        foreign: "tests/data/heap/functions.txt",
        big_output: &["tests/data/many_threads/test.1.er"],
    });
}

#[test]
fn er_leaks_keeps_the_manners() {
    Example::new("gprofng-experiment", "er-leaks").check_manners(&Inputs {
        good: &["tests/data/heap/test.1.er"],
        foreign: "tests/data/heap/functions.txt",
        big_output: &["tests/data/deepstack/test.1.er"],
    });
}
