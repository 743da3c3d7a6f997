//! Memory of the model against the size of its input, on the real files: peak heap (counting
//! allocator) while reading a profile and keeping the model, borrowed and owned
//! ([`Profile::into_owned`]). The owned model stays well within 8× its input.

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use iprof::Profile;
use testkit::peak_of;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

const FILES: [&str; 7] = [
    "tests/fixtures/tommyettinger-assorted-benchmarks_ccb36f2_default_v0.4.0.iprof",
    "tests/fixtures/krisfoster-binary-tree_ff318ed_default_v0.2.0.iprof",
    "tests/data/krisfoster-binary-tree_bf2630c_default_v0.2.0_typesonly.extract.iprof",
    "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof",
    "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof",
    "tests/data/fib-spec-example_v1.1.0.handmade.iprof",
    "tests/data/stub-metadata_v1.0.0.handmade.iprof",
];

/// The largest owned-model peak allowed, as a multiple of the input size. The family's budget
/// is 8×; the real files take at most 1.8× (measured 2026-11-25), so 3× catches a regression.
const OWNED_LIMIT: f64 = 3.0;

#[test]
fn owned_model_fits_in_eight_times_its_input() {
    let mut worst = 0.0f64;
    for path in FILES {
        let bytes = std::fs::read(path).unwrap();
        let (borrowed, borrowed_peak) = peak_of(|| Profile::parse(&bytes).unwrap());
        drop(borrowed);
        let (owned, owned_peak) = peak_of(|| Profile::parse(&bytes).unwrap().into_owned());
        drop(owned);
        let ratio = |peak: usize| peak as f64 / bytes.len() as f64;
        // One row per model: model, fixture, input bytes, peak heap bytes, ratio.
        let name = path.rsplit('/').next().unwrap();
        for (model, peak) in [
            ("iprof `Profile` (borrowed)", borrowed_peak),
            ("iprof `Profile` (owned, `into_owned`)", owned_peak),
        ] {
            eprintln!(
                "| {model} | {name} | {} | {peak} | {:.2}× |",
                bytes.len(),
                ratio(peak)
            );
        }
        worst = worst.max(ratio(owned_peak));
    }
    assert!(
        worst <= OWNED_LIMIT,
        "owned model peak {worst:.2}× its input"
    );
}
