//! The `to-parquet` example as a person runs it: its manners, the folder it writes, a cut-off
//! dump (exit 3, what was read committed, no temporary file left, no `_SUCCESS`), and the
//! README's SQL run by DuckDB over its output.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test helpers

use std::path::{Path, PathBuf};
use std::process::Command;

use testkit::TempDir;
use testkit::cli::{Example, Inputs, expect};

const JDK17: &str = "../hprof/tests/data/binary/heapgen_jdk17.hprof";

fn tool() -> Example {
    Example::new("jvmprof-columnar", "to-parquet").with_features(&["fs"])
}

/// A scratch directory (removed when dropped) and a path in it that does not exist yet, for
/// an output directory.
fn scratch(name: &str) -> (TempDir, PathBuf) {
    let tmp = TempDir::new(&format!("to-parquet-{name}"));
    let dir = tmp.join("out");
    (tmp, dir)
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for table in std::fs::read_dir(dir).unwrap() {
        let table = table.unwrap().path();
        if table.is_dir() {
            for f in std::fs::read_dir(&table).unwrap() {
                let f = f.unwrap().path();
                out.push(f.strip_prefix(dir).unwrap().display().to_string());
            }
        } else {
            out.push(table.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

#[test]
fn behaves_like_a_tool() {
    let (_tmp, out) = scratch("manners");
    let out = out.to_str().unwrap();
    tool().check_manners(&Inputs {
        good: &["--force", JDK17, out],
        foreign: "../iprof/tests/data/some.iprof",
        big_output: &["--force", JDK17, out],
    });
}

#[test]
fn writes_one_folder_per_table_and_a_success_marker() {
    let (_tmp, dir) = scratch("tables");
    let out = tool().run(&[JDK17, dir.to_str().unwrap()]);
    expect(&out, 0, "to-parquet", JDK17);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["complete"], true);
    assert_eq!(summary["tables"]["objects"]["rows"], 12608);
    let files = files_under(&dir);
    for table in [
        "classes",
        "objects",
        "references",
        "roots",
        "strings",
        "stack_frames",
        "stack_traces",
    ] {
        assert!(
            files.contains(&format!("{table}/part-00000.parquet")),
            "{files:?}"
        );
    }
    assert!(files.contains(&"_SUCCESS".to_owned()));
    assert!(!files.iter().any(|f| f.contains(".tmp")), "{files:?}");
    // A second run refuses to mix with the first unless told to replace it.
    let again = tool().run(&[JDK17, dir.to_str().unwrap()]);
    expect(&again, 1, "to-parquet", "an OUTDIR with tables");
}

#[test]
fn a_cut_off_dump_writes_what_was_read_and_exits_3() {
    let (_tmp, dir) = scratch("cut");
    std::fs::create_dir_all(&dir).unwrap();
    let data = std::fs::read(JDK17).unwrap();
    let cut = dir.join("cut.hprof");
    std::fs::write(&cut, &data[..data.len() / 4 * 3]).unwrap();
    let out_dir = dir.join("out");
    let out = tool().run(&[cut.to_str().unwrap(), out_dir.to_str().unwrap()]);
    expect(&out, 3, "to-parquet", "a cut-off dump");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("partial") && err.contains("offset"), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["complete"], false);
    let objects = summary["tables"]["objects"]["rows"].as_u64().unwrap();
    assert!(objects > 1000 && objects < 12608, "{objects}");
    let files = files_under(&out_dir);
    assert!(files.contains(&"_PARTIAL".to_owned()) && !files.contains(&"_SUCCESS".to_owned()));
    assert!(!files.iter().any(|f| f.contains(".tmp")), "{files:?}");
}

/// A dump of only its header, or whose segments have no HEAP_DUMP_END, is partial here as in
/// every other tool of the family: exit 3, `_PARTIAL`, no `_SUCCESS`.
#[test]
fn a_header_alone_or_a_missing_heap_dump_end_is_partial() {
    let (_tmp, dir) = scratch("wholeness");
    std::fs::create_dir_all(&dir).unwrap();
    let data = std::fs::read(JDK17).unwrap();
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
        ("no-end.hprof", &data[..data.len() - 9], "END record"),
    ] {
        let input = dir.join(name);
        std::fs::write(&input, bytes).unwrap();
        let out_dir = dir.join(format!("{name}.out"));
        let out = tool().run(&[input.to_str().unwrap(), out_dir.to_str().unwrap()]);
        expect(&out, 3, "to-parquet", name);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("partial") && err.contains(why),
            "{name}: {err}"
        );
        let files = files_under(&out_dir);
        assert!(
            files.contains(&"_PARTIAL".to_owned()) && !files.contains(&"_SUCCESS".to_owned()),
            "{name}: {files:?}"
        );
    }
}

