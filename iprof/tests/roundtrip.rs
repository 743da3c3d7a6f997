//! parse → write → parse is the identity, for generated profiles in both layouts.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)] // strategies and helpers outside #[test] fns

use std::borrow::Cow;

use iprof::{
    Ctx, Frame, IssueKind, Layout, Method, Profile, ProfileEntry, RawJson, Section, TopLevelKey,
    Type,
};
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z_$][a-zA-Z0-9_$.]{0,12}",
        "\\PC{0,8}",
        any::<String>(),
        Just("[Ljava.lang.String;".to_owned()),
        Just(String::new()),
    ]
}

fn ctx() -> impl Strategy<Value = Ctx<'static>> {
    prop::collection::vec((any::<u32>(), any::<i32>()), 1..6).prop_map(|frames| {
        Ctx::from_frames(frames.into_iter().map(|(m, b)| Frame::new(m, b))).unwrap()
    })
}

fn entries() -> impl Strategy<Value = Vec<ProfileEntry<'static>>> {
    prop::collection::vec(
        (ctx(), prop::collection::vec(any::<i64>(), 0..7))
            .prop_map(|(ctx, records)| ProfileEntry::new(ctx, records)),
        0..4,
    )
}

fn unknown_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_owned()),
        Just("[1, 2.5e3, {\"a\": [true, false]}]".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        name().prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

prop_compose! {
    fn profile()(
        version in prop_oneof![Just("1.0.0".to_owned()), Just("0.2.0".to_owned()), name()],
        types in prop::collection::vec((any::<i64>(), name()), 0..5),
        methods in prop::collection::vec((any::<i64>(), name(), prop::collection::vec(any::<i64>(), 0..4)), 0..5),
        sections in prop::collection::vec(prop::option::of(entries()), 6),
        unknown in prop::collection::vec(("[a-z]{1,6}X", unknown_value()), 0..3),
        legacy in any::<bool>(),
        shuffle in any::<u64>(),
    ) -> Profile<'static> {
        let mut p = Profile::new();
        p.version = Cow::Owned(version);
        p.types = types.into_iter().map(|(id, name)| Type { id, name: Cow::Owned(name), extra: Default::default() }).collect();
        p.methods = methods.into_iter().map(|(id, name, signature)| Method { id, name: Cow::Owned(name), signature, extra: Default::default() }).collect();
        for (section, entries) in Section::ALL.into_iter().zip(sections) {
            *p.section_mut(section) = entries;
        }
        let mut seen = std::collections::HashSet::new();
        p.unknown = unknown
            .into_iter()
            .filter(|(k, _)| seen.insert(k.clone()))
            .map(|(k, v)| (Cow::Owned(k), RawJson(Cow::Owned(v))))
            .collect();
        if legacy {
            p.layout = Layout::Legacy;
            // The 0.2.0 layout has exactly one monitor object with the dummy context.
            if let Some(monitors) = &mut p.monitor_profiles {
                let records: Vec<i64> = monitors.iter().flat_map(|e| e.records.clone()).collect();
                *monitors = vec![iprof::legacy::monitor_entry(records)];
            }
        }
        // Some key order (a rotation of GraalVM's, unknown keys included).
        let mut order = vec![TopLevelKey::Version, TopLevelKey::Types, TopLevelKey::Methods];
        order.extend(Section::ALL.iter().map(|&s| TopLevelKey::Section(s)));
        order.extend((0..p.unknown.len()).map(TopLevelKey::Unknown));
        let n = order.len();
        order.rotate_left((shuffle as usize) % n);
        p.key_order = order;
        p
    }
}

