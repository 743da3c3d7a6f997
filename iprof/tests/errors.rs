//! Bad input: every error says what was expected, what was found, and where (line:column).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

use iprof::{Error, Profile};

fn err(text: &str) -> Error {
    Profile::parse(text).unwrap_err()
}

#[test]
fn wrong_types_name_expected_and_found() {
    let e = err(r#"{"version":"1.0.0","types":{},"methods":[]}"#);
    assert_eq!(
        e.to_string(),
        "1:28: expected '[' starting the types array, found an object"
    );
    let e = err(r#"{"version":"1.0.0","types":[{"id":"7","name":"x"}],"methods":[]}"#);
    assert_eq!(
        e.to_string(),
        "1:35: expected an integer type id, found the string \"7\""
    );
    let e = err(r#"{"version":1,"types":[],"methods":[]}"#);
    assert_eq!(e.to_string(), "1:12: expected a string, found the number 1");
    let e = err("[]");
    assert_eq!(
        e.to_string(),
        "1:1: expected '{' starting the profile object, found an array"
    );
}

#[test]
fn numbers_must_be_integers_in_range() {
    let e = err(r#"{"version":"1","types":[{"id":1.5,"name":"x"}],"methods":[]}"#);
    assert!(matches!(e, Error::Number { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "1:31: expected an integer (this format has no fractions or exponents), found the number 1.5"
    );
    let e = err(r#"{"version":"1","types":[{"id":9223372036854775808,"name":"x"}],"methods":[]}"#);
    assert!(e.to_string().contains("signed 64-bit range"), "{e}");
    let p = Profile::parse(
        r#"{"version":"1","types":[{"id":-9223372036854775808,"name":"x"}],"methods":[]}"#,
    )
    .unwrap();
    assert_eq!(p.types[0].id, i64::MIN);
    let e = err(r#"{"version":"1","types":[{"id":01,"name":"x"}],"methods":[]}"#);
    assert!(e.to_string().contains("leading zeros"), "{e}");
}

#[test]
fn line_and_column_in_pretty_files() {
    let text = "{\n  \"version\": \"0.2.0\",\n  \"types\": [\n    { \"id\": 4, \"typeName\": \"int\" },\n    { \"id\": x }\n  ]\n}";
    let e = err(text);
    assert_eq!(
        e.to_string(),
        "5:13: expected an integer type id, found 'x'"
    );
    let at = e.position().unwrap();
    assert_eq!((at.line, at.column), (5, 13));
    assert_eq!(&text[at.offset..at.offset + 1], "x");
}

#[test]
fn truncated_files() {
    // The failure users report: output cut mid-token.
    let text =
        r#"{"version":"1.0.0","types":[],"methods":[{"id":121323,"name":"Turtle_","signatur"#;
    let e = err(text);
    assert!(e.is_truncated());
    assert_eq!(
        e.to_string(),
        format!(
            "1:{}: unexpected end of input (truncated file?), expected '\"' closing the string",
            text.len() + 1
        )
    );
    let e = err(
        r#"{"version":"1.0.0","types":[],"methods":[],"callCountProfiles":[{"ctx":"1:0","records":[12"#,
    );
    assert!(e.is_truncated(), "{e}");
    assert!(err("").is_truncated());
    assert!(err("{").is_truncated());
    assert!(err(r#"{"version":"1.0.0","types":[],"methods":[]"#).is_truncated());
    assert!(err(r#"{"x":tru"#).is_truncated());
}

#[test]
fn missing_and_duplicate_keys() {
    let e = err(r#"{"version":"1.0.0","types":[]}"#);
    assert_eq!(
        e.to_string(),
        "1:1: object has no \"methods\" key (the profile object requires it)"
    );
    let e = err(r#"{"version":"1.0.0","types":[{"id":1}],"methods":[]}"#);
    assert_eq!(
        e.to_string(),
        "1:29: object has no \"name\" key (a type requires it)"
    );
    let e =
        err(r#"{"version":"1.0.0","types":[],"methods":[],"callCountProfiles":[{"ctx":"1:0"}]}"#);
    assert!(
        e.to_string()
            .contains("no \"records\" key (a profile entry requires it)"),
        "{e}"
    );
    let e = err(r#"{"version":"1.0.0","types":[],"types":[],"methods":[]}"#);
    assert_eq!(e.to_string(), "1:31: duplicate key \"types\"");
    // A section under its modern and its legacy name.
    let e = err(
        r#"{"version":"1.0.0","types":[],"methods":[],"callCountProfiles":[],"hotnessPoints":[]}"#,
    );
    assert!(matches!(e, Error::DuplicateKey { .. }), "{e}");
}

#[test]
fn bad_contexts() {
    let e = err(
        r#"{"version":"1.0.0","types":[],"methods":[],"callCountProfiles":[{"ctx":"5:0<3","records":[1]}]}"#,
    );
    assert!(matches!(e, Error::Context { .. }), "{e}");
    let at = e.position().unwrap();
    assert_eq!(at.column, 78, "{e}"); // the end of the context: its closing quote
    assert!(
        e.to_string()
            .starts_with("1:78: invalid call context \"5:0<3\": expected ':'"),
        "{e}"
    );
    // Legacy lists use ',' between frames (a '<' is accepted too).
    let e = err(
        r#"{"version":"0.2.0","types":[],"methods":[],"hotnessPoints":[{"methodBciList":"5:0,3:x","records":[1]}]}"#,
    );
    assert!(
        e.to_string()
            .starts_with("1:85: invalid call context \"5:0,3:x\": expected a bci"),
        "{e}"
    );
    let p = Profile::parse(r#"{"version":"0.2.0","types":[],"methods":[],"hotnessPoints":[{"methodBciList":"5:0<3:1","records":[1]}]}"#).unwrap();
    assert_eq!(p.call_count_profiles.unwrap()[0].ctx.to_string(), "5:0<3:1");
}

#[test]
fn compressed_and_non_utf8_input() {
    let e = Profile::parse(&[0x1f, 0x8b, 8, 0, 0, 0]).unwrap_err();
    assert!(matches!(e, Error::Compressed { format: "gzip", .. }));
    assert!(e.to_string().contains("gzip-compressed"));
    assert!(iprof::is_gzip(&[0x1f, 0x8b]));
    let e = Profile::parse(b"\xfd7zXZ\x00rest").unwrap_err();
    assert!(matches!(e, Error::Compressed { format: "xz", .. }));
    let e = Profile::parse(b"{\"version\":\"\xff\"}").unwrap_err();
    assert_eq!(e.to_string(), "1:13: invalid UTF-8");
}

/// Without a format's cargo feature, `decompress` says which feature is missing.
#[test]
fn decompress_without_the_feature() {
    let plain = br#"{"version":"1.0.0","types":[],"methods":[]}"#;
    assert!(matches!(
        iprof::decompress(plain, 10),
        Ok(std::borrow::Cow::Borrowed(_))
    ));
    let gz = iprof::decompress(&[0x1f, 0x8b, 8, 0], 10).unwrap_err();
    let xz = iprof::decompress(b"\xfd7zXZ\x00rest", 10).unwrap_err();
    if cfg!(feature = "gzip") {
        assert!(matches!(gz, Error::Gzip { .. }), "{gz:?}");
    } else {
        assert_eq!(gz, Error::Unsupported { format: "gzip" });
    }
    if cfg!(feature = "xz") {
        assert!(matches!(xz, Error::Xz { .. }), "{xz:?}");
    } else {
        assert_eq!(
            xz.to_string(),
            "1:1: the input is xz-compressed, and this build of iprof has no `xz` feature"
        );
    }
}

#[test]
fn strings_json_rules() {
    let p = Profile::parse(r#"{"version":"1.0.0","types":[{"id":1,"name":"a\"b\\c\u00e9\ud83d\ude00\n"}],"methods":[]}"#).unwrap();
    assert_eq!(p.types[0].name, "a\"b\\cé😀\n");
    let e = err(r#"{"version":"1.0.0","types":[{"id":1,"name":"\ud83d"}],"methods":[]}"#);
    assert!(matches!(e, Error::Escape { .. }), "{e}");
    let e = err(r#"{"version":"1.0.0","types":[{"id":1,"name":"\q"}],"methods":[]}"#);
    assert_eq!(
        e.to_string(),
        "1:45: invalid escape in string: \\q\"}],\"metho"
    );
    let e = err("{\"version\":\"1.0\u{1}\"}");
    assert!(e.to_string().contains("control character"), "{e}");
}

#[test]
fn trailing_data_and_trailing_commas() {
    let e = err(r#"{"version":"1.0.0","types":[],"methods":[]} x"#);
    assert_eq!(
        e.to_string(),
        "1:45: expected the end of the input after the root object, found 'x'"
    );
    let e = err(r#"{"version":"1.0.0","types":[],"methods":[],}"#);
    assert!(e.to_string().starts_with("1:44: expected a key"), "{e}");
    let e =
        err(r#"{"version":"1.0.0","types":[],"methods":[{"id":1,"name":"m","signature":[1,]}]}"#);
    assert!(e.to_string().contains("expected an integer"), "{e}");
}

#[test]
fn deep_unknown_values_are_bounded() {
    let deep = format!(
        r#"{{"version":"1","types":[],"methods":[],"x":{}{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = err(&deep);
    assert!(matches!(e, Error::TooDeep { limit: 128, .. }), "{e}");
    let ok = format!(
        r#"{{"version":"1","types":[],"methods":[],"x":{}{}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    assert!(Profile::parse(&ok).is_ok());
}

#[test]
fn huge_arrays_are_read_without_preallocation() {
    // A records array of 200k integers: read as it comes, no size taken from the input.
    let records = vec!["1"; 200_000].join(",");
    let text = format!(
        r#"{{"version":"1.0.0","types":[],"methods":[],"monitorProfiles":[{{"ctx":"0:0","records":[{records}]}}]}}"#
    );
    let p = Profile::parse(&text).unwrap();
    assert_eq!(p.monitor_profiles.unwrap()[0].records.len(), 200_000);
}

#[test]
fn string_scanning_at_every_alignment() {
    for len in 0..40 {
        let name: String = "é$<>[;/".chars().cycle().take(len).collect();
        let text =
            format!(r#"{{"version":"1","types":[{{"id":1,"name":"{name}"}}],"methods":[]}}"#);
        assert_eq!(Profile::parse(&text).unwrap().types[0].name, name);
        let escaped = format!(
            r#"{{"version":"1","types":[{{"id":1,"name":"{name}\n{name}"}}],"methods":[]}}"#
        );
        assert_eq!(
            Profile::parse(&escaped).unwrap().types[0].name,
            format!("{name}\n{name}")
        );
        let control = format!("{{\"version\":\"{name}\u{1f}{name}\"}}");
        let e = err(&control);
        assert_eq!(e.position().unwrap().offset, 12 + name.len(), "{e}");
    }
}

#[test]
fn files_of_other_formats_are_not_json_profiles() {
    let hprof = std::fs::read("../hprof/tests/data/binary/heapgen_jdk17.hprof").unwrap();
    let e = Profile::parse(&hprof).unwrap_err();
    assert!(matches!(e, Error::NotJson { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "1:1: not a JSON profile: an .iprof file starts with `{`, this one with \
         \"JAVA PROFILE 1.0\" (an HPROF heap dump?)"
    );
    let text = std::fs::read("../hprof/tests/data/ascii/SimNet_java.hprof.txt").unwrap();
    let e = Profile::parse(&text).unwrap_err();
    assert!(matches!(e, Error::NotJson { .. }), "{e:?}");
    let e = Profile::parse(&[0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x3d][..]).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("bytes ca fe ba be 00 00 00 3d (a Java class file?)"),
        "{e}"
    );
    // Leading white space and a byte order mark are still a JSON profile's.
    assert!(Profile::parse("\u{feff} \n{").is_err_and(|e| !matches!(e, Error::NotJson { .. })));
    assert!(Profile::parse("\u{feff} {\"version\":\"1.0.0\",\"types\":[],\"methods\":[]}").is_ok());
}

#[test]
fn names_take_the_method_ids_of_contexts_and_of_the_model() {
    let text = r#"{"version":"1.0.0","types":[{"id":8,"name":"void"},{"id":10,"name":"Fib"}],
      "methods":[{"id":19551,"name":"fibonacci","signature":[10,8]}],
      "callCountProfiles":[{"ctx":"19551:0","records":[3]}]}"#;
    let profile = Profile::parse(text).unwrap();
    let names = profile.names();
    let counted = profile.call_counts().next().unwrap().method().unwrap();
    // A context's `u32` and the model's `i64` ids name the same method.
    assert_eq!(names.short_method(counted), "Fib.fibonacci()");
    assert_eq!(names.short_method(profile.methods[0].id), "Fib.fibonacci()");
    assert_eq!(profile.hottest_methods(1)[0].calls, 3);
}
