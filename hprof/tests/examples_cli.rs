//! The hprof examples as a person runs them: their manners (`--help`, `--version`, exit 2 on a
//! bad flag, `error: PATH: reason` and exit 1 on a missing, empty or foreign file, quiet on a
//! closed pipe), and their answers on real dumps: whole, gzip-compressed, cut off (partial,
//! exit 3), without `HEAP_DUMP_END`, header only, and with a length field set to 0xFFFFFFFF.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::process::Output;

use testkit::cli::{Example, Inputs, expect};

const PACKAGE: &str = "hprof-format";
const JDK17: &str = "tests/data/binary/heapgen_jdk17.hprof";
const JDK5: &str = "tests/data/binary/haha_sun_jdk5_64bit.hprof";
const SLURP: &str = "tests/data/binary/hprof-slurp_hprof-32.hprof";
const SIMNET: &str = "tests/data/ascii/SimNet_java.hprof.txt";

/// The example `name`, its binary built from the current sources first (testkit reuses a
/// binary that exists, which may be stale).
fn example(name: &'static str) -> Example {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        let exe = std::env::current_exe().unwrap();
        let release = exe
            .parent()
            .and_then(std::path::Path::parent)
            .and_then(std::path::Path::file_name)
            .is_some_and(|n| n == "release");
        let mut cmd = std::process::Command::new(env!("CARGO"));
        cmd.args(["build", "-q", "-p", PACKAGE, "--examples"]);
        if release {
            cmd.arg("--release");
        }
        assert!(cmd.status().unwrap().success(), "building the examples");
    });
    Example::new(PACKAGE, name)
}

/// A scratch folder of its own, removed when dropped.
fn scratch(name: &str) -> testkit::TempDir {
    testkit::TempDir::new(&format!("hprof-cli-{name}"))
}

