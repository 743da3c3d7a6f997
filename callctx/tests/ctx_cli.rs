//! The `ctx` example as a person runs it: its manners, its descriptions of real contexts, and
//! exit 1 naming the file and line when a line is not a context.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use testkit::cli::{Example, Inputs, assert_error_names, expect};

const CONTEXTS: &str = "tests/data/contexts-v0.4.0.txt";

fn tool() -> Example {
    Example::new("callctx", "ctx")
}

#[test]
fn manners() {
    tool().check_manners(&Inputs {
        good: &[CONTEXTS],
        foreign: "../pointsto/tests/data/generated/object_tree_sample_20240918_120000.txt",
        big_output: &[CONTEXTS],
    });
}

#[test]
fn describes_every_real_context() {
    let out = tool().run(&[CONTEXTS]);
    expect(&out, 0, "ctx", CONTEXTS);
    let text = String::from_utf8(out.stdout).unwrap();
    let input = std::fs::read_to_string(CONTEXTS).unwrap();
    assert_eq!(text.lines().count(), input.lines().count());
    for (described, line) in text.lines().zip(input.lines()) {
        let fields: Vec<&str> = described.split('\t').collect();
        let ctx = callctx::Context::parse(line).unwrap();
        assert_eq!(fields[0], "ok");
        assert_eq!(fields[1], ctx.len().to_string());
        assert_eq!(fields[2], ctx.innermost().to_string());
        assert_eq!(fields[3], ctx.outermost().to_string());
        assert_eq!(fields[4], line);
    }
}

#[test]
fn a_bad_line_is_described_then_reported() {
    let dir = testkit::TempDir::new("ctx-cli");
    let path = dir.join("cut.txt");
    // Real contexts, the last one cut off after its `<`.
    let input = std::fs::read_to_string(CONTEXTS).unwrap();
    let lines: Vec<&str> = input.lines().take(3).collect();
    std::fs::write(&path, format!("{}\n{}\n5:0<\n", lines[0], lines[1])).unwrap();
    let path = path.to_str().unwrap();
    let out = tool().run(&[path]);
    expect(&out, 1, "ctx", "a cut context");
    assert_error_names(&out, path, "ctx");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(
        stdout.ends_with("err\t4\texpected a method id (decimal digits) at byte 4, found the end of the context\n"),
        "{stdout}"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "error: {path}: line 3: expected a method id (decimal digits) at byte 4, found the end of the context (1 of 3 lines are not call contexts)"
        )),
        "{err}"
    );
}
