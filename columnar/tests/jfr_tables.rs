//! The JFR tables against the JDK's own tools on the recordings committed in `jfr/tests/data`:
//! each event table holds as many rows as `jfr summary` counts of its type, and the values of
//! sampled, allocation, GC and lock events, their threads and every frame of their stacks are
//! those `jfr print --json` prints. Needs the JDK's `jfr` (on PATH or in `$JAVA_HOME/bin`),
//! as the jfr crate's own conformance tests do.
#![cfg(feature = "jfr")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::needless_range_loop
)]

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::Command;

use columnar::MemorySink;
use columnar::arrow_array::cast::AsArray;
use columnar::arrow_array::types::{
    DurationNanosecondType, Int32Type, Int64Type, TimestampMicrosecondType, UInt32Type, UInt64Type,
};
use columnar::arrow_array::{Array, RecordBatch};
use columnar::arrow_schema::{DataType, TimeUnit};
use serde_json::Value as Json;

fn recordings() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("../jfr/tests/data")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jfr"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "the recordings are missing: {files:?}");
    files
}

fn jfr_tool() -> PathBuf {
    let candidates = std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin/jfr"))
        .into_iter()
        .chain(std::env::var_os("PATH").into_iter().flat_map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("jfr"))
                .collect::<Vec<_>>()
        }));
    for c in candidates {
        if c.is_file() {
            return c;
        }
    }
    panic!(
        "the JDK's `jfr` tool is needed (JDK 17: on PATH or in $JAVA_HOME/bin) and was not found"
    );
}

/// `jfr summary`'s count per event type (types with no event and the metadata and checkpoint
/// records left out).
fn jfr_summary(path: &PathBuf) -> BTreeMap<String, u64> {
    let out = Command::new(jfr_tool())
        .arg("summary")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = BTreeMap::new();
    let text = String::from_utf8(out.stdout).unwrap();
    let (_, table) = text.split_once("=====\n").expect("jfr summary's table");
    for line in table.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [name, count, _size] = words.as_slice() {
            if let Ok(n) = count.parse::<u64>() {
                if n > 0 && !matches!(*name, "jdk.Metadata" | "jdk.CheckPoint") {
                    counts.insert((*name).to_owned(), n);
                }
            }
        }
    }
    assert!(
        !counts.is_empty(),
        "no counts in jfr summary of {}",
        path.display()
    );
    counts
}

/// `jfr print --json` of the events of `types`, every frame of their stacks.
fn jfr_print(path: &PathBuf, types: &str) -> Vec<Json> {
    let out = Command::new(jfr_tool())
        .args(["print", "--json", "--stack-depth", "64", "--events", types])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    doc["recording"]["events"].as_array().unwrap().clone()
}

fn export(path: &PathBuf) -> (MemorySink, columnar::jfr::Summary) {
    let data = std::fs::read(path).unwrap();
    let mut sink = MemorySink::new();
    let summary = columnar::jfr::export(&data, &mut sink, &mut |_| {}).unwrap();
    (sink, summary)
}

fn batches<'s>(sink: &'s MemorySink, table: &str) -> &'s [RecordBatch] {
    &sink
        .tables
        .get(table)
        .unwrap_or_else(|| panic!("no table {table}"))
        .1
}

