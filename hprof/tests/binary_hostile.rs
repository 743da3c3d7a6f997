//! Hostile input that decodes without error but must not make the library allocate far
//! more than the input's size (superclass loops, many classes sharing a huge superclass).
//! A per-thread counting allocator (`testkit`) measures the peak heap use of each call.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use hprof::binary::index::Index;
use hprof::binary::{Id, StackTraceSerial};

use testkit::{peak_of, total_of};

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

const MB: usize = 1 << 20;

fn header() -> Vec<u8> {
    let mut v = b"JAVA PROFILE 1.0.2\0".to_vec();
    v.extend_from_slice(&4u32.to_be_bytes());
    v.extend_from_slice(&0u64.to_be_bytes());
    v
}

fn record(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![tag, 0, 0, 0, 0];
    v.extend_from_slice(&(body.len() as u32).to_be_bytes());
    v.extend_from_slice(body);
    v
}

fn utf8(id: u32, s: &str) -> Vec<u8> {
    let mut b = id.to_be_bytes().to_vec();
    b.extend_from_slice(s.as_bytes());
    record(0x01, &b)
}

fn load_class(serial: u32, class_id: u32, name_id: u32) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [serial, class_id, 0, name_id] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    record(0x02, &b)
}

/// A `CLASS_DUMP` (4-byte ids) with `fields` instance fields of type int named `name_id`.
fn class_dump(out: &mut Vec<u8>, class_id: u32, super_id: u32, fields: u16, name_id: u32) {
    out.push(0x20);
    for v in [class_id, 0, super_id, 0, 0, 0, 0, 0, 0] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&fields.to_be_bytes());
    for _ in 0..fields {
        out.extend_from_slice(&name_id.to_be_bytes());
        out.push(10); // int
    }
}

#[test]
fn superclass_self_loop_is_an_error_without_blowup() {
    // Class 1 is its own superclass and has 1000 fields; 2000 other classes exist. Walking
    // the loop until the depth passes the class count would push 2 million fields.
    let mut body = Vec::new();
    class_dump(&mut body, 1, 1, 1000, 7);
    for id in 100..2100 {
        class_dump(&mut body, id, 0, 0, 0);
    }
    let mut data = header();
    data.extend(record(0x1C, &body));
    data.extend(record(0x2C, &[]));
    assert!(data.len() < MB / 4);
    let index = Index::build(&data).unwrap();
    let (r, peak) = peak_of(|| index.layout(Id(1)));
    let e = r.unwrap_err();
    assert!(e.to_string().contains("loops"), "{e}");
    assert!(
        peak < 4 * MB,
        "layout of a looping chain peaked at {peak} bytes"
    );
}

#[test]
fn superclass_two_cycle_is_an_error_and_chains_still_work() {
    let mut body = Vec::new();
    class_dump(&mut body, 1, 2, 3, 7);
    class_dump(&mut body, 2, 1, 2, 7);
    class_dump(&mut body, 3, 4, 1, 7);
    class_dump(&mut body, 4, 0, 2, 7);
    let mut data = header();
    data.extend(record(0x1C, &body));
    data.extend(record(0x2C, &[]));
    let index = Index::build(&data).unwrap();
    for id in [1, 2] {
        let e = index.layout(Id(id)).unwrap_err();
        assert!(e.to_string().contains("loops"), "{e}");
    }
    let l = index.layout(Id(3)).unwrap();
    assert_eq!(l.fields.len(), 3);
    assert_eq!(l.size, 12);
    assert_eq!(l.fields[2].declaring_class_id, Id(4));
}

#[test]
fn many_string_classes_sharing_a_huge_superclass_stay_small() {
    // 50 classes named java.lang.String, each a subclass of one class with 60000 fields:
    // keeping a full layout for each would hold 3 million fields.
    let mut data = header();
    data.extend(utf8(1, "java/lang/String"));
    data.extend(utf8(2, "value"));
    let mut body = Vec::new();
    class_dump(&mut body, 5, 0, 60000, 2);
    for k in 0..50 {
        data.extend(load_class(k + 1, 1000 + k, 1));
        class_dump(&mut body, 1000 + k, 5, 0, 0);
    }
    // One String instance of the first class whose `value` (the first field) is 0.
    body.push(0x21);
    for v in [77u32, 0, 1000, 240_000] {
        body.extend_from_slice(&v.to_be_bytes());
    }
    body.extend(std::iter::repeat_n(0u8, 240_000));
    data.extend(record(0x1C, &body));
    data.extend(record(0x2C, &[]));
    assert!(data.len() < MB);
    let index = Index::build(&data).unwrap();
    let (strings, peak) = peak_of(|| index.java_strings().unwrap());
    assert_eq!(strings.len(), 1);
    assert_eq!(strings.get(&Id(77)).map(|s| &**s), Some(""));
    assert!(peak < 16 * MB, "java_strings peaked at {peak} bytes");
}

