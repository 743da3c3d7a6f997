//! The `heap-diff` and `leak-suspects` examples as a person runs them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use testkit::cli::{Example, Inputs, expect};

const BASELINE: &str = "tests/data/leak/baseline.hprof";
const CURRENT: &str = "tests/data/leak/current.hprof";

fn diff() -> Example {
    Example::new("hprof-format", "heap-diff")
}

fn suspects() -> Example {
    Example::new("hprof-format", "leak-suspects")
}

#[test]
fn manners() {
    diff().check_manners(&Inputs {
        good: &[BASELINE, CURRENT],
        foreign: "tests/data/ascii/SimNet_java.hprof.txt",
        big_output: &[BASELINE, CURRENT],
    });
    diff().check_manners(&Inputs {
        good: &["--shallow-only", BASELINE, CURRENT],
        foreign: "tests/data/ascii/SimNet_java.hprof.txt",
        big_output: &["--shallow-only", BASELINE, CURRENT],
    });
    suspects().check_manners(&Inputs {
        good: &[CURRENT],
        foreign: "tests/data/ascii/SimNet_java.hprof.txt",
        big_output: &["--duplicate-strings", "--top", "100000", CURRENT],
    });
    for args in [
        &[BASELINE][..],
        &["--top", "x", BASELINE, CURRENT],
        &[BASELINE, CURRENT, CURRENT],
    ] {
        expect(&diff().run(args), 2, "heap-diff", &format!("{args:?}"));
    }
    for args in [
        &["--threshold", "2", CURRENT][..],
        &["--top-classes", "-1", CURRENT],
        &[],
    ] {
        expect(
            &suspects().run(args),
            2,
            "leak-suspects",
            &format!("{args:?}"),
        );
    }
}

#[test]
fn heap_diff_lines() {
    let out = diff().run(&[BASELINE, CURRENT, "--top", "6"]);
    expect(&out, 0, "heap-diff", "graphs");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let node = lines
        .iter()
        .find(|l| l["class"] == "java.util.HashMap$Node")
        .expect("a HashMap$Node line");
    assert_eq!(node["delta_instances"], 2000);
    assert_eq!(node["delta_shallow"], 56000);
    assert!(node["delta_retained"].as_i64().unwrap() > 1_000_000);
    assert_eq!(
        node["baseline"]["instances"].as_u64().unwrap() + 2000,
        node["current"]["instances"]
    );
    // Six classes, the roots per kind, the total last; keys in the documented order.
    assert!(text.lines().next().unwrap().starts_with(r#"{"class":"#));
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains(r#","delta_instances":"#)
    );
    assert!(lines.iter().any(|l| l["root_kind"] == "sticky class"));
    let total = &lines.last().unwrap()["total"];
    assert!(total["delta_shallow"].as_i64().unwrap() > 1_000_000);

    let out = diff().run(&["--shallow-only", BASELINE, CURRENT]);
    expect(&out, 0, "heap-diff", "--shallow-only");
    let text = String::from_utf8(out.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["class"], "byte[]");
    assert_eq!(first["delta_shallow"], 2000 * 512 + 2000 * 8);
    assert!(first.get("delta_retained").is_none());

    let out = diff().run(&["--text", "--shallow-only", "--top", "1", BASELINE, CURRENT]);
    expect(&out, 0, "heap-diff", "--text");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().nth(1).unwrap().trim(),
        "+1040000        +4000  byte[]"
    );
}

#[test]
fn leak_suspects_lines() {
    let out = suspects().run(&[CURRENT]);
    expect(&out, 0, "leak-suspects", "current");
    let text = String::from_utf8(out.stdout).unwrap();
    let top: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(top["kind"], "object");
    assert_eq!(top["class"], "class LeakDemo");
    assert_eq!(
        top["accumulation_point"]["class"],
        "java.util.HashMap$Node[]"
    );
    let path = top["path"].as_array().unwrap();
    let n = path.len();
    assert_eq!(path[n - 3]["field"], "static CACHE");
    assert_eq!(path[n - 2]["field"], ".table");
    assert_eq!(path[n - 1]["field"], serde_json::Value::Null);
    assert_eq!(top["top_classes"][0]["class"], "java.util.HashMap$Node");
    // The suspect's retained size is its `dominators` row's.
    let dom = Example::new("hprof-format", "dominators").run(&[CURRENT, "--top", "1"]);
    let row: serde_json::Value = serde_json::from_str(
        String::from_utf8(dom.stdout)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (row["id"].clone(), row["retained"].clone()),
        (top["id"].clone(), top["retained"].clone())
    );

    let out = suspects().run(&["--duplicate-strings", "--top", "2", CURRENT]);
    expect(&out, 0, "leak-suspects", "--duplicate-strings");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"string\":\"duplicate-me\",\"count\":301,\"wasted_bytes\":7800}\n\
         {\"string\":\"another duplicate\",\"count\":41,\"wasted_bytes\":1240}\n"
    );
    let out = suspects().run(&["--text", CURRENT]);
    expect(&out, 0, "leak-suspects", "--text");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Suspect 1: One class LeakDemo @ 0x"),
        "{text}"
    );
    assert!(
        text.contains("class LeakDemo @ 0xfd5bf5b8  static CACHE"),
        "{text}"
    );
}

