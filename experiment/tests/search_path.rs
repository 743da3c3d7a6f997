//! Load objects the experiment does not archive are found where gprofng finds them: by file
//! name in the experiment's parent folder, the current folder, then each `--search-path`
//! folder, before the recorded path; a miss reads as gprofng's placeholder. The `killed` case
//! has no archives and its program `prog` beside `test.1.er` (gprofng names its hot function
//! `main`: `killed/functions.txt`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::data;
use experiment::Experiment;
use experiment::fs::DirSource;
use experiment::profile::FunctionList;
use std::path::{Path, PathBuf};
use std::process::Command;
use testkit::TempDir;
use testkit::cli::Example;

/// The function names of `exp`, in gprofng's order.
fn names(exp: &Experiment<DirSource>) -> Vec<String> {
    FunctionList::read(exp, None)
        .unwrap()
        .rows
        .into_iter()
        .map(|r| r.name)
        .collect()
}

/// gprofng's function names in `functions.txt` (the text after the metric columns).
fn gprofng_names(functions_txt: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(functions_txt).unwrap();
    let start = text.find("<Total>").unwrap();
    let column = text[..start].rsplit('\n').next().unwrap().len();
    text[start - column..]
        .lines()
        .filter(|l| l.len() > column)
        .map(|l| l[column..].to_owned())
        .collect()
}

/// A copy of the killed case's experiment in a fresh temporary folder, without `prog`.
fn moved_experiment(tag: &str) -> (TempDir, PathBuf) {
    let root = TempDir::new(&format!("exp-search-{tag}"));
    let exp = root.join("moved/test.1.er");
    std::fs::create_dir_all(&exp).unwrap();
    for e in std::fs::read_dir(data().join("killed/test.1.er")).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), exp.join(e.file_name())).unwrap();
        }
    }
    (root, exp)
}

#[test]
fn the_program_beside_the_experiment_names_its_functions_like_gprofng() {
    let exp = experiment::fs::open(data().join("killed/test.1.er")).unwrap();
    let ours = names(&exp);
    assert_eq!(ours[..2], ["<Total>", "main"]);
    assert_eq!(ours, gprofng_names(&data().join("killed/functions.txt")));
}

#[test]
fn a_missing_load_object_reads_as_gprofngs_placeholder_and_the_search_path_finds_it() {
    let (root, exp_dir) = moved_experiment("lib");
    // Not beside the experiment, not in the current folder, not at its recorded path
    // (/tmp/stacks-corpus/build/killed/prog): gprofng prints
    // `<static>@0x1000 (<prog>) --  no functions found` (checked with gprofng 2.40).
    let exp = Experiment::open(DirSource::new(&exp_dir)).unwrap();
    assert_eq!(
        names(&exp)[1],
        "<static>@0x1000 (<prog>) --  no functions found"
    );
    assert!(!names(&exp).contains(&"main".to_owned()));
    // A folder added to the search path holds it.
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(data().join("killed/prog"), bin.join("prog")).unwrap();
    let exp = Experiment::open(DirSource::new(&exp_dir).with_search_path(&bin)).unwrap();
    assert_eq!(names(&exp)[1], "main");
    // So does the experiment's parent folder, and archives-only looks nowhere.
    std::fs::copy(data().join("killed/prog"), root.join("moved/prog")).unwrap();
    let exp = Experiment::open(DirSource::new(&exp_dir)).unwrap();
    assert_eq!(names(&exp)[1], "main");
    let exp = Experiment::open(DirSource::new(&exp_dir).archives_only()).unwrap();
    assert_eq!(
        names(&exp)[1],
        "<static>@0x1000 (<prog>) --  no functions found"
    );
}

#[test]
fn er_functions_takes_search_path_folders_and_looks_in_the_current_folder() {
    let (root, exp_dir) = moved_experiment("cli");
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(data().join("killed/prog"), bin.join("prog")).unwrap();
    let tool = Example::new("gprofng-experiment", "er-functions");
    let exp = exp_dir.to_str().unwrap();
    let first_function = |out: &std::process::Output| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().nth(1).unwrap().to_owned();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        v["name"].as_str().unwrap().to_owned()
    };
    let out = tool.run(&[exp]);
    assert_eq!(out.status.code(), Some(3), "killed collector: partial");
    assert_eq!(
        first_function(&out),
        "<static>@0x1000 (<prog>) --  no functions found"
    );
    let out = tool.run(&[
        exp,
        "--search-path",
        "/nonexistent",
        "--search-path",
        bin.to_str().unwrap(),
    ]);
    assert_eq!(first_function(&out), "main");
    // The current folder is on gprofng's default search path.
    let out = Command::new(tool.path())
        .arg(exp)
        .current_dir(&bin)
        .output()
        .unwrap();
    assert_eq!(first_function(&out), "main");
}
