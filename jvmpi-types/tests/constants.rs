//! Every constant checked against the table of `shared/formats/jvmpi.md` §2 (confirmed there
//! from every Sun `jvmpi.h`, JDK 1.2.1 – 5.0), transcribed below, and against the tables of
//! that section itself (a copy committed in `tests/data/`).

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use jvmpi_types::constants::{self, raw};
use jvmpi_types::{
    DumpLevel, EventType, HeapDumpTag, MonitorDumpTag, Priority, ReturnCode, ThreadState,
    ThreadStatus, TypeCode, Version,
};

/// (header name, value) exactly as in jvmpi.md §2 — 90 names.
const TABLE: &[(&str, i64)] = &[
    ("JVMPI_VERSION_1", 0x10000001),
    ("JVMPI_VERSION_1_1", 0x10000002),
    ("JVMPI_VERSION_1_2", 0x10000003),
    ("JVMPI_EVENT_METHOD_ENTRY", 1),
    ("JVMPI_EVENT_METHOD_ENTRY2", 2),
    ("JVMPI_EVENT_METHOD_EXIT", 3),
    ("JVMPI_EVENT_OBJECT_ALLOC", 4),
    ("JVMPI_EVENT_OBJECT_FREE", 5),
    ("JVMPI_EVENT_OBJECT_MOVE", 6),
    ("JVMPI_EVENT_COMPILED_METHOD_LOAD", 7),
    ("JVMPI_EVENT_COMPILED_METHOD_UNLOAD", 8),
    ("JVMPI_EVENT_INSTRUCTION_START", 9),
    ("JVMPI_EVENT_THREAD_START", 33),
    ("JVMPI_EVENT_THREAD_END", 34),
    ("JVMPI_EVENT_CLASS_LOAD_HOOK", 35),
    ("JVMPI_EVENT_HEAP_DUMP", 37),
    ("JVMPI_EVENT_JNI_GLOBALREF_ALLOC", 38),
    ("JVMPI_EVENT_JNI_GLOBALREF_FREE", 39),
    ("JVMPI_EVENT_JNI_WEAK_GLOBALREF_ALLOC", 40),
    ("JVMPI_EVENT_JNI_WEAK_GLOBALREF_FREE", 41),
    ("JVMPI_EVENT_CLASS_LOAD", 42),
    ("JVMPI_EVENT_CLASS_UNLOAD", 43),
    ("JVMPI_EVENT_DATA_DUMP_REQUEST", 44),
    ("JVMPI_EVENT_DATA_RESET_REQUEST", 45),
    ("JVMPI_EVENT_JVM_INIT_DONE", 46),
    ("JVMPI_EVENT_JVM_SHUT_DOWN", 47),
    ("JVMPI_EVENT_ARENA_NEW", 48),
    ("JVMPI_EVENT_ARENA_DELETE", 49),
    ("JVMPI_EVENT_OBJECT_DUMP", 50),
    ("JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTER", 51),
    ("JVMPI_EVENT_RAW_MONITOR_CONTENDED_ENTERED", 52),
    ("JVMPI_EVENT_RAW_MONITOR_CONTENDED_EXIT", 53),
    ("JVMPI_EVENT_MONITOR_CONTENDED_ENTER", 54),
    ("JVMPI_EVENT_MONITOR_CONTENDED_ENTERED", 55),
    ("JVMPI_EVENT_MONITOR_CONTENDED_EXIT", 56),
    ("JVMPI_EVENT_MONITOR_WAIT", 57),
    ("JVMPI_EVENT_MONITOR_WAITED", 58),
    ("JVMPI_EVENT_MONITOR_DUMP", 59),
    ("JVMPI_EVENT_GC_START", 60),
    ("JVMPI_EVENT_GC_FINISH", 61),
    ("JVMPI_MAX_EVENT_TYPE_VAL", 61),
    ("JVMPI_EVENT_LOAD_COMPILED_METHOD", 7),
    ("JVMPI_EVENT_UNLOAD_COMPILED_METHOD", 8),
    ("JVMPI_EVENT_NEW_ARENA", 48),
    ("JVMPI_EVENT_DELETE_ARENA", 49),
    ("JVMPI_EVENT_DUMP_DATA_REQUEST", 44),
    ("JVMPI_EVENT_RESET_DATA_REQUEST", 45),
    ("JVMPI_EVENT_OBJ_ALLOC", 4),
    ("JVMPI_EVENT_OBJ_FREE", 5),
    ("JVMPI_EVENT_OBJ_MOVE", 6),
    ("JVMPI_REQUESTED_EVENT", 0x10000000),
    ("JVMPI_SUCCESS", 0),
    ("JVMPI_NOT_AVAILABLE", 1),
    ("JVMPI_FAIL", -1),
    ("JVMPI_THREAD_RUNNABLE", 1),
    ("JVMPI_THREAD_MONITOR_WAIT", 2),
    ("JVMPI_THREAD_CONDVAR_WAIT", 3),
    ("JVMPI_THREAD_SUSPENDED", 0x8000),
    ("JVMPI_THREAD_INTERRUPTED", 0x4000),
    ("JVMPI_MINIMUM_PRIORITY", 1),
    ("JVMPI_NORMAL_PRIORITY", 5),
    ("JVMPI_MAXIMUM_PRIORITY", 10),
    ("JVMPI_NORMAL_OBJECT", 0),
    ("JVMPI_CLASS", 2),
    ("JVMPI_BOOLEAN", 4),
    ("JVMPI_CHAR", 5),
    ("JVMPI_FLOAT", 6),
    ("JVMPI_DOUBLE", 7),
    ("JVMPI_BYTE", 8),
    ("JVMPI_SHORT", 9),
    ("JVMPI_INT", 10),
    ("JVMPI_LONG", 11),
    ("JVMPI_MONITOR_JAVA", 0x01),
    ("JVMPI_MONITOR_RAW", 0x02),
    ("JVMPI_GC_ROOT_UNKNOWN", 0xff),
    ("JVMPI_GC_ROOT_JNI_GLOBAL", 0x01),
    ("JVMPI_GC_ROOT_JNI_LOCAL", 0x02),
    ("JVMPI_GC_ROOT_JAVA_FRAME", 0x03),
    ("JVMPI_GC_ROOT_NATIVE_STACK", 0x04),
    ("JVMPI_GC_ROOT_STICKY_CLASS", 0x05),
    ("JVMPI_GC_ROOT_THREAD_BLOCK", 0x06),
    ("JVMPI_GC_ROOT_MONITOR_USED", 0x07),
    ("JVMPI_GC_ROOT_THREAD_OBJ", 0x08),
    ("JVMPI_GC_CLASS_DUMP", 0x20),
    ("JVMPI_GC_INSTANCE_DUMP", 0x21),
    ("JVMPI_GC_OBJ_ARRAY_DUMP", 0x22),
    ("JVMPI_GC_PRIM_ARRAY_DUMP", 0x23),
    ("JVMPI_DUMP_LEVEL_0", 0),
    ("JVMPI_DUMP_LEVEL_1", 1),
    ("JVMPI_DUMP_LEVEL_2", 2),
];

