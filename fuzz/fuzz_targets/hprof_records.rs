#![no_main]
use libfuzzer_sys::fuzz_target;

// Not written yet: the crate's issue fills this in.
fuzz_target!(|data: &[u8]| {
    let _ = data;
});
