//! Building small recordings by hand, for examples, tests and fuzzing seeds: compressed
//! integers, strings, a metadata event from a list of classes, checkpoint and event records,
//! and a chunk around them. Not an encoder for real recordings.

/// A class to declare in a metadata event.
#[derive(Debug, Clone, Default)]
pub struct ClassSpec<'s> {
    /// Class id.
    pub id: u64,
    /// Class name.
    pub name: &'s str,
    /// Super type (`jdk.jfr.Event` for event types).
    pub super_type: Option<&'s str>,
    /// `simpleType="true"`.
    pub simple_type: bool,
    /// Fields, in order.
    pub fields: Vec<FieldSpec<'s>>,
}

/// A field of a [`ClassSpec`].
#[derive(Debug, Clone, Default)]
pub struct FieldSpec<'s> {
    /// Field name.
    pub name: &'s str,
    /// The id of its class.
    pub class_id: u64,
    /// `constantPool="true"`.
    pub constant_pool: bool,
    /// `dimension="1"`.
    pub array: bool,
    /// `(annotation class id, value)` pairs.
    pub annotations: Vec<(u64, &'s str)>,
}

/// Appends `v` as a compressed integer.
pub fn varint(out: &mut Vec<u8>, mut v: u64) {
    for _ in 0..8 {
        if v < 0x80 {
            out.push(v as u8);
            return;
        }
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `s` as a UTF-8 string (encoding 3).
pub fn string(out: &mut Vec<u8>, s: &str) {
    out.push(3);
    varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// A record: its size (a compressed integer padded to 4 bytes, as the recorder writes it),
/// its type id, then `body`.
pub fn record(type_id: u64, body: &[u8]) -> Vec<u8> {
    let mut rest = Vec::new();
    varint(&mut rest, type_id);
    rest.extend_from_slice(body);
    let size = (rest.len() + 4) as u32;
    let mut out = vec![
        (size as u8 & 0x7f) | 0x80,
        ((size >> 7) as u8 & 0x7f) | 0x80,
        ((size >> 14) as u8 & 0x7f) | 0x80,
        (size >> 21) as u8 & 0x7f,
    ];
    out.extend(rest);
    out
}

struct Strings(Vec<String>);

impl Strings {
    fn id(&mut self, s: &str) -> u64 {
        match self.0.iter().position(|t| t == s) {
            Some(i) => i as u64,
            None => {
                self.0.push(s.to_owned());
                (self.0.len() - 1) as u64
            }
        }
    }

    fn element(
        &mut self,
        out: &mut Vec<u8>,
        name: &str,
        attrs: &[(&str, String)],
        children: usize,
    ) {
        let id = self.id(name);
        varint(out, id);
        varint(out, attrs.len() as u64);
        for (k, v) in attrs {
            let (k, v) = (self.id(k), self.id(v));
            varint(out, k);
            varint(out, v);
        }
        varint(out, children as u64);
    }
}

/// A metadata event declaring `classes`, with a `region` of UTC.
pub fn metadata_event(classes: &[ClassSpec<'_>]) -> Vec<u8> {
    let mut strings = Strings(Vec::new());
    let mut tree = Vec::new();
    strings.element(&mut tree, "root", &[], 2);
    strings.element(&mut tree, "metadata", &[], classes.len());
    for c in classes {
        let mut attrs = vec![("id", c.id.to_string()), ("name", c.name.to_owned())];
        if let Some(s) = c.super_type {
            attrs.push(("superType", s.to_owned()));
        }
        if c.simple_type {
            attrs.push(("simpleType", "true".to_owned()));
        }
        strings.element(&mut tree, "class", &attrs, c.fields.len());
        for f in &c.fields {
            let mut attrs = vec![
                ("name", f.name.to_owned()),
                ("class", f.class_id.to_string()),
            ];
            if f.constant_pool {
                attrs.push(("constantPool", "true".to_owned()));
            }
            if f.array {
                attrs.push(("dimension", "1".to_owned()));
            }
            strings.element(&mut tree, "field", &attrs, f.annotations.len());
            for (class, value) in &f.annotations {
                let attrs = [("class", class.to_string()), ("value", (*value).to_owned())];
                strings.element(&mut tree, "annotation", &attrs, 0);
            }
        }
    }
    strings.element(
        &mut tree,
        "region",
        &[
            ("locale", "en_US".to_owned()),
            ("gmtOffset", "0".to_owned()),
        ],
        0,
    );
    let mut body = vec![0, 0, 1]; // start, duration, id
    varint(&mut body, strings.0.len() as u64);
    for s in &strings.0 {
        string(&mut body, s);
    }
    body.extend(tree);
    record(0, &body)
}

/// One constant pool of a checkpoint: the class id, then `(key, encoded value)` entries.
pub type Pool = (u64, Vec<(u64, Vec<u8>)>);

/// A checkpoint event: `delta` to the previous one, then `(class id, [(key, value bytes)])`
/// pools.
pub fn checkpoint_event(delta: i64, pools: &[Pool]) -> Vec<u8> {
    let mut body = vec![0, 0];
    varint(&mut body, delta as u64);
    body.push(0);
    varint(&mut body, pools.len() as u64);
    for (class, entries) in pools {
        varint(&mut body, *class);
        varint(&mut body, entries.len() as u64);
        for (key, value) in entries {
            varint(&mut body, *key);
            body.extend_from_slice(value);
        }
    }
    record(1, &body)
}

/// A whole chunk (version 2.1, compressed integers, 1 tick per nanosecond): header,
/// `metadata`, `events`, then `checkpoint` last.
pub fn chunk(metadata: &[u8], events: &[Vec<u8>], checkpoint: &[u8]) -> Vec<u8> {
    let metadata_at = crate::HEADER_SIZE as u64;
    let events_len: usize = events.iter().map(Vec::len).sum();
    let checkpoint_at = metadata_at + (metadata.len() + events_len) as u64;
    let size = checkpoint_at + checkpoint.len() as u64;
    let mut out = Vec::with_capacity(size as usize);
    out.extend_from_slice(&crate::MAGIC);
    out.extend_from_slice(&2u16.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes());
    for v in [
        size,
        checkpoint_at,
        metadata_at,
        1_700_000_000_000_000_000,
        1_000_000,
        0,
        1_000_000_000,
    ] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&3u32.to_be_bytes());
    out.extend_from_slice(metadata);
    for e in events {
        out.extend_from_slice(e);
    }
    out.extend_from_slice(checkpoint);
    out
}

/// A one-chunk recording: one `demo.Tick` event (`startTime` 5, `value` 42, `thread` a
/// constant `demo.Thread` named `main`).
pub fn tiny_recording() -> Vec<u8> {
    let classes = [
        ClassSpec {
            id: 20,
            name: "long",
            ..ClassSpec::default()
        },
        ClassSpec {
            id: 21,
            name: "java.lang.String",
            ..ClassSpec::default()
        },
        ClassSpec {
            id: 22,
            name: "demo.Thread",
            fields: vec![FieldSpec {
                name: "name",
                class_id: 21,
                ..FieldSpec::default()
            }],
            ..ClassSpec::default()
        },
        ClassSpec {
            id: 30,
            name: "demo.Tick",
            super_type: Some("jdk.jfr.Event"),
            fields: vec![
                FieldSpec {
                    name: "startTime",
                    class_id: 20,
                    ..FieldSpec::default()
                },
                FieldSpec {
                    name: "value",
                    class_id: 20,
                    ..FieldSpec::default()
                },
                FieldSpec {
                    name: "thread",
                    class_id: 22,
                    constant_pool: true,
                    ..FieldSpec::default()
                },
            ],
            ..ClassSpec::default()
        },
    ];
    let mut main = Vec::new();
    string(&mut main, "main");
    let checkpoint = checkpoint_event(0, &[(22, vec![(7, main)])]);
    chunk(
        &metadata_event(&classes),
        &[record(30, &[5, 42, 7])],
        &checkpoint,
    )
}
