//! Memory of the owned models against the size of their input, on the real files of
//! `tests/data/`: peak heap (counting allocator, `testkit`) while building a model from the
//! bytes (already in memory) and keeping it. The binary models borrow from the dump; what is
//! counted is what they hold besides it. The family's budget is 8× the input.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::PathBuf;

use hprof::ascii::Report;
use hprof::binary::graph::{Graph, ObjectIndex, Options};
use hprof::binary::{Histogram, Index};
use testkit::{Budget, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// The family's budget: an owned model takes at most 8× its input at its peak.
const LIMIT: f64 = 8.0;

const ASCII: [&str; 4] = [
    "SimNet_java.hprof.txt",
    "handmade_monitor_oldcpu.hprof.txt",
    "jvm-in-action_java.hprof.txt",
    "optimization_java.hprof.txt",
];

const BINARY: [&str; 4] = [
    "ahat_test-dump-base_art-host-2025.hprof",
    "haha_sun_jdk5_64bit.hprof",
    "heapgen_jdk17.hprof",
    "hprof-slurp_hprof-32.hprof",
];

fn data(dir: &str, name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(dir)
            .join(name),
    )
    .unwrap()
}

#[test]
fn owned_models_fit_in_eight_times_their_input() {
    let mut budget = Budget::default();
    for name in ASCII {
        let bytes = data("ascii", name);
        let (report, peak) = peak_of(|| Report::parse(&bytes).unwrap());
        drop(report);
        budget.check("hprof ASCII `Report`", name, bytes.len(), peak);
    }
    for name in BINARY {
        let bytes = data("binary", name);
        let (index, peak) = peak_of(|| Index::build(&bytes).unwrap());
        drop(index);
        budget.check("hprof `Index`", name, bytes.len(), peak);
        let (histogram, peak) = peak_of(|| Histogram::parse(&bytes).unwrap());
        assert!(histogram.total_instances() > 0);
        drop(histogram);
        budget.check("hprof `Histogram`", name, bytes.len(), peak);
        let (objects, peak) = peak_of(|| ObjectIndex::build(&bytes).unwrap());
        drop(objects);
        budget.check("hprof graph `ObjectIndex`", name, bytes.len(), peak);
        let (graph, peak) = peak_of(|| Graph::build(&bytes, Options::default()).unwrap());
        assert!(graph.summary().objects > 0);
        drop(graph);
        budget.check(
            "hprof `Graph` (references, dominators, retained sizes)",
            name,
            bytes.len(),
            peak,
        );
    }
    budget.assert_within(LIMIT);
}
