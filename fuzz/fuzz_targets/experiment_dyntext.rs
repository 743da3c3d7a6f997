//! Fuzzes the other binary files: dyntext records (gprofng loops on size 0), overview prusage
//! records (32/64-bit) and jclasses packets.
#![no_main]
use experiment::cursor::{Endian, WordSize};
use experiment::{dyntext, jclasses::JClasses, overview};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for e in [Endian::Little, Endian::Big] {
        let _ = dyntext::records(data, e).count();
        let _ = dyntext::functions(data, e);
        if let Ok(j) = JClasses::parse(data, e) {
            let _ = j.method(0);
        }
        for w in [WordSize::W32, WordSize::W64] {
            if let Ok(r) = overview::parse(data, e, w) {
                let _ = overview::samples(&r, &[]);
            }
        }
    }
});
