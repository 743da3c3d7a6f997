//! The three real `java.hprof.txt` fixtures (see tests/data/ascii/PROVENANCE.txt): complete
//! parses, byte-identical re-emission, positions, resolved references, truncation at every
//! cut point, folded stacks.

use hprof::ascii::{
    CpuKind, Entry, FoldedWeight, HeapRecord, Item, LineEnding, LineNumber, Reader, Report,
    RootKind, Section, StackTraceSerial, ThreadSerial, Unresolved,
};
use std::path::Path;

const FIXTURES: [&str; 3] = [
    "SimNet_java.hprof.txt",
    "jvm-in-action_java.hprof.txt",
    "optimization_java.hprof.txt",
];

#[allow(clippy::unwrap_used)] // test helper
fn read(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/ascii")
            .join(name),
    )
    .unwrap()
}

#[test]
fn every_fixture_parses_without_error_and_re_emits_byte_identically() {
    for name in FIXTURES {
        let bytes = read(name);
        for item in Reader::new(&bytes) {
            item.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let report = Report::parse(&bytes).unwrap();
        assert!(!report.is_truncated(), "{name}");
        assert_eq!(report.to_text().as_bytes(), &bytes[..], "{name}");
        // Streaming writer gives the same bytes.
        let mut out = String::new();
        for item in Reader::new(&bytes) {
            hprof::ascii::write_entry(
                &mut out,
                &item.unwrap().entry,
                LineEnding::from_input(&bytes),
            );
        }
        assert_eq!(out.as_bytes(), &bytes[..], "{name} (streaming)");
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_keeps_model_and_indexes() {
    for name in FIXTURES {
        let report = Report::parse(&read(name)).unwrap();
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report, "{name}");
        assert_eq!(
            back.trace(StackTraceSerial(300000)).is_some(),
            report.trace(StackTraceSerial(300000)).is_some()
        );
    }
}

#[test]
fn simnet_jvmpi_dialect() {
    let report = Report::parse(&read("SimNet_java.hprof.txt")).unwrap();
    let header = report.header().unwrap();
    assert_eq!(header.format, "JAVA PROFILE 1.0.1");
    assert_eq!(header.created, "Mon Feb 04 08:11:54 2002");
    let t = header.created_time().unwrap();
    assert_eq!((t.year, t.month, t.day, t.hour), (2002, 2, 4, 8));
    assert!(
        report
            .prelude()
            .unwrap()
            .contains("Header for -Xhprof ASCII Output")
    );
    assert_eq!(report.line_ending, LineEnding::Lf);
    assert_eq!(report.thread(ThreadSerial(7)).unwrap().name, "Thread-0");
    assert_eq!(report.thread(ThreadSerial(1)).unwrap().obj, 0x6f14b0);
    // TRACE 9 is `<empty>`.
    let t9 = report.trace(StackTraceSerial(9)).unwrap();
    assert!(t9.empty_marker && t9.frames.is_empty());
    // Native method / Unknown line frames.
    let frames: Vec<_> = report.traces().flat_map(|t| &t.frames).collect();
    assert_eq!(
        frames
            .iter()
            .filter(|f| f.line == LineNumber::Native)
            .count(),
        12
    );
    assert!(frames.iter().any(|f| f.line == LineNumber::Unknown));
    // Every CPU row resolves to a trace whose top frame is the row's method.
    let cpu = report.cpu(CpuKind::Samples).next().unwrap();
    assert!(cpu.ended);
    for row in &cpu.rows {
        let trace = report.trace(row.trace).unwrap();
        assert_eq!(
            Some(trace.frames[0].method.as_str()),
            row.method.as_deref(),
            "trace {}",
            row.trace
        );
    }
    assert_eq!(cpu.rows[0].self_percent.value(), Some(24.67));
    let resolved: Vec<_> = report.cpu_rows(CpuKind::Samples).collect();
    assert_eq!(resolved.len(), 91);
    assert!(resolved.iter().all(|(_, t)| t.is_some()));
    assert_eq!(resolved[0].1.unwrap().serial(), StackTraceSerial(30));
    assert_eq!(cpu.rows.last().unwrap().accum_percent.text, "100.00");
    assert_eq!(report.unresolved(), vec![]);
}

#[test]
fn jvm_in_action_crlf_cpu_times() {
    let bytes = read("jvm-in-action_java.hprof.txt");
    let report = Report::parse(&bytes).unwrap();
    assert_eq!(report.line_ending, LineEnding::CrLf);
    let cpu = report.cpu(CpuKind::Time).next().unwrap();
    assert_eq!(cpu.begin.total, 11279);
    assert_eq!(
        cpu.rows[0].method.as_deref(),
        Some("geym.zbase.ch6.hold.HProfTest.slowerMethod")
    );
    let top = report.trace(cpu.rows[0].trace).unwrap();
    assert_eq!(top.frames.len(), 2);
    assert_eq!(top.frames[1].method_name(), "main");
    assert_eq!(top.frames[1].line, LineNumber::Unknown);
    // Positions: the CPU TIME line number, counted independently.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let want_line = text
        .lines()
        .position(|l| l.starts_with("CPU TIME (ms) BEGIN"))
        .unwrap()
        + 1;
    let begin = Reader::new(&bytes)
        .map(Result::unwrap)
        .find(|e| matches!(e.entry, Entry::CpuBegin(_)))
        .unwrap();
    assert_eq!(begin.position.line, want_line);
    assert_eq!(
        &bytes[begin.position.offset..begin.position.offset + 13],
        b"CPU TIME (ms)"
    );
    // Folded stacks: time weights are self% × total.
    let folded = report.folded(CpuKind::Time, FoldedWeight::Time);
    let slow = folded
        .iter()
        .find(|f| {
            f.stack
                == "geym.zbase.ch6.hold.HProfTest.main;geym.zbase.ch6.hold.HProfTest.slowerMethod"
        })
        .unwrap();
    assert_eq!(slow.weight, (88.68f64 * 11279.0 / 100.0).round() as u64);
    let by_count = report.folded(CpuKind::Time, FoldedWeight::Count);
    assert_eq!(
        by_count.iter().map(|f| f.weight).sum::<u64>(),
        cpu.rows.iter().map(|r| r.count).sum::<u64>()
    );
}

#[test]
fn optimization_heap_dump_and_sites() {
    let bytes = read("optimization_java.hprof.txt");
    let report = Report::parse(&bytes).unwrap();
    let heap = report.heap_dumps().next().unwrap();
    assert!(heap.ended);
    assert_eq!((heap.begin.objects, heap.begin.bytes), (841, 427592));
    // Objects by address.
    let Some(HeapRecord::Instance(o)) = heap.object(0x500001ff) else {
        panic!()
    };
    assert_eq!(o.instance.class_name, "java.io.ObjectStreamField");
    assert_eq!(o.fields.len(), 3);
    assert_eq!(
        (o.fields[1].name.as_str(), o.fields[1].value),
        ("signature", 0x500005ba)
    );
    let class = heap.class(o.instance.class_id).unwrap();
    assert_eq!(class.class.name, "java.io.ObjectStreamField");
    let Some(HeapRecord::Array(a)) = heap.object(0x500001e3) else {
        panic!()
    };
    assert_eq!(a.array.class_id, Some(0x50000159));
    assert_eq!(a.elements.len(), 3);
    let Some(HeapRecord::Array(p)) = heap.object(0x500001fe) else {
        panic!()
    };
    assert_eq!(
        (p.array.elem_type.as_str(), p.array.class_id, p.array.length),
        ("char[]", None, 22)
    );
    let thread = heap.class(0x500001a9).unwrap();
    assert_eq!(thread.refs.len(), 12);
    // Root kinds as counted with grep.
    let roots: Vec<_> = heap
        .records
        .iter()
        .filter_map(|r| {
            if let HeapRecord::Root(r) = r {
                Some(r)
            } else {
                None
            }
        })
        .collect();
    let count = |f: fn(&RootKind<String>) -> bool| roots.iter().filter(|r| f(&r.kind)).count();
    assert_eq!(count(|k| matches!(k, RootKind::JniGlobal { .. })), 570);
    assert_eq!(count(|k| matches!(k, RootKind::SystemClass { .. })), 621);
    assert_eq!(count(|k| matches!(k, RootKind::Unknown)), 275);
    assert_eq!(count(|k| matches!(k, RootKind::JavaStack { .. })), 35);
    assert_eq!(count(|k| matches!(k, RootKind::BusyMonitor)), 2);
    // Sites resolve to traces.
    let sites = report.sites().next().unwrap();
    assert_eq!(sites.begin.ordered_by, "live bytes");
    assert_eq!(sites.column_headers.len(), 2);
    assert_eq!(sites.rows[18].alloc_bytes, 4632);
    for (row, trace) in report.site_rows() {
        assert!(trace.is_some(), "site trace {}", row.trace);
    }
    assert_eq!(report.site_rows().count(), 596);
    // Every OBJ's class is dumped; every trace is defined.
    let unresolved = report.unresolved();
    assert!(
        unresolved
            .iter()
            .all(|u| !matches!(u, Unresolved::Trace(_))),
        "{unresolved:?}"
    );
    // HEAP DUMP BEGIN and SITES BEGIN are on lines 2377 and 20954 (grep -n).
    let lines: Vec<usize> = Reader::new(&bytes)
        .map(Result::unwrap)
        .filter(|e| matches!(e.entry, Entry::HeapDumpBegin(_) | Entry::SitesBegin(_)))
        .map(|e| e.position.line)
        .collect();
    assert_eq!(lines, [2377, 20954]);
}

/// Cut every fixture at many byte offsets: every complete entry is kept, the end is marked,
/// nothing errors, and re-emission gives back exactly the cut text.
#[test]
fn truncated_at_any_point() {
    for name in FIXTURES {
        let bytes = read(name);
        let step = if bytes.len() > 100_000 { 30_011 } else { 17 };
        let full: Vec<_> = Reader::new(&bytes).map(Result::unwrap).collect();
        for cut in (0..bytes.len()).step_by(step) {
            let prefix = &bytes[..cut];
            let (report, errors) = Report::parse_recovering(prefix);
            assert!(errors.is_empty(), "{name} cut at {cut}: {errors:?}");
            assert_eq!(report.to_text().as_bytes(), prefix, "{name} cut at {cut}");
            let entries: Vec<_> = Reader::new(prefix).map(Result::unwrap).collect();
            let (last, complete) = match entries.split_last() {
                Some((l, rest)) if matches!(l.entry, Entry::Truncated(_)) => (Some(l), rest),
                _ => (None, &entries[..]),
            };
            // Complete entries equal those of the whole file, except a prelude cut short.
            for (a, b) in complete.iter().zip(&full) {
                if !matches!(a.entry, Entry::Prelude(_)) {
                    assert_eq!(a, b, "{name} cut at {cut}");
                }
            }
            let ends_mid_line = cut > 0 && bytes[cut - 1] != b'\n';
            if ends_mid_line {
                let Some(Entry::Truncated(t)) = last.map(|l| &l.entry) else {
                    panic!("{name} cut at {cut}: no truncation marker")
                };
                assert!(t.partial_line.is_some() || t.open_section == Some(Section::Prelude));
            }
        }
    }
}

#[test]
fn heap_dump_cut_before_end_is_an_open_section() {
    let bytes = read("optimization_java.hprof.txt");
    let text = std::str::from_utf8(&bytes).unwrap();
    let cut = text.find("HEAP DUMP END").unwrap();
    let report = Report::parse(&bytes[..cut]).unwrap();
    let t = report.truncation.as_ref().unwrap();
    assert_eq!(
        (t.open_section, t.partial_line.as_deref()),
        (Some(Section::HeapDump), None)
    );
    let heap = report.heap_dumps().next().unwrap();
    assert!(!heap.ended);
    let n = heap.counts();
    assert_eq!(
        (n.roots, n.classes, n.instances, n.arrays),
        (1519, 558, 3060, 2058)
    );
    // A stray `.TMP` heap file: starts at HEAP DUMP BEGIN, no header, no END.
    let start = text.find("HEAP DUMP BEGIN").unwrap();
    let tmp = &bytes[start..cut];
    let report = Report::parse(tmp).unwrap();
    assert!(report.header().is_none());
    assert_eq!(
        report.truncation.as_ref().unwrap().open_section,
        Some(Section::HeapDump)
    );
    assert_eq!(report.to_text().as_bytes(), tmp);
    assert!(matches!(report.items[0], Item::HeapDump(_)));
}

/// Dumps repeated in one file (one per Ctrl-\ / Ctrl-Break): counts add up, text is kept.
#[test]
fn repeated_dumps_are_summed() {
    let bytes = read("optimization_java.hprof.txt");
    let text = String::from_utf8(bytes).unwrap();
    let heap_at = text.find("HEAP DUMP BEGIN").unwrap();
    let twice = format!("{text}{}", &text[heap_at..]);
    let report = Report::parse(twice.as_bytes()).unwrap();
    assert_eq!(report.to_text(), twice);
    let dumps: Vec<_> = report.heap_dumps().collect();
    assert_eq!(dumps.len(), 2);
    assert_eq!(dumps[0], dumps[1]);
    assert_eq!(report.sites().map(|s| s.rows.len()).sum::<usize>(), 2 * 596);
    let (roots, objects): (usize, usize) = dumps
        .iter()
        .map(|d| d.counts())
        .fold((0, 0), |a, c| (a.0 + c.roots, a.1 + c.instances));
    assert_eq!((roots, objects), (2 * 1519, 2 * 3060));
}

/// Feeding a report in chunks of any size gives the same entries, with the same positions,
/// as reading it whole.
#[test]
fn chunked_reading_matches_whole_file() {
    for name in FIXTURES {
        let bytes = read(name);
        let whole: Vec<String> = Reader::new(&bytes)
            .map(|e| format!("{:?}", e.unwrap()))
            .collect();
        for chunk in [1usize, 7, 100, 4096, 65_536] {
            if bytes.len() > 100_000 && chunk < 4096 {
                continue;
            }
            let mut got = Vec::new();
            let mut state = None;
            let mut buffer: Vec<u8> = Vec::new();
            let mut chunks = bytes.chunks(chunk).peekable();
            while let Some(next) = chunks.next() {
                buffer.extend_from_slice(next);
                let last = chunks.peek().is_none();
                let reader = match state {
                    None => Reader::new(&buffer),
                    Some(s) => Reader::resume(&buffer, s),
                };
                let mut reader = if last { reader } else { reader.partial() };
                for e in reader.by_ref() {
                    got.push(format!("{:?}", e.unwrap()));
                }
                state = Some(reader.state());
                buffer = reader.consumed_rest().to_vec();
            }
            assert_eq!(got, whole, "{name} in chunks of {chunk}");
        }
    }
}
