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
        &[],
    ] {
        let out = tool().run(args);
        expect(&out, 2, "dominators", &format!("{args:?}"));
        assert!(String::from_utf8_lossy(&out.stderr).contains("error: "));
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
            r#"{"objects":12608,"reachable":12290,"unreachable":318,"roots":744,"reachable_bytes":484474}"#,
            r#"{"id":4250503496,"class":"java.util.concurrent.ConcurrentHashMap","shallow":84,"retained":39168,"retained_objects":804,"dominator":null}"#,
            r#"{"id":4250515200,"class":"java.util.concurrent.ConcurrentHashMap$Node[]","shallow":16384,"retained":39084,"retained_objects":803,"dominator":4250503496}"#,
            lines[3],
            r#"{"path_to":4250515200,"path":[4250221960,4250503496,4250515200]}"#,
            r#"{"path_to":1,"path":null}"#,
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
    let dir = std::env::temp_dir().join(format!("dominators-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
