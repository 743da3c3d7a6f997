//! The crate-level example (which builds its dump with the writer, so that it runs from the
//! published package) on a real JDK 17 dump: HotSpot, id size 8, `HEAP_DUMP_SEGMENT`s.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hprof::binary::histogram::Histogram;
use hprof::binary::index::Index;
use hprof::binary::write::Writer;
use hprof::binary::{Record, Records, SubRecord};

#[test]
fn walk_histogram_strings_and_round_trip_a_jdk17_dump() {
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/binary/heapgen_jdk17.hprof"
    ))
    .unwrap();
    let (header, records) = Records::parse(&data).unwrap();
    assert_eq!(header.id_size.bytes(), 8);
    let (mut classes, mut instances) = (0, 0);
    for record in records {
        let (_framing, record) = record.unwrap();
        if let Record::HeapDumpSegment(segment) = record {
            for sub in segment.sub_records() {
                match sub.unwrap() {
                    SubRecord::ClassDump(_) => classes += 1,
                    SubRecord::InstanceDump(_) => instances += 1,
                    _ => {}
                }
            }
        }
    }
    assert!(classes > 100 && instances > 1_000, "{classes} {instances}");

    let rows = Histogram::parse(&data).unwrap().rows();
    assert!(
        rows.iter()
            .any(|r| r.class_name == "java.lang.String" && r.instances > 1000)
    );
    let salvaged = Histogram::salvage(&data).unwrap();
    assert!(salvaged.is_complete());
    assert_eq!(salvaged.value.rows(), rows);

    let index = Index::build(&data).unwrap();
    let strings = index.java_strings().unwrap();
    assert!(strings.values().any(|s| &**s == "java.lang.Object"));

    let mut writer = Writer::new(Vec::new(), &header).unwrap();
    for record in Records::parse(&data).unwrap().1 {
        let (framing, record) = record.unwrap();
        writer.write_record(framing.time, &record).unwrap();
    }
    assert!(writer.finish().unwrap() == data);
}