/// A column of a table as JSON-like values, one per row, in row order: what the comparisons
/// below read (times as the JDK spells them).
fn column(sink: &MemorySink, table: &str, name: &str) -> Vec<Json> {
    let mut out = Vec::new();
    for b in batches(sink, table) {
        let c = b
            .column_by_name(name)
            .unwrap_or_else(|| panic!("{table} has no column {name}"));
        for i in 0..c.len() {
            if c.is_null(i) {
                out.push(Json::Null);
                continue;
            }
            out.push(match c.data_type() {
                DataType::Utf8 => Json::from(c.as_string::<i32>().value(i)),
                DataType::Boolean => Json::from(c.as_boolean().value(i)),
                DataType::Int32 => Json::from(c.as_primitive::<Int32Type>().value(i)),
                DataType::Int64 => Json::from(c.as_primitive::<Int64Type>().value(i)),
                DataType::UInt32 => Json::from(c.as_primitive::<UInt32Type>().value(i)),
                DataType::UInt64 => Json::from(c.as_primitive::<UInt64Type>().value(i)),
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    let us = c.as_primitive::<TimestampMicrosecondType>().value(i);
                    let t = jfr::Timestamp {
                        epoch_nanos: Some(i128::from(us) * 1000),
                        offset_seconds: 0,
                    };
                    Json::from(micros(&t.to_string()))
                }
                DataType::Duration(TimeUnit::Nanosecond) => {
                    let ns = c.as_primitive::<DurationNanosecondType>().value(i);
                    Json::from(jfr::Duration::from_nanos(ns).to_string())
                }
                DataType::Float64 => Json::from(
                    c.as_primitive::<columnar::arrow_array::types::Float64Type>()
                        .value(i),
                ),
                DataType::Float32 => Json::from(f64::from(
                    c.as_primitive::<columnar::arrow_array::types::Float32Type>()
                        .value(i),
                )),
                other => panic!("{table}.{name}: no reader for {other}"),
            });
        }
    }
    out
}

