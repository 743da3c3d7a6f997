//! Heap dump buffers (levels 0, 1, 2). The whole input is the buffer, decoded under every
//! identifier size and order (so the real-heap seeds in `jvmpi-types/tests/data` decode under
//! their own options); the HotSpot quirk and the class layouts are derived from the input's
//! bytes. Whatever decodes must re-encode to the same bytes.
#![no_main]
use jvmpi_types::dump::heap;
use jvmpi_types::{
    ClassLayout, ClassResolver, DumpLevel, DumpOptions, IdOrder, IdSize, ObjectId, TypeCode,
};
use libfuzzer_sys::fuzz_target;

/// Layouts picked by class id, derived from the input; some classes stay unknown.
struct Layouts(Vec<ClassLayout>);

impl ClassResolver for Layouts {
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout> {
        if class.0 % 7 == 3 {
            return None;
        }
        self.0.get((class.0 % self.0.len() as u64) as usize)
    }
}

fuzz_target!(|data: &[u8]| {
    // The real-heap seeds are up to 320 KiB; their first 32 KiB hold every kind of record and
    // keep the target fast.
    let data = data.get(..32 * 1024).unwrap_or(data);
    let seed = data.iter().fold(0u8, |a, &b| a.rotate_left(1) ^ b);
    let layouts = Layouts(
        (0..4u8)
            .map(|k| {
                let s = seed.rotate_left(u32::from(k) * 2);
                ClassLayout {
                    interfaces: u32::from(s & 1),
                    statics: (0..(s >> 6))
                        .map(|j| TypeCode::ALL[usize::from((s ^ j) % 10)])
                        .collect(),
                }
            })
            .collect(),
    );
    for size in [IdSize::Four, IdSize::Eight] {
        for order in [IdOrder::Little, IdOrder::Big] {
            let mut o = DumpOptions::new(size, order);
            if seed & 1 == 1 {
                o = o.hotspot();
            }
            if let Ok(recs) = heap::parse_level0(data, o) {
                let mut out = Vec::new();
                heap::write_level0(&recs, o, &mut out).unwrap();
                assert_eq!(out, data);
            }
            for level in [DumpLevel::Level1, DumpLevel::Level2] {
                // The non-allocating scan and the decoder agree on where records end.
                let mut scan = heap::HeapDumpRecords::new(data, o, level, &layouts).unwrap();
                let mut ends = Vec::new();
                let scanned_all = loop {
                    match scan.next_raw() {
                        Ok(Some(raw)) => {
                            assert_eq!(raw.parse(o, level, &layouts).unwrap().tag(), raw.tag);
                            ends.push(raw.offset + raw.bytes.len());
                        }
                        Ok(None) => break true,
                        Err(_) => break false,
                    }
                };
                let mut records = heap::HeapDumpRecords::new(data, o, level, &layouts).unwrap();
                let mut decoded = Vec::new();
                loop {
                    match records.next_record() {
                        Ok(Some(r)) => {
                            decoded.push(r);
                            assert_eq!(ends.get(decoded.len() - 1), Some(&records.offset()));
                        }
                        Ok(None) => {
                            assert!(scanned_all);
                            assert_eq!(ends.len(), decoded.len());
                            let mut out = Vec::new();
                            heap::write(&decoded, o, level, &mut out).unwrap();
                            assert_eq!(out, data);
                            break;
                        }
                        Err(e) => {
                            let _ = e.to_string();
                            assert!(!scanned_all);
                            assert_eq!(ends.len(), decoded.len());
                            // Everything before the failing record still re-encodes exactly.
                            let mut out = Vec::new();
                            heap::write(&decoded, o, level, &mut out).unwrap();
                            assert!(data.starts_with(&out));
                            break;
                        }
                    }
                }
            }
        }
    }
});