#[test]
fn histogram_byte_totals_saturate_instead_of_overflowing() {
    use hprof::binary::histogram::Histogram;
    use hprof::binary::{BasicType, PrimitiveArrayNoData, SubRecord};
    // A 14-byte PRIMITIVE_ARRAY_NODATA declares up to 2^35 bytes, so 2^29 of them (a 7.5 GB
    // stream) overflow a u64 total; here the same totals are reached in a few calls.
    let nodata = SubRecord::PrimitiveArrayNoData(PrimitiveArrayNoData {
        array_id: Id(1),
        stack_trace_serial: StackTraceSerial(0),
        length: u32::MAX,
        element_type: BasicType::Long,
    });
    let mut h = Histogram::new();
    h.add_primitive_array(BasicType::Long, u64::MAX - 8);
    h.add_sub_record(&nodata);
    h.add_object(Id(9), u64::MAX - 1);
    h.add_object(Id(9), 2);
    let nine = |h: &Histogram| {
        let rows = h.rows();
        let row = rows.iter().find(|r| r.class_name.contains("0x9")).unwrap();
        (row.instances, row.shallow_bytes)
    };
    // Stopped at the top, not wrapped round to 0.
    assert_eq!(nine(&h), (2, u64::MAX));
    // Two class ids with one (unknown) name are merged in `rows`.
    h.add_object(Id(10), u64::MAX);
    let mut other = Histogram::new();
    other.add_object(Id(9), u64::MAX);
    other.add_primitive_array(BasicType::Long, 1);
    h.merge(other);
    let rows = h.rows();
    let long = rows.iter().find(|r| r.class_name == "long[]").unwrap();
    assert_eq!((long.instances, long.shallow_bytes), (3, u64::MAX));
    assert_eq!(nine(&h), (3, u64::MAX));
    assert_eq!(h.total_instances(), 7);
}

#[test]
fn layout_errors_point_at_the_class_dump() {
    let mut body = Vec::new();
    let at = |b: &Vec<u8>| (31 + 9 + b.len()) as u64;
    let a1 = at(&body);
    class_dump(&mut body, 1, 2, 3, 7);
    let a2 = at(&body);
    class_dump(&mut body, 2, 1, 2, 7);
    let a5 = at(&body);
    class_dump(&mut body, 5, 6, 1, 7);
    let mut data = header();
    data.extend(record(0x1C, &body));
    data.extend(record(0x2C, &[]));
    let index = Index::build(&data).unwrap();
    // The dump whose superclass id closes the loop, or names a class without a dump.
    assert_eq!(index.layout(Id(1)).unwrap_err().offset(), a2);
    assert_eq!(index.layout(Id(2)).unwrap_err().offset(), a1);
    let e = index.layout(Id(5)).unwrap_err();
    assert!(e.to_string().contains("no CLASS_DUMP for class 0x6"), "{e}");
    assert_eq!(e.offset(), a5);
}

#[test]
fn many_classes_sharing_a_long_name_are_named_once() {
    // 2000 LOAD_CLASS records (25 bytes each) naming one 100 KB string: converting the name
    // once per class would process 200 MB for a 150 KB input.
    let mut data = header();
    data.extend(utf8(1, &"a/".repeat(50_000)));
    for k in 0..2000 {
        data.extend(load_class(k + 1, 1000 + k, 1));
    }
    let (index, total) = total_of(|| Index::build(&data).unwrap());
    let ids = index.classes_named(&"a.".repeat(50_000));
    assert_eq!(ids.len(), 2000);
    assert!(total < 16 * MB, "Index::build allocated {total} bytes");
}

/// A `STACK_FRAME` (4-byte ids) whose method, signature and source file are string `name_id`.
fn frame(frame_id: u32, name_id: u32) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [frame_id, name_id, name_id, name_id, 0, 1] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    record(0x04, &b)
}

/// A `STACK_TRACE` of `depth` frames, all `frame_id`.
fn trace(serial: u32, frame_id: u32, depth: u32) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [serial, 1, depth] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    for _ in 0..depth {
        b.extend_from_slice(&frame_id.to_be_bytes());
    }
    record(0x05, &b)
}

/// Regression: a 5,000-frame trace whose frames all carry one 10 KB name (a 30 KB
/// dump) resolved to 5,000 × 3 copies of it (150 MB); `stack_trace` now shares each string.
/// And 200 threads on that trace each got their own frames; `thread_stacks` now shares them.
#[test]
fn deep_traces_of_one_long_name_and_many_threads_stay_small() {
    let mut data = header();
    data.extend(utf8(1, &"m".repeat(10_000)));
    data.extend(frame(7, 1));
    data.extend(trace(5, 7, 5_000));
    let mut roots = Vec::new();
    for serial in 1..=200u32 {
        roots.push(0x08); // ROOT_THREAD_OBJECT: object id, thread serial, trace serial
        for v in [0x100 + serial, serial, 5] {
            roots.extend_from_slice(&v.to_be_bytes());
        }
    }
    data.extend(record(0x0C, &roots));
    let index = Index::build(&data).unwrap();

    let (frames, peak) = peak_of(|| index.stack_trace(StackTraceSerial(5)).unwrap());
    assert_eq!(frames.len(), 5_000);
    assert_eq!(frames[4_999].method_name.len(), 10_000);
    assert!(peak < 16 * MB, "stack_trace peaked at {peak} bytes");

    let (threads, peak) = peak_of(|| index.thread_stacks());
    assert_eq!(threads.len(), 200);
    assert!(threads.iter().all(|t| t.frames.len() == 5_000));
    assert!(peak < 16 * MB, "thread_stacks peaked at {peak} bytes");
}

