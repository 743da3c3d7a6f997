//! Decoding, incremental decoding and re-encoding of every real dump in `tests/data/binary/`
//! (plus the larger ones in `../shared/fixtures/` when present), checked against the counts
//! in the fixtures' PROVENANCE files.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

mod forking;

use hprof::binary::incremental::{BufferedDecoder, Decoder, Event, Visit};
use hprof::binary::write::Writer;
use hprof::binary::{IdSize, Record, Records, SubRecord, Version};
use hprof::binary::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/binary")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(name)).unwrap()
}

/// Bundled fixtures, and the shared ones too large to bundle when they are there.
fn all_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(data_dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "hprof") {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    for extra in [
        "../../shared/fixtures/hprof-bin/py-hprof_example-java.hprof",
        "../../shared/fixtures/hprof-android/perflib_dialer_kitkat-4.4.2_dalvik.hprof",
    ] {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(extra);
        if let Ok(d) = std::fs::read(&p) {
            out.push((p.display().to_string(), d));
        }
    }
    assert!(out.len() >= 4);
    out
}

/// Counts of top-level tags and sub-record tags.
fn tag_counts(data: &[u8]) -> (BTreeMap<u8, u64>, BTreeMap<u8, u64>) {
    let (_, records) = Records::parse(data).unwrap();
    let mut top = BTreeMap::new();
    let mut sub = BTreeMap::new();
    for r in records {
        let (h, record) = r.unwrap();
        *top.entry(h.tag).or_default() += 1;
        if let Record::HeapDump(d) | Record::HeapDumpSegment(d) = record {
            for s in d.sub_records() {
                *sub.entry(s.unwrap().tag()).or_default() += 1;
            }
        }
    }
    (top, sub)
}

#[test]
fn headers() {
    let cases = [
        ("hprof-slurp_hprof-32.hprof", Version::V1_0_1, IdSize::Four),
        ("haha_sun_jdk5_64bit.hprof", Version::V1_0_1, IdSize::Eight),
        ("heapgen_jdk17.hprof", Version::V1_0_2, IdSize::Eight),
        (
            "ahat_test-dump-base_art-host-2025.hprof",
            Version::V1_0_3,
            IdSize::Four,
        ),
    ];
    for (name, version, id_size) in cases {
        let (h, len) = hprof::binary::Header::parse(&read(name)).unwrap();
        assert_eq!(
            (h.version, h.id_size, len),
            (version, id_size, 31),
            "{name}"
        );
    }
}

#[test]
fn counts_match_provenance() {
    // From tests/data/binary/PROVENANCE.txt (counted independently by the fixture collectors).
    let (top, sub) = tag_counts(&read("hprof-slurp_hprof-32.hprof"));
    assert_eq!(top[&0x01], 1496);
    assert_eq!(top[&0x02], 361);
    assert_eq!(top[&0x04], 365);
    assert_eq!(top[&0x05], 216);
    assert_eq!(top[&0x06], 1);
    assert_eq!(top[&0x0A], 5);
    assert_eq!(top[&0x0B], 1);
    assert_eq!(top[&0x0E], 1);
    assert_eq!(top[&0x0C], 1);
    assert_eq!(sub[&0xFF], 54);
    assert_eq!(sub[&0x06], 7);
    assert_eq!(sub[&0x01], 395);

    let (top, sub) = tag_counts(&read("haha_sun_jdk5_64bit.hprof"));
    assert_eq!(
        (top[&0x01], top[&0x02], top[&0x05], top[&0x0C]),
        (8113, 411, 1, 1)
    );
    assert_eq!(
        (sub[&0x20], sub[&0x21], sub[&0x22], sub[&0x23]),
        (411, 1036, 454, 1963)
    );

    let (top, sub) = tag_counts(&read("ahat_test-dump-base_art-host-2025.hprof"));
    assert_eq!(
        (
            top[&0x01], top[&0x02], top[&0x04], top[&0x05], top[&0x1C], top[&0x2C]
        ),
        (5034, 1126, 2260, 287, 556, 1)
    );
    let expected = [
        (0x05, 1106),
        (0x89, 247),
        (0x8B, 107),
        (0x01, 62),
        (0x03, 53),
        (0x08, 7),
        (0x8D, 7),
        (0x04, 6),
        (0x02, 3),
        (0xFE, 259),
        (0x20, 1126),
        (0x21, 12096),
        (0x22, 650),
        (0x23, 2051),
    ];
    assert_eq!(sub, expected.into_iter().collect());
}

