//! Object dump buffers. The whole input is the buffer, decoded under every identifier size and
//! order; the HotSpot quirk and the class layout come from the input's bytes. Whatever decodes
//! must re-encode to the same bytes.
#![no_main]
use jvmpi_types::dump::object;
use jvmpi_types::{ClassLayout, ClassResolver, DumpOptions, IdOrder, IdSize, ObjectId, TypeCode};
use libfuzzer_sys::fuzz_target;

struct OneLayout(ClassLayout);

impl ClassResolver for OneLayout {
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout> {
        (class.0 % 5 != 1).then_some(&self.0)
    }
}

fuzz_target!(|data: &[u8]| {
    let seed = data.iter().fold(0u8, |a, &b| a.rotate_left(1) ^ b);
    let layout = OneLayout(ClassLayout {
        interfaces: u32::from((seed >> 3) & 3),
        statics: (0..(seed >> 5))
            .map(|j| TypeCode::ALL[usize::from((seed ^ j) % 10)])
            .collect(),
    });
    for size in [IdSize::Four, IdSize::Eight] {
        for order in [IdOrder::Little, IdOrder::Big] {
            let mut o = DumpOptions::new(size, order);
            if seed & 1 == 1 {
                o = o.hotspot();
            }
            if let Ok(rec) = object::parse(data, o, &layout) {
                let mut out = Vec::new();
                object::write(&rec, o, &mut out).unwrap();
                assert_eq!(out, data);
            }
        }
    }
});
