//! Chunks that write integers as plain big-endian bytes (the compressed-integers flag off) and
//! version 1.0 headers: the same recording as `jfr::testing::tiny_recording`, written by hand
//! with 4-byte ints and 8-byte longs, decodes to the same values.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

/// A writer of plain (uncompressed) integers.
#[derive(Default)]
struct Plain(Vec<u8>);

impl Plain {
    fn int(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn long(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn byte(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn string(&mut self, s: &str) -> &mut Self {
        self.byte(3).int(s.len() as i32);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    /// A record: the size (4 bytes, itself included), the type (8 bytes), then `body`.
    fn record(kind: i64, body: &[u8]) -> Vec<u8> {
        let mut r = Plain::default();
        r.int((12 + body.len()) as i32).long(kind);
        r.0.extend_from_slice(body);
        r.0
    }
}

fn metadata() -> Vec<u8> {
    let strings = [
        "root",
        "metadata",
        "region",
        "class",
        "field",
        "id",
        "name",
        "class",
        "superType",
        "constantPool",
        "true",
        "20",
        "long",
        "21",
        "java.lang.String",
        "22",
        "demo.Thread",
        "30",
        "demo.Tick",
        "jdk.jfr.Event",
        "startTime",
        "value",
        "thread",
        "gmtOffset",
        "0",
    ];
    let at = |s: &str| strings.iter().position(|t| *t == s).unwrap() as i32;
    let mut b = Plain::default();
    b.long(0).long(0).long(1).int(strings.len() as i32);
    for s in strings {
        b.string(s);
    }
    // root { metadata { 4 classes }, region }
    b.int(at("root")).int(0).int(2);
    b.int(at("metadata")).int(0).int(4);
    let class = |b: &mut Plain, id: &str, name: &str, sup: Option<&str>, fields: usize| {
        let attrs = 2 + i32::from(sup.is_some());
        b.int(at("class"))
            .int(attrs)
            .int(at("id"))
            .int(at(id))
            .int(at("name"))
            .int(at(name));
        if let Some(s) = sup {
            b.int(at("superType")).int(at(s));
        }
        b.int(fields as i32);
    };
    let field = |b: &mut Plain, name: &str, class: &str, cp: bool| {
        b.int(at("field"))
            .int(2 + i32::from(cp))
            .int(at("name"))
            .int(at(name))
            .int(at("class"))
            .int(at(class));
        if cp {
            b.int(at("constantPool")).int(at("true"));
        }
        b.int(0);
    };
    class(&mut b, "20", "long", None, 0);
    class(&mut b, "21", "java.lang.String", None, 0);
    class(&mut b, "22", "demo.Thread", None, 1);
    field(&mut b, "name", "21", false);
    class(&mut b, "30", "demo.Tick", Some("jdk.jfr.Event"), 3);
    field(&mut b, "startTime", "20", false);
    field(&mut b, "value", "20", false);
    field(&mut b, "thread", "22", true);
    b.int(at("region"))
        .int(1)
        .int(at("gmtOffset"))
        .int(at("0"))
        .int(0);
    Plain::record(0, &b.0)
}

fn chunk(major: u16) -> Vec<u8> {
    let md = metadata();
    let mut ev = Plain::default();
    ev.long(5).long(-42).long(7);
    let ev = Plain::record(30, &ev.0);
    let mut cp = Plain::default();
    cp.long(0)
        .long(0)
        .long(0)
        .byte(0)
        .int(1)
        .long(22)
        .int(1)
        .long(7)
        .string("main");
    let cp = Plain::record(1, &cp.0);
    let md_at = 68u64;
    let cp_at = md_at + (md.len() + ev.len()) as u64;
    let size = cp_at + cp.len() as u64;
    let mut out = b"FLR\0".to_vec();
    out.extend_from_slice(&major.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    for v in [
        size,
        cp_at,
        md_at,
        1_700_000_000_000_000_000,
        1_000,
        0,
        1_000_000_000,
    ] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&0u32.to_be_bytes()); // no compressed integers
    out.extend(md);
    out.extend(ev);
    out.extend(cp);
    out
}

#[test]
fn plain_integers_in_both_versions() {
    for major in [1, 2] {
        let data = chunk(major);
        let chunk = jfr::Chunks::new(&data).next().unwrap().unwrap();
        assert!(!chunk.header.compressed_integers());
        assert_eq!(chunk.header.major, major);
        let events: Vec<_> = chunk.events().map(|e| e.unwrap()).collect();
        assert_eq!(events.len(), 1);
        let e = events[0];
        e.validate().unwrap();
        chunk.check_records(|_, _| {}).unwrap();
        assert_eq!(e.get_i64("value").unwrap(), Some(-42));
        let thread = e.get("thread").unwrap().unwrap();
        assert_eq!(thread.as_object().unwrap().fields[0].as_str(), Some("main"));
        let mut line = String::new();
        jfr::json::write_event(&e, &jfr::json::JsonOptions::default(), &mut line).unwrap();
        assert_eq!(
            line,
            r#"{"type": "demo.Tick", "values": {"startTime": 5, "value": -42, "thread": {"name": "main"}}}"#
        );
        // Cut inside the event: salvaged up to the cut.
        let cut = &data[..68 + metadata().len() + 10];
        let chunk = jfr::Chunks::new(cut).next().unwrap().unwrap();
        let last = chunk.events().last().unwrap();
        assert!(last.unwrap_err().is_truncated());
    }
}