#[test]
fn shared_fixtures_counts_when_present() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    if let Ok(d) = std::fs::read(root.join("hprof-bin/py-hprof_example-java.hprof")) {
        let (top, sub) = tag_counts(&d);
        assert_eq!(
            (top[&0x01], top[&0x02], top[&0x04], top[&0x05]),
            (35897, 577, 14, 7)
        );
        assert_eq!((top[&0x1C], top[&0x2C]), (1, 1));
        assert_eq!(
            (sub[&0x20], sub[&0x21], sub[&0x22], sub[&0x23]),
            (504, 14484, 1500, 7977)
        );
    }
    if let Ok(d) =
        std::fs::read(root.join("hprof-android/perflib_dialer_kitkat-4.4.2_dalvik.hprof"))
    {
        let (top, sub) = tag_counts(&d);
        assert_eq!(
            (top[&0x01], top[&0x02], top[&0x1C], top[&0x2C]),
            (23049, 3571, 636, 1)
        );
        let expected = [
            (0x05, 3571),
            (0x89, 7286),
            (0x01, 244),
            (0x03, 68),
            (0x08, 11),
            (0x02, 8),
            (0x8B, 3),
            (0x8A, 1),
            (0x04, 1),
            (0xFE, 549),
            (0x20, 3571),
            (0x21, 24612),
            (0x22, 1919),
            (0x23, 13585),
        ];
        assert_eq!(sub, expected.into_iter().collect());
    }
}

/// Flattens a one-shot decode into the incremental decoder's event sequence (as Debug text).
fn one_shot_events(data: &[u8]) -> Vec<String> {
    let (header, records) = Records::parse(data).unwrap();
    let mut out = vec![format!("{:?}", Event::Header(header))];
    for r in records {
        let (h, record) = r.unwrap();
        match record {
            Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                out.push(format!("{:?}", Event::HeapDumpStart(h)));
                let mut subs = d.sub_records();
                loop {
                    let at = subs.offset();
                    match subs.next() {
                        Some(s) => out.push(format!("{:?}", Event::SubRecord(at, s.unwrap()))),
                        None => break,
                    }
                }
                out.push(format!("{:?}", Event::HeapDumpBodyEnd(h)));
            }
            other => out.push(format!("{:?}", Event::Record(h, other))),
        }
    }
    out
}

fn chunked_events(data: &[u8], chunk: usize) -> Vec<String> {
    let mut d = BufferedDecoder::new();
    let mut out = Vec::new();
    for c in data.chunks(chunk) {
        d.feed(c);
        while let Some(e) = d.next_event().unwrap() {
            out.push(format!("{e:?}"));
        }
    }
    d.finish().unwrap();
    out
}

#[test]
fn incremental_equals_one_shot_on_every_fixture() {
    for (name, data) in all_fixtures() {
        let expected = one_shot_events(&data);
        for chunk in [1 << 20, 4093] {
            assert_eq!(
                chunked_events(&data, chunk),
                expected,
                "{name} chunk {chunk}"
            );
        }
        // decode_all with a fixed-size window.
        let mut dec = Decoder::new();
        let mut got = Vec::new();
        let mut buf: Vec<u8> = Vec::new();
        for c in data.chunks(65_521) {
            buf.extend_from_slice(c);
            let (consumed, _) = dec
                .decode_all(&buf, |e| got.push(format!("{e:?}")))
                .unwrap();
            buf.drain(..consumed);
        }
        dec.finish(&buf).unwrap();
        assert_eq!(got, expected, "{name} decode_all");
    }
}