/// What a written profile reads back as: only the keys present, in the written order.
fn normalized(mut p: Profile<'static>) -> Profile<'static> {
    let present: Vec<TopLevelKey> = p
        .key_order
        .iter()
        .copied()
        .filter(|k| match k {
            TopLevelKey::Section(s) => p.section(*s).is_some(),
            _ => true,
        })
        .collect();
    p.key_order = present;
    // Unknown keys are read back in file order: renumber them by position.
    let mut unknown = Vec::new();
    for k in &mut p.key_order {
        if let TopLevelKey::Unknown(i) = k {
            unknown.push(p.unknown[*i].clone());
            *k = TopLevelKey::Unknown(unknown.len() - 1);
        }
    }
    p.unknown = unknown;
    // A legacy file without any legacy-named key or entry reads back as modern.
    if p.layout == Layout::Legacy
        && p.types.is_empty()
        && p.methods.is_empty()
        && Section::ALL
            .iter()
            .all(|s| s.legacy_key().is_none() || p.section(*s).is_none())
    {
        p.layout = Layout::Modern;
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn parse_write_parse_is_identity(p in profile()) {
        let json = p.to_json();
        let back = Profile::parse(&json).map_err(|e| TestCaseError::fail(format!("{e}\n{json}")))?;
        let expected = normalized(p.clone());
        prop_assert_eq!(&back, &expected);
        // Writing what was read gives the same bytes (when the layout was recognised).
        if expected.layout == p.layout {
            prop_assert_eq!(back.to_json(), json.clone());
        }
        // serde_json agrees that it is JSON.
        prop_assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Profile::parse(&bytes);
    }

    #[test]
    fn every_prefix_of_a_written_profile_fails_cleanly(p in profile(), cut in any::<prop::sample::Index>()) {
        let json = p.to_json();
        let at = cut.index(json.len());
        if let Some(prefix) = json.get(..at) {
            let err = Profile::parse(prefix).unwrap_err();
            prop_assert!(err.position().is_some());
        }
    }
}

prop_compose! {
    /// Profiles whose call counts are well-formed and small (no saturation).
    fn counted_profile()(
        names in prop::collection::vec("[a-c]{1,2}", 1..4),
        calls in prop::collection::vec((0u32..6, 0i64..1000), 0..8),
        receivers in prop::collection::vec((0u32..6, prop::collection::vec((0i64..4, 0i64..100), 0..3)), 0..4),
    ) -> Profile<'static> {
        let mut p = Profile::new();
        p.types = names.iter().enumerate().map(|(i, n)| Type { id: i as i64, name: Cow::Owned(n.clone()), extra: Default::default() }).collect();
        p.methods = (0..6).map(|id| Method { id, name: Cow::Owned(format!("m{}", id % 3)), signature: vec![0, 0], extra: Default::default() }).collect();
        p.call_count_profiles = Some(
            calls
                .into_iter()
                .map(|(m, c)| ProfileEntry::new(Ctx::from_frames([Frame::new(m, 0)]).unwrap(), vec![c]))
                .collect(),
        );
        p.virtual_invoke_profiles = Some(
            receivers
                .into_iter()
                .map(|(m, pairs)| ProfileEntry {
                    ctx: Ctx::from_frames([Frame::new(m, 3)]).unwrap(),
                    records: pairs.into_iter().flat_map(|(t, c)| [t, c]).collect(),
                    extra: Default::default(),
                })
                .collect(),
        );
        p
    }
}

proptest! {
    #[test]
    fn merge_preserves_totals(a in counted_profile(), b in counted_profile(), w in 1i64..4) {
        let merged = iprof::merge(&[&a, &b], &iprof::MergeOptions { weights: vec![1.0, w as f64] });
        prop_assert_eq!(merged.total_calls(), a.total_calls() + w * b.total_calls());
        let receivers = |p: &Profile<'_>| -> i64 {
            p.virtual_invokes().flat_map(|v| v.receivers().unwrap().map(|r| r.count).collect::<Vec<_>>()).sum()
        };
        prop_assert_eq!(receivers(&merged), receivers(&a) + w * receivers(&b));
        // Merged profiles have no duplicate contexts, types or receivers.
        let report = merged.validate();
        for kind in [IssueKind::DuplicateContext, IssueKind::DuplicateTypeName, IssueKind::DuplicateRecordKey, IssueKind::DuplicateMethodId] {
            prop_assert_eq!(report.count(kind), 0, "{:?}", kind);
        }
        // And merging is a valid file.
        let json = merged.to_json();
        let mut back = Profile::parse(&json).unwrap();
        back.key_order.clear(); // the parse remembers the written order
        prop_assert_eq!(back, merged.clone());
    }
}

/// Keys a test may add as unknown members: any lowercase word that no object of the format uses.
const KNOWN_KEYS: [&str; 23] = [
    "version",
    "types",
    "methods",
    "callCountProfiles",
    "conditionalProfiles",
    "virtualInvokeProfiles",
    "monitorProfiles",
    "samplingProfiles",
    "instanceofProfiles",
    "hotnessPoints",
    "conditionalPoints",
    "invokePoints",
    "monitorsProfile",
    "id",
    "name",
    "typeName",
    "methodName",
    "signature",
    "ctx",
    "records",
    "methodBciList",
    "x",
    "y",
];

