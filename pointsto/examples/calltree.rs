//! `cargo run -p pointsto --example calltree FILE`: counts what a call tree TXT report (or a
//! fragment of one) holds, as one JSON object.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use pointsto::call_tree::txt::{CallTreeLine, IdTag, NodeKind, Reader};

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: calltree FILE");
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
    let (mut entry_points, mut direct, mut virtual_calls, mut interface, mut overrides) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut id_refs, mut max_depth) = (0u64, 0u64);
    let mut methods = std::collections::HashSet::new();
    for line in Reader::from_bytes(bytes)? {
        let CallTreeLine::Node(node) = line?.1 else {
            continue;
        };
        max_depth = max_depth.max(node.depth as u64);
        match node.kind {
            NodeKind::Entry { .. } => entry_points += 1,
            NodeKind::DirectCall { .. } => direct += 1,
            NodeKind::VirtualCall { .. } => virtual_calls += 1,
            NodeKind::InterfaceCall { .. } => interface += 1,
            NodeKind::OverriddenBy { .. } | NodeKind::ImplementedBy { .. } => overrides += 1,
        }
        match node.kind.id_tag() {
            Some(IdTag::Id(id)) => {
                methods.insert(id);
            }
            Some(IdTag::IdRef(_)) => id_refs += 1,
            None => {}
        }
    }
    Ok(serde_json::json!({
        "entry_points": entry_points,
        "methods": methods.len(),
        "direct_calls": direct,
        "virtual_calls": virtual_calls,
        "interface_calls": interface,
        "overrides": overrides,
        "id_refs": id_refs,
        "max_depth": max_depth,
    }))
}
