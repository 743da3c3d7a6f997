//! `ParquetSink` used wrongly or failing underneath: errors, never panics or hangs, whether
//! columns are encoded on the table's thread or on threads of their own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use columnar::arrow_array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
use columnar::arrow_schema::{DataType, Field, Schema};
use columnar::{BatchSink, ParquetSink};

mod common;
use common::MemStore;

fn ids() -> Arc<Schema> {
    Arc::new(Schema::new(vec![Field::new("id", DataType::UInt64, false)]))
}

fn batch_of_ids() -> RecordBatch {
    let values: ArrayRef = Arc::new(UInt64Array::from(vec![1u64, 2, 3]));
    RecordBatch::try_new(ids(), vec![values]).unwrap()
}

#[test]
fn a_batch_of_another_schema_is_an_error() {
    for threads in [false, true] {
        let mut sink = ParquetSink::new(MemStore::default()).with_column_threads(threads);
        sink.begin("t", ids()).unwrap();
        sink.write("t", batch_of_ids()).unwrap();
        let names: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        let other = Arc::new(Schema::new(vec![Field::new("id", DataType::Utf8, false)]));
        let bad = RecordBatch::try_new(other, vec![names]).unwrap();
        // The writer thread may already have stopped when the second batch comes.
        let written = sink
            .write("t", bad)
            .and_then(|()| sink.finish().map(|_| ()));
        let e = written.unwrap_err().to_string();
        assert!(
            e.contains("differ from the table's schema"),
            "{threads}: {e}"
        );
    }
}

#[test]
fn a_store_that_cannot_create_a_part_is_an_error_naming_it() {
    for threads in [false, true] {
        let store = MemStore {
            fail_create: true,
            ..MemStore::default()
        };
        let mut sink = ParquetSink::new(store).with_column_threads(threads);
        sink.begin("t", ids()).unwrap();
        let written = sink
            .write("t", batch_of_ids())
            .and_then(|()| sink.finish().map(|_| ()));
        let e = written.unwrap_err().to_string();
        assert_eq!(e, "t/part-00000: no room for t 0", "{threads}");
    }
}

#[test]
fn parts_split_at_the_row_limit_with_either_encoder() {
    for threads in [false, true] {
        let mut sink = ParquetSink::new(MemStore::default())
            .with_rows_per_part(2)
            .with_column_threads(threads);
        sink.begin("t", ids()).unwrap();
        sink.begin("empty", ids()).unwrap();
        sink.write("t", batch_of_ids()).unwrap();
        sink.write("t", batch_of_ids()).unwrap();
        let (store, written) = sink.finish().unwrap();
        assert_eq!((written["t"].rows, written["t"].parts), (6, 3), "{threads}");
        assert_eq!((written["empty"].rows, written["empty"].parts), (0, 1));
        assert_eq!(store.committed.len(), 4);
    }
}

/// Tables written on the caller's thread give the same parts, byte for byte, as tables
/// written on threads of their own; errors come back the same way.
#[test]
fn tables_on_the_callers_thread_give_the_same_parts() {
    let run = |table_threads: bool| {
        let mut sink = ParquetSink::new(MemStore::default())
            .with_rows_per_part(4)
            .with_table_threads(table_threads)
            .with_column_threads(false);
        sink.begin("t", ids()).unwrap();
        sink.begin("empty", ids()).unwrap();
        for _ in 0..3 {
            sink.write("t", batch_of_ids()).unwrap();
        }
        let (store, written) = sink.finish().unwrap();
        assert_eq!((written["t"].rows, written["t"].parts), (9, 3));
        assert_eq!((written["empty"].rows, written["empty"].parts), (0, 1));
        store.committed
    };
    let threaded = run(true);
    assert_eq!(threaded.len(), 4);
    assert_eq!(run(false), threaded);

    let store = MemStore {
        fail_create: true,
        ..MemStore::default()
    };
    let mut sink = ParquetSink::new(store).with_table_threads(false);
    sink.begin("t", ids()).unwrap();
    let e = sink.write("t", batch_of_ids()).unwrap_err().to_string();
    assert_eq!(e, "t/part-00000: no room for t 0");
    let mut sink = ParquetSink::new(MemStore::default()).with_table_threads(false);
    sink.begin("t", ids()).unwrap();
    let names: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
    let other = Arc::new(Schema::new(vec![Field::new("id", DataType::Utf8, false)]));
    let bad = RecordBatch::try_new(other, vec![names]).unwrap();
    let e = sink.write("t", bad).unwrap_err().to_string();
    assert!(e.contains("differ from the table's schema"), "{e}");
}