/// A time as `java.time` spells it (`2026-11-26T19:34:29.435135769Z`) cut to microseconds,
/// the tables' precision: `2026-11-26T19:34:29.435135Z`.
fn micros(text: &str) -> String {
    let Some((secs, rest)) = text.split_once('.') else {
        return text.to_owned();
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let zone = &rest[digits.len()..];
    let mut fraction: String = format!("{digits:0<9}")[..6].to_owned();
    while fraction.ends_with("000") {
        fraction.truncate(fraction.len() - 3);
    }
    if fraction.is_empty() {
        format!("{secs}{zone}")
    } else {
        format!("{secs}.{fraction}{zone}")
    }
}

/// A value of `jfr print --json` as the tables hold it: the JDK's "minimum" time (a field
/// value of `Long.MIN_VALUE`) is null, times are cut to microseconds.
fn as_in_tables(v: Option<&Json>) -> Json {
    match v {
        Some(Json::String(s)) if s.starts_with("-999999999-") => Json::Null,
        Some(Json::String(s)) if s.len() > 20 && s.as_bytes()[10] == b'T' => Json::from(micros(s)),
        Some(v) => v.clone(),
        None => Json::Null,
    }
}

#[test]
fn every_event_table_has_the_rows_jfr_summary_counts() {
    for path in recordings() {
        let want = jfr_summary(&path);
        let (sink, summary) = export(&path);
        assert!(
            summary.is_complete(),
            "{}: {:?}",
            path.display(),
            summary.stopped
        );
        let got: BTreeMap<String, u64> = summary
            .tables
            .iter()
            .map(|(ty, table)| (ty.clone(), sink.rows(table) as u64))
            .collect();
        assert_eq!(got, want, "{}", path.display());
        for (ty, table) in &summary.tables {
            assert_eq!(summary.rows[table], want[ty], "{}: {ty}", path.display());
            assert_eq!(*table, ty.replace('.', "_"));
        }
        assert_eq!(summary.undeclared_events, 0);
        assert_eq!(summary.mismatched_values, 0);
    }
}

/// Stacks and frames hang together: every event's stack is a row of `stacks`, with as many
/// rows in `stack_frames` as its `frame_count`, depths 0.. in order; ids are unique across
/// the chunks of a recording.
#[test]
fn stacks_and_frames_are_consistent_across_chunks() {
    let path = PathBuf::from("../jfr/tests/data/alloc-chunks.jfr");
    let (sink, summary) = export(&path);
    assert_eq!(summary.chunks, 2);
    let ids = column(&sink, "stacks", "stack_id");
    let counts = column(&sink, "stacks", "frame_count");
    let mut frames_of: HashMap<u64, u64> = HashMap::new();
    for (id, n) in ids.iter().zip(&counts) {
        let fresh = frames_of.insert(id.as_u64().unwrap(), n.as_u64().unwrap());
        assert!(fresh.is_none(), "stack id {id} twice");
    }
    let frame_ids = column(&sink, "stack_frames", "stack_id");
    let depths = column(&sink, "stack_frames", "depth");
    let mut seen: HashMap<u64, u64> = HashMap::new();
    for (id, depth) in frame_ids.iter().zip(&depths) {
        let id = id.as_u64().unwrap();
        let next = seen.entry(id).or_default();
        assert_eq!(depth.as_u64().unwrap(), *next, "stack {id}");
        *next += 1;
    }
    // A stack of no frames has no rows in `stack_frames`.
    for (id, n) in &frames_of {
        assert_eq!(seen.get(id).copied().unwrap_or(0), *n, "stack {id}");
    }
    assert!(seen.len() > 10);
    let mut used = 0;
    for table in summary.tables.values() {
        let has_stack = batches(&sink, table)
            .first()
            .is_some_and(|b| b.column_by_name("stackTrace").is_some());
        if !has_stack {
            continue;
        }
        for id in column(&sink, table, "stackTrace") {
            if let Some(id) = id.as_u64() {
                assert!(frames_of.contains_key(&id), "{table}: stack {id}");
                used += 1;
            }
        }
    }
    assert!(used > 1000, "{used} events with a stack");
}

/// A stack from the tables, as `jfr print --json` prints it (frames with the method's class
/// name, method name, descriptor, line, bytecode index and type).
type Frames = Vec<(String, String, String, i64, i64, String)>;

fn stacks_of(sink: &MemorySink) -> HashMap<u64, (bool, Frames)> {
    let mut out: HashMap<u64, (bool, Frames)> = HashMap::new();
    for (id, t) in
        column(sink, "stacks", "stack_id")
            .iter()
            .zip(column(sink, "stacks", "truncated"))
    {
        out.insert(id.as_u64().unwrap(), (t.as_bool().unwrap(), Vec::new()));
    }
    let cols: Vec<Vec<Json>> = [
        "stack_id",
        "class",
        "method",
        "descriptor",
        "line",
        "bci",
        "frame_type",
    ]
    .iter()
    .map(|c| column(sink, "stack_frames", c))
    .collect();
    for i in 0..cols[0].len() {
        let s = |k: usize| cols[k][i].as_str().unwrap().to_owned();
        let n = |k: usize| cols[k][i].as_i64().unwrap();
        out.get_mut(&cols[0][i].as_u64().unwrap()).unwrap().1.push((
            s(1),
            s(2),
            s(3),
            n(4),
            n(5),
            s(6),
        ));
    }
    out
}

fn frames_of_json(st: &Json) -> (bool, Frames) {
    let frames = st["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let m = &f["method"];
            (
                m["type"]["name"].as_str().unwrap().to_owned(),
                m["name"].as_str().unwrap().to_owned(),
                m["descriptor"].as_str().unwrap().to_owned(),
                f["lineNumber"].as_i64().unwrap(),
                f["bytecodeIndex"].as_i64().unwrap(),
                f["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (st["truncated"].as_bool().unwrap(), frames)
}

/// Compares the rows of one event type with `jfr print --json`: each column given as
/// (column, JSON pointer into the event's `values`), and the stack trace frame by frame. Both
/// sides are sorted (the JDK prints a chunk's events in time order, the tables hold them in
/// file order).
fn check_values(file: &str, event_type: &str, columns: &[(&str, &str)]) {
    let path = PathBuf::from(format!("../jfr/tests/data/{file}"));
    let (sink, summary) = export(&path);
    let table = &summary.tables[event_type];
    let stacks = stacks_of(&sink);
    let cols: Vec<Vec<Json>> = columns
        .iter()
        .map(|(c, _)| column(&sink, table, c))
        .collect();
    let stack_ids = column(&sink, table, "stackTrace");
    let mut ours: Vec<String> = (0..stack_ids.len())
        .map(|i| {
            let values: Vec<&Json> = cols.iter().map(|c| &c[i]).collect();
            let stack = stack_ids[i].as_u64().map(|id| &stacks[&id]);
            format!("{values:?} {stack:?}")
        })
        .collect();
    let events = jfr_print(&path, event_type);
    let mut theirs: Vec<String> = events
        .iter()
        .map(|e| {
            let v = &e["values"];
            let values: Vec<Json> = columns
                .iter()
                .map(|(_, ptr)| as_in_tables(v.pointer(ptr)))
                .collect();
            let values: Vec<&Json> = values.iter().collect();
            let stack = (!v["stackTrace"].is_null()).then(|| frames_of_json(&v["stackTrace"]));
            format!("{values:?} {:?}", stack.as_ref())
        })
        .collect();
    assert!(!ours.is_empty(), "{file}: no {event_type}");
    ours.sort();
    theirs.sort();
    assert_eq!(ours.len(), theirs.len(), "{file}: {event_type}");
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "{file}: {event_type}");
    }
}

#[test]
fn execution_samples_are_those_jfr_prints() {
    check_values(
        "cpu-profile.jfr",
        "jdk.ExecutionSample",
        &[
            ("startTime", "/startTime"),
            ("sampledThread_javaName", "/sampledThread/javaName"),
            ("sampledThread_javaThreadId", "/sampledThread/javaThreadId"),
            ("sampledThread_osThreadId", "/sampledThread/osThreadId"),
            ("sampledThread_group", "/sampledThread/group/name"),
            ("state", "/state"),
        ],
    );
}

#[test]
fn allocation_samples_are_those_jfr_prints() {
    check_values(
        "alloc-profile.jfr",
        "jdk.ObjectAllocationSample",
        &[
            ("startTime", "/startTime"),
            ("eventThread_javaName", "/eventThread/javaName"),
            ("objectClass_name", "/objectClass/name"),
            ("objectClass_classLoader", "/objectClass/classLoader/name"),
            ("objectClass_package", "/objectClass/package/name"),
            ("objectClass_modifiers", "/objectClass/modifiers"),
            ("objectClass_hidden", "/objectClass/hidden"),
            ("weight", "/weight"),
        ],
    );
}

#[test]
fn monitor_and_park_events_are_those_jfr_prints() {
    check_values(
        "locks-default.jfr",
        "jdk.JavaMonitorEnter",
        &[
            ("startTime", "/startTime"),
            ("duration", "/duration"),
            ("eventThread_javaName", "/eventThread/javaName"),
            ("monitorClass_name", "/monitorClass/name"),
            ("previousOwner_javaName", "/previousOwner/javaName"),
            ("address", "/address"),
        ],
    );
    check_values(
        "park-default.jfr",
        "jdk.ThreadPark",
        &[
            ("startTime", "/startTime"),
            ("duration", "/duration"),
            ("parkedClass_name", "/parkedClass/name"),
            ("timeout", "/timeout"),
            ("until", "/until"),
            ("address", "/address"),
        ],
    );
}

#[test]
fn garbage_collections_are_those_jfr_prints() {
    let path = PathBuf::from("../jfr/tests/data/alloc-default.jfr");
    let (sink, summary) = export(&path);
    let table = &summary.tables["jdk.GarbageCollection"];
    let names = [
        ("startTime", "/startTime"),
        ("duration", "/duration"),
        ("gcId", "/gcId"),
        ("name", "/name"),
        ("cause", "/cause"),
        ("sumOfPauses", "/sumOfPauses"),
        ("longestPause", "/longestPause"),
    ];
    let cols: Vec<Vec<Json>> = names.iter().map(|(c, _)| column(&sink, table, c)).collect();
    let mut ours: Vec<Vec<Json>> = (0..cols[0].len())
        .map(|i| cols.iter().map(|c| c[i].clone()).collect())
        .collect();
    let mut theirs: Vec<Vec<Json>> = jfr_print(&path, "jdk.GarbageCollection")
        .iter()
        .map(|e| {
            names
                .iter()
                .map(|(_, p)| as_in_tables(e["values"].pointer(p)))
                .collect()
        })
        .collect();
    let key = |r: &Vec<Json>| r[2].as_i64().unwrap();
    ours.sort_by_key(key);
    theirs.sort_by_key(key);
    assert!(!ours.is_empty());
    assert_eq!(ours, theirs);
}

/// A recording cut mid-chunk gives every event before the cut (the jfr crate's own count)
/// and says where it stopped.
#[test]
fn a_cut_recording_gives_every_event_before_the_cut() {
    let data = std::fs::read("../jfr/tests/data/cpu-default.jfr").unwrap();
    let cut = &data[..data.len() * 2 / 3];
    let mut complete = 0u64;
    let mut stop = None;
    for chunk in jfr::Chunks::new(cut) {
        match chunk {
            Ok(c) => {
                for e in c.events() {
                    match e.and_then(|e| e.values().map(|_| ())) {
                        Ok(()) => complete += 1,
                        Err(e) => stop = Some(e),
                    }
                }
            }
            Err(e) => stop = Some(e),
        }
    }
    let stop = stop.expect("the cut is found");
    let mut sink = MemorySink::new();
    let summary = columnar::jfr::export(cut, &mut sink, &mut |_| {}).unwrap();
    assert_eq!(summary.stopped.as_ref(), Some(&stop));
    assert!(
        stop.is_truncated() && stop.offset() <= cut.len() as u64,
        "{stop}"
    );
    let rows: u64 = summary.tables.values().map(|t| sink.rows(t) as u64).sum();
    assert!(complete > 100);
    assert_eq!(rows, complete);
}

/// Not a recording at all: an error, and nothing announced beyond what the error says.
#[test]
fn another_format_is_an_error() {
    for bytes in [&b""[..], b"JAVA PROFILE 1.0.2\0", b"FLR\0\0"] {
        let mut sink = MemorySink::new();
        let e = columnar::jfr::export(bytes, &mut sink, &mut |_| {}).unwrap_err();
        assert!(matches!(e, columnar::Error::Jfr(_)), "{e}");
    }
}

/// Hand-made chunks for what real recordings rarely hold: an event type named like a fixed
/// table, one of no field, an array field, and a later chunk that declares a type anew with
/// a field retyped and one added.
#[test]
fn tables_follow_each_chunks_metadata() {
    use jfr::testing::{ClassSpec, FieldSpec, checkpoint_event, chunk, metadata_event, record};
    let field = |name, class_id, array| FieldSpec {
        name,
        class_id,
        array,
        ..FieldSpec::default()
    };
    let base = |id, name| ClassSpec {
        id,
        name,
        ..ClassSpec::default()
    };
    let event = |id, name, fields| ClassSpec {
        id,
        name,
        super_type: Some("jdk.jfr.Event"),
        fields,
        ..ClassSpec::default()
    };
    let first = metadata_event(&[
        base(20, "long"),
        base(21, "java.lang.String"),
        event(
            30,
            "stacks",
            vec![
                field("startTime", 20, false),
                field("value", 20, false),
                field("tags", 21, true),
            ],
        ),
        event(31, "empty.Event", vec![]),
    ]);
    let mut tick = vec![5, 42, 2];
    jfr::testing::string(&mut tick, "a");
    jfr::testing::string(&mut tick, "b");
    let mut data = chunk(
        &first,
        &[record(30, &tick), record(31, &[])],
        &checkpoint_event(0, &[]),
    );
    let second = metadata_event(&[
        base(20, "long"),
        base(21, "java.lang.String"),
        event(
            30,
            "stacks",
            vec![
                field("startTime", 20, false),
                field("value", 21, false),
                field("extra", 20, false),
            ],
        ),
    ]);
    let mut retyped = vec![6];
    jfr::testing::string(&mut retyped, "x");
    retyped.push(9);
    data.extend(chunk(
        &second,
        &[record(30, &retyped)],
        &checkpoint_event(0, &[]),
    ));
    let mut sink = MemorySink::new();
    let summary = columnar::jfr::export(&data, &mut sink, &mut |_| {}).unwrap();
    assert!(summary.is_complete(), "{:?}", summary.stopped);
    assert_eq!(summary.chunks, 2);
    assert_eq!(summary.tables["stacks"], "stacks_2");
    assert_eq!(summary.tables["empty.Event"], "empty_Event");
    assert_eq!(sink.rows("stacks"), 0);
    assert_eq!(sink.rows("empty_Event"), 1);
    assert_eq!(sink.rows("stacks_2"), 2);
    assert_eq!(
        column(&sink, "stacks_2", "value"),
        [Json::from(42), Json::Null]
    );
    assert_eq!(
        column(&sink, "stacks_2", "tags"),
        [Json::from("[a, b]"), Json::Null]
    );
    // The second chunk's `value` (a string now) and `extra` have no column to go to.
    assert_eq!(summary.mismatched_values, 2);
    let (schema, _) = &sink.tables["stacks_2"];
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["startTime", "value", "tags"]);
}
