//! Fuzzes the other binary files: dyntext records (gprofng loops on size 0), overview prusage
//! records (32/64-bit), jclasses packets, and ELF load objects (headers, program/section
//! headers, .symtab/.dynsym function symbols, address lookups).
#![no_main]
use experiment::cursor::{Endian, WordSize};
use experiment::{dyntext, elf::Elf, jclasses::JClasses, overview};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(elf) = Elf::parse(data) {
        let base = elf.load_address().unwrap_or(0);
        for f in elf.functions.iter().take(64) {
            let _ = elf.function(f.address.wrapping_add(f.size / 2));
            let _ = elf.function(f.address.wrapping_sub(1));
        }
        for off in [0u64, 1, 0x1000, u64::MAX] {
            let _ = elf.address_of_offset(off);
            let _ = elf.function(base.wrapping_add(off));
        }
    }
    for e in [Endian::Little, Endian::Big] {
        let _ = dyntext::records(data, e).count();
        let _ = dyntext::functions(data, e);
        let (salvaged, stopped) = JClasses::parse_salvaging(data, e);
        assert!(
            stopped.is_some() || JClasses::parse(data, e).is_ok(),
            "salvaging stops where parsing fails"
        );
        let _ = salvaged.method(0);
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
