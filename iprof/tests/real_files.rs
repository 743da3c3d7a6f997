//! Reading, validating, writing and merging the real `.iprof` files in `tests/data/`
//! (see /work/shared/fixtures/iprof/PROVENANCE.txt for where they come from).

#![allow(clippy::unwrap_used, clippy::indexing_slicing)] // test helpers outside #[test] fns

use std::borrow::Cow;

use iprof::{IssueKind, Layout, Profile, Section};

const V040: &str = "tests/fixtures/tommyettinger-assorted-benchmarks_ccb36f2_default_v0.4.0.iprof";
const V020: &str = "tests/fixtures/krisfoster-binary-tree_ff318ed_default_v0.2.0.iprof";
const V020_TYPES: &str =
    "tests/data/krisfoster-binary-tree_bf2630c_default_v0.2.0_typesonly.extract.iprof";
const V040_EXTRACT: &str =
    "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof";
const V020_EXTRACT: &str = "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof";

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

fn counts(p: &Profile<'_>) -> [usize; 6] {
    Section::ALL.map(|s| p.entries(s).len())
}

#[test]
fn v040_counts_match_provenance() {
    let bytes = read(V040);
    let p = Profile::parse(&bytes).unwrap();
    assert_eq!(p.version, "0.4.0");
    assert_eq!(p.layout, Layout::Modern);
    assert_eq!(p.types.len(), 5079);
    assert_eq!(p.methods.len(), 42557);
    assert_eq!(counts(&p), [9628, 6871, 590, 1, 8, 0]);
    assert!(p.instanceof_profiles.is_none());
    assert_eq!(p.max_context_depth(), 23);
    // Borrowed: names point into the input.
    assert!(matches!(p.types[0].name, Cow::Borrowed("boolean")));
    assert!(
        p.call_count_profiles
            .as_ref()
            .unwrap()
            .iter()
            .all(|e| matches!(e.ctx, iprof::Ctx::Borrowed(_)))
    );
    // Counts beyond 2^32.
    let max = p
        .conditionals()
        .flat_map(|c| c.branches().unwrap().map(|b| b.count).collect::<Vec<_>>())
        .max();
    assert_eq!(max, Some(23_929_230_826));
    // Negative target bcis exist and are kept.
    assert!(
        p.conditionals()
            .any(|c| c.branches().unwrap().any(|b| b.target_bci < 0))
    );
}

#[test]
fn v020_counts_match_provenance() {
    let bytes = read(V020);
    let p = Profile::parse(&bytes).unwrap();
    assert_eq!(p.version, "0.2.0");
    assert_eq!(p.layout, Layout::Legacy);
    assert_eq!(p.types.len(), 4420);
    assert_eq!(p.methods.len(), 20133);
    assert_eq!(counts(&p), [12228, 8812, 900, 1, 0, 0]);
    assert_eq!(p.monitor_profiles.as_ref().unwrap()[0].records.len(), 62);
    assert_eq!(p.max_context_depth(), 18);
    // `methodBciList` "40159:0,40315:20" became the context 40159:0<40315:20.
    let first = &p.call_count_profiles.as_ref().unwrap()[0];
    assert_eq!(first.ctx.to_string(), "40159:0<40315:20");
    assert_eq!(first.records, [180]);
    assert!(p.sampling_profiles.is_none());
}

#[test]
fn types_only_extract() {
    let bytes = read(V020_TYPES);
    let p = Profile::parse(&bytes).unwrap();
    assert_eq!(p.layout, Layout::Legacy);
    assert_eq!(p.types.len(), 37);
    assert!(p.methods.is_empty());
    assert_eq!(counts(&p), [0, 0, 0, 1, 0, 0]);
    assert!(p.validate().is_clean(), "{:?}", p.validate());
}

#[test]
fn real_files_reencode_byte_identically() {
    for path in [V040, V020, V020_TYPES, V040_EXTRACT, V020_EXTRACT] {
        let bytes = read(path);
        let p = Profile::parse(&bytes).unwrap();
        let out = p.to_json();
        assert!(
            out.as_bytes() == bytes.as_slice(),
            "{path} does not re-encode byte for byte"
        );
    }
}

#[test]
fn real_files_reencode_to_semantically_equal_json() {
    for path in [V040, V020, V020_TYPES, V040_EXTRACT, V020_EXTRACT] {
        let bytes = read(path);
        let p = Profile::parse(&bytes).unwrap();
        let original: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        // In the modern layout (GraalVM's order, compact), too.
        let mut modern = p.clone();
        modern.layout = Layout::Modern;
        modern.key_order.clear();
        let modern_json = modern.to_json();
        let again = Profile::parse(&modern_json).unwrap();
        assert_eq!(again.layout, Layout::Modern);
        let mut back = again.clone();
        back.layout = p.layout;
        back.key_order = p.key_order.clone();
        assert_eq!(back, p, "{path}: modern re-encoding changed the profile");
        let written: serde_json::Value = serde_json::from_str(&p.to_json()).unwrap();
        assert_eq!(written, original, "{path}");
    }
}