/// Input that is not a dump or an experiment (another format, an empty file, a directory
/// without a log) fails before OUTDIR is touched: no folder is created.
#[test]
fn bad_input_leaves_no_outdir_behind() {
    let (_tmp, dir) = scratch("no-outdir");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.hprof");
    std::fs::write(&empty, b"").unwrap();
    let not_an_experiment = dir.join("not.er");
    std::fs::create_dir_all(&not_an_experiment).unwrap();
    for input in [
        "../iprof/tests/data/some.iprof",
        empty.to_str().unwrap(),
        not_an_experiment.to_str().unwrap(),
    ] {
        let out_dir = dir.join("out");
        let out = tool().run(&[input, out_dir.to_str().unwrap()]);
        expect(&out, 1, "to-parquet", input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(&format!("error: {input}: ")), "{err}");
        assert!(!out_dir.exists(), "{input}: OUTDIR was created");
    }
}

/// The README's class histogram, run by DuckDB over the folder, equals the `histogram`
/// example's; and "top referrers of class X" runs. Needs DuckDB's Python package.
#[test]
#[ignore = "needs DuckDB: `python3 -m pip install duckdb`, then `cargo test -p jvmprof-columnar -- --ignored` (.ci/run does)"]
fn duckdb_reads_the_tables_and_its_histogram_is_ours() {
    let (_tmp, dir) = scratch("duckdb");
    let out = tool().run(&[JDK17, dir.to_str().unwrap()]);
    expect(&out, 0, "to-parquet", JDK17);
    let sql = include_str!("../sql/histogram.sql").replace("OUT", dir.to_str().unwrap());
    let got = duckdb_csv(&sql);
    assert_eq!(sorted(got), sorted(histogram_lines()));
    let referrers = include_str!("../sql/top-referrers.sql")
        .replace("OUT", dir.to_str().unwrap())
        .replace("CLASS", "java.lang.String");
    let rows = duckdb_csv(&referrers);
    assert!(!rows.is_empty(), "no referrers of java.lang.String");
}

/// The same histogram query, run by Spark SQL (local mode, Java 17) over the same folder,
/// equals the `histogram` example's. Needs PySpark.
#[test]
#[ignore = "needs PySpark: `python3 -m pip install pyspark`, then `cargo test -p jvmprof-columnar -- --ignored` (.ci/run does)"]
fn spark_sql_reads_the_same_tables() {
    let (_tmp, dir) = scratch("spark");
    let out = tool().run(&[JDK17, dir.to_str().unwrap()]);
    expect(&out, 0, "to-parquet", JDK17);
    let run = Command::new("python3")
        .args([
            "tests/engines/spark_sql.py",
            dir.to_str().unwrap(),
            "sql/histogram.sql",
        ])
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "spark: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let got: Vec<String> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(sorted(got), sorted(histogram_lines()));
}

