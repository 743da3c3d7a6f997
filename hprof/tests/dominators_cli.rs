//! The `dominators` example as a person runs it: manners, and its real output on real dumps.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use testkit::cli::{Example, Inputs, expect};

fn tool() -> Example {
    Example::new("hprof-format", "dominators")
}

#[test]
fn manners() {
    tool().check_manners(&Inputs {
        good: &["tests/data/binary/hprof-slurp_hprof-32.hprof", "--top", "5"],
        foreign: "tests/data/ascii/SimNet_java.hprof.txt",
        big_output: &["tests/data/binary/heapgen_jdk17.hprof", "--top", "100000"],
    });
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        &["tests/data/binary/heapgen_jdk17.hprof", "--top", "many"][..],
        &["tests/data/binary/heapgen_jdk17.hprof", "--path", "x1"],
        &["tests/data/binary/heapgen_jdk17.hprof", "--policy", "mat"],
        &["tests/data/binary/heapgen_jdk17.hprof", "--threads", "0"],
        &["tests/data/binary/heapgen_jdk17.hprof", "--threads", "two"],
        &[],
    ] {
        let out = tool().run(args);
        expect(&out, 2, "dominators", &format!("{args:?}"));
        assert!(String::from_utf8_lossy(&out.stderr).contains("error: "));
    }
}

#[test]
fn every_thread_count_prints_the_same() {
    let dump = "tests/data/binary/ahat_test-dump-base_art-host-2025.hprof";
    let run = |threads: &str| {
        let out = tool().run(&[dump, "--top", "1000000", "--threads", threads]);
        expect(&out, 0, "dominators", threads);
        out.stdout
    };
    let one = run("1");
    assert!(one.len() > 100_000, "{} bytes", one.len());
    for threads in ["2", "5"] {
        assert!(run(threads) == one, "--threads {threads}");
    }
}

#[test]
fn output_on_the_jdk17_dump() {
    let out = tool().run(&[
        "tests/data/binary/heapgen_jdk17.hprof",
        "--top",
        "3",
        "--path",
        "4250515200",
        "--path",
        "0x1",
    ]);
    expect(&out, 0, "dominators", "heapgen");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"objects":12608,"reachable":12290,"unreachable":318,"roots":744,"reachable_bytes":484474,"roots_missing":false}"#,
            r#"{"id":4250503496,"class":"java.util.concurrent.ConcurrentHashMap","shallow":84,"retained":39168,"retained_objects":804,"dominator":null}"#,
            r#"{"id":4250515200,"class":"java.util.concurrent.ConcurrentHashMap$Node[]","shallow":16384,"retained":39084,"retained_objects":803,"dominator":4250503496}"#,
            lines[3],
            r#"{"path_to":4250515200,"path":[4250221960,4250503496,4250515200],"steps":[{"id":4250221960,"class":"class jdk.internal.loader.BuiltinClassLoader","field":"static packageToModule"},{"id":4250503496,"class":"java.util.concurrent.ConcurrentHashMap","field":".table"},{"id":4250515200,"class":"java.util.concurrent.ConcurrentHashMap$Node[]","field":null}]}"#,
            r#"{"path_to":1,"path":null,"steps":null}"#,
        ]
    );
    // Every reachable object can be listed; each line is JSON with the documented keys.
    let out = tool().run(&["tests/data/binary/heapgen_jdk17.hprof", "--top", "1000000"]);
    expect(&out, 0, "dominators", "heapgen all");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1 + 12290);
    let mut last = (u64::MAX, 0);
    for l in text.lines().skip(1) {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let key = (v["retained"].as_u64().unwrap(), v["id"].as_u64().unwrap());
        assert!(
            key.0 < last.0 || (key.0 == last.0 && key.1 > last.1),
            "order at {l}"
        );
        assert!(v["class"].is_string() && v["retained_objects"].as_u64().unwrap() >= 1);
        last = key;
    }
}

#[test]
fn ahat_policy_on_the_art_dump() {
    let out = tool().run(&[
        "tests/data/binary/ahat_test-dump-base_art-host-2025.hprof",
        "--top",
        "1",
        "--policy",
        "ahat",
    ]);
    expect(&out, 0, "dominators", "art");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().nth(1).unwrap(),
        r#"{"id":637534208,"class":"byte[]","shallow":400012,"retained":400012,"retained_objects":1,"dominator":null}"#
    );
}

#[test]
fn a_cut_off_dump_is_partial_exit_3() {
    let data = std::fs::read("tests/data/binary/heapgen_jdk17.hprof").unwrap();
    let dir = testkit::TempDir::new("dominators-cli");
    let cut = dir.join("cut.hprof");
    // Inside the last HEAP_DUMP_SEGMENT (the objects before the cut are all indexed).
    std::fs::write(&cut, &data[..data.len() - 5000]).unwrap();
    let cut = cut.to_str().unwrap();
    let out = tool().run(&[cut, "--top", "2"]);
    expect(&out, 3, "dominators", "a cut-off dump");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("warning: {cut}: partial: ")), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 3);
    let summary: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(summary["objects"].as_u64().unwrap() > 12_000, "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Writes `bytes` as `name` in a scratch folder of its own: the folder (removed when
/// dropped) and the file's path.
fn scratch_file(name: &str, bytes: &[u8]) -> (testkit::TempDir, String) {
    let dir = testkit::TempDir::new("dominators-cli-scratch");
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let path = path.to_str().unwrap().to_owned();
    (dir, path)
}

#[test]
fn a_dump_of_only_its_header_or_without_heap_dump_end_is_partial() {
    let data = std::fs::read("tests/data/binary/heapgen_jdk17.hprof").unwrap();
    // The 31-byte header alone; the dump without its last record (HEAP_DUMP_END, 9 bytes).
    assert_eq!(
        data[data.len() - 9],
        0x2C,
        "the fixture ends with HEAP_DUMP_END"
    );
    for (name, bytes, why) in [
        (
            "header.hprof",
            &data[..31],
            "the file holds only its header",
        ),
        (
            "no-end.hprof",
            &data[..data.len() - 9],
            "the HEAP_DUMP_END record that ends the HEAP_DUMP_SEGMENTs",
        ),
    ] {
        let (_dir, path) = scratch_file(name, bytes);
        let out = tool().run(&[&path, "--top", "1"]);
        expect(&out, 3, "dominators", name);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("warning: {path}: partial: ")) && err.contains(why),
            "{err}"
        );
    }
}