#[test]
fn a_cut_dump_is_partial() {
    let data = std::fs::read(CURRENT).unwrap();
    let dir = testkit::TempDir::new("heap-answers-cli");
    let cut = dir.join("cut.hprof");
    std::fs::write(&cut, &data[..data.len() / 2]).unwrap();
    let cut = cut.to_str().unwrap();
    for (tool, args) in [
        (diff(), vec![BASELINE, cut]),
        (diff(), vec!["--shallow-only", BASELINE, cut]),
        (suspects(), vec![cut]),
        (suspects(), vec!["--duplicate-strings", cut]),
    ] {
        let out = tool.run(&args);
        expect(&out, 3, "heap answers", &format!("{args:?}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("warning: {cut}: partial: ")),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scratch_files_give_the_same_answers_and_leave_nothing_behind() {
    let dir = testkit::TempDir::new("heap-answers-scratch");
    let dir_arg = dir.to_str().unwrap();
    for (tool, args) in [
        (suspects(), &[CURRENT][..]),
        (suspects(), &["--threshold", "0.01", "--text", CURRENT]),
        (diff(), &[BASELINE, CURRENT]),
    ] {
        let plain = tool.run(args);
        expect(&plain, 0, "", &format!("{args:?}"));
        let mut with = args.to_vec();
        with.extend(["--scratch", dir_arg]);
        let scratch = tool.run(&with);
        expect(&scratch, 0, "", &format!("{with:?}"));
        assert_eq!(scratch.stdout, plain.stdout, "{args:?}");
    }
    // The files are deleted as soon as they are made.
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
    drop(dir);
    for (tool, files) in [(suspects(), &[CURRENT][..]), (diff(), &[BASELINE, CURRENT])] {
        let mut args = vec!["--scratch", "/nonexistent-scratch-dir"];
        args.extend(files);
        let out = tool.run(&args);
        expect(&out, 1, "", "no scratch folder");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("/nonexistent-scratch-dir: not a directory"),
            "{err}"
        );
    }
}

/// One class name defined by two loaders: heap-diff's lines name each loader.
#[test]
fn heap_diff_names_the_loader_of_a_shared_class_name() {
    use hprof::binary::write::HeapBuilder;
    use hprof::binary::{BasicType, GcRoot, Id, IdSize, Value};
    let dump = |loaders: [u64; 2], counts: [u64; 2]| {
        let mut heap = HeapBuilder::new(IdSize::Eight);
        heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
            .class(Id(0x12), "com.example.PluginLoader", Id(0x10), &[]);
        for (class_id, &loader) in (0x30..).zip(&loaders) {
            heap.class_loaded_by(
                Id(class_id),
                "com.example.Plugin",
                Id(0x10),
                Id(loader),
                &[("n", BasicType::Int)],
            );
        }
        let mut next = 0x1000;
        for ((class_id, &loader), &count) in (0x30..).zip(&loaders).zip(&counts) {
            heap.instance(Id(loader), Id(0x12), &[]);
            heap.root(GcRoot::StickyClass {
                object_id: Id(loader),
            });
            for _ in 0..count {
                heap.instance(Id(next), Id(class_id), &[Value::Int(1)]);
                heap.root(GcRoot::StickyClass {
                    object_id: Id(next),
                });
                next += 1;
            }
        }
        heap.build().unwrap()
    };
    let dir = testkit::TempDir::new("heap-diff-loaders");
    let (a, b) = (dir.join("a.hprof"), dir.join("b.hprof"));
    std::fs::write(&a, dump([0x500, 0x501], [1, 1])).unwrap();
    std::fs::write(&b, dump([0x700, 0x601], [1, 3])).unwrap();
    for shallow in [false, true] {
        let mut args = vec![a.to_str().unwrap(), b.to_str().unwrap()];
        if shallow {
            args.insert(0, "--shallow-only");
        }
        let out = diff().run(&args);
        expect(&out, 0, "heap-diff", "loaders");
        let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let plugins: Vec<(String, u64, i64)> = lines
            .iter()
            .filter(|l| l["class"] == "com.example.Plugin")
            .map(|l| {
                (
                    l["loader"]["class"].as_str().unwrap().to_owned(),
                    l["loader"]["ordinal"].as_u64().unwrap(),
                    l["delta_instances"].as_i64().unwrap(),
                )
            })
            .collect();
        // Ranked by loader id: 0x500, 0x501 in the baseline; 0x601, 0x700 in the current
        // dump. The rule pairs ranks, so here the loader defining 0x31 (1 then 3 instances)
        // is #1 in the baseline and #0 in the current dump: the dumps say no more about
        // which loader is which.
        let loader = "com.example.PluginLoader".to_owned();
        assert_eq!(
            plugins,
            [(loader.clone(), 0, 2), (loader, 1, 0)],
            "{shallow}"
        );
    }
}