/// Any JSON value (floats finite), a few levels deep.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Unknown members for one object: (how many known members come before it, key, value).
fn unknown_members(known: usize) -> impl Strategy<Value = Vec<(usize, String, serde_json::Value)>> {
    prop::collection::vec((0..=known, "[a-z]{1,7}", json_value()), 0..3).prop_map(|mut v| {
        let mut seen = std::collections::HashSet::new();
        v.retain(|(_, k, _)| !KNOWN_KEYS.contains(&k.as_str()) && seen.insert(k.clone()));
        v.sort_by_key(|(after, _, _)| *after);
        v
    })
}

/// A compact JSON object of `known` members (in this order) with `unknown` members inserted
/// where they say.
fn object(known: &[(&str, String)], unknown: &[(usize, String, serde_json::Value)]) -> String {
    let mut members = Vec::new();
    for i in 0..=known.len() {
        for (_, k, v) in unknown.iter().filter(|(after, _, _)| *after == i) {
            members.push(format!("{}:{}", serde_json::to_string(k).unwrap(), v));
        }
        if let Some((k, v)) = known.get(i) {
            members.push(format!("\"{k}\":{v}"));
        }
    }
    format!("{{{}}}", members.join(","))
}

fn ints(v: &[i64]) -> String {
    serde_json::to_string(v).unwrap()
}

prop_compose! {
    /// A modern profile's compact JSON text with unknown members in the root object, in
    /// types, methods and entries of every section.
    fn text_with_unknown_members()(
        types in prop::collection::vec((any::<i64>(), name(), unknown_members(2)), 0..4),
        methods in prop::collection::vec(
            (any::<i64>(), name(), prop::collection::vec(any::<i64>(), 0..4), unknown_members(3)),
            0..4,
        ),
        sections in prop::collection::vec(
            prop::option::of(prop::collection::vec(
                (ctx(), prop::collection::vec(any::<i64>(), 0..4), unknown_members(2)),
                0..3,
            )),
            6,
        ),
        root in unknown_members(0),
    ) -> String {
        let mut top = vec![("version", "\"1.0.0\"".to_owned())];
        let types: Vec<String> = types
            .iter()
            .map(|(id, n, u)| object(&[("id", id.to_string()), ("name", serde_json::to_string(n).unwrap())], u))
            .collect();
        top.push(("types", format!("[{}]", types.join(","))));
        let methods: Vec<String> = methods
            .iter()
            .map(|(id, n, sig, u)| {
                object(&[("id", id.to_string()), ("name", serde_json::to_string(n).unwrap()), ("signature", ints(sig))], u)
            })
            .collect();
        top.push(("methods", format!("[{}]", methods.join(","))));
        for (section, entries) in Section::ALL.iter().zip(&sections) {
            if let Some(entries) = entries {
                let entries: Vec<String> = entries
                    .iter()
                    .map(|(c, r, u)| object(&[("ctx", format!("\"{c}\"")), ("records", ints(r))], u))
                    .collect();
                top.push((section.key(), format!("[{}]", entries.join(","))));
            }
        }
        // Unknown root members all go last: the writer puts unknown keys after the known ones
        // unless the key order says otherwise (it does for read files: see the test).
        let root: Vec<(usize, String, serde_json::Value)> =
            root.into_iter().map(|(_, k, v)| (top.len(), k, v)).collect();
        object(&top, &root)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Lossless: unknown members anywhere are kept, in order, and written back byte for byte
    /// (compact text in the writer's member order); pretty-printed text with keys in any
    /// order (serde_json sorts them) reads and writes back to the same JSON value.
    #[test]
    fn unknown_members_survive_a_round_trip(text in text_with_unknown_members()) {
        let p = Profile::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(p.to_json(), text.clone());
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        let p = Profile::parse(&pretty).map_err(|e| TestCaseError::fail(format!("{e}\n{pretty}")))?;
        // (serde_json's float parsing is not exact: compare with its reading of the same text.)
        let expected: serde_json::Value = serde_json::from_str(&pretty).unwrap();
        let back: serde_json::Value = serde_json::from_str(&p.to_json()).unwrap();
        prop_assert_eq!(back, expected);
    }
}