/// The `histogram` example's rows for the JDK 17 dump, as `class,instances,bytes` lines.
fn histogram_lines() -> Vec<String> {
    hprof::binary::histogram::Histogram::parse(&std::fs::read(JDK17).unwrap())
        .unwrap()
        .rows()
        .into_iter()
        .map(|r| format!("{},{},{}", r.class_name, r.instances, r.shallow_bytes))
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Runs `sql` in DuckDB (Python), returns the rows as CSV lines without the header.
fn duckdb_csv(sql: &str) -> Vec<String> {
    let script = "import duckdb, sys\nfor row in duckdb.sql(sys.stdin.read()).fetchall():\n    print(','.join(str(v) for v in row))\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "duckdb: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The tool on JFR recordings (feature `jfr`, on by default).
#[cfg(feature = "jfr")]
mod recordings {
    use super::*;

    const CPU_JFR: &str = "../jfr/tests/data/cpu-profile.jfr";
    const CHUNKS_JFR: &str = "../jfr/tests/data/alloc-chunks.jfr";

    /// A recording gives a table per event type, `stacks` and `stack_frames`, with the counts
    /// `columnar::jfr::export` gives in memory; a second run refuses to mix with the first
    /// (naming tables it knows only from their folders) unless told to replace it.
    #[test]
    fn a_recording_gives_a_table_per_event_type() {
        let (_tmp, dir) = scratch("jfr");
        let out = tool().run(&[CHUNKS_JFR, dir.to_str().unwrap()]);
        expect(&out, 0, "to-parquet", CHUNKS_JFR);
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["complete"], true);
        assert_eq!(summary["chunks"], 2);
        let mut sink = columnar::MemorySink::new();
        let data = std::fs::read(CHUNKS_JFR).unwrap();
        let want = columnar::jfr::export(&data, &mut sink, &mut |_| {}).unwrap();
        let tables = summary["tables"].as_object().unwrap();
        assert_eq!(tables.len(), want.rows.len());
        for (table, rows) in &want.rows {
            assert_eq!(tables[table]["rows"], *rows, "{table}");
        }
        assert_eq!(tables["jdk_PromoteObjectOutsidePLAB"]["rows"], 17516);
        let files = files_under(&dir);
        for table in [
            "stacks",
            "stack_frames",
            "jdk_ExecutionSample",
            "jdk_GarbageCollection",
        ] {
            assert!(
                files.contains(&format!("{table}/part-00000.parquet")),
                "{files:?}"
            );
        }
        assert!(files.contains(&"_SUCCESS".to_owned()));
        let again = tool().run(&[CPU_JFR, dir.to_str().unwrap()]);
        expect(
            &again,
            1,
            "to-parquet",
            "an OUTDIR with a recording's tables",
        );
        let err = String::from_utf8_lossy(&again.stderr);
        assert!(err.contains("jdk_PromoteObjectOutsidePLAB"), "{err}");
        let replaced = tool().run(&["--force", CPU_JFR, dir.to_str().unwrap()]);
        expect(
            &replaced,
            0,
            "to-parquet",
            "--force over a recording's tables",
        );
        assert!(!dir.join("jdk_PromoteObjectOutsidePLAB").exists());
    }

    /// A recording cut mid-chunk: every event before the cut is written, exit 3, `_PARTIAL` says
    /// where reading stopped.
    #[test]
    fn a_cut_recording_writes_what_was_read_and_exits_3() {
        let (_tmp, dir) = scratch("jfr-cut");
        std::fs::create_dir_all(&dir).unwrap();
        let data = std::fs::read(CHUNKS_JFR).unwrap();
        let cut = dir.join("cut.jfr");
        let at = data.len() * 3 / 4;
        std::fs::write(&cut, &data[..at]).unwrap();
        let out_dir = dir.join("out");
        let out = tool().run(&[cut.to_str().unwrap(), out_dir.to_str().unwrap()]);
        expect(&out, 3, "to-parquet", "a cut recording");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("partial: truncated") && err.contains("offset"),
            "{err}"
        );
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["complete"], false);
        let mut sink = columnar::MemorySink::new();
        let want = columnar::jfr::export(&data[..at], &mut sink, &mut |_| {}).unwrap();
        let stop = want.stopped.unwrap();
        assert!(err.contains(&stop.to_string()), "{err} vs {stop}");
        for (table, rows) in &want.rows {
            assert_eq!(summary["tables"][table]["rows"], *rows, "{table}");
        }
        let files = files_under(&out_dir);
        assert!(files.contains(&"_PARTIAL".to_owned()) && !files.contains(&"_SUCCESS".to_owned()));
        assert!(!files.iter().any(|f| f.contains(".tmp")), "{files:?}");
    }

    /// `sql/jfr-hot-methods.sql` and `sql/jfr-allocations.sql`, run by DuckDB over a recording's
    /// folder, give what the jfr crate reads from the recording itself.
    #[test]
    #[ignore = "needs DuckDB: `python3 -m pip install duckdb`, then `cargo test -p jvmprof-columnar -- --ignored` (.ci/run does)"]
    fn duckdb_reads_a_recordings_tables() {
        for (file, query, want) in jfr_queries() {
            let (_tmp, dir) = scratch("duckdb-jfr");
            let out = tool().run(&[file, dir.to_str().unwrap()]);
            expect(&out, 0, "to-parquet", file);
            let sql = std::fs::read_to_string(query)
                .unwrap()
                .replace("OUT", dir.to_str().unwrap());
            assert_eq!(sorted(duckdb_csv(&sql)), want, "{file} {query}");
        }
    }

    /// The same queries run by Spark SQL (local mode, Java 17) over the same folders. Needs
    /// PySpark.
    #[test]
    #[ignore = "needs PySpark: `python3 -m pip install pyspark`, then `cargo test -p jvmprof-columnar -- --ignored` (.ci/run does)"]
    fn spark_sql_reads_a_recordings_tables() {
        for (file, query, want) in jfr_queries() {
            let (_tmp, dir) = scratch("spark-jfr");
            let out = tool().run(&[file, dir.to_str().unwrap()]);
            expect(&out, 0, "to-parquet", file);
            let run = Command::new("python3")
                .args(["tests/engines/spark_sql.py", dir.to_str().unwrap(), query])
                .output()
                .expect("python3 runs");
            assert!(
                run.status.success(),
                "spark: {}",
                String::from_utf8_lossy(&run.stderr)
            );
            let got: Vec<String> = String::from_utf8(run.stdout)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            assert_eq!(sorted(got), want, "{file} {query}");
        }
    }

    /// (recording, query, the rows it should give as `a,b,n` lines, sorted), the answers read
    /// with the jfr crate: execution samples per top frame, allocation samples and weight per
    /// class.
    fn jfr_queries() -> Vec<(&'static str, &'static str, Vec<String>)> {
        let mut hot: std::collections::BTreeMap<(String, String), u64> = Default::default();
        let data = std::fs::read(CPU_JFR).unwrap();
        for chunk in jfr::Chunks::new(&data) {
            let chunk = chunk.unwrap();
            for e in chunk.events() {
                let e = e.unwrap();
                if e.type_name() != Some("jdk.ExecutionSample") {
                    continue;
                }
                let key = e.get_i64("stackTrace").unwrap().unwrap();
                let st = chunk.stack_trace(key).unwrap().unwrap();
                let top = &st.frames[0].method;
                *hot.entry((top.class.to_string(), top.name.to_string()))
                    .or_default() += 1;
            }
        }
        let hot = sorted(
            hot.into_iter()
                .map(|((c, m), n)| format!("{c},{m},{n}"))
                .collect(),
        );
        let mut alloc: std::collections::BTreeMap<String, (u64, i64)> = Default::default();
        let data = std::fs::read(CHUNKS_JFR).unwrap();
        for chunk in jfr::Chunks::new(&data) {
            let chunk = chunk.unwrap();
            for e in chunk.events() {
                let e = e.unwrap();
                if e.type_name() != Some("jdk.ObjectAllocationSample") {
                    continue;
                }
                let class = e.get_i64("objectClass").unwrap().unwrap();
                let name = chunk.class_name(class).unwrap().unwrap().to_string();
                let a = alloc.entry(name).or_default();
                a.0 += 1;
                a.1 += e.get_i64("weight").unwrap().unwrap();
            }
        }
        let alloc = sorted(
            alloc
                .into_iter()
                .map(|(c, (n, w))| format!("{c},{n},{w}"))
                .collect(),
        );
        assert!(hot.len() > 1 && alloc.len() > 5);
        vec![
            (CPU_JFR, "sql/jfr-hot-methods.sql", hot),
            (CHUNKS_JFR, "sql/jfr-allocations.sql", alloc),
        ]
    }
}
