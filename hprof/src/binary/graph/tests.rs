//! The dominator and retained-size code against their definitions, on small random graphs.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use proptest::prelude::*;

use super::NONE;
use super::dominators::{DominatorTree, Linking, Tuning, WeakEdges};
use super::edges::Edges;
use super::scratch::IN_MEMORY;

/// The weak flag of `Edges::from_rows`.
const WEAK: u32 = 1 << 31;
use super::retained::accumulate_with;

/// Rows reachable from `entry` when `removed` is taken out (and weak edges skipped).
fn reach(rows: &[Vec<u32>], entry: usize, removed: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; rows.len()];
    if removed == Some(entry) {
        return seen;
    }
    let mut stack = vec![entry];
    seen[entry] = true;
    while let Some(v) = stack.pop() {
        for &t in &rows[v] {
            if t & WEAK != 0 {
                continue;
            }
            let w = t as usize;
            if !seen[w] && Some(w) != removed {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    seen
}

/// `dom[x][y]`: x dominates y (brute force: removing x makes y unreachable).
fn dominance(rows: &[Vec<u32>], entry: usize) -> (Vec<bool>, Vec<Vec<bool>>) {
    let n = rows.len();
    let reached = reach(rows, entry, None);
    let mut dom = vec![vec![false; n]; n];
    for x in 0..n {
        if !reached[x] {
            continue;
        }
        let without = reach(rows, entry, Some(x));
        for y in 0..n {
            dom[x][y] = reached[y] && (x == y || !without[y]);
        }
    }
    (reached, dom)
}

fn graph() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (1usize..12).prop_flat_map(|n| {
        // Row n is the entry (the super-root); edges may be weak.
        proptest::collection::vec(
            proptest::collection::vec((0..n as u32, proptest::bool::weighted(0.15)), 0..4),
            n + 1,
        )
        .prop_map(|rows| {
            rows.into_iter()
                .map(|r| {
                    r.into_iter()
                        .map(|(t, w)| if w { t | WEAK } else { t })
                        .collect()
                })
                .collect()
        })
    })
}

proptest! {
    #[test]
    fn immediate_dominators_match_the_definition(rows in graph(), sizes in proptest::collection::vec(0u64..100, 13)) {
        let n = rows.len() - 1;
        let entry = n;
        let (reached, dom) = dominance(&rows, entry);
        // Both ways of linking the semidominator forest, with and without the early loads
        // and predecessor buckets of graphs past the caches (buckets of 1, 2, 4, 16 and 65,536
        // targets, dealt and sorted by 1 to 3 threads), give the same tree.
        let tuned = |linking, far, bucket_bits, threads| DominatorTree::compute_tuned(
            Edges::from_rows(&rows), entry as u32, WeakEdges::Skip, &IN_MEMORY,
            Tuning { linking: Some(linking), far: Some(far), bucket_bits: Some(bucket_bits), threads }).unwrap();
        let tree = tuned(Linking::Simple, false, 16, 1);
        let balanced = tuned(Linking::Balanced, true, 16, 1);
        prop_assert_eq!(&balanced.idom, &tree.idom);
        prop_assert_eq!(balanced.preorder(), tree.preorder());
        for (linking, far, bits, threads) in [(Linking::Simple, true, 1, 1), (Linking::Balanced, false, 16, 2),
            (Linking::Balanced, true, 0, 1), (Linking::Simple, true, 2, 1), (Linking::Simple, true, 4, 1),
            (Linking::Balanced, true, 0, 2), (Linking::Simple, true, 0, 3), (Linking::Simple, true, 1, 2),
            (Linking::Balanced, true, 2, 3), (Linking::Simple, true, 16, 2)] {
            let other = tuned(linking, far, bits, threads);
            prop_assert_eq!(&other.idom, &tree.idom, "{:?} far {} bucket bits {} threads {}", linking, far, bits, threads);
        }
        // With u64 row starts, the search records are the starts themselves, rewritten and
        // given back: the same tree and order.
        for threads in [1, 2, 3] {
            let wide = DominatorTree::compute_tuned(
                Edges::from_rows_wide(&rows), entry as u32, WeakEdges::Skip, &IN_MEMORY,
                Tuning { linking: Some(Linking::Balanced), far: Some(true), bucket_bits: Some(1), threads }).unwrap();
            prop_assert_eq!(&wide.idom, &tree.idom, "wide starts, threads {}", threads);
            prop_assert_eq!(wide.preorder(), tree.preorder());
        }
        prop_assert_eq!(tree.reached(), reached.iter().filter(|r| **r).count());
        for y in 0..=n {
            let got = tree.idom(y as u32);
            if !reached[y] || y == entry {
                prop_assert_eq!(got, None);
                continue;
            }
            // The immediate dominator: the strict dominator every other strict dominator dominates.
            let strict: Vec<usize> = (0..=n).filter(|&x| x != y && dom[x][y]).collect();
            let idom = strict.iter().copied().find(|&d| strict.iter().all(|&x| dom[x][d])).unwrap();
            prop_assert_eq!(got, Some(idom as u32), "row {}", y);
        }
        // Retained sizes: Σ shallow over the rows each dominates.
        let (retained, count) = accumulate_with(&tree, n, |v| sizes[v as usize], false);
        prop_assert_eq!(accumulate_with(&tree, n, |v| sizes[v as usize], true), (retained.clone(), count.clone()));
        for x in 0..n {
            if !reached[x] {
                prop_assert_eq!(retained[x], 0);
                continue;
            }
            let want: u64 = (0..n).filter(|&y| dom[x][y]).map(|y| sizes[y]).sum();
            let want_count = (0..n).filter(|&y| dom[x][y]).count() as u32;
            prop_assert_eq!(retained[x], want, "row {}", x);
            prop_assert_eq!(count[x], want_count, "row {}", x);
        }
        prop_assert!(tree.idom.iter().all(|&d| d == NONE || (d as usize) <= n));
    }

    #[test]
    fn reverse_rows_list_every_referrer(rows in graph()) {
        let edges = Edges::from_rows(&rows);
        let rev = edges.reverse();
        for (v, r) in rows.iter().enumerate() {
            for &t in r {
                let w = t & !WEAK;
                let want = r.iter().filter(|&&x| x & !WEAK == w).count();
                let got = rev.targets(w).filter(|&p| p as usize == v).count();
                prop_assert_eq!(got, want);
            }
        }
    }
}

#[test]
fn search_records_hold_each_rows_start_and_first_target_and_give_the_starts_back() {
    let rows: Vec<Vec<u32>> = vec![vec![3, 1], vec![], vec![0], vec![2, 2, 1]];
    let none = u64::from(NONE) << 32;
    for wide in [false, true] {
        for threads in [1, 2, 3, 8] {
            let mut edges = if wide {
                Edges::from_rows_wide(&rows)
            } else {
                Edges::from_rows(&rows)
            };
            let records = edges.search_records(&IN_MEMORY, threads).unwrap().unwrap();
            assert_eq!(
                edges.records(&records),
                &[3 << 32, 2 | none, 2, 3 | 2 << 32, 6 | none],
                "wide {wide} threads {threads}"
            );
            edges.restore_starts(records, threads);
            for (v, row) in rows.iter().enumerate() {
                assert_eq!(
                    edges.row(v as u32),
                    row.as_slice(),
                    "wide {wide} threads {threads}"
                );
            }
        }
    }
}

#[test]
fn targets_past_the_last_row_are_not_followed() {
    // Rows 0..4, the entry 4; targets 5 and 9 name no row (within the reached-bits' last word).
    let rows: Vec<Vec<u32>> = vec![vec![1, 9], vec![5], vec![], vec![2], vec![0, 6]];
    for far in [false, true] {
        let tree = DominatorTree::compute_tuned(
            Edges::from_rows(&rows),
            4,
            WeakEdges::Follow,
            &IN_MEMORY,
            Tuning {
                far: Some(far),
                bucket_bits: Some(1),
                ..Tuning::default()
            },
        )
        .unwrap();
        assert_eq!(tree.reached(), 3, "far {far}");
        assert_eq!(tree.preorder(), &[4, 0, 1]);
        assert_eq!(
            (tree.idom(0), tree.idom(1), tree.idom(2)),
            (Some(4), Some(0), None)
        );
    }
}

#[test]
fn a_row_the_entry_refers_to_is_dominated_by_the_entry_whatever_else_refers_to_it() {
    // The entry 5 refers to 0 and 3 (3 twice, once weakly); 0 → 1 → 2 → 3 → 4, and 1 → 4.
    // The search reaches 3 from 2 first, deep below 0, so its DFS parent is 2, and its list
    // keeps only the entry's reference (the search's own edge from 2 is left out): its
    // semidominator and immediate dominator are the entry, and so is 4's (through 1 or 3).
    // Skipping weak edges changes nothing, the entry's other reference to 3 being strong.
    let weak = 3 | WEAK;
    let rows: Vec<Vec<u32>> = vec![
        vec![1],
        vec![2, 4],
        vec![3],
        vec![4],
        vec![],
        vec![0, weak, 3],
    ];
    for weak_edges in [WeakEdges::Follow, WeakEdges::Skip] {
        for (far, threads) in [(false, 1), (true, 1), (true, 2)] {
            let tree = DominatorTree::compute_tuned(
                Edges::from_rows(&rows),
                5,
                weak_edges,
                &IN_MEMORY,
                Tuning {
                    far: Some(far),
                    bucket_bits: Some(1),
                    threads,
                    ..Tuning::default()
                },
            )
            .unwrap();
            assert_eq!(tree.preorder(), &[5, 0, 1, 2, 3, 4], "far {far}");
            let idoms: Vec<Option<u32>> = (0..5).map(|v| tree.idom(v)).collect();
            assert_eq!(
                idoms,
                [Some(5), Some(0), Some(1), Some(5), Some(5)],
                "{weak_edges:?} far {far} threads {threads}"
            );
        }
    }
}

#[test]
fn deep_chain_needs_no_recursion() {
    // 200 000 rows in one chain: recursion would overflow the test thread's stack.
    let n = 200_000u32;
    let mut rows: Vec<Vec<u32>> = (0..n)
        .map(|v| if v + 1 < n { vec![v + 1] } else { vec![] })
        .collect();
    rows.push(vec![0]);
    let tree =
        DominatorTree::compute(Edges::from_rows(&rows), n, WeakEdges::Follow, &IN_MEMORY).unwrap();
    assert_eq!(tree.reached(), n as usize + 1);
    assert_eq!(tree.idom(n - 1), Some(n - 2));
    let (retained, _) = accumulate_with(&tree, n as usize, |_| 1, false);
    assert_eq!(retained[0], u64::from(n));
    let balanced = DominatorTree::compute_tuned(
        Edges::from_rows(&rows),
        n,
        WeakEdges::Follow,
        &IN_MEMORY,
        Tuning {
            linking: Some(Linking::Balanced),
            far: Some(true),
            bucket_bits: Some(3),
            threads: 2,
        },
    )
    .unwrap();
    assert_eq!(balanced.idom, tree.idom);
    assert_eq!(
        accumulate_with(&balanced, n as usize, |_| 1, true).0,
        retained
    );
}

#[test]
fn past_the_node_limit_is_an_error_naming_count_and_limit() {
    use super::super::write::HeapBuilder;
    use super::super::{Error, Id, IdSize};
    use super::objects::{MAX_NODES, ObjectIndex};
    let mut heap = HeapBuilder::new(IdSize::Eight);
    heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
        .instance(Id(0x100), Id(0x10), &[])
        .instance(Id(0x101), Id(0x10), &[]);
    let data = heap.build().unwrap();
    // Three nodes: the class and two instances.
    assert_eq!(
        ObjectIndex::build_limited(&data, &IN_MEMORY, 3, 1)
            .unwrap()
            .len(),
        3
    );
    let e = ObjectIndex::build_limited(&data, &IN_MEMORY, 2, 1).unwrap_err();
    assert_eq!(e, Error::TooManyObjects { count: 3, limit: 2 });
    assert_eq!(e.to_string(), "3 objects: the heap graph holds at most 2");
    // The real limit leaves room for the super-root's row and "none" in `u32`s.
    assert_eq!(MAX_NODES as u64, (1u64 << 32) - 2);
}

#[test]
fn the_reference_bound_follows_the_bytes_not_the_longest_instance() {
    use super::super::write::HeapBuilder;
    use super::super::{BasicType, Id, IdSize, Value};
    use super::objects::ObjectIndex;
    // One instance with 100 object fields, then 1000 instances of the same class with no
    // field bytes: a bound by the class layout alone would reserve 1001 × 101 references.
    let fields: Vec<(String, BasicType)> = (0..100)
        .map(|k| (format!("f{k}"), BasicType::Object))
        .collect();
    let fields: Vec<(&str, BasicType)> = fields.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let mut heap = HeapBuilder::new(IdSize::Eight);
    heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
        .class(Id(0x20), "Wide", Id(0x10), &fields)
        .instance(Id(0x100), Id(0x20), &[Value::Object(Id::NULL); 100]);
    for k in 0..1000 {
        heap.instance(Id(0x1000 + k), Id(0x20), &[]);
    }
    let data = heap.build().unwrap();
    let ix = ObjectIndex::build(&data).unwrap();
    assert!(ix.edge_bound < 1200, "{}", ix.edge_bound);
    let graph = super::Graph::build(&data, super::Options::default()).unwrap();
    assert_eq!(graph.summary().objects, 1003);
}

#[test]
fn every_name_written_scattered_is_one_the_graph_asks_for() {
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    use super::super::write::HeapBuilder;
    use super::super::{GcRoot, Id, IdSize, Value};
    use super::scratch::{Array, Scratch, WRITTEN_SCATTERED};
    use super::suspects::SuspectOptions;
    use super::{Graph, Options};

    /// Heap memory that remembers what each array was asked for as.
    struct Names(Mutex<BTreeSet<&'static str>>);
    impl Scratch for Names {
        fn u32s(&self, len: usize, what: &'static str) -> crate::binary::Result<Array<u32>> {
            self.0.lock().unwrap().insert(what);
            IN_MEMORY.u32s(len, what)
        }
        fn u64s(&self, len: usize, what: &'static str) -> crate::binary::Result<Array<u64>> {
            self.0.lock().unwrap().insert(what);
            IN_MEMORY.u64s(len, what)
        }
    }
    let names = Names(Mutex::new(BTreeSet::new()));
    // A graph past the caches (forced: predecessor buckets), then a whole graph with paths,
    // leak suspects and the reverse index.
    let rows: Vec<Vec<u32>> = vec![vec![1, 2], vec![2], vec![0], vec![0]];
    DominatorTree::compute_tuned(
        Edges::from_rows(&rows),
        3,
        WeakEdges::Follow,
        &names,
        Tuning {
            far: Some(true),
            ..Tuning::default()
        },
    )
    .unwrap();
    DominatorTree::compute(Edges::from_rows(&rows), 3, WeakEdges::Follow, &names).unwrap();
    let mut heap = HeapBuilder::new(IdSize::Eight);
    heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
        .class(
            Id(0x20),
            "Node",
            Id(0x10),
            &[("next", super::super::BasicType::Object)],
        )
        .instance(Id(0x100), Id(0x20), &[Value::Object(Id(0x101))])
        .instance(Id(0x101), Id(0x20), &[Value::Object(Id::NULL)])
        .root(GcRoot::StickyClass {
            object_id: Id(0x20),
        })
        .root(GcRoot::Unknown {
            object_id: Id(0x100),
        });
    let data = heap.build().unwrap();
    let options = Options {
        scratch: &names,
        ..Options::default()
    };
    let graph = Graph::build(&data, options).unwrap();
    let node = graph.node(Id(0x101)).unwrap();
    assert!(graph.path(node).is_some());
    graph.leak_suspects(SuspectOptions {
        threshold: 0.0,
        ..SuspectOptions::default()
    });
    graph.reverse_index();
    let asked = names.0.into_inner().unwrap();
    for name in WRITTEN_SCATTERED {
        assert!(
            asked.contains(name),
            "{name:?} is never asked for: {asked:?}"
        );
    }
}
