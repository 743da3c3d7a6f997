//! Views, validation, names, merge and folded stacks on the small files in `tests/data/`.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

use iprof::validate::Table;
use iprof::{Branch, Issue, IssueKind, Layout, Profile, Section, TypeCount};

const FIB: &str = "tests/data/fib-spec-example_v1.1.0.handmade.iprof";
const STUB: &str = "tests/data/stub-metadata_v1.0.0.handmade.iprof";
const V020_EXTRACT: &str = "tests/data/krisfoster-binary-tree_ff318ed_v0.2.0.extract.iprof";

fn text(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn fib_views() {
    let t = text(FIB);
    let p = Profile::parse(&t).unwrap();
    assert_eq!(p.version, "1.1.0");
    let cc: Vec<(String, i64)> = p
        .call_counts()
        .map(|c| (c.ctx().to_string(), c.count().unwrap()))
        .collect();
    assert_eq!(
        cc,
        [
            ("19551:0".to_owned(), 1),
            ("4669:0<19551:34".to_owned(), 10)
        ]
    );
    let cond = p.conditionals().next().unwrap();
    assert_eq!(cond.bci(), Some(11));
    let branches: Vec<Branch> = cond.branches().unwrap().collect();
    assert_eq!(
        branches,
        [
            Branch {
                target_bci: 20,
                index: 0,
                count: 10
            },
            Branch {
                target_bci: 53,
                index: 1,
                count: 1
            }
        ]
    );
    let receivers: Vec<TypeCount> = p
        .virtual_invokes()
        .next()
        .unwrap()
        .receivers()
        .unwrap()
        .collect();
    assert_eq!(
        receivers,
        [TypeCount {
            type_id: 2280,
            count: 10
        }]
    );
    assert_eq!(p.monitors().next().unwrap().types().unwrap().len(), 2);
    assert_eq!(
        p.instanceofs().next().unwrap().types().unwrap().next(),
        Some(TypeCount {
            type_id: 2280,
            count: 3
        })
    );
    assert_eq!(p.samples().map(|s| s.count().unwrap()).sum::<i64>(), 11);
    assert_eq!(p.total_calls(), 11);
    assert_eq!(p.max_context_depth(), 3);
    // The fork's key is kept, in order, and written back.
    assert_eq!(p.unknown.len(), 1);
    assert_eq!(p.unknown[0].0, "ceConditionalProfilesV2");
    let json = p.to_json();
    assert!(json.ends_with(r#""ceConditionalProfilesV2":[{"stage":"s","ctx":"19551:11","successors":[20,53],"conditionKind":"LT","conditionFingerprint":"0f3a","occurrence":0,"records":[10,1]}]}"#), "{json}");
    assert!(json.starts_with(r#"{"version":"1.1.0","types":[{"id":0,"name":"boolean"}"#));
    let a: serde_json::Value = serde_json::from_str(&json).unwrap();
    let b: serde_json::Value = serde_json::from_str(&t).unwrap();
    assert_eq!(a, b);
    assert!(p.validate().is_clean(), "{:?}", p.validate());
}

#[test]
fn arity_errors() {
    let p = Profile::parse(
        r#"{"version":"1.0.0","types":[],"methods":[],
        "callCountProfiles":[{"ctx":"1:0","records":[1,2]}],
        "conditionalProfiles":[{"ctx":"1:3","records":[1,2]}],
        "virtualInvokeProfiles":[{"ctx":"1:3","records":[1,2,3]}]}"#,
    )
    .unwrap();
    let e = p.call_counts().next().unwrap().count().unwrap_err();
    assert_eq!(
        e.to_string(),
        "callCountProfiles records hold 2 integers, expected exactly 1"
    );
    assert!(p.conditionals().next().unwrap().branches().is_err());
    let e = p
        .virtual_invokes()
        .next()
        .unwrap()
        .receivers()
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "virtualInvokeProfiles records hold 3 integers, expected a multiple of 2"
    );
    assert_eq!(p.total_calls(), 0);
    assert_eq!(p.validate().count(IssueKind::WrongArity), 3);
}

#[test]
fn fib_names() {
    let t = text(FIB);
    let p = Profile::parse(&t).unwrap();
    let names = p.names();
    assert_eq!(
        names.method(19551).unwrap().short().to_string(),
        "Fib.fibonacci()"
    );
    assert_eq!(
        names.method(19547).unwrap().short().to_string(),
        "Fib.main(String[])"
    );
    assert_eq!(
        names.method(19547).unwrap().qualified().to_string(),
        "Fib.main(java.lang.String[])"
    );
    assert_eq!(
        names.qualified_method(3236),
        "java.lang.String.valueOf(java.lang.Object)"
    );
    assert_eq!(names.short_method(1), "<method 1>");
    let ctx = &p.virtual_invoke_profiles.as_ref().unwrap()[0].ctx;
    assert_eq!(
        names.context(ctx).to_string(),
        "String.valueOf(Object):11 < PrintStream.print(String):2 < Fib.fibonacci():34"
    );
    assert_eq!(iprof::names::java_type_name("[[I"), "int[][]");
    assert_eq!(
        iprof::names::java_type_name("[Ljava.util.Map$Entry;"),
        "java.util.Map$Entry[]"
    );
    assert_eq!(iprof::names::java_type_name("[Q"), "[Q");
    assert_eq!(
        iprof::names::simple_name("a.b.C$$Lambda/0x1.2"),
        "C$$Lambda/0x1.2"
    );
}

#[test]
fn stubbed_metadata_is_a_report_not_an_error() {
    let t = text(STUB);
    let p = Profile::parse(&t).unwrap();
    let report = p.validate();
    let counts = report.counts();
    assert_eq!(counts.get(&IssueKind::EmptyName), Some(&2));
    assert_eq!(counts.get(&IssueKind::NegativeId), Some(&2));
    assert_eq!(counts.get(&IssueKind::ShortSignature), Some(&1));
    // 3 + 1 + 1 + 2 context frames, none resolving.
    assert_eq!(counts.get(&IssueKind::DanglingMethodId), Some(&7));
    assert_eq!(counts.get(&IssueKind::DanglingTypeId), Some(&1));
    assert!(report.issues.contains(&Issue::NegativeId {
        table: Table::Types,
        id: -1,
        index: 0
    }));
    assert!(report.issues.contains(&Issue::DanglingTypeId {
        section: Section::VirtualInvoke,
        index: 0,
        type_id: 0
    }));
    assert_eq!(report.all_counts().len(), IssueKind::ALL.len());
    assert_eq!(report.all_counts().get(&IssueKind::WrongArity), Some(&0));
    // Names fall back to placeholders.
    let names = p.names();
    let ctx = &p.call_count_profiles.as_ref().unwrap()[0].ctx;
    assert_eq!(
        names.context(ctx).to_string(),
        "<method 3982>:0 < <method 3317>:1 < <method 43895>:-6"
    );
    assert_eq!(p.total_calls(), 34_303_903_801_140);
    // The report serializes with its kind names.
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_string(&report.issues[0]).unwrap();
        assert!(json.starts_with(r#"{"kind":"emptyName""#), "{json}");
    }
}

#[test]
fn validation_catches_each_rule() {
    let p = Profile::parse(
        r#"{"version":"2.0","types":[{"id":1,"name":"A"},{"id":1,"name":"A"}],
        "methods":[{"id":5,"name":"m","signature":[1,7]},{"id":5,"name":"n","signature":[1,1]}],
        "callCountProfiles":[{"ctx":"5:3","records":[-4]},{"ctx":"5:3","records":[1]}],
        "conditionalProfiles":[{"ctx":"5:3","records":[1,0,4,1,0,5,3,1,6,-5,1,0]}],
        "monitorProfiles":[{"ctx":"5:0","records":[1,1,1,3]},{"ctx":"0:0","records":[]}]}"#,
    )
    .unwrap();
    let r = p.validate();
    for (kind, n) in [
        (IssueKind::UnknownVersion, 1),
        (IssueKind::DuplicateTypeId, 1),
        (IssueKind::DuplicateTypeName, 1),
        (IssueKind::DuplicateMethodId, 1),
        (IssueKind::SignatureTypeMissing, 1),
        (IssueKind::CallCountBciNotZero, 2),
        (IssueKind::NegativeCount, 1),
        (IssueKind::DuplicateContext, 1),
        (IssueKind::MonitorContextNotRoot, 1),
        (IssueKind::MultipleMonitorProfiles, 1),
        (IssueKind::DanglingMethodId, 0),
        (IssueKind::DuplicateRecordKey, 2), // branch index 0 twice, type 1 twice
    ] {
        assert_eq!(r.count(kind), n, "{kind:?}: {r:?}");
    }
}

#[test]
fn legacy_extract_maps_to_the_model() {
    let t = text(V020_EXTRACT);
    let p = Profile::parse(&t).unwrap();
    assert_eq!(p.layout, Layout::Legacy);
    assert_eq!(p.types.len(), 12);
    assert_eq!(p.entries(Section::VirtualInvoke).len(), 6);
    let m = &p.monitor_profiles.as_ref().unwrap()[0];
    assert_eq!(m.ctx.to_string(), iprof::legacy::MONITOR_CONTEXT);
    assert_eq!(m.records.len(), 62);
    // Written in the modern layout, it is a 1.x-shaped file with the same content.
    let mut modern = p.clone();
    modern.layout = Layout::Modern;
    let json = modern.to_json();
    assert!(
        json.contains(r#""callCountProfiles":[{"ctx":"40159:0<40315:20","records":[180]}"#),
        "{json}"
    );
    assert!(json.contains(r#""monitorProfiles":[{"ctx":"0:0","records":[8,12,"#));
    assert!(json.contains(r#"{"id":4783,"name":"org.graalvm.compiler.nodes.FixedWithNextNode"}"#));
    let back = Profile::parse(&json).unwrap();
    assert_eq!(back.layout, Layout::Modern);
    assert_eq!(back.types, p.types);
    assert_eq!(back.call_count_profiles, p.call_count_profiles);
}

#[test]
fn merge_unifies_by_name_and_sums_per_record_key() {
    let a = Profile::parse(
        r#"{"version":"1.0.0","types":[{"id":1,"name":"A"},{"id":2,"name":"void"},{"id":3,"name":"R"}],
        "methods":[{"id":10,"name":"m","signature":[1,2]}],
        "callCountProfiles":[{"ctx":"10:0","records":[5]}],
        "conditionalProfiles":[{"ctx":"10:4","records":[8,0,1,12,1,2]}],
        "virtualInvokeProfiles":[{"ctx":"10:6","records":[3,7]}]}"#,
    )
    .unwrap();
    // The same program with other ids, and one more receiver type.
    let b = Profile::parse(
        r#"{"version":"1.0.0","types":[{"id":7,"name":"R"},{"id":8,"name":"void"},{"id":9,"name":"A"},{"id":1,"name":"S"}],
        "methods":[{"id":20,"name":"m","signature":[9,8]}],
        "callCountProfiles":[{"ctx":"20:0","records":[1]}],
        "conditionalProfiles":[{"ctx":"20:4","records":[12,1,10,8,0,100]}],
        "virtualInvokeProfiles":[{"ctx":"20:6","records":[7,1,1,4]}]}"#,
    )
    .unwrap();
    let m = iprof::merge(
        &[&a, &b],
        &iprof::MergeOptions {
            weights: vec![1.0, 0.5],
        },
    );
    assert_eq!(m.methods.len(), 1);
    assert_eq!(m.methods[0].id, 10);
    assert_eq!(
        m.types.iter().map(|t| (t.id, &*t.name)).collect::<Vec<_>>(),
        [(1, "A"), (2, "void"), (3, "R"), (0, "S")]
    );
    let cc = m.call_counts().next().unwrap();
    assert_eq!(
        (cc.ctx().to_string(), cc.count().unwrap()),
        ("10:0".to_owned(), 6)
    ); // 5 + round(0.5)
    let branches: Vec<Branch> = m
        .conditionals()
        .next()
        .unwrap()
        .branches()
        .unwrap()
        .collect();
    assert_eq!(
        branches,
        [
            Branch {
                target_bci: 8,
                index: 0,
                count: 51
            },
            Branch {
                target_bci: 12,
                index: 1,
                count: 7
            }
        ]
    );
    let receivers: Vec<TypeCount> = m
        .virtual_invokes()
        .next()
        .unwrap()
        .receivers()
        .unwrap()
        .collect();
    assert_eq!(
        receivers,
        [
            TypeCount {
                type_id: 3,
                count: 8
            },
            TypeCount {
                type_id: 0,
                count: 2
            }
        ]
    );
    assert!(m.validate().is_clean(), "{:?}", m.validate());
}

#[test]
fn merge_keeps_unresolved_ids() {
    let t = text(STUB);
    let p = Profile::parse(&t).unwrap();
    let m = iprof::merge(&[&p, &p], &iprof::MergeOptions::default());
    assert_eq!(m.total_calls(), 2 * p.total_calls());
    assert_eq!(
        m.call_count_profiles.as_ref().unwrap()[0].ctx.to_string(),
        "3982:0<3317:1<43895:-6"
    );
    assert_eq!(
        m.virtual_invoke_profiles.as_ref().unwrap()[0].records,
        [0, 10]
    );
}

#[test]
fn folded_stacks() {
    let t = text(FIB);
    let p = Profile::parse(&t).unwrap();
    let folded = p.folded_samples(iprof::folded::FrameNames::Short);
    assert_eq!(
        folded,
        "Fib.main(String[]);Fib.fibonacci();PrintStream.print(String) 10\nFib.main(String[]);Fib.fibonacci() 1\n"
    );
    let ids = p.folded_samples(iprof::folded::FrameNames::Ids);
    assert_eq!(ids, "19547;19551;4669 10\n19547;19551 1\n");
    let calls = iprof::folded::folded(&p, Section::CallCount, iprof::folded::FrameNames::Ids);
    assert_eq!(calls, "19551 1\n19551;4669 10\n");
}

#[test]
#[cfg(feature = "serde")]
fn serde_of_the_model() {
    let t = text(FIB);
    let p = Profile::parse(&t).unwrap();
    let json = serde_json::to_string(&p).unwrap();
    let back: Profile<'_> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, p);
}