/// A Java 6 style dump: `java.lang.String` (`value` char[], `offset`, `count`) instances
/// `(object id, offset, count)` of one char[] of `chars` elements.
fn substring_dump(chars: u32, strings: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut data = header();
    data.extend(utf8(1, "java/lang/String"));
    data.extend(utf8(2, "value"));
    data.extend(utf8(3, "offset"));
    data.extend(utf8(4, "count"));
    data.extend(load_class(1, 1000, 1));
    let mut body = vec![0x20];
    for v in [1000u32, 0, 0, 0, 0, 0, 0, 0, 12] {
        body.extend_from_slice(&v.to_be_bytes());
    }
    body.extend_from_slice(&[0, 0, 0, 0, 0, 3]);
    for (name, ty) in [(2u32, 2u8), (3, 10), (4, 10)] {
        body.extend_from_slice(&name.to_be_bytes());
        body.push(ty);
    }
    body.push(0x23); // PRIMITIVE_ARRAY_DUMP: id 9, serial, count, char
    for v in [9u32, 0, chars] {
        body.extend_from_slice(&v.to_be_bytes());
    }
    body.push(5);
    for i in 0..chars {
        body.extend_from_slice(&(u16::from(b'a') + (i % 26) as u16).to_be_bytes());
    }
    for &(id, offset, count) in strings {
        body.push(0x21); // INSTANCE_DUMP: id, serial, class, 12 bytes of fields
        for v in [id, 0, 1000, 12, 9, offset, count] {
            body.extend_from_slice(&v.to_be_bytes());
        }
    }
    data.extend(record(0x1C, &body));
    data.extend(record(0x2C, &[]));
    data
}

/// Regression: 5,000 strings of one 20,000-char array (a 150 KB dump) decoded the array
/// and copied its text once each (100 MB); they now share one decoded text.
#[test]
fn strings_sharing_one_array_share_its_text() {
    let strings: Vec<(u32, u32, u32)> = (0..5_000).map(|k| (100 + k, 0, 20_000)).collect();
    let data = substring_dump(20_000, &strings);
    let index = Index::build(&data).unwrap();
    let (texts, peak) = peak_of(|| index.java_strings().unwrap());
    assert_eq!(texts.len(), 5_000);
    assert!(texts.values().all(|t| t.len() == 20_000));
    assert!(peak < 16 * MB, "java_strings peaked at {peak} bytes");
}

/// Substrings of one array at as many different ranges are all different texts: past a
/// budget of 4 times the heap dumps plus 64 MiB, the call fails instead of growing on.
#[test]
fn substrings_at_many_ranges_hit_the_budget() {
    let strings: Vec<(u32, u32, u32)> = (0..2_000).map(|k| (100 + k, k, 100_000 - k)).collect();
    let data = substring_dump(100_000, &strings);
    assert!(data.len() < MB);
    let index = Index::build(&data).unwrap();
    let (result, peak) = peak_of(|| index.java_strings());
    let err = result.unwrap_err();
    assert!(err.to_string().contains("exceed"), "{err}");
    assert!(peak < 80 * MB, "java_strings peaked at {peak} bytes");
    // A few substrings are fine.
    let few = substring_dump(100_000, &strings[..3]);
    let texts = Index::build(&few).unwrap().java_strings().unwrap();
    assert_eq!(texts.get(&Id(101)).map(|t| t.len()), Some(99_999));
    assert!(texts.get(&Id(102)).unwrap().starts_with("cde"));
}

/// Regression: an instance shorter than its class layout was reported at byte 0; the
/// error now gives where the instance's field bytes start.
#[test]
fn short_instances_are_reported_where_their_fields_are() {
    let mut body = Vec::new();
    class_dump(&mut body, 1, 0, 3, 7); // three int fields: 12 bytes
    body.push(0x21);
    for v in [0x50u32, 0, 1, 4] {
        body.extend_from_slice(&v.to_be_bytes());
    }
    let fields_at = (31 + 9 + body.len()) as u64;
    body.extend_from_slice(&[0, 0, 0, 1]);
    let mut data = header();
    data.extend(record(0x1C, &body));
    data.extend(record(0x2C, &[]));
    let index = Index::build(&data).unwrap();
    let instance = index
        .sub_records()
        .find_map(|s| match s.unwrap() {
            hprof::binary::heap_dump::SubRecord::InstanceDump(i) => Some(i),
            _ => None,
        })
        .unwrap();
    let err = index.instance_fields(&instance).unwrap_err();
    assert_eq!(err.offset(), fields_at, "{err}");
    assert!(err.to_string().contains("has 4 field byte(s)"), "{err}");
    assert_eq!(index.offset_of(instance.data), fields_at);
    assert_eq!(index.offset_of(b"elsewhere"), 0);
}
