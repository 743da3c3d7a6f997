//! Fuzzes the class-file reader (constant pool, methods, Code/LineNumberTable, SourceFile) and
//! line lookups of every method.
#![no_main]
use experiment::classfile::ClassFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(class) = ClassFile::parse(data) {
        for m in class.methods.iter().take(64) {
            for bci in [0u32, 1, m.code_length / 2, m.code_length, u32::MAX] {
                let _ = m.line(bci);
            }
            let _ = class.method(&m.name, &m.descriptor);
        }
    }
});
