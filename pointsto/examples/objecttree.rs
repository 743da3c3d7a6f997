//! `cargo run -p pointsto --example objecttree FILE`: counts what an object tree report (or a
//! fragment of one) holds, as one JSON object.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use pointsto::object_tree::{Contents, ObjectEntry, ObjectTreeLine, Reader};

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: objecttree FILE");
        return std::process::ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("{path}: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match run(&bytes) {
        Ok(json) => {
            println!("{json}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{path}:{error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(bytes: &[u8]) -> pointsto::Result<serde_json::Value> {
    let (mut roots, mut values, mut id_refs, mut null_fields) = (0u64, 0u64, 0u64, 0u64);
    let (mut suppressed, mut no_fields, mut no_elements, mut max_depth) = (0u64, 0u64, 0u64, 0u64);
    for line in Reader::from_bytes(bytes)? {
        let ObjectTreeLine::Node(node) = line?.1 else {
            continue;
        };
        max_depth = max_depth.max(node.depth as u64);
        match node.entry {
            ObjectEntry::RootValue { .. } => roots += 1,
            ObjectEntry::RootIdRef { .. } => {
                roots += 1;
                id_refs += 1;
            }
            ObjectEntry::RootSuppressed { .. } => {
                roots += 1;
                suppressed += 1;
            }
            ObjectEntry::Value { contents, .. } => {
                values += 1;
                match contents {
                    Contents::NoFields => no_fields += 1,
                    Contents::NoElements => no_elements += 1,
                    Contents::Fields | Contents::Elements => {}
                }
            }
            ObjectEntry::ValueRef { .. } => id_refs += 1,
            ObjectEntry::ValueSuppressed { .. } | ObjectEntry::FieldSuppressed { .. } => {
                suppressed += 1;
            }
            ObjectEntry::FieldNull { .. } => null_fields += 1,
            ObjectEntry::FieldValue { .. } => {}
        }
    }
    Ok(serde_json::json!({
        "roots": roots,
        "values": values,
        "id_refs": id_refs,
        "null_fields": null_fields,
        "suppressed": suppressed,
        "no_fields": no_fields,
        "no_elements": no_elements,
        "max_depth": max_depth,
    }))
}