fn table_value(name: &str) -> i64 {
    TABLE
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} not in the table"))
        .1
}

#[test]
fn table_has_90_distinct_names() {
    assert_eq!(TABLE.len(), 90);
    let mut names: Vec<_> = TABLE.iter().map(|(n, _)| *n).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 90);
}

#[test]
fn raw_consts_match_the_table_exactly() {
    assert_eq!(raw::ALL, TABLE);
    // Spot-check that the named consts are the ones listed.
    assert_eq!(raw::JVMPI_EVENT_METHOD_ENTRY2, 2);
    assert_eq!(raw::JVMPI_GC_ROOT_UNKNOWN, 0xff);
    assert_eq!(raw::JVMPI_FAIL, -1);
    assert_eq!(raw::JVMPI_VERSION_1_2, 0x1000_0003);
}

/// Every enum value is in the table under its Display name, with the same value, and
/// TryFrom gives it back.
macro_rules! check_enum {
    ($ty:ty, $prefix:literal, $count:expr) => {{
        assert_eq!(<$ty>::ALL.len(), $count, stringify!($ty));
        for &v in <$ty>::ALL {
            let name = v.to_string();
            assert!(name.starts_with($prefix), "{name}");
            assert_eq!(i64::from(v.raw()), table_value(&name), "{name}");
            assert_eq!(<$ty>::try_from(v.raw()).unwrap(), v);
        }
        // Table entries with the prefix map onto the enum (bar the non-enum ones).
        let listed = TABLE.iter().filter(|(n, _)| n.starts_with($prefix)).count();
        listed
    }};
}

#[test]
fn enums_match_the_table() {
    check_enum!(Version, "JVMPI_VERSION_", 3);
    let events = check_enum!(EventType, "JVMPI_EVENT_", 37);
    assert_eq!(events, 37 + 9, "37 event types + 9 legacy aliases");
    check_enum!(ReturnCode, "JVMPI_", 3);
    check_enum!(ThreadState, "JVMPI_THREAD_", 3);
    check_enum!(Priority, "JVMPI_", 3);
    check_enum!(TypeCode, "JVMPI_", 10);
    check_enum!(MonitorDumpTag, "JVMPI_MONITOR_", 2);
    let tags = check_enum!(HeapDumpTag, "JVMPI_GC_", 13);
    assert_eq!(tags, 13);
    let levels = check_enum!(DumpLevel, "JVMPI_DUMP_LEVEL_", 3);
    assert_eq!(levels, 3);
}

