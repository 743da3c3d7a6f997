//! Java class files (`jdynclasses/`, archived copies) as the symbolizer reads them for source
//! lines: parsing any bytes never panics and gives an error with a position or a class whose
//! methods can be looked up by name and descriptor and answer a line for any bytecode index
//! (one inside the method's code and at or past its first line-table entry when they do).
#![no_main]
use experiment::classfile::ClassFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(class) = ClassFile::parse(data) else {
        return;
    };
    for m in class.methods.iter().take(256) {
        let found = class
            .method(&m.name, &m.descriptor)
            .expect("a method is found by its own name and descriptor");
        assert_eq!((&found.name, &found.descriptor), (&m.name, &m.descriptor));
        for bci in [
            0,
            1,
            m.code_length.saturating_sub(1),
            m.code_length,
            u32::MAX,
        ] {
            if m.line(bci).is_some() {
                assert!(bci < m.code_length);
                assert!(m.line_numbers.iter().any(|l| u32::from(l.start_pc) <= bci));
            }
        }
        for l in m.line_numbers.iter().take(256) {
            if u32::from(l.start_pc) < m.code_length {
                assert!(m.line(u32::from(l.start_pc)).is_some());
            }
        }
    }
});
