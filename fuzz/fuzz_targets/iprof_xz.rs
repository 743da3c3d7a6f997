//! Any bytes, read as xz data (the xz magic is put in front when missing): decompression
//! returns `Ok` with at most the limit's bytes, or an `Err` with an offset inside the input;
//! never panics, never allocates past the limit. What comes out is read as a profile.
#![no_main]
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let owned;
    let data = if data.starts_with(&iprof::xz::MAGIC) {
        data
    } else {
        owned = [&iprof::xz::MAGIC[..], data].concat();
        &owned[..]
    };
    match iprof::xz::decompress(data, LIMIT) {
        Ok(json) => {
            assert!(json.len() <= LIMIT);
            let _ = iprof::Profile::parse(&json);
        }
        Err(iprof::Error::Xz { offset, .. }) => assert!(offset <= data.len()),
        Err(e) => panic!("not an xz error: {e:?}"),
    }
});