#[test]
fn forked_decoding_gives_the_events_of_one_shot_decoding_in_order() {
    for (name, data) in all_fixtures() {
        let mut expected = one_shot_events(&data);
        expected.push("Ok(())".into());
        let segments = expected
            .iter()
            .filter(|e| e.starts_with("HeapDumpStart"))
            .count();
        let mut forked_in_windows = 0;
        for (chunk, sized) in [
            (data.len(), true),
            (1 << 20, true),
            (65_521, true),
            (4093, true),
            (65_521, false),
        ] {
            let (events, forked) = forking::events(&data, &[chunk.max(1)], sized, true);
            assert_eq!(events, expected, "{name} chunk {chunk} sized {sized}");
            if chunk == data.len() {
                // Every record but the first is walked beside the one before it.
                assert!(segments < 2 || forked > 0, "{name}: nothing forked");
            } else if sized {
                // The decoder waits for the rest of a record and the next one's header rather
                // than walk it alone; how much of the next a window holds is chance.
                forked_in_windows += forked;
            }
        }
        assert!(
            segments < 2 || forked_in_windows > 0,
            "{name}: nothing forked"
        );
    }
}

/// Records where [`Visit::ahead`] was called (the offset of its input's first byte) and
/// which object dumps followed.
struct Ahead {
    /// The address of the input's first byte.
    base: usize,
    pending: Option<u64>,
    hinted: u64,
    objects: u64,
}

impl Ahead {
    fn object(&mut self, at: u64) {
        self.objects += 1;
        // A hint names the dump decoded right after it, never another.
        if let Some(hint) = self.pending.take() {
            assert_eq!(hint, at, "hint at {hint}, dump at {at}");
            self.hinted += 1;
        }
    }
}

impl<'a> Visit<'a> for Ahead {
    fn event(&mut self, event: Event<'a>) {
        if let Event::SubRecord(at, s) = event {
            assert!(self.pending.is_none(), "a hint before {s:?} at {at}");
        }
    }
    fn instance_dump(&mut self, at: u64, _: InstanceDump<'a>) {
        self.object(at);
    }
    fn object_array_dump(&mut self, at: u64, _: ObjectArrayDump<'a>) {
        self.object(at);
    }
    fn primitive_array_dump(&mut self, at: u64, _: PrimitiveArrayDump<'a>) {
        self.object(at);
    }
    fn ahead(&mut self, input: &'a [u8]) {
        assert!(self.pending.is_none(), "two hints in a row");
        assert!(
            matches!(input.first(), Some(0x21..=0x23)),
            "{:?}",
            input.first()
        );
        self.pending = Some((input.as_ptr().addr() - self.base) as u64);
    }
}

#[test]
fn ahead_names_the_next_object_dump() {
    for (name, data) in all_fixtures() {
        let mut v = Ahead {
            base: data.as_ptr().addr(),
            pending: None,
            hinted: 0,
            objects: 0,
        };
        let mut d = Decoder::new();
        let (consumed, _) = d.decode_with(&data, &mut v).unwrap();
        d.finish(&data[consumed..]).unwrap();
        // Every object dump but the last few bytes of a heap-dump record come with a hint.
        let (records, sub) = tag_counts(&data);
        let objects: u64 = [0x21, 0x22, 0x23]
            .iter()
            .map(|t| sub.get(t).copied().unwrap_or(0))
            .sum();
        let heap_records: u64 = [0x0C, 0x1C]
            .iter()
            .map(|t| records.get(t).copied().unwrap_or(0))
            .sum();
        assert_eq!(v.objects, objects, "{name}");
        assert!(
            v.hinted + heap_records >= objects && v.hinted > 0,
            "{name}: {} of {objects}",
            v.hinted
        );
    }
}

#[test]
fn tiny_chunks_on_smallest_fixture() {
    let data = read("hprof-slurp_hprof-32.hprof");
    assert_eq!(chunked_events(&data, 7), one_shot_events(&data));
}

