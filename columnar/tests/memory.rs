//! The export's memory on a hostile dump: class layouts are built once per class from the
//! superclass's, so a chain of thousands of classes would keep a quadratic number of field
//! copies; the export keeps at most half the dump's length in fields and gives up on the
//! deepest layouts instead (their instances are counted as without layout).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use columnar::MemorySink;

mod common;

use common::{class_dump, dump, instance, object_fields};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// Classes 1..=depth, each the subclass of the one before and declaring one object field
/// `f`, one instance of the deepest (all fields null), and a class with no superclass whose
/// instance points at it.
fn deep_chain(depth: u64) -> Vec<u8> {
    let f = object_fields(&[1]);
    let deep_data = vec![0u8; usize::try_from(8 * depth).unwrap()];
    let pointer = 0x2000_0000u64.to_be_bytes();
    let mut subs: Vec<_> = (1..=depth)
        .map(|c| class_dump(0x1000 + c, if c == 1 { 0 } else { 0x1000 + c - 1 }, &f))
        .collect();
    subs.push(class_dump(0x10, 0, &f));
    subs.push(instance(0x2000_0000, 0x1000 + depth, &deep_data));
    subs.push(instance(0x3000_0000, 0x10, &pointer));
    dump(&[(1, b"f")], &subs)
}

#[test]
fn a_chain_of_twenty_thousand_classes_does_not_take_quadratic_memory() {
    let data = deep_chain(20_000);
    let mut sink = MemorySink::new();
    let (summary, peak) =
        testkit::peak_of(|| columnar::hprof::export(&data, &mut sink, &mut |_| {}).unwrap());
    // Every layout of the chain kept would be 20,000²/2 fields of 8 bytes: 1.6 GB.
    assert!(
        peak < 64 << 20,
        "peak heap {peak} bytes for a {} byte dump",
        data.len()
    );
    assert!(summary.is_complete());
    assert_eq!(
        summary.instances_without_layout, 1,
        "the deep instance only"
    );
    assert_eq!(sink.rows("objects"), 20_000 + 1 + 2);
    // The shallow instance's reference is still there (with the classes' `<super>` ones).
    assert_eq!(sink.rows("references"), 20_000 - 1 + 1);
}
