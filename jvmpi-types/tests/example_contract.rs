//! Runs `examples/jvmpi-dump.rs` (built by `cargo test` next to the test binaries) on every
//! fixture and compares its output with the `.expected` file beside it; checks that decoding
//! errors exit non-zero naming the byte offset.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn example() -> Option<PathBuf> {
    // target/<profile>/deps/example_contract-HASH -> target/<profile>/examples/jvmpi-dump
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("examples");
    let path = dir.join(format!("jvmpi-dump{}", std::env::consts::EXE_SUFFIX));
    path.exists().then_some(path)
}

fn run(args: &[&str]) -> Option<Output> {
    let exe = example()?;
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    Some(
        Command::new(exe)
            .args(args)
            .current_dir(data)
            .output()
            .unwrap(),
    )
}

fn expect(args: &[&str], expected: &str) {
    let Some(out) = run(args) else {
        eprintln!("example binary not built; skipping");
        return;
    };
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(expected),
    )
    .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{args:?}");
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
    let Some(out) = run(&[
        "--kind",
        "heap",
        "--level",
        "2",
        "--id-size",
        "4",
        "--id-order",
        "little",
        "heap-l2-hs32le.bin",
    ]) else {
        return;
    };
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("at byte offset ") && err.contains("JVMPI_GC_CLASS_DUMP of class id 0x"),
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
    ])
    .unwrap();
    assert!(!out.status.success());
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
    ])
    .unwrap();
    assert!(!out.status.success());
}