/// Writes `bytes` to `dir/name` and returns its path as a string.
fn file(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one `warning: PATH: partial: …` line of a partial run.
fn partial_warning(out: &Output, path: &str) -> String {
    let err = stderr(out);
    let prefix = format!("warning: {path}: partial: ");
    err.lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}…` on stderr: {err}"))
        .to_owned()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A file offset in the middle of the second `HEAP_DUMP_SEGMENT` of `data`.
fn middle_of_a_segment(data: &[u8]) -> usize {
    let (_, records) = hprof::binary::Records::parse(data).unwrap();
    let segment = records
        .map(|r| r.unwrap().0)
        .filter(|h| h.tag == hprof::binary::records::tag::HEAP_DUMP_SEGMENT)
        .nth(1)
        .unwrap();
    (segment.body_offset() + u64::from(segment.length) / 2) as usize
}

#[test]
fn histogram_manners() {
    example("histogram").check_manners(&Inputs {
        good: &[JDK5],
        foreign: SIMNET,
        big_output: &[JDK17],
    });
}

#[test]
fn rewrite_manners() {
    let dir = scratch("rewrite-manners");
    let out = dir.join("out.hprof");
    example("rewrite").check_manners(&Inputs {
        good: &[SLURP, out.to_str().unwrap()],
        foreign: SIMNET,
        big_output: &[SLURP, out.to_str().unwrap()],
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hprof_txt_manners() {
    example("hprof-txt").check_manners(&Inputs {
        good: &[SIMNET],
        foreign: SLURP,
        big_output: &["tests/data/ascii/optimization_java.hprof.txt"],
    });
}

#[test]
fn histogram_of_a_whole_dump_plain_gzip_and_threaded_agree() {
    let tool = example("histogram");
    let dir = scratch("histogram-gz");
    let gz = file(&dir, "dump.hprof.gz", &gzip(&std::fs::read(JDK17).unwrap()));
    let plain = tool.run(&[JDK17]);
    expect(&plain, 0, "histogram", JDK17);
    assert!(stderr(&plain).is_empty(), "{}", stderr(&plain));
    let first = stdout(&plain).lines().next().unwrap().to_owned();
    let f: Vec<&str> = first.split('\t').collect();
    assert_eq!(f.len(), 3, "{first}");
    assert!(f[0].parse::<u64>().unwrap() > 1000, "{first}");
    for args in [vec![gz.as_str()], vec!["--threads", "3", JDK17]] {
        let out = tool.run(&args);
        expect(&out, 0, "histogram", &args.join(" "));
        assert_eq!(stdout(&out), stdout(&plain), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn histogram_of_a_cut_off_dump_is_partial() {
    let tool = example("histogram");
    let dir = scratch("histogram-cut");
    let data = std::fs::read(JDK17).unwrap();
    let whole = stdout(&tool.run(&[JDK17]));
    let whole_instances: u64 = whole
        .lines()
        .map(|l| l.split('\t').next().unwrap().parse::<u64>().unwrap())
        .sum();
    // Cut in the middle of a heap-dump segment: the objects before the cut, labelled partial.
    let cut = middle_of_a_segment(&data);
    let half = file(&dir, "half.hprof", &data[..cut]);
    for args in [vec![half.as_str()], vec!["--threads", "2", half.as_str()]] {
        let out = tool.run(&args);
        expect(&out, 3, "histogram", "a dump cut in half");
        let w = partial_warning(&out, &half);
        assert!(w.contains("HEAP_DUMP_SEGMENT record at byte"), "{w}");
        assert!(w.contains("byte(s) missing"), "{w}");
        let instances: u64 = stdout(&out)
            .lines()
            .map(|l| l.split('\t').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert!(
            instances > 1000 && instances < whole_instances,
            "{instances} of {whole_instances}"
        );
    }
    // The same cut, gzip-compressed (size unknown while streaming).
    let gz = file(&dir, "half.hprof.gz", &gzip(&data[..cut]));
    let out = tool.run(&[&gz]);
    expect(&out, 3, "histogram", "a gzip-compressed dump cut in half");
    assert!(partial_warning(&out, &gz).contains("HEAP_DUMP_SEGMENT record at byte"));
    // A JDK dump minus its last 9 bytes (its HEAP_DUMP_END): every object, but partial.
    let no_end = file(&dir, "no-end.hprof", &data[..data.len() - 9]);
    let out = tool.run(&[&no_end]);
    expect(&out, 3, "histogram", "a dump without HEAP_DUMP_END");
    assert!(partial_warning(&out, &no_end).contains("HEAP_DUMP_END"));
    assert_eq!(stdout(&out), whole);
    // A header and nothing else.
    let header_only = file(&dir, "header.hprof", &data[..31]);
    let out = tool.run(&[&header_only]);
    expect(&out, 3, "histogram", "a header-only file");
    assert!(partial_warning(&out, &header_only).contains("only its header"));
    assert!(stdout(&out).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_lengths_are_errors_not_allocations() {
    // A record length and a sub-record count set to 0xFFFFFFFF in a real dump: a prompt error
    // naming the record and offset (run under testkit::cli, an abort would fail the test).
    let data = std::fs::read(JDK5).unwrap();
    let dir = scratch("hostile");
    // The first record (a STACK_TRACE) at byte 31 (`JAVA PROFILE 1.0.1\0`, id size, timestamp):
    // its length field at 36.
    let mut m = data.clone();
    m[36..40].copy_from_slice(&[0xFF; 4]);
    let bad = file(&dir, "record-length.hprof", &m);
    // One flipped bit in a record length: a reader that trusted it would buffer 1 GiB.
    let mut f = data.clone();
    f[171650] ^= 0x40;
    let flip = file(&dir, "flip.hprof", &f);
    let out_file = dir.join("out.hprof");
    let out_file = out_file.to_str().unwrap();
    let cases = [
        (
            &bad,
            "STACK_TRACE record at byte 31 needs 4294967304 byte(s)",
        ),
        (&flip, "UTF8 record at byte 171645 needs 1073741857 byte(s)"),
    ];
    for (path, what) in cases {
        for (tool, args) in [
            ("histogram", vec![path.as_str()]),
            ("rewrite", vec![path.as_str(), out_file]),
        ] {
            let out = example(tool).run(&args);
            expect(&out, 3, tool, path);
            let w = partial_warning(&out, path);
            assert!(w.contains(what), "{tool}: {w}");
        }
    }
    // Gzip-compressed, the size is unknown while streaming: the decoder's limit (1 GiB) or
    // the data actually read bounds the buffer.
    let mut g = data.clone();
    g[36..40].copy_from_slice(&0x2000_0000u32.to_be_bytes()); // 512 MiB
    let cases = [
        (
            gzip(&m),
            "STACK_TRACE record at byte 31 declares 4294967304 byte(s), more than the limit",
        ),
        (
            gzip(&f),
            "UTF8 record at byte 171645 declares 1073741857 byte(s), more than the limit",
        ),
        (
            gzip(&g),
            "STACK_TRACE record at byte 31 needs 536870921 byte(s)",
        ),
    ];
    for (i, (bytes, what)) in cases.iter().enumerate() {
        let path = file(&dir, &format!("hostile-{i}.hprof.gz"), bytes);
        let out = example("histogram").run(&[&path]);
        expect(&out, 3, "histogram", &path);
        let w = partial_warning(&out, &path);
        assert!(w.contains(what), "{w}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rewrite_of_a_cut_off_dump_is_partial_and_names_the_files() {
    let tool = example("rewrite");
    let dir = scratch("rewrite-cut");
    let data = std::fs::read(JDK17).unwrap();
    let out_file = dir.join("out.hprof");
    let out_path = out_file.to_str().unwrap();
    // Whole, and gzip-compressed: byte-identical output.
    let gz = file(&dir, "dump.hprof.gz", &gzip(&data));
    for input in [JDK17, gz.as_str()] {
        let out = tool.run(&[input, out_path]);
        expect(&out, 0, "rewrite", input);
        assert!(std::fs::read(&out_file).unwrap() == data, "{input}");
    }
    // Cut in a segment: everything before the cut is rewritten, the segment closed with the
    // sub-records read, and the result decodes cleanly up to where the input stopped.
    let cut = middle_of_a_segment(&data);
    let half = file(&dir, "half.hprof", &data[..cut]);
    let out = tool.run(&[&half, out_path]);
    expect(&out, 3, "rewrite", "a dump cut in a segment");
    assert!(partial_warning(&out, &half).contains("HEAP_DUMP_SEGMENT record at byte"));
    let written = std::fs::read(&out_file).unwrap();
    assert!(
        written.len() < cut && written.len() > cut - 4096,
        "{} of {cut}",
        written.len()
    );
    assert!(written[..100] == data[..100]);
    let salvaged = hprof::binary::Histogram::salvage(&written).unwrap();
    // Only the HEAP_DUMP_END is missing from what was written.
    let e = salvaged.error.unwrap();
    assert!(e.to_string().contains("HEAP_DUMP_END"), "{e}");
    // An output that cannot be created is named.
    let bad_out = dir.join("no/such/dir/out.hprof");
    let bad_out = bad_out.to_str().unwrap();
    let out = tool.run(&[JDK5, bad_out]);
    expect(&out, 1, "rewrite", "an output in a missing folder");
    testkit::cli::assert_error_names(&out, bad_out, "rewrite");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hprof_txt_of_a_report_cut_mid_section_is_partial() {
    let tool = example("hprof-txt");
    let dir = scratch("hprof-txt-cut");
    let text = std::fs::read("tests/data/ascii/optimization_java.hprof.txt").unwrap();
    // Cut inside the HEAP DUMP section, mid-line.
    let at = text
        .windows(15)
        .position(|w| w == b"HEAP DUMP BEGIN")
        .unwrap()
        + 5000;
    let cut = file(&dir, "cut.hprof.txt", &text[..at]);
    let out = tool.run(&[&cut]);
    expect(&out, 3, "hprof-txt", "a report cut mid-section");
    let w = partial_warning(&out, &cut);
    assert!(w.contains("HEAP DUMP section"), "{w}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["partial"], true, "{json}");
    assert!(
        json["problems"][0].as_str().unwrap().contains("HEAP DUMP"),
        "{json}"
    );
    assert!(json["heap_dump"]["roots"].as_u64().unwrap() > 50, "{json}");
    // Whole: not partial.
    let out = tool.run(&["tests/data/ascii/optimization_java.hprof.txt"]);
    expect(&out, 0, "hprof-txt", "a whole report");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["partial"], false);
    assert_eq!(json["problems"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}
