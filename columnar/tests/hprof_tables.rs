//! The HPROF tables against the decoder's own answers, on real dumps: object counts by kind,
//! the class histogram, every reference of sampled instances, roots, strings, frames; Parquet
//! parts read back with the `parquet` crate's reader; a dump cut in half.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test helpers outside #[test] fns

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
mod common;

use columnar::{MemorySink, ParquetSink};
use common::MemStore;
use hprof::binary::heap_dump::SubRecord;
use hprof::binary::histogram::Histogram;
use hprof::binary::index::Index;
use hprof::binary::records::{Record, Records};
use hprof::binary::types::{Id, Value};

const DUMPS: [&str; 4] = [
    "heapgen_jdk17.hprof",
    "haha_sun_jdk5_64bit.hprof",
    "hprof-slurp_hprof-32.hprof",
    "ahat_test-dump-base_art-host-2025.hprof",
];

fn dump(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../hprof/tests/data/binary")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn export(data: &[u8]) -> (MemorySink, columnar::hprof::Summary) {
    let mut sink = MemorySink::new();
    let summary = columnar::hprof::export(data, &mut sink, &mut |_| {}).unwrap();
    (sink, summary)
}

fn batches<'s>(sink: &'s MemorySink, table: &str) -> &'s [RecordBatch] {
    &sink.tables.get(table).unwrap().1
}

fn u64s(b: &RecordBatch, col: &str) -> Vec<Option<u64>> {
    let a = b.column_by_name(col).unwrap().as_primitive::<UInt64Type>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i)))
        .collect()
}

fn strs(b: &RecordBatch, col: &str) -> Vec<Option<String>> {
    strings_of(b.column_by_name(col).unwrap())
}

/// A string column's values, from a plain or a dictionary-encoded string array.
fn strings_of(a: &dyn Array) -> Vec<Option<String>> {
    if let Some(d) = a.as_any_dictionary_opt() {
        let values = strings_of(d.values().as_ref());
        if values.is_empty() {
            assert_eq!(a.null_count(), a.len(), "keys into an empty dictionary");
            return vec![None; a.len()];
        }
        let keys = d.normalized_keys();
        return (0..a.len())
            .map(|i| a.is_valid(i).then(|| values[keys[i]].clone().unwrap()))
            .collect();
    }
    let a = a.as_string::<i32>();
    (0..a.len())
        .map(|i| a.is_valid(i).then(|| a.value(i).to_owned()))
        .collect()
}

/// The histogram the SQL in the crate docs computes, from the exported tables.
fn histogram_of_tables(sink: &MemorySink) -> BTreeMap<String, (u64, u64)> {
    let mut names = HashMap::new();
    for b in batches(sink, "classes") {
        for (id, name) in u64s(b, "class_id").into_iter().zip(strs(b, "name")) {
            names.insert(id.unwrap(), name.unwrap());
        }
    }
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for b in batches(sink, "objects") {
        let sizes = b
            .column_by_name("shallow_size")
            .unwrap()
            .as_primitive::<UInt64Type>();
        let rows = u64s(b, "class_id")
            .into_iter()
            .zip(strs(b, "kind"))
            .zip(strs(b, "element_type"));
        for (i, ((class_id, kind), elem)) in rows.enumerate() {
            if kind.as_deref() == Some("class") {
                continue;
            }
            let name = match class_id {
                Some(id) => names
                    .get(&id)
                    .cloned()
                    .expect("every class id is in classes"),
                None => format!("{}[]", elem.unwrap()),
            };
            let e = out.entry(name).or_default();
            e.0 += 1;
            e.1 += sizes.value(i);
        }
    }
    out
}

#[test]
fn histogram_of_the_tables_is_the_decoders() {
    for name in DUMPS {
        let data = dump(name);
        let (sink, summary) = export(&data);
        assert!(summary.is_complete(), "{name}: {:?}", summary.stopped);
        let want: BTreeMap<String, (u64, u64)> = Histogram::parse(&data)
            .unwrap()
            .rows()
            .into_iter()
            .map(|r| (r.class_name, (r.instances, r.shallow_bytes)))
            .collect();
        assert!(want.len() > 10, "{name}");
        assert_eq!(histogram_of_tables(&sink), want, "{name}");
    }
}

