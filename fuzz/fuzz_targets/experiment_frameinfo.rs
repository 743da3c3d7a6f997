//! Fuzzes data.frameinfo: indexing frame/uid packets and resolving every stack (compressed
//! links, cycles, missing uids, Java infos). The first byte picks byte order and word size.
#![no_main]
use experiment::cursor::{Endian, WordSize};
use experiment::frameinfo::FrameInfo;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let e = if sel & 1 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    let w = if sel & 2 == 0 {
        WordSize::W64
    } else {
        WordSize::W32
    };
    // Also accept whole data.frameinfo files as seeds: little-endian 64-bit over all bytes.
    for (bytes, e, w) in [(rest, e, w), (data, Endian::Little, WordSize::W64)] {
        let fi = FrameInfo::parse(bytes, e, w);
        let uids: Vec<u64> = fi.infos().iter().map(|i| i.uid).collect();
        for uid in uids.iter().take(4096) {
            let _ = fi.stack(*uid);
        }
        // Frame packet uids sit at byte 8 of each packet; try the words of the input too.
        for chunk in bytes.chunks_exact(8).take(4096) {
            let mut a = [0u8; 8];
            a.copy_from_slice(chunk);
            let _ = fi.stack(u64::from_le_bytes(a));
        }
    }
});
