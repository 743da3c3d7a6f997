//! Runs `examples/jvmpi-dump.rs` (built by `cargo test`, or here when it was not) on every
//! fixture and compares its output with the `.expected` file beside it; checks its manners as
//! a tool and that decoding errors exit 1 naming the file and the byte offset.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::process::Output;

use testkit::cli::{Example, Inputs};

/// The example, built by `cargo test` or by [`Example::path`] when it was not.
fn tool() -> Example {
    Example::new("jvmpi-types", "jvmpi-dump")
}

/// Runs the example with file arguments taken from `tests/data/`.
fn run(args: &[&str]) -> Output {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a.ends_with(".bin") || a.ends_with(".json") {
                format!("tests/data/{a}")
            } else {
                (*a).to_owned()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tool().run(&args)
}

fn expect(args: &[&str], expected: &str) {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read_to_string(format!("tests/data/{expected}")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{args:?}");
}

#[test]
fn manners() {
    tool().check_manners(&Inputs {
        good: &[
            "--kind",
            "monitor",
            "--id-size",
            "4",
            "--id-order",
            "little",
            "tests/data/monitor-hs32le.bin",
        ],
        foreign: "tests/data/heap-classes-hs32le.json",
        big_output: &[
            "--kind",
            "heap",
            "--level",
            "0",
            "--id-size",
            "8",
            "--id-order",
            "big",
            "tests/data/heap-l0-sparc64be.bin",
        ],
    });
    // A missing option is a usage error.
    let out = run(&["--kind", "heap", "monitor-hs32le.bin"]);
    testkit::cli::expect(&out, 2, "jvmpi-dump", "no --id-size");
}

#[test]
fn heap_dumps() {
    let le = [
        "--id-size",
        "4",
        "--id-order",
        "little",
        "--hotspot",
        "--classes",
        "heap-classes-hs32le.json",
    ];
    let be = [
        "--id-size",
        "8",
        "--id-order",
        "big",
        "--classes",
        "heap-classes-sparc64be.json",
    ];
    for (level, opts, tag) in [
        ("0", &le[..], "hs32le"),
        ("1", &le[..], "hs32le"),
        ("2", &le[..], "hs32le"),
        ("0", &be[..], "sparc64be"),
        ("1", &be[..], "sparc64be"),
    ] {
        let file = format!("heap-l{level}-{tag}.bin");
        let mut args = vec!["--kind", "heap", "--level", level];
        args.extend_from_slice(opts);
        args.push(&file);
        expect(&args, &format!("heap-l{level}-{tag}.expected"));
    }
}

#[test]
fn object_and_monitor_dumps() {
    for kind in ["class", "instance", "objarray", "primarray"] {
        let file = format!("object-{kind}-hs32le.bin");
        expect(
            &[
                "--kind",
                "object",
                "--id-size",
                "4",
                "--id-order",
                "little",
                "--hotspot",
                "--classes",
                "heap-classes-hs32le.json",
                &file,
            ],
            &format!("object-{kind}-hs32le.expected"),
        );
    }
    expect(
        &[
            "--kind",
            "monitor",
            "--id-size",
            "4",
            "--id-order",
            "little",
            "monitor-hs32le.bin",
        ],
        "monitor-hs32le.expected",
    );
    expect(
        &[
            "--kind",
            "monitor",
            "--id-size",
            "8",
            "--id-order",
            "big",
            "monitor-sparc64be.bin",
        ],
        "monitor-sparc64be.expected",
    );
}

#[test]
fn errors_exit_non_zero_with_the_offset() {
    // Level 2 without the class layouts stops at the first class dump.
    let out = run(&[
        "--kind",
        "heap",
        "--level",
        "2",
        "--id-size",
        "4",
        "--id-order",
        "little",
        "heap-l2-hs32le.bin",
    ]);
    testkit::cli::expect(&out, 1, "jvmpi-dump", "no class layouts");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: tests/data/heap-l2-hs32le.bin: at byte offset ")
            && err.contains("JVMPI_GC_CLASS_DUMP of class id 0x"),
        "{err}"
    );
    // A heap dump read as a monitor dump.
    let out = run(&[
        "--kind",
        "monitor",
        "--id-size",
        "4",
        "--id-order",
        "little",
        "heap-l1-hs32le.bin",
    ]);
    testkit::cli::expect(&out, 1, "jvmpi-dump", "a heap dump as a monitor dump");
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("at byte offset 21: expected JNIEnv * thread list")
    );
    // Bad arguments.
    let out = run(&[
        "--kind",
        "heap",
        "--id-size",
        "5",
        "--id-order",
        "little",
        "x.bin",
    ]);
    testkit::cli::expect(&out, 2, "jvmpi-dump", "--id-size 5");
}
