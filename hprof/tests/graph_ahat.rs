//! Under [`Options::ahat`], our dominators and retained sizes equal Android ahat's (run through
//! `../shared/tools/ahat-peer`): on ahat's own top 300 of every dump in `tests/data/binary`
//! (committed as `tests/data/binary/ahat/*.jsonl`), and — when ahat-peer is built — on every
//! object of every dump.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashMap;
use std::process::Command;

use hprof::binary::Id;
use hprof::binary::graph::{Graph, Options};

const DUMPS: [&str; 4] = [
    "ahat_test-dump-base_art-host-2025",
    "haha_sun_jdk5_64bit",
    "heapgen_jdk17",
    "hprof-slurp_hprof-32",
];

fn dump(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/binary/{name}.hprof",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// (shallow, retained, dominator id, 0 = super-root) of every node in our dominator tree.
fn ours(graph: &Graph<'_, '_>) -> HashMap<Id, (u64, u64, Id)> {
    let ix = graph.index();
    (0..ix.len() as u32)
        .filter(|&v| graph.in_dominator_tree(v))
        .map(|v| {
            let r = graph.retained(v);
            (
                r.id,
                (r.shallow, r.retained, r.dominator.unwrap_or(Id::NULL)),
            )
        })
        .collect()
}

#[test]
fn ahat_top_300_and_summary_match_committed_ahat_output() {
    for name in DUMPS {
        let data = dump(name);
        let graph = Graph::build(&data, Options::ahat()).unwrap();
        let mine = ours(&graph);
        let text = std::fs::read_to_string(format!(
            "{}/tests/data/binary/ahat/{name}.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let mut lines = text.lines();
        let summary: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        let s = graph.summary();
        assert_eq!(s.objects, summary["objects"].as_u64().unwrap(), "{name}");
        assert_eq!(
            s.reachable,
            summary["reachable"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(s.roots, summary["roots"].as_u64().unwrap(), "{name}");
        assert_eq!(
            mine.len() as u64,
            summary["in_dominator_tree"].as_u64().unwrap(),
            "{name}"
        );
        let tree_bytes: u64 = mine.values().map(|m| m.0).sum();
        assert_eq!(
            tree_bytes,
            summary["shallow_in_dominator_tree"].as_u64().unwrap(),
            "{name}"
        );
        // Top N in the same order: retained descending, ties by id.
        let top = graph.top_retained(300);
        let mut n = 0;
        for (line, r) in lines.zip(&top) {
            let a: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = a["id"].as_u64().unwrap();
            assert_eq!(r.id, Id(id), "{name}: rank {n}");
            assert_eq!(r.shallow, a["shallow"].as_u64().unwrap(), "{name} {id}");
            assert_eq!(r.retained, a["retained"].as_u64().unwrap(), "{name} {id}");
            assert_eq!(
                r.dominator.unwrap_or(Id::NULL),
                Id(a["dominator"].as_u64().unwrap()),
                "{name} {id}"
            );
            n += 1;
        }
        assert_eq!(n, 300, "{name}");
    }
}

#[test]
#[ignore = "needs ahat-peer built: cp -r ../shared/tools/ahat-peer /tmp/ahat-peer && sh /tmp/ahat-peer/build.sh, then AHAT_PEER_JAR=/tmp/ahat-peer/build/ahat-peer.jar cargo test -p hprof-format --test graph_ahat -- --ignored"]
fn every_object_matches_ahat_run_now() {
    let jar = std::env::var("AHAT_PEER_JAR")
        .expect("set AHAT_PEER_JAR to the built ahat-peer.jar (see the ignore reason)");
    let dir = testkit::TempDir::new("graph-ahat");
    for name in DUMPS {
        let path = format!(
            "{}/tests/data/binary/{name}.hprof",
            env!("CARGO_MANIFEST_DIR")
        );
        let tsv = dir.join(format!("{name}.tsv"));
        let status = Command::new("java")
            .args(["-Xmx1g", "-jar", &jar, "--top", "1", "--quiet", "--all"])
            .arg(&tsv)
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "ahat-peer failed on {name}");
        let data = dump(name);
        let graph = Graph::build(&data, Options::ahat()).unwrap();
        let mine = ours(&graph);
        let text = std::fs::read_to_string(&tsv).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
        let (id_c, sh_c, re_c, dom_c) =
            (col("id"), col("shallow"), col("retained"), col("dominator"));
        let mut theirs = HashMap::new();
        for l in lines {
            let f: Vec<&str> = l.split('\t').collect();
            if f[dom_c].is_empty() || f[dom_c] == "null" {
                continue;
            }
            theirs.insert(
                Id(f[id_c].parse::<u64>().unwrap()),
                (
                    f[sh_c].parse::<u64>().unwrap(),
                    f[re_c].parse::<u64>().unwrap(),
                    Id(f[dom_c].parse::<u64>().unwrap()),
                ),
            );
        }
        assert_eq!(mine.len(), theirs.len(), "{name}: dominator tree sizes");
        for (id, t) in &theirs {
            assert_eq!(mine.get(id), Some(t), "{name}: object {id}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
