//! Memory of the decoded models against the size of their input, on the real buffers of
//! `tests/data/`: peak heap (counting allocator, `testkit`) while decoding a buffer and keeping
//! what was decoded. The family's budget is 8× the input.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stderr)]

mod common;

use common::data;
use jvmpi_types::dump::{heap, monitor, object};
use jvmpi_types::{DumpLevel, DumpOptions, IdOrder, IdSize};
use testkit::{Budget, peak_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// The family's budget: an owned model takes at most 8× its input at its peak.
const LIMIT: f64 = 8.0;

fn options(tag: &str) -> DumpOptions {
    match tag {
        "hs32le" => DumpOptions::new(IdSize::Four, IdOrder::Little).hotspot(),
        _ => DumpOptions::new(IdSize::Eight, IdOrder::Big),
    }
}

#[test]
fn decoded_dumps_fit_in_eight_times_their_input() {
    let mut budget = Budget::default();
    for (level, tag) in [(1, "hs32le"), (2, "hs32le"), (1, "sparc64be")] {
        let name = format!("heap-l{level}-{tag}.bin");
        let buf = data(&name);
        let classes = layouts(tag);
        let level = DumpLevel::try_from(level).unwrap();
        let (records, peak) = peak_of(|| heap::parse(&buf, options(tag), level, &classes).unwrap());
        assert!(!records.is_empty());
        drop(records);
        budget.check("jvmpi heap dump (`heap::parse`)", &name, buf.len(), peak);
    }
    for tag in ["hs32le", "sparc64be"] {
        let name = format!("heap-l0-{tag}.bin");
        let buf = data(&name);
        let (records, peak) = peak_of(|| heap::parse_level0(&buf, options(tag)).unwrap());
        assert!(!records.is_empty());
        drop(records);
        budget.check(
            "jvmpi heap dump level 0 (`heap::parse_level0`)",
            &name,
            buf.len(),
            peak,
        );
        let name = format!("monitor-{tag}.bin");
        let buf = data(&name);
        let (records, peak) = peak_of(|| monitor::parse(&buf, options(tag)).unwrap());
        assert!(!records.is_empty());
        drop(records);
        budget.check(
            "jvmpi monitor dump (`monitor::parse`)",
            &name,
            buf.len(),
            peak,
        );
    }
    let classes = layouts("hs32le");
    for kind in ["class", "instance", "objarray", "primarray"] {
        let name = format!("object-{kind}-hs32le.bin");
        let buf = data(&name);
        let (record, peak) = peak_of(|| object::parse(&buf, options("hs32le"), &classes).unwrap());
        drop(record);
        budget.check(
            "jvmpi object dump (`object::parse`)",
            &name,
            buf.len(),
            peak,
        );
    }
    budget.assert_within(LIMIT);
}

/// The class layouts of `heap-classes-TAG.json`.
fn layouts(tag: &str) -> jvmpi_types::ClassLayouts {
    let json = String::from_utf8(data(&format!("heap-classes-{tag}.json"))).unwrap();
    common::layouts(&json)
}
