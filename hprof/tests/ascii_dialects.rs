//! Dialects and edge cases not covered by the real fixtures (hand-made inputs built from the
//! line formats in hprof.md §2.2, hprof-ascii-output.ja.txt and jvmpi.ja.txt §7), errors with
//! line:column, recovery, truncation.

use hprof::ascii::{
    ClassRefKind, CpuKind, Entry, Error, HeapRecord, Item, LineNumber, MonitorEvent, Reader,
    Report, Section, StackTraceSerial, ThreadSerial, ThreadState, WaitingKind,
};

#[allow(clippy::panic)] // test helper
fn roundtrip(text: &str) -> Report {
    let report = Report::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.to_text(), text);
    report
}

#[test]
fn monitor_dump_time_events_and_old_cpu() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ascii/handmade_monitor_oldcpu.hprof.txt"
    ))
    .unwrap();
    let report = roundtrip(&text);
    let dump = report.monitor_dumps().next().unwrap();
    assert!(dump.ended);
    let threads: Vec<_> = dump.threads().collect();
    assert_eq!(threads.len(), 2);
    assert_eq!(threads[0].status().state, ThreadState::Runnable);
    let s = threads[1].status();
    assert!(s.suspended && s.state == ThreadState::ConditionWait);
    let monitors: Vec<_> = dump.monitors().collect();
    assert_eq!(monitors.len(), 3);
    assert!(monitors[0].header.unowned && monitors[0].owner.is_none());
    assert_eq!(
        monitors[0].header.name,
        "java/lang/ref/Reference$Lock(811bd50)"
    );
    assert_eq!(monitors[0].waiting[0].kind, WaitingKind::ToBeNotified);
    assert_eq!(
        monitors[0].waiting[0].threads().collect::<Vec<_>>(),
        [Some(2)]
    );
    assert_eq!(monitors[1].owner.unwrap().thread, ThreadSerial(8));
    assert_eq!(
        monitors[1].waiting[0].threads().collect::<Vec<_>>(),
        [Some(4), None]
    );
    assert_eq!(monitors[1].waiting[1].threads().count(), 0);
    assert!(monitors[2].header.raw);
    let time = report.monitor_times().next().unwrap();
    assert_eq!(
        (time.begin.total, time.rows[0].trace),
        (5, StackTraceSerial(300123))
    );
    assert_eq!(time.rows[0].class_name(), "java.lang.Object");
    let (_, trace) = report.monitor_time_rows().next().unwrap();
    assert!(trace.is_none());
    assert_eq!(
        report.unresolved()[0],
        hprof::ascii::Unresolved::Thread(ThreadSerial(8))
    );
    let events: Vec<_> = report
        .items
        .iter()
        .filter_map(|i| {
            if let Item::MonitorEvent(e) = i {
                Some(e)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(events.len(), 4);
    assert!(matches!(
        events[1],
        MonitorEvent::Wait {
            thread: None,
            timeout: 0,
            ..
        }
    ));
    assert_eq!(events[2].thread(), Some(ThreadSerial(3)));
    let Some(Item::OldCpu(old)) = report.items.iter().find(|i| matches!(i, Item::OldCpu(_))) else {
        panic!()
    };
    assert_eq!(old.rows.len(), 2);
    assert_eq!(
        old.rows[0].callee.as_deref(),
        Some("java/lang/String.charAt(I)C")
    );
    assert_eq!((old.rows[1].callee.as_deref(), old.rows[1].time), (None, 0));
}

/// The JVMPI-era heap dump lines of hprof-ascii-output.ja.txt (`constant[N]`, `/` names).
#[test]
fn jvmpi_heap_dump_lines() {
    let text = "HEAP DUMP BEGIN (2 objects, 64 bytes) Fri Aug 30 15:37:16 2002
CLS 1123edb0 (name=java/lang/StringBuffer, trace=1318)
\tsuper\t\t111504e8
\tconstant[25]\t8abd48
OBJ 111a9e78 (sz=60, trace=1, class=java/lang/Thread@8b0c38)
\tname\t\t111afbf8
\tinheritedAccessControlContext\t111aa2f0
ARR 8bb978 (sz=4, trace=2, nelems=0, elem type=java/io/ObjectStreamField@8bac80)
ROOT 6f14b0 (kind=<native stack>, thread=3)
ROOT 6f14b0 (kind=<JNI local ref>, thread=3, frame=-1)
HEAP DUMP END\n";
    let report = roundtrip(text);
    let heap = report.heap_dumps().next().unwrap();
    let class = heap.class(0x1123edb0).unwrap();
    assert_eq!(class.refs[1].kind, ClassRefKind::Constant(25));
    let Some(HeapRecord::Instance(o)) = heap.object(0x111a9e78) else {
        panic!()
    };
    assert_eq!(o.instance.class_name, "java/lang/Thread");
    assert_eq!(o.fields[1].name, "inheritedAccessControlContext");
    let n = heap.counts();
    assert_eq!((n.roots, n.classes, n.instances, n.arrays), (2, 1, 1, 1));
}

/// Android `AsciiHprofWriter` and `StackTraceElement`-style frames, `(thread=N)`, phases.
#[test]
fn android_and_trace_header_forms() {
    let text = "THREAD START (obj=123456, id = 2, name=\"main\", group=\"main\")
TRACE 1: (thread=2)
\tjava.lang.Object.wait(Native Method)
\tcom.example.Foo.bar(Foo.java)
\tcom.example.Baz.run(Unknown Source)
\tjava.lang.String.(String.java:244)
\tFoo.compiled(Foo.java:Compiled method)
\tFoo.<Unknown Method>(<Unknown Source>:Unknown line)
TRACE 2: (from primordial phase of JVM)
\t<empty>
CPU SAMPLES BEGIN (total = 3) Thu Aug 29 16:41:59 2002
rank   self  accum   count trace method
   1 66.67% 66.67%       2     1 java.lang.Object.wait
   2 33.33% 100.00%       1     2 <empty trace>
CPU SAMPLES END\n";
    let report = roundtrip(text);
    let t = report.trace(StackTraceSerial(1)).unwrap();
    assert_eq!(t.header.thread, Some(ThreadSerial(2)));
    assert_eq!(report.trace_thread(t).unwrap().name, "main");
    assert!(t.frames[0].is_native());
    assert_eq!(
        (t.frames[1].source.as_str(), &t.frames[1].line),
        ("Foo.java", &LineNumber::Absent)
    );
    assert_eq!(t.frames[3].method_name(), "");
    assert_eq!(t.frames[3].class_name(), "java.lang.String");
    assert_eq!(t.frames[4].line, LineNumber::Compiled);
    assert_eq!(t.frames[5].line, LineNumber::Unknown);
    assert_eq!(
        report
            .trace(StackTraceSerial(2))
            .unwrap()
            .header
            .phase
            .as_deref(),
        Some("primordial")
    );
    assert_eq!(report.thread(ThreadSerial(2)).unwrap().obj, 0x123456);
    let cpu = report.cpu(CpuKind::Samples).next().unwrap();
    assert_eq!(cpu.rows[1].method, None);
    let folded = report.folded_text(CpuKind::Samples, hprof::ascii::FoldedWeight::Count);
    assert!(folded.starts_with("<empty trace> 1\nFoo.<Unknown Method>;Foo.compiled;java.lang.String.;com.example.Baz.run;com.example.Foo.bar;java.lang.Object.wait 2\n"), "{folded}");
    assert!(folded.contains("<empty trace> 1\n"), "{folded}");
}

#[test]
fn glibc_ctime_and_empty_cpu_table() {
    let text = "SITES BEGIN (ordered by allocated bytes) Wed Oct  7 11:38:10 1998
          percent          live          alloc'ed  stack class
 rank   self  accum     bytes objs     bytes  objs trace name
    1  9.18%  9.18%    149224 5916   1984600 129884  1073 char[]
SITES END
CPU TIME (ms) BEGIN (total = 0) Wed Oct  7 11:38:10 1998
CPU TIME (ms) END
MONITOR TIME BEGIN (total = 0 ms) Thu Aug 29 16:41:59 2002
MONITOR TIME END\n";
    let report = roundtrip(text);
    let sites = report.sites().next().unwrap();
    assert_eq!(sites.begin.ordered_by, "allocated bytes");
    assert_eq!(sites.rows[0].alloc_objects, 129884);
    let t = hprof::ascii::Ctime::parse(&sites.begin.created).unwrap();
    assert_eq!((t.day, t.month, t.year), (7, 10, 1998));
    let cpu = report.cpu(CpuKind::Time).next().unwrap();
    assert!(cpu.rows.is_empty() && cpu.column_header.is_none() && cpu.ended);
}

#[test]
fn errors_have_line_and_column_and_reading_continues() {
    let text = b"THREAD START (obj=1, id = 1, name=\"a\", group=\"b\")
THREAD END (id = x)
\tA.b(A.java:1)
TRACE 99999999999:
THREAD END (id = 1)\n";
    let mut reader = Reader::new(text);
    assert!(matches!(
        reader.next_entry().unwrap().unwrap().entry,
        Entry::ThreadStart(_)
    ));
    let e = reader.next_entry().unwrap_err();
    assert!(matches!(e, Error::Syntax { .. }), "{e:?}");
    assert_eq!((e.position().line, e.position().column), (2, 18));
    assert!(
        e.to_string().starts_with("2:18: expected a decimal number"),
        "{e}"
    );
    let e = reader.next_entry().unwrap_err();
    assert!(matches!(e, Error::Misplaced { .. }), "{e}");
    assert_eq!(e.position().line, 3);
    let e = reader.next_entry().unwrap_err();
    assert!(matches!(e, Error::NumberOutOfRange { .. }), "{e}");
    assert_eq!((e.position().line, e.position().column), (4, 7));
    assert!(matches!(
        reader.next_entry().unwrap().unwrap().entry,
        Entry::ThreadEnd(_)
    ));
    assert!(reader.next_entry().unwrap().is_none());

    // Strict parse stops at the first error; the recovering one keeps the bad lines.
    assert!(Report::parse(text).is_err());
    let (report, errors) = Report::parse_recovering(text);
    assert_eq!(errors.len(), 3);
    assert_eq!(report.to_text().as_bytes(), text);
    assert_eq!(
        report
            .items
            .iter()
            .filter(|i| matches!(i, Item::Unparsed(_)))
            .count(),
        3
    );
}

#[test]
fn heap_record_errors_point_at_the_field() {
    let text = b"HEAP DUMP BEGIN (0 objects, 0 bytes) Sun Jul 28 00:19:32 2019\n\
CLS 1 (name=a.B, trace=zz)\n\
OBJ 2 (sz=1, trace=1, class=a.B@fffffffffffffffff)\n\
ROOT 3 (kind=<weird>)\n\
HEAP DUMP END\n";
    let errors: Vec<Error> = Reader::new(text).filter_map(Result::err).collect();
    let at: Vec<(usize, usize)> = errors
        .iter()
        .map(|e| (e.position().line, e.position().column))
        .collect();
    assert_eq!(at, [(2, 24), (3, 33), (4, 15)], "{errors:?}");
    assert!(matches!(errors[1], Error::NumberOutOfRange { .. }));
}

#[test]
fn invalid_utf8_is_an_error_with_position() {
    let text = b"THREAD END (id = 1)\nTHREAD START (obj=1, id = 2, name=\"\xff\", group=\"\")\nTHREAD END (id = 2)\n";
    let results: Vec<_> = Reader::new(text).collect();
    assert_eq!(results.len(), 3);
    let e = results[1].as_ref().unwrap_err();
    assert_eq!(
        *e,
        Error::InvalidUtf8 {
            position: e.position(),
            found: 0xff
        }
    );
    assert_eq!((e.position().line, e.position().column), (2, 36));
    assert!(results[2].is_ok());
}

#[test]
fn truncation_marks_open_section_and_partial_line() {
    let text = "HEAP DUMP BEGIN (1 objects, 8 bytes) Sun Jul 28 00:19:32 2019\nROOT 1 (kind=<unknown>)\nOBJ 5000";
    let entries: Vec<_> = Reader::new(text.as_bytes()).map(Result::unwrap).collect();
    assert_eq!(entries.len(), 3);
    let Entry::Truncated(t) = &entries[2].entry else {
        panic!()
    };
    assert_eq!(
        (t.open_section, t.partial_line),
        (Some(Section::HeapDump), Some("OBJ 5000"))
    );
    assert_eq!(entries[2].position.line, 3);
    let report = Report::parse(text.as_bytes()).unwrap();
    assert!(report.is_truncated());
    assert_eq!(report.to_text(), text);

    // Killed inside the prelude: header + part of the prelude.
    let text =
        "JAVA PROFILE 1.0.1, created Sun Jul 28 00:19:32 2019\n\nHeader for -agentlib:hprof\n";
    let report = Report::parse(text.as_bytes()).unwrap();
    assert_eq!(
        report.truncation.as_ref().unwrap().open_section,
        Some(Section::Prelude)
    );
    assert_eq!(report.prelude(), Some("\nHeader for -agentlib:hprof\n"));
    assert_eq!(report.to_text(), text);
}

#[test]
fn empty_and_garbage_input_never_panic() {
    assert!(Report::parse(b"").unwrap().items.is_empty());
    let (report, errors) = Report::parse_recovering(b"\0\0\n\xff\xfe\r\n--------\n\tx\n");
    assert_eq!(errors.len(), 3);
    assert_eq!(report.items.len(), 4);
}