#[test]
fn a_dump_cut_before_its_roots_says_so_and_can_stand_on_the_system_classes() {
    let data = std::fs::read("tests/data/binary/heapgen_jdk17.hprof").unwrap();
    // HotSpot writes the roots after the objects: a cut at 2,100,000 bytes keeps 11,651
    // objects and no root.
    let (_dir, path) = scratch_file("no-roots.hprof", &data[..2_100_000]);
    let out = tool().run(&[&path, "--top", "1"]);
    expect(&out, 3, "dominators", "no roots");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("warning: {path}: partial: no GC roots: ")),
        "{err}"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        r#"{"objects":11651,"reachable":0,"unreachable":11651,"roots":0,"reachable_bytes":0,"roots_missing":true}"#
    );
    for (rule, reachable) in [("system-classes", 11_425), ("unreferenced", 11_651)] {
        let out = tool().run(&[&path, "--top", "1", "--missing-roots", rule]);
        expect(&out, 3, "dominators", rule);
        let text = String::from_utf8(out.stdout).unwrap();
        let summary: serde_json::Value =
            serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(summary["reachable"], reachable, "{rule}: {text}");
        assert_eq!(summary["roots_missing"], true);
        let top: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        assert_eq!(
            top["class"], "java.util.concurrent.ConcurrentHashMap",
            "{rule}"
        );
    }
}

#[test]
fn class_objects_are_named_after_their_class_and_text_is_a_table() {
    let out = tool().run(&["tests/data/binary/heapgen_jdk17.hprof", "--top", "3"]);
    expect(&out, 0, "dominators", "heapgen");
    let text = String::from_utf8(out.stdout).unwrap();
    let third: serde_json::Value = serde_json::from_str(text.lines().nth(3).unwrap()).unwrap();
    assert_eq!(third["class"], "java.lang.Class");
    assert_eq!(third["class_of"], "java.lang.System");

    let out = tool().run(&[
        "tests/data/binary/heapgen_jdk17.hprof",
        "--top",
        "3",
        "--text",
        "--path",
        "4250515200",
    ]);
    expect(&out, 0, "dominators", "heapgen --text");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "12608 objects, 12290 reachable (484474 bytes), 318 unreachable, 744 roots"
    );
    assert!(
        lines[4].ends_with("class java.lang.System @ 0xfd550ed0"),
        "{text}"
    );
    assert_eq!(
        lines[5..],
        [
            "path from a GC root to 0xfd59b700:",
            "  class jdk.internal.loader.BuiltinClassLoader @ 0xfd553d88  static packageToModule",
            "  java.util.concurrent.ConcurrentHashMap @ 0xfd598948  .table",
            "  java.util.concurrent.ConcurrentHashMap$Node[] @ 0xfd59b700",
        ]
    );
}

#[test]
fn scratch_files_give_the_same_answer_and_leave_nothing_behind() {
    let dir = testkit::TempDir::new("dominators-scratch");
    let dir_arg = dir.to_str().unwrap();
    for policy in ["recorded", "ahat"] {
        let args = [
            "tests/data/binary/heapgen_jdk17.hprof",
            "--top",
            "20",
            "--policy",
            policy,
            "--path",
            "4250515200",
        ];
        let plain = tool().run(&args);
        expect(&plain, 0, "dominators", policy);
        let mut with = args.to_vec();
        with.extend(["--scratch", dir_arg]);
        let scratch = tool().run(&with);
        expect(&scratch, 0, "dominators", policy);
        assert_eq!(scratch.stdout, plain.stdout, "{policy}");
    }
    // The files are deleted as soon as they are made.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir(&dir).unwrap();
    // A folder that is not there: an error naming it, exit 1.
    let out = tool().run(&[
        "tests/data/binary/heapgen_jdk17.hprof",
        "--scratch",
        "/nonexistent-scratch-dir",
    ]);
    expect(&out, 1, "dominators", "no scratch folder");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/nonexistent-scratch-dir: not a directory"),
        "{err}"
    );
}

/// A scratch disk that fills up is `error: DIR: …` and exit 1 with nothing on stdout, not
/// death by SIGBUS (which a page of a memory-mapped scratch file raises when it cannot be given
/// disk space). The disk: a 64 KiB tmpfs, mounted by `unshare` (util-linux) in user and mount
/// namespaces of the test's own, so no privileges are needed and nothing outside sees it.
#[test]
fn a_full_scratch_disk_is_an_error_naming_it() {
    let dir = testkit::TempDir::new("dominators-full-scratch");
    let dir_arg = dir.to_str().unwrap();
    let out = std::process::Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            r#"mount -t tmpfs -o size=64k none "$1" && exec "$2" "$3" --top 3 --scratch "$1""#,
            "sh",
            dir_arg,
            tool().path().to_str().unwrap(),
            "tests/data/binary/heapgen_jdk17.hprof",
        ])
        .output()
        .expect("unshare (util-linux) runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("error: {dir_arg}: ")) && err.contains("no space left"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
