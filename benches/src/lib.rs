//! Benchmarks for the jvmprof-formats crates.
//!
//! The benchmarks themselves live in `benches/benches/<crate>.rs` and run with
//! `cargo bench -p benches`; this library only holds helpers they share.

use std::path::PathBuf;

/// The repository root (the parent of this crate's folder), for benches that read fixtures.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// Writes `text` to standard output, quietly stopping at a closed pipe (`| head -1`), as
/// the tools' `--help`, `--version` and results do.
pub fn print_quiet(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// What a heap graph must satisfy whatever the dump, checked without an independent
/// reference (so at any size): the retained sizes of the super-root's children sum to the
/// reachable bytes, every immediate-dominator chain ends at the super-root, retained ≥ shallow
/// (and 0 outside the tree), and shortest paths are breadth-first: every prefix of a path is a
/// shortest path itself, and each step is a reference of the step before.
#[cfg(feature = "hprof")]
pub mod graph_check {
    use hprof::binary::graph::{Graph, NodeIndex};

    /// What the check saw.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Checked {
        /// Nodes in the dominator tree.
        pub in_tree: u64,
        /// The deepest immediate-dominator chain (the super-root's children are at depth 1).
        pub deepest: u32,
        /// Paths checked (every `path_every`-th node).
        pub paths: u64,
    }

    /// Checks `graph`; the first violation is the error.
    ///
    /// # Errors
    /// A message naming the node and the rule it breaks.
    pub fn check(graph: &Graph<'_, '_>, path_every: u32) -> Result<Checked, String> {
        let len = graph.index().len() as NodeIndex;
        // Depth in the dominator tree, filled by walking each chain up once.
        let mut depth: Vec<u32> = vec![u32::MAX; len as usize];
        let mut top_sum = 0u64;
        let mut in_tree = 0u64;
        let mut chain: Vec<NodeIndex> = Vec::new();
        for v in 0..len {
            if !graph.in_dominator_tree(v) {
                if graph.retained_size(v) != 0 {
                    return Err(format!("node {v} is outside the tree but retains bytes"));
                }
                continue;
            }
            in_tree += 1;
            if graph.retained_size(v) < graph.shallow_size(v) {
                return Err(format!("node {v} retains less than its shallow size"));
            }
            if graph.dominator(v) == Some(None) {
                top_sum += graph.retained_size(v);
            }
            chain.clear();
            let mut at = v;
            let below = loop {
                if let Some(&d) = depth.get(at as usize).filter(|&&d| d != u32::MAX) {
                    break d;
                }
                chain.push(at);
                if chain.len() > len as usize {
                    return Err(format!("a cycle of dominators above node {v}"));
                }
                match graph.dominator(at) {
                    Some(None) => break 0,
                    Some(Some(d)) => at = d,
                    None => return Err(format!("node {at}'s dominator chain leaves the tree")),
                }
            };
            for (k, &c) in chain.iter().rev().enumerate() {
                if let Some(slot) = depth.get_mut(c as usize) {
                    *slot = below + 1 + k as u32;
                }
            }
        }
        let reachable_bytes = graph.summary().reachable_bytes;
        if top_sum != reachable_bytes {
            return Err(format!(
                "the super-root's children retain {top_sum} bytes, the reachable bytes are {reachable_bytes}"
            ));
        }
        let deepest = depth
            .iter()
            .filter(|&&d| d != u32::MAX)
            .max()
            .copied()
            .unwrap_or(0);
        drop(depth);
        let mut paths = 0;
        for v in (0..len).step_by(path_every.max(1) as usize) {
            let Some(path) = graph.path(v) else {
                if graph.is_reachable(v) {
                    return Err(format!("node {v} is reachable but has no path"));
                }
                continue;
            };
            paths += 1;
            for (k, pair) in path.windows(2).enumerate() {
                if let [a, b] = *pair {
                    if !graph.references(a).iter().any(|&(t, _)| t == b) {
                        return Err(format!("step {k} of node {v}'s path is not a reference"));
                    }
                }
            }
            for k in [0, path.len() / 2, path.len().saturating_sub(1)] {
                let Some(&p) = path.get(k) else { continue };
                if graph.path(p).map(|q| q.len()) != Some(k + 1) {
                    return Err(format!(
                        "node {v}'s path is not shortest: its step {k} has a shorter path"
                    ));
                }
            }
        }
        Ok(Checked {
            in_tree,
            deepest,
            paths,
        })
    }
}