#[test]
fn owned_form_equals_borrowed() {
    let bytes = read(V040_EXTRACT);
    let p = Profile::parse(&bytes).unwrap();
    let owned: Profile<'static> = p.clone().into_owned();
    drop(bytes);
    assert_eq!(owned.to_json().len(), 8941);
    assert!(matches!(owned.types[0].name, Cow::Owned(_)));
}

#[test]
fn real_files_validate() {
    let bytes = read(V040);
    let p = Profile::parse(&bytes).unwrap();
    let report = p.validate();
    // The real files are clean: every record has the right arity, every call count is at
    // bci 0, no negative counts, no repeated (target, branch index) or receiver, every id
    // resolves.
    assert!(report.is_clean(), "{:?}", report.counts());

    let bytes = read(V020);
    let p = Profile::parse(&bytes).unwrap();
    let report = p.validate();
    assert!(report.is_clean(), "{:?}", report.counts());

    // Both hold conditionals that repeat a branch index for the sentinel target bci -5.
    let repeats = p
        .conditionals()
        .filter(|c| {
            let mut seen = std::collections::HashSet::new();
            !c.branches().unwrap().all(|b| seen.insert(b.index))
        })
        .count();
    assert!(repeats > 0);
}

#[test]
fn real_names_resolve() {
    let bytes = read(V040);
    let p = Profile::parse(&bytes).unwrap();
    let names = p.names();
    let entry = &p.call_count_profiles.as_ref().unwrap()[0];
    let rendered = names.context(&entry.ctx).to_string();
    assert!(!rendered.contains("<method"), "{rendered}");
    // Every sampled frame resolves.
    for s in p.samples() {
        for f in s.ctx().frames() {
            assert!(names.method(i64::from(f.method)).is_some());
        }
    }
}

#[test]
fn merging_a_file_with_itself_doubles_every_count() {
    let bytes = read(V040);
    let p = Profile::parse(&bytes).unwrap();
    let merged = iprof::merge(&[&p, &p], &iprof::MergeOptions::default());
    assert_eq!(merged.types.len(), p.types.len());
    assert_eq!(merged.methods.len(), p.methods.len());
    assert_eq!(counts(&merged), counts(&p));
    assert_eq!(merged.total_calls(), 2 * p.total_calls());
    // Ids are kept where free, so merging with itself reproduces the ids.
    assert_eq!(
        merged.types,
        p.types
            .iter()
            .cloned()
            .map(iprof::Type::into_owned)
            .collect::<Vec<_>>()
    );
    let single = iprof::merge(&[&p], &iprof::MergeOptions::default());
    assert_eq!(
        single.call_count_profiles,
        p.clone().into_owned().call_count_profiles
    );
}

#[test]
fn merging_the_two_layouts() {
    let a = read(V040);
    let b = read(V020);
    let pa = Profile::parse(&a).unwrap();
    let pb = Profile::parse(&b).unwrap();
    let merged = iprof::merge(
        &[&pa, &pb],
        &iprof::MergeOptions {
            weights: vec![1.0, 2.0],
        },
    );
    assert_eq!(merged.version, "1.0.0");
    assert_eq!(merged.layout, Layout::Modern);
    assert_eq!(
        merged.total_calls(),
        pa.total_calls() + 2 * pb.total_calls()
    );
    // Types are unified by name: java.lang.Object appears once.
    assert_eq!(
        merged
            .types
            .iter()
            .filter(|t| t.name == "java.lang.Object")
            .count(),
        1
    );
    assert!(merged.validate().count(IssueKind::DuplicateTypeName) == 0);
    // And the merged profile is a valid file.
    let json = merged.to_json();
    assert_eq!(Profile::parse(&json).unwrap(), merged);
}

#[test]
fn folded_samples_of_real_file() {
    let bytes = read(V040);
    let p = Profile::parse(&bytes).unwrap();
    let folded = p.folded_samples(iprof::folded::FrameNames::Short);
    let lines: Vec<&str> = folded.lines().collect();
    assert_eq!(lines.len(), 8);
    let total: i64 = lines
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap())
        .sum();
    let expected: i64 = p.samples().map(|s| s.count().unwrap()).sum();
    assert_eq!(total, expected);
    assert!(lines.iter().all(|l| l.split(';').count() > 1));
}