#[test]
fn decode_encode_is_byte_identical() {
    for (name, data) in all_fixtures() {
        // Whole records (heap dumps from their raw body) ...
        let (header, records) = Records::parse(&data).unwrap();
        let mut w = Writer::new(Vec::new(), &header).unwrap();
        for r in records {
            let (h, record) = r.unwrap();
            w.write_record(h.time, &record).unwrap();
        }
        assert!(w.finish().unwrap() == data, "{name}: records");

        // ... and every sub-record re-encoded one by one.
        let (header, records) = Records::parse(&data).unwrap();
        let mut w = Writer::new(Vec::new(), &header).unwrap();
        for r in records {
            let (h, record) = r.unwrap();
            match record {
                Record::HeapDump(d) | Record::HeapDumpSegment(d) => {
                    w.start_heap_dump_record(h.tag, h.time).unwrap();
                    for s in d.sub_records() {
                        w.write_sub_record(&s.unwrap()).unwrap();
                    }
                    w.close_heap_dump_record().unwrap();
                }
                other => w.write_record(h.time, &other).unwrap(),
            }
        }
        let out = w.finish().unwrap();
        assert_eq!(out.len(), data.len(), "{name}");
        assert!(out == data, "{name}: sub-records");
    }
}

#[test]
fn every_truncation_of_a_small_dump_is_an_error_with_offset() {
    let data = read("hprof-slurp_hprof-32.hprof");
    // Cut at many points (every 499th byte plus the first 64).
    let cuts: Vec<usize> = (0..64).chain((64..data.len()).step_by(499)).collect();
    for cut in cuts {
        let part = &data[..cut];
        let one_shot: Result<(), hprof::binary::Error> = (|| {
            let (_, records) = Records::parse(part)?;
            for r in records.salvaging() {
                if let (_, Record::HeapDump(d)) = r? {
                    for s in d.sub_records() {
                        s?;
                    }
                }
            }
            Ok(())
        })();
        // A cut exactly at a record boundary after the first record is a valid (shorter) file
        // of this unsegmented dump; a header alone is not.
        let mut d = BufferedDecoder::new();
        d.feed(part);
        while d.next_event().unwrap().is_some() {}
        match (one_shot, d.finish()) {
            (Ok(()), Ok(())) => {}
            (Err(e), Err(f)) => {
                assert!(
                    e.offset() <= cut as u64 && f.offset() <= cut as u64,
                    "{e} / {f}"
                );
                assert!(f.to_string().contains("byte"), "{f}");
            }
            (a, b) => panic!("cut {cut}: one-shot {a:?}, incremental {b:?}"),
        }
    }
}

#[test]
fn sub_records_have_their_android_kinds() {
    let data = read("ahat_test-dump-base_art-host-2025.hprof");
    let (_, records) = Records::parse(&data).unwrap();
    let mut heaps = BTreeMap::new();
    for r in records {
        if let (_, Record::HeapDumpSegment(d)) = r.unwrap() {
            for s in d.sub_records() {
                if let SubRecord::HeapDumpInfo(i) = s.unwrap() {
                    *heaps.entry(i.heap_id).or_insert(0) += 1;
                }
            }
        }
    }
    // ahat's base dump has only the app heap ('A').
    assert_eq!(heaps.keys().copied().collect::<Vec<_>>(), vec![0x41]);
}

#[test]
fn histogram_contract() {
    use hprof::binary::histogram::{Histogram, HistogramRow};
    for (name, data) in all_fixtures() {
        let rows = Histogram::parse(&data).unwrap().rows();
        // Sorted by instances descending, then name ascending; one row per name.
        for w in rows.windows(2) {
            assert!(
                w[0].instances > w[1].instances
                    || (w[0].instances == w[1].instances && w[0].class_name < w[1].class_name),
                "{name}: {w:?}"
            );
        }
        // Every object sub-record is counted once.
        let (_, sub) = tag_counts(&data);
        let objects: u64 = [0x21, 0x22, 0x23, 0xC3]
            .iter()
            .map(|t| sub.get(t).copied().unwrap_or(0))
            .sum();
        assert_eq!(
            rows.iter().map(|r| r.instances).sum::<u64>(),
            objects,
            "{name}"
        );
        // The parallel and incremental paths agree with the one-shot one.
        assert_eq!(
            Histogram::parse_parallel(&data, 3).unwrap().rows(),
            rows,
            "{name}"
        );
        let mut h = Histogram::new();
        let mut d = Decoder::new();
        let mut buf = Vec::new();
        for c in data.chunks(100_003) {
            buf.extend_from_slice(c);
            let (consumed, _) = d.decode_with(&buf, &mut h).unwrap();
            buf.drain(..consumed);
        }
        d.finish(&buf).unwrap();
        assert_eq!(h.rows(), rows, "{name}");
    }
    // The bundled JDK 17 dump, as the histogram example prints it.
    let rows = Histogram::parse(&read("heapgen_jdk17.hprof"))
        .unwrap()
        .rows();
    let row = |i: usize, n: u64, b: u64, c: &str| {
        assert_eq!(
            rows[i],
            HistogramRow {
                instances: n,
                shallow_bytes: b,
                class_name: c.into()
            }
        );
    };
    row(0, 2351, 78799, "byte[]");
    row(1, 2267, 31738, "java.lang.String");
    row(4, 620, 82496, "java.lang.Object[]");
    assert!(
        rows.iter()
            .any(|r| r.class_name == "java.util.HashMap$Node[]")
    );
    // Dalvik: AOSP perflib's tests say 1406 byte[] instances with shallow size 681489.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    if let Ok(d) =
        std::fs::read(root.join("hprof-android/perflib_dialer_kitkat-4.4.2_dalvik.hprof"))
    {
        let rows = Histogram::parse(&d).unwrap().rows();
        let b = rows.iter().find(|r| r.class_name == "byte[]").unwrap();
        assert_eq!((b.instances, b.shallow_bytes), (1406, 681_489));
    }
}