#[test]
fn flags_and_aliases_match_the_table() {
    assert_eq!(
        i64::from(constants::REQUESTED_EVENT),
        table_value("JVMPI_REQUESTED_EVENT")
    );
    assert_eq!(
        i64::from(constants::MAX_EVENT_TYPE_VAL),
        table_value("JVMPI_MAX_EVENT_TYPE_VAL")
    );
    assert_eq!(
        i64::from(constants::THREAD_SUSPENDED),
        table_value("JVMPI_THREAD_SUSPENDED")
    );
    assert_eq!(
        i64::from(constants::THREAD_INTERRUPTED),
        table_value("JVMPI_THREAD_INTERRUPTED")
    );
    for (alias, v) in [
        (
            "JVMPI_EVENT_LOAD_COMPILED_METHOD",
            EventType::LOAD_COMPILED_METHOD,
        ),
        (
            "JVMPI_EVENT_UNLOAD_COMPILED_METHOD",
            EventType::UNLOAD_COMPILED_METHOD,
        ),
        ("JVMPI_EVENT_NEW_ARENA", EventType::NEW_ARENA),
        ("JVMPI_EVENT_DELETE_ARENA", EventType::DELETE_ARENA),
        (
            "JVMPI_EVENT_DUMP_DATA_REQUEST",
            EventType::DUMP_DATA_REQUEST,
        ),
        (
            "JVMPI_EVENT_RESET_DATA_REQUEST",
            EventType::RESET_DATA_REQUEST,
        ),
        ("JVMPI_EVENT_OBJ_ALLOC", EventType::OBJ_ALLOC),
        ("JVMPI_EVENT_OBJ_FREE", EventType::OBJ_FREE),
        ("JVMPI_EVENT_OBJ_MOVE", EventType::OBJ_MOVE),
    ] {
        assert_eq!(i64::from(v.raw()), table_value(alias), "{alias}");
    }
    assert_eq!(
        EventType::ALL.iter().map(|e| e.raw()).max(),
        Some(constants::MAX_EVENT_TYPE_VAL)
    );
}

#[test]
fn unknown_values_are_errors() {
    for gap in (10..=32).chain([36, 62, 0, -1]) {
        let err = EventType::try_from(gap).unwrap_err();
        assert!(err.to_string().contains("unknown event type"), "{err}");
    }
    for b in [1u8, 3, 12, 255] {
        assert!(TypeCode::try_from(b).is_err());
    }
    for b in [0u8, 9, 0x1f, 0x24, 0xfe] {
        assert!(HeapDumpTag::try_from(b).is_err());
    }
    assert!(MonitorDumpTag::try_from(0).is_err());
    assert!(MonitorDumpTag::try_from(3).is_err());
    assert!(
        DumpLevel::try_from(3).is_err(),
        "DUMP_LEVEL_3 is an IBM extension"
    );
    assert!(
        ReturnCode::try_from(2).is_err(),
        "libgcj's NOT_AVAILABLE=2 is not Sun's"
    );
    assert!(
        Version::try_from(0x0002_0001).is_err(),
        "libgcj's VERSION_1 is not Sun's"
    );
    assert!(Priority::try_from(4).is_err());
}

#[test]
fn requested_flag_splits_off() {
    let raw = 42 | 0x1000_0000;
    assert_eq!(EventType::split(raw).unwrap(), (EventType::ClassLoad, true));
    assert_eq!(EventType::split(42).unwrap(), (EventType::ClassLoad, false));
    assert_eq!(EventType::ClassLoad.with_requested(true), raw);
    assert!(EventType::split(0x1000_0000 | 36).is_err());
    for &e in EventType::ALL {
        for req in [false, true] {
            assert_eq!(EventType::split(e.with_requested(req)).unwrap(), (e, req));
        }
    }
}

#[test]
fn thread_status_bits() {
    let s = ThreadStatus::try_from(0x8000 | 3).unwrap();
    assert_eq!(s.state, ThreadState::CondvarWait);
    assert!(s.suspended && !s.interrupted);
    assert_eq!(s.raw(), 0x8003);
    assert_eq!(
        s.to_string(),
        "JVMPI_THREAD_CONDVAR_WAIT|JVMPI_THREAD_SUSPENDED"
    );
    let s = ThreadStatus::try_from(0x4000 | 1).unwrap();
    assert!(s.interrupted);
    assert!(ThreadStatus::try_from(0x8000).is_err());
    assert!(ThreadStatus::try_from(0x10001).is_err());
}

