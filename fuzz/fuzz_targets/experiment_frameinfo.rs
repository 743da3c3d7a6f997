//! Fuzzes data.frameinfo: indexing frame/uid packets and resolving every stack (compressed
//! links, cycles, missing uids, Java infos) and counting its user-view frames with JNI
//! splicing (native PCs named `Java_…` or in the JVM by their low bits). The first byte picks
//! byte order and word size.
#![no_main]
use experiment::cursor::{Endian, WordSize};
use experiment::frameinfo::ExperimentKind;
use experiment::frameinfo::{FrameInfo, NativeFrame, Stack};
use experiment::jclasses::{JClasses, JavaClass, JavaMethod};
use libfuzzer_sys::fuzz_target;

/// Counts `stack`'s user-view frames with every Java method named `p.C.m<id % 4>` and native
/// PCs naming `Java_p_C_m<pc % 4>` (odd PCs), JVM code (PCs with bit 1) or nothing.
fn frames(stack: &Stack) -> usize {
    let methods = stack
        .java
        .iter()
        .take(256)
        .map(|f| JavaMethod {
            method_id: f.method_id,
            name: format!("m{}", f.method_id % 4),
            signature: "()V".into(),
        })
        .collect();
    let mut j = JClasses::default();
    j.push_class(JavaClass {
        class_id: 1,
        tstamp: 0,
        name: "Lp/C;".into(),
        source_file: String::new(),
        methods,
    });
    stack.user_view_frames_jni(ExperimentKind::Java, &j, |pc| NativeFrame {
        function: (pc & 1 == 1).then(|| format!("Java_p_C_m{}", pc % 4)),
        in_jvm: pc & 2 != 0,
    }) + stack.user_view_frames(ExperimentKind::Java)
}

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
            if let Ok(Some(stack)) = fi.stack(*uid) {
                let _ = frames(&stack);
            }
        }
        // Frame packet uids sit at byte 8 of each packet; try the words of the input too.
        for chunk in bytes.chunks_exact(8).take(4096) {
            let mut a = [0u8; 8];
            a.copy_from_slice(chunk);
            let _ = fi.stack(u64::from_le_bytes(a));
        }
    }
});
