//! Structured: an arbitrary profile writes to JSON that reads back as the same profile.
#![no_main]
use std::borrow::Cow;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    version: String,
    types: Vec<(i64, String)>,
    methods: Vec<(i64, String, Vec<i64>)>,
    sections: [Option<Vec<((u32, i32), Vec<(u32, i32)>, Vec<i64>)>>; 6],
    unknown: Vec<(String, i64)>,
}

fuzz_target!(|input: Input| {
    let mut p = iprof::Profile::new();
    p.version = Cow::Owned(input.version);
    p.types = input
        .types
        .into_iter()
        .map(|(id, name)| iprof::Type {
            id,
            name: Cow::Owned(name),
            extra: iprof::Extra::default(),
        })
        .collect();
    p.methods = input
        .methods
        .into_iter()
        .map(|(id, name, signature)| iprof::Method {
            id,
            name: Cow::Owned(name),
            signature,
            extra: iprof::Extra::default(),
        })
        .collect();
    for (section, entries) in iprof::Section::ALL.into_iter().zip(input.sections) {
        *p.section_mut(section) = entries.map(|entries| {
            entries
                .into_iter()
                .map(|(first, rest, records)| {
                    let frames = std::iter::once(first)
                        .chain(rest)
                        .map(|(m, b)| iprof::Frame::new(m, b));
                    iprof::ProfileEntry::new(
                        iprof::Ctx::from_frames(frames).expect("one frame"),
                        records,
                    )
                })
                .collect()
        });
    }
    for (key, value) in input.unknown {
        // No known key starts with 'x'.
        if key.starts_with('x') && !p.unknown.iter().any(|(k, _)| *k == key) {
            p.unknown.push((
                Cow::Owned(key),
                iprof::RawJson(Cow::Owned(value.to_string())),
            ));
        }
    }
    let json = p.to_json();
    let back = iprof::Profile::parse(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    // Reading remembers the key order; otherwise the profile is the same.
    let mut back_cmp = back.clone();
    back_cmp.key_order.clear();
    assert_eq!(back_cmp, p);
    assert_eq!(back.to_json(), json);
});
