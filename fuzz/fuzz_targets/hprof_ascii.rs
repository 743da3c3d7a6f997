#![no_main]
//! HPROF ASCII reports: the streaming reader, the recovering parser, the writer and the
//! folded-stack output never panic; error positions lie inside the input; chunked reading
//! matches whole reading; and for valid UTF-8
//! input without CR that parses without errors, writing and re-parsing gives the same model,
//! and writing is idempotent.
use hprof::ascii::{CpuKind, FoldedWeight, Reader, Report};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut entries = 0usize;
    for item in Reader::new(data) {
        entries += 1;
        assert!(entries <= data.len() + 2, "reader does not terminate");
        if let Err(e) = item {
            let p = e.position();
            assert!(
                p.offset <= data.len() && p.line >= 1 && p.column >= 1,
                "{e:?}"
            );
        }
    }

    // Reading in two chunks (split at a point chosen by the first byte) gives the same
    // entries, errors and positions as reading the input whole.
    let whole: Vec<String> = Reader::new(data).map(|e| format!("{e:?}")).collect();
    let split = data
        .first()
        .map_or(0, |&b| usize::from(b) * data.len() / 256);
    let (a, b) = data.split_at(split);
    let mut first = Reader::new(a).partial();
    let mut chunked: Vec<String> = first.by_ref().map(|e| format!("{e:?}")).collect();
    let mut rest = first.consumed_rest().to_vec();
    rest.extend_from_slice(b);
    chunked.extend(Reader::resume(&rest, first.state()).map(|e| format!("{e:?}")));
    assert_eq!(chunked, whole);

    let (report, errors) = Report::parse_recovering(data);
    let text = report.to_text();
    let _ = report.unresolved();
    for kind in [CpuKind::Samples, CpuKind::Time] {
        let _ = report.folded(kind, FoldedWeight::Time);
    }

    if errors.is_empty() && !data.contains(&b'\r') && std::str::from_utf8(data).is_ok() {
        let again = match Report::parse(text.as_bytes()) {
            Ok(r) => r,
            Err(e) => panic!("re-parse of written text failed: {e}\n{text:?}"),
        };
        assert_eq!(again.items, report.items, "{text:?}");
        assert_eq!(again.truncation, report.truncation, "{text:?}");
        assert_eq!(again.to_text(), text);
    }
});