#[test]
fn type_codes_from_signatures() {
    for (sig, ty) in [
        ("Z", TypeCode::Boolean),
        ("B", TypeCode::Byte),
        ("C", TypeCode::Char),
        ("S", TypeCode::Short),
        ("I", TypeCode::Int),
        ("J", TypeCode::Long),
        ("F", TypeCode::Float),
        ("D", TypeCode::Double),
        ("Ljava/lang/String;", TypeCode::Class),
        ("[I", TypeCode::Class),
    ] {
        assert_eq!(TypeCode::from_signature(sig).unwrap(), ty, "{sig}");
    }
    assert!(TypeCode::from_signature("").is_err());
    assert!(TypeCode::from_signature("V").is_err());
    assert_eq!(TypeCode::Long.primitive_size(), Some(8));
    assert_eq!(TypeCode::Class.primitive_size(), None);
}

/// Section 2 of `shared/formats/jvmpi.md`, committed beside the tests so that the comparison
/// always runs (`copy_of_jvmpi_md_is_current` checks it against the shared document).
const JVMPI_MD_SECTION_2: &str = include_str!("data/jvmpi-md-section-2.md");

/// The committed copy of jvmpi.md §2 is still what the shared document says. Needs the
/// repository's `shared/` folder beside the checkout (as CI has it):
/// `cargo test -p jvmpi-types --test constants -- --ignored`.
#[test]
#[ignore = "needs shared/formats/jvmpi.md beside the checkout (run in .ci/run)"]
fn copy_of_jvmpi_md_is_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("../../shared/formats/jvmpi.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = text.find("## 2. Constant table").expect("section 2");
    let end = text[start..]
        .find("## 3.")
        .map_or(text.len(), |e| start + e);
    assert_eq!(&text[start..end], JVMPI_MD_SECTION_2);
}

/// Parses the `| value | name |` / `| name | value |` rows and `NAME=value` lists of
/// jvmpi.md §2 and compares them with `raw::ALL`.
#[test]
fn against_jvmpi_md() {
    let text = JVMPI_MD_SECTION_2;
    let section = text
        .split("## 2. Constant table")
        .nth(1)
        .and_then(|s| s.split("## 3.").next())
        .expect("section 2 of jvmpi.md");
    let parse = |v: &str| -> Option<i64> {
        let v = v.trim().trim_end_matches(['.', ',', ';', ')']);
        let v = v.split_whitespace().next()?;
        if let Some(h) = v.strip_prefix("0x") {
            i64::from_str_radix(h, 16).ok()
        } else {
            v.parse().ok()
        }
    };
    let mut found = std::collections::BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // Tables: `| name | value | since |` and `| value | name | | value | name |`.
        for w in cells.windows(2) {
            if w[0].starts_with("JVMPI_") {
                if let Some(v) = parse(w[1]) {
                    found.insert(w[0].to_owned(), v);
                }
            }
            if w[1].starts_with("JVMPI_") {
                if let Some(v) = parse(w[0]) {
                    let name = w[1].split_whitespace().next().unwrap().to_owned();
                    found.insert(name, v);
                }
            }
        }
        // Prose lists: `JVMPI_X=1`, `JVMPI_EVENT_LOAD_COMPILED_METHOD=7, _UNLOAD_...=8`.
        // `JVMPI_GC_CLASS_DUMP=0x20, _INSTANCE_DUMP=0x21`: a continuation `_X` completes the
        // longest `_`-prefix of the last full name that yields a header name.
        let mut anchor = String::new();
        let line = line.replace(" = ", "=");
        for tok in line.split([' ', ',', ';', '(', ')', ':', '`']) {
            if let Some((n, v)) = tok.split_once('=') {
                let name = if n.starts_with("JVMPI_") {
                    anchor = n.to_owned();
                    n.to_owned()
                } else if n.starts_with('_') && !anchor.is_empty() {
                    let mut base = anchor.as_str();
                    loop {
                        let candidate = format!("{base}{n}");
                        if raw::ALL.iter().any(|(k, _)| *k == candidate) {
                            break candidate;
                        }
                        match base.rsplit_once('_') {
                            Some((b, _)) => base = b,
                            None => break candidate,
                        }
                    }
                } else {
                    continue;
                };
                if let Some(v) = parse(v) {
                    found.insert(name, v);
                }
            }
        }
    }
    let mut checked = 0;
    for (name, v) in raw::ALL {
        if let Some(doc) = found.get(*name) {
            assert_eq!(doc, v, "{name}: jvmpi.md says {doc}, crate says {v}");
            checked += 1;
        }
    }
    eprintln!(
        "{checked} of {} constants compared with jvmpi.md",
        raw::ALL.len()
    );
    assert!(
        checked == raw::ALL.len(),
        "only {checked} constants found in jvmpi.md: {found:?}"
    );
}
