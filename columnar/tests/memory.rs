//! The export's memory on a hostile dump: class layouts are built once per class from the
//! superclass's, so a chain of thousands of classes would keep a quadratic number of field
//! copies; the export keeps at most half the dump's length in fields and gives up on the
//! deepest layouts instead (their instances are counted as without layout).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use columnar::MemorySink;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

fn u4(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn id(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn record(out: &mut Vec<u8>, tag: u8, body: &[u8]) {
    out.push(tag);
    u4(out, 0);
    u4(out, u32::try_from(body.len()).unwrap());
    out.extend_from_slice(body);
}

/// Classes 1..=depth, each the subclass of the one before and declaring one object field
/// `f`, one instance of the deepest (all fields null), and a class with no superclass whose
/// instance points at it.
fn deep_chain(depth: u64) -> Vec<u8> {
    let mut out = b"JAVA PROFILE 1.0.2\0".to_vec();
    u4(&mut out, 8);
    out.extend_from_slice(&0u64.to_be_bytes());
    let mut name = Vec::new();
    id(&mut name, 1);
    name.extend_from_slice(b"f");
    record(&mut out, 0x01, &name);
    let mut heap = Vec::new();
    let class = |heap: &mut Vec<u8>, class: u64, superclass: u64| {
        heap.push(0x20);
        id(heap, class);
        u4(heap, 0);
        id(heap, superclass);
        for _ in 0..5 {
            id(heap, 0); // loader, signers, protection domain, reserved ×2
        }
        u4(heap, 8);
        heap.extend_from_slice(&[0, 0, 0, 0, 0, 1]); // no constants, no statics, one field
        id(heap, 1);
        heap.push(2); // an object
    };
    for c in 1..=depth {
        class(
            &mut heap,
            0x1000 + c,
            if c == 1 { 0 } else { 0x1000 + c - 1 },
        );
    }
    class(&mut heap, 0x10, 0);
    let deep = 0x1000 + depth;
    for (object, class, data) in [
        (
            0x2000_0000u64,
            deep,
            vec![0u8; usize::try_from(8 * depth).unwrap()],
        ),
        (0x3000_0000, 0x10, 0x2000_0000u64.to_be_bytes().to_vec()),
    ] {
        heap.push(0x21);
        id(&mut heap, object);
        u4(&mut heap, 0);
        id(&mut heap, class);
        u4(&mut heap, u32::try_from(data.len()).unwrap());
        heap.extend_from_slice(&data);
    }
    record(&mut out, 0x1C, &heap);
    record(&mut out, 0x2C, &[]);
    out
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
