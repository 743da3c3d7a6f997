//! What the tests share: the fixtures of `tests/data/` and the class layouts they were written
//! with.

#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing)] // each test uses a part

use std::path::PathBuf;

use jvmpi_types::{ClassLayout, ClassLayouts, ObjectId, TypeCode};

/// The bytes of `tests/data/NAME`.
pub(crate) fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// The class layouts of a `heap-classes-*.json` file, read without the crate's `serde`
/// feature (so that the tests also run with `--no-default-features`).
pub(crate) fn layouts(json: &str) -> ClassLayouts {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut layouts = ClassLayouts::new();
    for class in value["classes"].as_array().unwrap() {
        let statics = class["statics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| TypeCode::from_signature(s.as_str().unwrap()).unwrap())
            .collect();
        layouts.insert(
            ObjectId(class["id"].as_u64().unwrap()),
            ClassLayout {
                interfaces: u32::try_from(class["interfaces"].as_u64().unwrap()).unwrap(),
                statics,
            },
        );
    }
    layouts
}
