//! `jfr` events and constant pools over any bytes, inside a well-formed chunk: the input's
//! first half is the body of one event of a type with every kind of field (integers, floats,
//! strings, arrays, nested structs, constant-pool references), the second half the entries of
//! a checkpoint's pools. Decoding, checking, resolving and printing never panic, `validate`
//! and `values` agree, and every error's offset lies in the chunk.
#![no_main]

use jfr::testing::{self, ClassSpec, FieldSpec};
use libfuzzer_sys::fuzz_target;

fn field(name: &'static str, class_id: u64) -> FieldSpec<'static> {
    FieldSpec { name, class_id, ..FieldSpec::default() }
}

fuzz_target!(|data: &[u8]| {
    let (body, pool) = data.split_at(data.len() / 2);
    let classes = [
        ClassSpec { id: 1, name: "boolean", ..ClassSpec::default() },
        ClassSpec { id: 2, name: "int", ..ClassSpec::default() },
        ClassSpec { id: 3, name: "long", ..ClassSpec::default() },
        ClassSpec { id: 4, name: "double", ..ClassSpec::default() },
        ClassSpec { id: 5, name: "java.lang.String", ..ClassSpec::default() },
        ClassSpec { id: 6, name: "char", ..ClassSpec::default() },
        ClassSpec {
            id: 10,
            name: "demo.Node",
            fields: vec![
                field("name", 5),
                FieldSpec { name: "next", class_id: 10, constant_pool: true, ..FieldSpec::default() },
                FieldSpec { name: "xs", class_id: 2, array: true, ..FieldSpec::default() },
            ],
            ..ClassSpec::default()
        },
        ClassSpec { id: 11, name: "demo.Symbol", simple_type: true, fields: vec![field("s", 5)], ..ClassSpec::default() },
        ClassSpec {
            id: 30,
            name: "demo.Tick",
            super_type: Some("jdk.jfr.Event"),
            fields: vec![
                FieldSpec { annotations: vec![], ..field("startTime", 3) },
                field("flag", 1),
                field("c", 6),
                field("d", 4),
                field("text", 5),
                FieldSpec { name: "node", class_id: 10, constant_pool: true, ..FieldSpec::default() },
                FieldSpec { name: "nodes", class_id: 10, array: true, ..FieldSpec::default() },
                FieldSpec { name: "sym", class_id: 11, constant_pool: true, ..FieldSpec::default() },
                FieldSpec { name: "strs", class_id: 5, array: true, ..FieldSpec::default() },
            ],
            ..ClassSpec::default()
        },
    ];
    // The pool half: a count of entries for the Node pool, then raw entry bytes.
    let mut pools = Vec::new();
    testing::varint(&mut pools, 3);
    for class in [10u64, 11, 5] {
        testing::varint(&mut pools, class);
        testing::varint(&mut pools, 0);
    }
    let mut checkpoint_body = vec![0, 0, 0, 0];
    testing::varint(&mut checkpoint_body, 1);
    testing::varint(&mut checkpoint_body, 10);
    checkpoint_body.extend_from_slice(pool);
    let checkpoint = testing::record(1, &checkpoint_body);
    let data = testing::chunk(&testing::metadata_event(&classes), &[testing::record(30, body)], &checkpoint);
    let len = data.len() as u64;
    let chunk = match jfr::Chunks::new(&data).next() {
        Some(Ok(c)) => c,
        Some(Err(e)) => {
            assert!(e.offset() <= len, "{e}");
            return;
        }
        None => return,
    };
    for event in chunk.events() {
        let Ok(event) = event else { break };
        let values = event.values();
        assert_eq!(event.validate().is_ok(), values.is_ok());
        if let Err(e) = values {
            assert!(e.offset() <= len, "{e}");
        }
        if let Err(e) = event.resolved() {
            assert!(e.offset() <= len, "{e}");
        }
        let mut line = String::new();
        let _ = jfr::json::write_event(&event, &jfr::json::JsonOptions::default(), &mut line);
    }
});