#[test]
fn row_counts_match_the_records() {
    for name in DUMPS {
        let data = dump(name);
        let (sink, summary) = export(&data);
        let (mut objects, mut roots, mut strings, mut frames, mut trace_frames) = (0, 0, 0, 0, 0);
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for r in Records::parse(&data).unwrap().1 {
            match r.unwrap().1 {
                Record::Utf8(_) => strings += 1,
                Record::Frame(_) => frames += 1,
                Record::Trace(t) => trace_frames += t.frame_ids.len(),
                Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                    for s in d.sub_records() {
                        let kind = match s.unwrap() {
                            SubRecord::InstanceDump(_) => "instance",
                            SubRecord::ObjectArrayDump(_) => "object_array",
                            SubRecord::PrimitiveArrayDump(_)
                            | SubRecord::PrimitiveArrayNoData(_) => "primitive_array",
                            SubRecord::ClassDump(_) => "class",
                            SubRecord::Root(_) => {
                                roots += 1;
                                continue;
                            }
                            _ => continue,
                        };
                        objects += 1;
                        *kinds.entry(kind).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        assert_eq!(sink.rows("objects"), objects, "{name}");
        assert_eq!(sink.rows("roots"), roots, "{name}");
        assert_eq!(sink.rows("strings"), strings, "{name}");
        assert_eq!(sink.rows("stack_frames"), frames, "{name}");
        assert_eq!(sink.rows("stack_traces"), trace_frames, "{name}");
        let mut got: BTreeMap<String, usize> = BTreeMap::new();
        for b in batches(&sink, "objects") {
            for k in strs(b, "kind") {
                *got.entry(k.unwrap()).or_default() += 1;
            }
        }
        let want: BTreeMap<String, usize> =
            kinds.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        assert_eq!(got, want, "{name}");
        for (table, rows) in &summary.rows {
            assert_eq!(*rows as usize, sink.rows(table), "{name} {table}");
        }
    }
}

/// `objects`' per-row columns against the decoder: each object's class id, array length,
/// element type and heap (Android's `HEAP_DUMP_INFO` name, null elsewhere), in file order;
/// `references.array_index` is set exactly where `field` is null.
#[test]
fn object_columns_and_nulls_match_the_sub_records() {
    for name in DUMPS {
        let data = dump(name);
        let (sink, _) = export(&data);
        let mut utf8: HashMap<Id, String> = HashMap::new();
        let mut class_class = None;
        let mut load_names = Vec::new();
        type Row = (Option<u64>, Option<u64>, Option<String>, Option<String>);
        let mut want: Vec<Row> = Vec::new();
        let mut heap: Option<String> = None;
        for r in Records::parse(&data).unwrap().1 {
            match r.unwrap().1 {
                Record::Utf8(u) => {
                    utf8.insert(u.id, String::from_utf8_lossy(u.bytes).into_owned());
                }
                Record::LoadClass(l) => load_names.push((l.class_id, l.name_id)),
                Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                    if class_class.is_none() {
                        class_class = load_names
                            .iter()
                            .filter(|(_, n)| {
                                utf8.get(n).map(String::as_str) == Some("java/lang/Class")
                            })
                            .map(|&(id, _)| id.get())
                            .min();
                    }
                    for s in d.sub_records() {
                        let row = match s.unwrap() {
                            SubRecord::InstanceDump(i) => (Some(i.class_id.get()), None, None),
                            SubRecord::ObjectArrayDump(a) => (
                                Some(a.array_class_id.get()),
                                Some(a.elements.len() as u64),
                                None,
                            ),
                            SubRecord::PrimitiveArrayDump(a) => (
                                None,
                                Some(a.len() as u64),
                                Some(a.element_type.java_name().to_owned()),
                            ),
                            SubRecord::PrimitiveArrayNoData(a) => (
                                None,
                                Some(u64::from(a.length)),
                                Some(a.element_type.java_name().to_owned()),
                            ),
                            SubRecord::ClassDump(_) => (class_class, None, None),
                            SubRecord::HeapDumpInfo(info) => {
                                heap = utf8.get(&info.name_id).cloned();
                                continue;
                            }
                            _ => continue,
                        };
                        want.push((row.0, row.1, row.2, heap.clone()));
                    }
                }
                _ => {}
            }
        }
        let mut got: Vec<Row> = Vec::new();
        for b in batches(&sink, "objects") {
            let lengths = b
                .column_by_name("array_length")
                .unwrap()
                .as_primitive::<UInt32Type>();
            let lengths = (0..lengths.len())
                .map(|i| lengths.is_valid(i).then(|| u64::from(lengths.value(i))));
            let rows = u64s(b, "class_id")
                .into_iter()
                .zip(lengths)
                .zip(strs(b, "element_type"))
                .zip(strs(b, "heap"));
            got.extend(rows.map(|(((c, l), e), h)| (c, l, e, h)));
        }
        assert_eq!(got.len(), want.len(), "{name}");
        assert!(
            got == want,
            "{name}: first difference at row {:?}",
            got.iter().zip(&want).position(|(g, w)| g != w)
        );
        if name.starts_with("ahat_") {
            assert!(
                got.iter().any(|r| r.3.is_some()),
                "{name}: Android heap names"
            );
        }
        for b in batches(&sink, "references") {
            let field = strs(b, "field");
            let index = b.column_by_name("array_index").unwrap();
            for (i, f) in field.iter().enumerate() {
                assert_eq!(f.is_none(), index.is_valid(i), "{name} row {i}");
            }
        }
    }
}

#[test]
fn references_of_sampled_instances_are_their_object_fields() {
    let data = dump("heapgen_jdk17.hprof");
    let (sink, _) = export(&data);
    let index = Index::build(&data).unwrap();
    let mut refs: HashMap<u64, Vec<(u64, String)>> = HashMap::new();
    for b in batches(&sink, "references") {
        let rows = u64s(b, "from_id")
            .into_iter()
            .zip(u64s(b, "to_id"))
            .zip(strs(b, "field"));
        for ((from, to), field) in rows {
            refs.entry(from.unwrap())
                .or_default()
                .push((to.unwrap(), field.unwrap_or_default()));
        }
    }
    let mut checked = 0;
    for (i, s) in index.sub_records().enumerate() {
        let SubRecord::InstanceDump(inst) = s.unwrap() else {
            continue;
        };
        if i % 29 != 0 {
            continue;
        }
        let want: Vec<(u64, String)> = index
            .instance_fields(&inst)
            .unwrap()
            .into_iter()
            .filter_map(|(name, v)| match v {
                Value::Object(to) if !to.is_null() => {
                    Some((to.get(), String::from_utf8_lossy(name).into_owned()))
                }
                _ => None,
            })
            .collect();
        let got = refs.get(&inst.object_id.get()).cloned().unwrap_or_default();
        assert_eq!(got, want, "instance 0x{:x}", inst.object_id);
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
    // Object arrays: every non-null element, by index.
    let arrays = index.sub_records().filter_map(|s| match s.unwrap() {
        SubRecord::ObjectArrayDump(a) => Some(a),
        _ => None,
    });
    let mut by_index: HashMap<u64, Vec<(u64, u32)>> = HashMap::new();
    for b in batches(&sink, "references") {
        let idx = b
            .column_by_name("array_index")
            .unwrap()
            .as_primitive::<UInt32Type>();
        for (i, (from, to)) in u64s(b, "from_id")
            .into_iter()
            .zip(u64s(b, "to_id"))
            .enumerate()
        {
            if idx.is_valid(i) {
                by_index
                    .entry(from.unwrap())
                    .or_default()
                    .push((to.unwrap(), idx.value(i)));
            }
        }
    }
    for a in arrays.step_by(13).take(200) {
        let want: Vec<(u64, u32)> = a
            .elements
            .iter()
            .enumerate()
            .filter(|&(_, id)| !id.is_null())
            .map(|(i, id)| (id.get(), i as u32))
            .collect();
        assert_eq!(
            by_index.get(&a.array_id.get()).cloned().unwrap_or_default(),
            want
        );
    }
}

#[test]
fn parquet_parts_read_back_with_the_parquet_crate() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let data = dump("heapgen_jdk17.hprof");
    let (mem, _) = export(&data);
    let mut parts = Vec::new();
    for column_threads in [false, true] {
        let mut sink = ParquetSink::new(MemStore::default())
            .with_rows_per_part(10_000)
            .with_column_threads(column_threads);
        columnar::hprof::export(&data, &mut sink, &mut |_| {}).unwrap();
        let (store, written) = sink.finish().unwrap();
        for (table, w) in &written {
            assert_eq!(w.rows as usize, mem.rows(table), "{table}");
            assert_eq!(w.parts as u64, w.rows.div_ceil(10_000).max(1), "{table}");
            let mut rows = 0;
            let mut back = Vec::new();
            for part in 0..w.parts {
                let bytes = bytes::Bytes::from(store.committed[&(table.to_string(), part)].clone());
                let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
                    .unwrap()
                    .build()
                    .unwrap();
                for b in reader {
                    let b = b.unwrap();
                    rows += b.num_rows();
                    back.push(b);
                }
            }
            assert_eq!(rows, mem.rows(table), "{table}");
            let want = arrow_select_concat(batches(&mem, table));
            let got = arrow_select_concat(&back);
            assert_eq!(got, want, "{table}");
        }
        assert!(written["objects"].parts > 1);
        parts.push(store.committed);
    }
    // A thread per column writes the very same files.
    assert!(parts[0] == parts[1]);
}

/// Every column of `batches` as one vector of debug strings per column (an order-preserving,
/// type-agnostic comparison).
fn arrow_select_concat(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let Some(first) = batches.first() else {
        return Vec::new();
    };
    (0..first.num_columns())
        .map(|c| {
            batches
                .iter()
                .flat_map(|b| {
                    let col = b.column(c).clone();
                    if col.as_any_dictionary_opt().is_some() {
                        let values = strings_of(col.as_ref());
                        return values
                            .into_iter()
                            .map(|v| format!("{v:?}"))
                            .collect::<Vec<_>>();
                    }
                    (0..col.len())
                        .map(move |i| {
                            if col.is_null(i) {
                                "null".to_owned()
                            } else {
                                format!("{:?}", col.slice(i, 1))
                            }
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_dump_cut_mid_segment_gives_what_was_read_and_says_where_it_stopped() {
    let data = dump("heapgen_jdk17.hprof");
    let (full, _) = export(&data);
    // Three quarters: inside the first HEAP_DUMP_SEGMENT (the first 1.2 MB are strings).
    let cut = &data[..data.len() / 4 * 3];
    let (sink, summary) = export(cut);
    let stopped = summary
        .stopped
        .as_ref()
        .expect("a cut-off dump is reported");
    assert!(
        stopped.offset() > 0 && stopped.offset() <= cut.len() as u64,
        "{stopped}"
    );
    assert!(!summary.is_complete());
    let objects = sink.rows("objects");
    assert!(objects > 0 && objects < full.rows("objects"), "{objects}");
    // The last 9 bytes are HEAP DUMP END: without them the dump is reported incomplete too.
    let (_, summary) = export(&data[..data.len() - 9]);
    assert!(summary.stopped.is_none());
    assert!(summary.missing_heap_dump_end && !summary.is_complete());
}

#[test]
fn not_a_heap_dump_is_an_error() {
    let mut sink = MemorySink::new();
    for bad in [&b""[..], b"JAVA PROFILE 9.9\0", b"{\"version\":\"1.0.0\"}"] {
        assert!(columnar::hprof::export(bad, &mut sink, &mut |_| {}).is_err());
    }
}

/// The rows of a table, each as its columns' debug strings, sorted (an order-free comparison).
fn sorted_rows(sink: &MemorySink, table: &str) -> Vec<Vec<String>> {
    let columns = arrow_select_concat(batches(sink, table));
    let n = columns.first().map_or(0, Vec::len);
    let mut rows: Vec<Vec<String>> = (0..n)
        .map(|i| columns.iter().map(|c| c[i].clone()).collect())
        .collect();
    rows.sort();
    rows
}

/// `data` re-encoded with every `CLASS_DUMP` moved after all other sub-records: instances come
/// before the layouts of their classes.
fn with_class_dumps_last(data: &[u8]) -> Vec<u8> {
    use hprof::binary::write::Writer;
    let (header, records) = Records::parse(data).unwrap();
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    let mut class_dumps = Vec::new();
    for r in records {
        let (rh, record) = r.unwrap();
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                for s in d.sub_records() {
                    let s = s.unwrap();
                    if matches!(s, SubRecord::ClassDump(_)) {
                        class_dumps.push(s);
                    } else {
                        w.write_sub_record(&s).unwrap();
                    }
                }
            }
            Record::HeapDumpEnd => {
                for s in class_dumps.drain(..) {
                    w.write_sub_record(&s).unwrap();
                }
                w.end_heap_dump().unwrap();
            }
            other => w.write_record(rh.time, &other).unwrap(),
        }
    }
    w.finish().unwrap()
}

#[test]
fn class_dumps_after_their_instances_give_the_same_tables() {
    let data = dump("heapgen_jdk17.hprof");
    let late = with_class_dumps_last(&data);
    assert_ne!(late, data);
    let (want, want_summary) = export(&data);
    let mut passes = 1;
    let mut sink = MemorySink::new();
    let got_summary = columnar::hprof::export(&late, &mut sink, &mut |at| {
        if at > late.len() as u64 {
            passes = 2;
        }
    })
    .unwrap();
    assert_eq!(
        passes, 2,
        "a second pass reads the early instances' references"
    );
    assert!(got_summary.is_complete());
    assert_eq!(want_summary.instances_without_layout, 0);
    assert_eq!(got_summary.instances_without_layout, 0);
    for table in ["classes", "references", "roots", "strings"] {
        assert_eq!(
            sorted_rows(&sink, table),
            sorted_rows(&want, table),
            "{table}"
        );
    }
    // Objects are the same but for their offsets in the file.
    let objects = |s: &MemorySink| -> Vec<Vec<String>> {
        let mut rows = sorted_rows(s, "objects");
        let offset = objects_schema_index("offset");
        for r in &mut rows {
            r.remove(offset);
        }
        rows.sort();
        rows
    };
    assert_eq!(objects(&sink), objects(&want));
}

fn objects_schema_index(column: &str) -> usize {
    columnar::hprof::objects_schema().index_of(column).unwrap()
}

#[test]
fn classes_objects_name_but_the_dump_never_describes_are_listed() {
    // Made up (no writer leaves these out): an instance of class 0x51 and an object array
    // of class 0x52, neither with a LOAD CLASS or a CLASS DUMP.
    let element = 0x100u64.to_be_bytes();
    let data = common::dump(
        &[],
        &[
            common::instance(0x100, 0x51, &[]),
            common::object_array(0x200, 0x52, &element),
        ],
    );
    let (sink, summary) = export(&data);
    assert!(summary.is_complete(), "{:?}", summary.stopped);
    assert_eq!(summary.instances_without_layout, 1);
    let b = &batches(&sink, "classes")[0];
    let listed: Vec<(Option<u64>, Option<String>)> = u64s(b, "class_id")
        .into_iter()
        .zip(strs(b, "name"))
        .collect();
    assert_eq!(
        listed,
        [
            (Some(0x51), Some("<unknown class 0x51>".to_owned())),
            (Some(0x52), Some("<unknown class 0x52>".to_owned())),
        ]
    );
    assert_eq!(sink.rows("references"), 1, "the array's element");
}
