//! `er-lines` behaves like a tool (help, version, usage errors, `error: PATH: reason`, empty
//! and foreign input, closed pipe), prints gprofng's rows, and says `partial` (exit 3) when a
//! load object's line table is damaged.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::data;
use experiment::elf::Elf;
use std::path::Path;
use testkit::cli::{Example, Inputs};

#[test]
fn er_lines_keeps_the_manners() {
    Example::new("gprofng-experiment", "er-lines").check_manners(&Inputs {
        good: &["tests/data/dwarf4_lines/test.1.er"],
        foreign: "tests/data/dwarf4_lines/lines.txt",
        big_output: &["tests/data/many_threads/test.1.er"],
    });
    let out = Example::new("gprofng-experiment", "er-lines").run(&[
        "tests/data/dwarf4_lines/test.1.er",
        "--native-lines",
        "sideways",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected `dwarf` or `none`"));
}

/// The program's rows of er-lines' JSON: (name, e.totalcpu in ms, i.heapalloccnt).
fn program_rows(stdout: &[u8]) -> Vec<(String, u64, u64)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("line").is_some())
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_owned(),
                (v["e.totalcpu"].as_f64().unwrap() * 1000.0).round() as u64,
                v["i.heapalloccnt"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn er_lines_prints_gprofngs_rows() {
    let out = Example::new("gprofng-experiment", "er-lines")
        .run(&["tests/data/dwarf4_lines/test.1.er", "--archives-only"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = program_rows(&out.stdout);
    // gprofng's rows with a line, in its order: name, exclusive CPU (ms), allocations.
    let text = std::fs::read_to_string(data().join("dwarf4_lines/lines.txt")).unwrap();
    let col = text.lines().nth(2).unwrap().find("Name").unwrap();
    let want: Vec<(String, u64, u64)> = text
        .lines()
        .filter(|l| l.len() > col && l[col..].contains(", line "))
        .map(|l| {
            let t: Vec<&str> = l[..col].split_whitespace().collect();
            let ms = (t[4].parse::<f64>().unwrap() * 1000.0).round() as u64;
            (l[col..].to_owned(), ms, t[3].parse().unwrap())
        })
        .collect();
    assert_eq!(ours.len(), 22);
    assert_eq!(ours, want);
    let first = String::from_utf8_lossy(&out.stdout);
    let row = first.lines().nth(1).unwrap();
    assert!(
        row.starts_with(
            r#"{"name":"mix, line 4 in \"mix.h\"","function":"mix","file":"mix.h","line":4,"#
        ),
        "{row}"
    );

    // Without native lines, gprofng 2.40's rows of a program it has no line table of.
    let out = Example::new("gprofng-experiment", "er-lines").run(&[
        "tests/data/dwarf4_lines/test.1.er",
        "--archives-only",
        "--native-lines",
        "none",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(program_rows(&out.stdout).is_empty());
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(r#""name":"<Function: loop_b, instructions without line numbers>""#)
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_damaged_line_table_is_partial() {
    // The archived program with its .debug_line's version set to 99: every row but the
    // program's lines is printed, and er-lines says which object and where (exit 3).
    let root = testkit::TempDir::new("exp-lines");
    let exp = root.join("test.1.er");
    copy_dir(&data().join("dwarf4_lines/test.1.er"), &exp);
    let prog = std::fs::read_dir(exp.join("archives"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("prog_")
        })
        .unwrap();
    let mut bytes = std::fs::read(&prog).unwrap();
    let elf = Elf::parse(&bytes).unwrap();
    let at = (0..elf.section_headers.len())
        .find(|&i| elf.section_name(&bytes, i) == Some(b".debug_line"))
        .map(|i| elf.section_headers[i].sh_offset as usize)
        .unwrap();
    bytes[at + 4..at + 6].copy_from_slice(&99u16.to_le_bytes());
    std::fs::write(&prog, &bytes).unwrap();

    let out = Example::new("gprofng-experiment", "er-lines")
        .run(&[exp.to_str().unwrap(), "--archives-only"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("partial: line table of "), "{stderr}");
    assert!(stderr.contains("/prog: DWARF"), "{stderr}");
    assert!(stderr.contains("at byte offset"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(r#""name":"<Function: loop_b, instructions without line numbers>""#));
}

#[test]
fn er_leaks_native_lines_give_gprofngs_frames() {
    // With `--native-lines dwarf`, the program's frames read as gprofng prints them for a
    // DWARF 4 program (`allocate + 0x00000096, line 102 in "lines.c"`); by default as before.
    let text = std::fs::read_to_string(data().join("dwarf4_lines/leaks.txt")).unwrap();
    let want: Vec<Vec<String>> = text
        .split("Leak #")
        .skip(1)
        .map(|block| {
            block
                .lines()
                .filter(|l| l.contains(", line "))
                .map(|l| l.trim().to_owned())
                .collect()
        })
        .collect();
    assert_eq!(want.len(), 3);
    let lined = |args: &[&str]| -> Vec<Vec<String>> {
        let out = Example::new("gprofng-experiment", "er-leaks").run(args);
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["stack"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_owned())
                    .filter(|f| f.contains(", line "))
                    .collect()
            })
            .collect()
    };
    let exp = "tests/data/dwarf4_lines/test.1.er";
    assert_eq!(
        lined(&[exp, "--archives-only", "--native-lines", "dwarf"]),
        want
    );
    assert!(lined(&[exp, "--archives-only"]).iter().all(Vec::is_empty));
}
