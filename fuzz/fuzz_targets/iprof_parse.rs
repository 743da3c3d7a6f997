//! Any bytes (gzip and xz ones are decompressed first): the reader returns `Ok` or `Err`, never
//! panics; whatever it reads survives validation, naming, folding, merging, and writes back to a
//! profile that reads the same.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if iprof::Compression::detect(data) != iprof::Compression::None {
        // Compressed input: decompress (bounded), then read what came out.
        if let Ok(json) = iprof::decompress(data, 1 << 20) {
            assert!(json.len() <= 1 << 20);
            let _ = iprof::Profile::parse(&*json);
        }
        return;
    }
    let Ok(profile) = iprof::Profile::parse(data) else {
        return;
    };
    let report = profile.validate();
    let _ = report.counts();
    let names = profile.names();
    for section in iprof::Section::ALL {
        for entry in profile.entries(section) {
            let _ = names.context(&entry.ctx).to_string();
        }
    }
    let _ = profile.folded_samples(iprof::folded::FrameNames::Short);
    let _ = profile.total_calls();
    let json = profile.to_json();
    let again = iprof::Profile::parse(&json).expect("written profiles read back");
    assert_eq!(again.types, profile.types);
    assert_eq!(again.methods, profile.methods);
    for section in iprof::Section::ALL {
        if !(profile.layout == iprof::Layout::Legacy && section == iprof::Section::Monitor) {
            assert_eq!(again.section(section), profile.section(section));
        }
    }
    assert_eq!(again.to_json(), json);
    let merged = iprof::merge(&[&profile, &again], &iprof::MergeOptions::default());
    let _ = merged.to_json();
});
