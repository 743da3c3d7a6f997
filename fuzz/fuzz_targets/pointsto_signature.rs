#![no_main]
//! Method and field strings, loader prefixes and BCI lists as the reports print them, one per
//! input line: parsing never panics, and what parses prints back to text that parses the same
//! (a method without its loader, with its loader put back; a BCI list).
use libfuzzer_sys::fuzz_target;
use pointsto::call_tree::txt::BciList;
use pointsto::signature::{self, FieldSignature, MethodSignature};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.lines() {
        if let Some(m) = MethodSignature::parse(line) {
            let bare = m.without_loader();
            let again = MethodSignature::parse(&bare).expect("a method without its loader parses");
            assert_eq!(again, MethodSignature { loader: None, ..m });
            if let Some(loader) = m.loader {
                let full = format!("{loader}:{bare}");
                assert_eq!(MethodSignature::parse(&full), Some(m));
                let (host, runtime) = m.loader_parts().expect("a loader has parts");
                assert!(loader.starts_with(host) && loader.ends_with(runtime));
            }
            let _ = m.parameter_types().count();
        }
        if let Some(f) = FieldSignature::parse_root(line) {
            assert!(!f.holder.is_empty() && !f.name.is_empty() && !f.declared_type.is_empty());
        }
        if let Some(f) = FieldSignature::parse_field(line) {
            assert!(f.holder.is_empty() && f.loader.is_none());
        }
        let (loader, name) = signature::split_loader_prefix(line);
        assert!(line.ends_with(name));
        if let Some(loader) = loader {
            assert!(line.starts_with(loader));
        }
        if let Some(list) = BciList::parse(line) {
            let printed = list.to_string();
            let again = BciList::parse(&printed).expect("a printed BCI list parses");
            assert_eq!(again.to_string(), printed);
            assert_eq!(
                again.iter().collect::<Vec<_>>(),
                list.iter().collect::<Vec<_>>()
            );
        }
    }
});