#[test]
fn incremental_rewrite_is_byte_identical() {
    // What examples/rewrite.rs does: incremental events straight into the writer.
    for (name, data) in all_fixtures() {
        let mut d = Decoder::new();
        let mut w: Option<Writer<Vec<u8>>> = None;
        let mut buf = Vec::new();
        for c in data.chunks(1 << 16) {
            buf.extend_from_slice(c);
            let (consumed, _) = d
                .decode_all(&buf, |e| match (&mut w, e) {
                    (None, Event::Header(h)) => w = Some(Writer::new(Vec::new(), &h).unwrap()),
                    (Some(w), Event::Record(h, r)) => w.write_record(h.time, &r).unwrap(),
                    (Some(w), Event::HeapDumpStart(h)) => {
                        w.start_heap_dump_record(h.tag, h.time).unwrap();
                    }
                    (Some(w), Event::SubRecord(_, s)) => w.write_sub_record(&s).unwrap(),
                    (Some(w), Event::HeapDumpBodyEnd(_)) => w.close_heap_dump_record().unwrap(),
                    (_, e) => panic!("{e:?}"),
                })
                .unwrap();
            buf.drain(..consumed);
        }
        d.finish(&buf).unwrap();
        assert!(w.unwrap().finish().unwrap() == data, "{name}");
    }
}

#[test]
fn android_dump_converts_to_standard_1_0_2() {
    use hprof::binary::Header;
    use hprof::binary::write::to_standard_sub_record;
    let data = read("ahat_test-dump-base_art-host-2025.hprof");
    let (header, records) = Records::parse(&data).unwrap();
    let header = Header {
        version: Version::V1_0_2,
        ..header
    };
    let mut w = Writer::new(Vec::new(), &header).unwrap();
    for r in records {
        match r.unwrap() {
            (h, Record::HeapDumpSegment(d)) => {
                w.start_heap_dump_record(h.tag, h.time).unwrap();
                for s in d.sub_records() {
                    if let Some(s) = to_standard_sub_record(&s.unwrap()) {
                        w.write_sub_record(&s).unwrap();
                    }
                }
                w.close_heap_dump_record().unwrap();
            }
            (h, other) => w.write_record(h.time, &other).unwrap(),
        }
    }
    let out = w.finish().unwrap();
    assert!(out.starts_with(b"JAVA PROFILE 1.0.2\0"));
    let (_, sub) = tag_counts(&out);
    // 247 interned strings + 107 debugger + 7 VM internal roots became ROOT_UNKNOWN.
    assert_eq!(sub.get(&0xFF), Some(&(247 + 107 + 7)));
    assert!(sub.keys().all(|t| *t < 0x89 || *t == 0xFF), "{sub:?}");
    assert_eq!(
        (sub[&0x20], sub[&0x21], sub[&0x22], sub[&0x23]),
        (1126, 12096, 650, 2051)
    );
}
