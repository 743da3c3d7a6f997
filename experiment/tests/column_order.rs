//! `er-functions` prints each row's metrics in the order gprofng's `-functions` prints its
//! columns, on every recorded case with gprofng's output (`functions.txt`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::data;
use testkit::cli::Example;

/// gprofng's metric key of a column title of `-functions` (its header words, joined).
fn key_of(title: &str) -> &'static str {
    let has = |w: &str| title.contains(w);
    match () {
        _ if has("Excl.") && has("CPU") => "e.totalcpu",
        _ if has("Incl.") && has("CPU") => "i.totalcpu",
        _ if has("Bytes Leaked") => "i.heapleakbytes",
        _ if has("Leaks") => "i.heapleakcnt",
        _ if has("Bytes Allocated") => "i.heapallocbytes",
        _ if has("Allocations") => "i.heapalloccnt",
        _ if has("Read Time") => "i.ioreadtime",
        _ if has("Write Time") => "i.iowritetime",
        _ if has("Other I/O Time") => "i.ioothertime",
        _ if has("I/O Error Time") => "i.ioerrortime",
        _ if has("Sync Wait") && has("Count") => "i.syncn",
        _ if has("Sync Wait") => "i.sync",
        _ => panic!("unknown gprofng column `{title}`"),
    }
}

/// The metric keys of gprofng's columns in `functions.txt`, in order: the header lines between
/// the title and the `<Total>` row, cut into columns where a title starts after two spaces.
fn gprofng_columns(text: &str) -> Vec<&'static str> {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.iter().position(|l| l.contains("<Total>")).unwrap();
    let header = &lines[2..total];
    let first = header[0].as_bytes();
    let starts: Vec<usize> = (0..first.len())
        .filter(|&i| first[i] != b' ' && (i == 0 || (i >= 2 && &first[i - 2..i] == b"  ")))
        .collect();
    let mut keys = Vec::new();
    for (n, &s) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied();
        let title: Vec<&str> = header
            .iter()
            .map(|l| {
                let l = l.get(s.min(l.len())..).unwrap_or("");
                match end {
                    Some(e) => l.get(..(e - s).min(l.len())).unwrap_or(l),
                    None => l,
                }
                .trim()
            })
            .filter(|t| !t.is_empty())
            .collect();
        let title = title.join(" ");
        if title != "Name" {
            keys.push(key_of(&title));
        }
    }
    keys
}

#[test]
fn er_functions_keys_follow_gprofngs_column_order() {
    let mut checked = 0;
    for case in std::fs::read_dir(data()).unwrap() {
        let case = case.unwrap().path();
        let Ok(text) = std::fs::read_to_string(case.join("functions.txt")) else {
            continue;
        };
        let want = gprofng_columns(&text);
        let out = Example::new("gprofng-experiment", "er-functions")
            .run(&[case.join("test.1.er").to_str().unwrap(), "--archives-only"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let first = stdout.lines().next().unwrap();
        // Keys in the order the `<Total>` line writes them (a JSON map would sort them).
        let seen: Vec<&str> = first
            .split(",\"")
            .skip(1)
            .filter_map(|k| k.split_once("\":").map(|(k, _)| k))
            .collect();
        assert_eq!(seen, want, "{}", case.display());
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} cases with functions.txt");
}
