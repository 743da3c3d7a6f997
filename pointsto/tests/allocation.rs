//! Allocation is bounded by the input: a few bytes of report never make the parser reserve
//! hundreds of megabytes. A counting allocator (`testkit`) records the largest single allocation
//! and the peak of bytes in use.

use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;
use pointsto::diff::CallTreeDiff;
use testkit::{largest_of, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// Five invoke rows whose ids each just fit the dense id index's growth rule once grew the
/// index to 2^26 slots (256 MiB) from 266 bytes of CSV.
#[test]
fn sparse_csv_invoke_ids_do_not_blow_up_the_id_index() {
    let methods = include_bytes!("data/regressions/sparse_invoke_ids_methods.csv");
    let invokes = include_bytes!("data/regressions/sparse_invoke_ids_invokes.csv");
    let targets = include_bytes!("data/regressions/sparse_invoke_ids_targets.csv");
    let (graph, largest) = largest_of(|| {
        CallGraph::read_csv(|file| match file {
            CsvFile::Methods => Some(&methods[..]),
            CsvFile::Invokes => Some(&invokes[..]),
            CsvFile::Targets => Some(&targets[..]),
            _ => None,
        })
        .unwrap()
    });
    assert_eq!(graph.invokes.len(), 5);
    assert_eq!(graph.invokes[4].id, Some(67_108_863));
    assert_eq!(graph.callee_count(&graph.invokes[4]), 1);
    assert!(
        largest < 4 << 20,
        "largest allocation {largest} bytes for a 266-byte report"
    );
}

/// Regression: the diff copied both method strings into every edge, so one method with
/// a 100 KB name calling 1,000 others (150 KB of CSV) made a diff of 1,000 edges holding 100 MB.
/// Each method string is now kept once and shared by its edges.
#[test]
fn diff_edges_share_method_strings() {
    let n = 1_000;
    let long = "x".repeat(100_000);
    let mut methods = String::from("Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n");
    methods.push_str(&format!("0,{long},a.B,empty,void,a.B.m,p,true\n"));
    let mut invokes = String::from("Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n");
    let mut targets = String::from("InvokeId,TargetId\n");
    for i in 1..=n {
        methods.push_str(&format!("{i},m{i},a.B,empty,void,a.B.m{i},p,false\n"));
        invokes.push_str(&format!("{i},0,1,{i},true\n"));
        targets.push_str(&format!("{i},{i}\n"));
    }
    let input = methods.len() + invokes.len() + targets.len();
    let parse = |m: &str, i: &str, t: &str| {
        CallGraph::read_csv(|file| match file {
            CsvFile::Methods => Some(m.as_bytes()),
            CsvFile::Invokes => Some(i.as_bytes()),
            CsvFile::Targets => Some(t.as_bytes()),
            _ => None,
        })
        .unwrap()
    };
    let a = parse(&methods, &invokes, &targets);
    let empty = parse(
        "Id,Name,Type,Parameters,Return,Display,Flags,IsEntryPoint\n",
        "Id,MethodId,BytecodeIndexes,TargetId,IsDirect\n",
        "InvokeId,TargetId\n",
    );
    let (diff, peak) = peak_of(|| CallTreeDiff::new(&a, &empty));
    assert_eq!(diff.edges_only_in_a.len(), n);
    assert_eq!(diff.edges_only_in_a[0].caller.len(), long.len() + 11);
    assert_eq!(diff.methods_only_in_a.len(), n + 1);
    assert!(
        peak < 4 * input,
        "peak {peak} bytes while diffing a {input}-byte report"
    );
}