#[test]
fn truncated_real_file_errors_with_position() {
    let bytes = read(V040);
    for cut in [1, 100, 1000, 123_457, 2_000_000, bytes.len() - 1] {
        let err = Profile::parse(&bytes[..cut]).unwrap_err();
        assert!(err.is_truncated(), "{cut}: {err}");
        let at = err.position().unwrap();
        assert_eq!((at.line, at.column), (1, cut + 1), "{err}");
    }
    let bytes = read(V020);
    let err = Profile::parse(&bytes[..bytes.len() / 2]).unwrap_err();
    assert!(err.to_string().contains("unexpected end of input"), "{err}");
    assert!(err.position().unwrap().line > 1000);
}

/// `text` with `from` replaced by `to` once, where `from` must occur.
fn insert(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

/// A real 0.4.0 profile as a newer GraalVM might write it, with members this crate does not
/// know in the root, a type, a method and an entry of every section: reading and writing it
/// gives the same bytes, and the unknown members are there in the model.
#[test]
fn real_compact_file_with_unknown_keys_round_trips_byte_for_byte() {
    let original = std::fs::read_to_string(
        "tests/data/tommyettinger-assorted-benchmarks_ccb36f2_v0.4.0.extract.iprof",
    )
    .unwrap();
    let mut text = insert(
        &original,
        r#"{"version":"0.4.0","#,
        r#"{"producer":{"graalvm":"27.0.0","pgo":["instr",2.5e1]},"version":"0.4.0","#,
    );
    text = insert(
        &text,
        r#"{"id":4,"name":"int"}"#,
        r#"{"id":4,"flags":["final"],"name":"int","hash":-7}"#,
    );
    text = insert(&text, r#"{"id":"#, r#"{"origin":null,"id":"#);
    for section in Section::ALL {
        let key = format!("\"{}\":[{{\"ctx\":", section.key());
        if text.contains(&key) {
            let with = format!("\"{}\":[{{\"stage\":\"late\",\"ctx\":", section.key());
            text = insert(&text, &key, &with);
        }
    }
    text = insert(
        &text,
        r#","signature":["#,
        r#","inlined":true,"signature":["#,
    );
    // A fork's extra section (JohnTortugo/graal's writer), last.
    text = text.trim_end().strip_suffix('}').unwrap().to_owned()
        + r#","ceConditionalProfilesV2":[{"stage":1,"ctx":"1:0","successors":[2,3],"records":[]}]}"#;
    assert_ne!(text, original);
    let p = Profile::parse(&text).unwrap();
    assert_eq!(p.to_json(), text);
    assert_eq!(p.unknown.len(), 2);
    let int = p.types.iter().find(|t| t.name == "int").unwrap();
    let keys: Vec<(usize, &str)> = int
        .extra
        .members()
        .iter()
        .map(|m| (m.after, &*m.key))
        .collect();
    assert_eq!(keys, [(1, "flags"), (2, "hash")]);
    for section in Section::ALL {
        if let Some(first) = p.section(section).and_then(|s| s.first()) {
            assert_eq!(first.extra.members()[0].key, "stage", "{section}");
            assert_eq!(first.extra.members()[0].value.as_str(), "\"late\"");
        }
    }
    // The same file without the additions reads to the same known data.
    let plain = Profile::parse(&original).unwrap();
    assert_eq!(plain.total_calls(), p.total_calls());
    assert_eq!(plain.types.len(), p.types.len());
}

/// The 0.2.0 layout, pretty-printed: unknown members inside a type, a method, a hotness point
/// and the monitorsProfile object are written back where they were, byte for byte.
#[test]
fn real_legacy_file_with_unknown_keys_round_trips_byte_for_byte() {
    let original =
        std::fs::read_to_string("tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof")
            .unwrap();
    let mut text = insert(
        &original,
        r#"{ "id": 1731, "typeName": "java.util.TreeMap$Entry" }"#,
        r#"{ "id": 1731, "typeName": "java.util.TreeMap$Entry", "loader": "app" }"#,
    );
    text = insert(
        &text,
        r#"{ "id": 100, "methodName""#,
        r#"{ "id": 100, "hidden": false, "methodName""#,
    );
    text = insert(
        &text,
        r#"{ "methodBciList": "4762:0", "records": [ 293 ] }"#,
        r#"{ "methodBciList": "4762:0", "records": [ 293 ], "weight": [ 1, 2 ] }"#,
    );
    text = insert(
        &text,
        "  \"monitorsProfile\": {\n",
        "  \"monitorsProfile\": {\n    \"kind\": \"locks\",\n",
    );
    let p = Profile::parse(&text).unwrap();
    assert_eq!(p.layout, iprof::Layout::Legacy);
    assert_eq!(p.to_json(), text);
    assert_eq!(
        p.entries(Section::Monitor)[0].extra.members()[0].key,
        "kind"
    );
}
