//! The writer: a [`Profile`] back to `.iprof` JSON in GraalVM's layout (iprof format
//! document, "Structure"; the 0.2.0 layout per [`crate::legacy`]).
//!
//! [`Layout::Modern`] profiles are written compact (no whitespace), like GraalVM 23+ does;
//! [`Layout::Legacy`] profiles pretty-printed like GraalVM EE 22.x did. Top-level keys follow
//! [`Profile::key_order`] (the order read from the file), then GraalVM's order for the rest:
//! `version, types, methods, callCountProfiles, conditionalProfiles, virtualInvokeProfiles,
//! monitorProfiles, samplingProfiles, instanceofProfiles`, then unknown keys. Strings escape
//! `"`, `\` and control characters only, like GraalVM's `JsonWriter`. Read real files
//! re-encode byte for byte.
//!
//! The 0.2.0 layout has exactly one `monitorsProfile` object and no monitor contexts: a
//! legacy profile's monitor entries are written as one object holding all their records.

use std::fmt::Write as _;

use crate::model::{Ctx, Extra, Layout, Profile, ProfileEntry, RawJson, Section, TopLevelKey};

impl Profile<'_> {
    /// The profile as `.iprof` JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// Appends the profile as `.iprof` JSON text to `out`.
    pub fn write(&self, out: &mut String) {
        // Each key once, in the first place it appears. A flag per key instead of a search of
        // the keys so far: a file may have any number of unknown keys.
        let mut keys: Vec<TopLevelKey> = Vec::with_capacity(16);
        let mut known = [false; 3 + Section::ALL.len()];
        let mut unknown = vec![false; self.unknown.len()];
        for &key in self.key_order.iter().chain(default_order(self).iter()) {
            let seen = match key {
                TopLevelKey::Version => known.get_mut(0),
                TopLevelKey::Types => known.get_mut(1),
                TopLevelKey::Methods => known.get_mut(2),
                TopLevelKey::Section(s) => Section::ALL
                    .iter()
                    .position(|&x| x == s)
                    .and_then(|i| known.get_mut(3 + i)),
                TopLevelKey::Unknown(i) => unknown.get_mut(i),
            };
            if let Some(seen) = seen.filter(|seen| !**seen) {
                if self.has(key) {
                    *seen = true;
                    keys.push(key);
                }
            }
        }
        let mut w = Writer {
            out,
            legacy: self.layout == Layout::Legacy,
        };
        w.out.push('{');
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                w.out.push(',');
            }
            w.newline(1);
            w.key(key_name(self, *key, w.legacy));
            match *key {
                TopLevelKey::Version => w.string(&self.version),
                TopLevelKey::Types => w.array(&self.types, |w, t| {
                    let mut o = w.open(&t.extra);
                    o.id_and_name(w, t.id, "typeName", &t.name);
                    o.close(w);
                }),
                TopLevelKey::Methods => w.array(&self.methods, |w, m| {
                    let mut o = w.open(&m.extra);
                    o.id_and_name(w, m.id, "methodName", &m.name);
                    o.member(w, "signature");
                    w.integers(&m.signature);
                    o.close(w);
                }),
                TopLevelKey::Section(Section::Monitor) if w.legacy => {
                    // `"monitorsProfile": {\n    "records": [ … ] \n  }`
                    let entries = self.entries(Section::Monitor);
                    let records: Vec<i64> = entries
                        .iter()
                        .flat_map(|e| e.records.iter().copied())
                        .collect();
                    let extra = entries.first().map(|e| &e.extra);
                    w.monitors_profile(&records, extra);
                }
                TopLevelKey::Section(section) => {
                    let legacy_names = w.legacy && section.legacy_key().is_some();
                    w.array(self.entries(section), |w, e| w.entry(e, legacy_names));
                }
                TopLevelKey::Unknown(i) => {
                    if let Some((_, raw)) = self.unknown.get(i) {
                        w.raw(raw);
                    }
                }
            }
        }
        w.newline(0);
        w.out.push('}');
    }

    fn has(&self, key: TopLevelKey) -> bool {
        match key {
            TopLevelKey::Version | TopLevelKey::Types | TopLevelKey::Methods => true,
            TopLevelKey::Section(s) => self.section(s).is_some(),
            TopLevelKey::Unknown(i) => i < self.unknown.len(),
        }
    }
}

/// GraalVM's key order, then the unknown keys.
fn default_order(profile: &Profile<'_>) -> Vec<TopLevelKey> {
    let mut keys = vec![
        TopLevelKey::Version,
        TopLevelKey::Types,
        TopLevelKey::Methods,
    ];
    keys.extend(Section::ALL.iter().map(|&s| TopLevelKey::Section(s)));
    keys.extend((0..profile.unknown.len()).map(TopLevelKey::Unknown));
    keys
}

fn key_name<'p>(profile: &'p Profile<'_>, key: TopLevelKey, legacy: bool) -> &'p str {
    match key {
        TopLevelKey::Version => "version",
        TopLevelKey::Types => "types",
        TopLevelKey::Methods => "methods",
        TopLevelKey::Section(s) => match (legacy, s.legacy_key()) {
            (true, Some(k)) => k,
            _ => s.key(),
        },
        TopLevelKey::Unknown(i) => profile.unknown.get(i).map_or("", |(k, _)| k),
    }
}

struct Writer<'o> {
    out: &'o mut String,
    legacy: bool,
}

impl Writer<'_> {
    /// A line break and `depth` levels of 2-space indent (legacy layout only).
    fn newline(&mut self, depth: usize) {
        if self.legacy {
            self.out.push('\n');
            for _ in 0..depth {
                self.out.push_str("  ");
            }
        }
    }

    /// A space (legacy layout only).
    fn space(&mut self) {
        if self.legacy {
            self.out.push(' ');
        }
    }

    /// `,` (plus a space in the legacy layout).
    fn comma(&mut self) {
        self.out.push(',');
        self.space();
    }

    /// `"key":` (plus a space in the legacy layout).
    fn key(&mut self, key: &str) {
        self.string(key);
        self.out.push(':');
        self.space();
    }

    /// Starts an object (`{`, plus a space in the legacy layout) whose unknown members are
    /// `extra`.
    fn open<'e, 'a>(&mut self, extra: &'e Extra<'a>) -> Object<'e, 'a> {
        self.out.push('{');
        self.space();
        Object {
            extra,
            known: 0,
            first: true,
        }
    }

    /// A raw JSON value: as read in the legacy (pretty-printed) layout, minified in the
    /// compact one.
    fn raw(&mut self, raw: &RawJson<'_>) {
        if self.legacy {
            self.out.push_str(raw.as_str());
        } else {
            crate::model::minify_into(raw.as_str(), self.out);
        }
    }

    /// The 0.2.0 `monitorsProfile` object: `{`, each member on its own line, `}`.
    fn monitors_profile(&mut self, records: &[i64], extra: Option<&Extra<'_>>) {
        self.out.push('{');
        let members = extra.map_or(&[][..], Extra::members);
        let mut first = true;
        let mut sep = |w: &mut Self| {
            if !std::mem::take(&mut first) {
                w.out.push(',');
            }
            w.newline(2);
        };
        // Known members: the (implicit) context, then `records`.
        for after in 0..=2 {
            for m in members.iter().filter(|m| m.after.clamp(1, 2) == after) {
                sep(self);
                self.key(&m.key);
                self.raw(&m.value);
            }
            if after == 1 {
                sep(self);
                self.key("records");
                self.integers(records);
                self.space();
            }
        }
        self.newline(1);
        self.out.push('}');
    }

    fn array<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.out.push('[');
        if items.is_empty() && self.legacy {
            // GraalVM EE 22.x printed empty arrays as "[\n\n  ]".
            self.out.push('\n');
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline(2);
            each(self, item);
        }
        self.newline(1);
        self.out.push(']');
    }

    fn entry(&mut self, e: &ProfileEntry<'_>, legacy_names: bool) {
        let mut o = self.open(&e.extra);
        o.member(self, if legacy_names { "methodBciList" } else { "ctx" });
        self.ctx(&e.ctx, legacy_names);
        o.member(self, "records");
        self.integers(&e.records);
        o.close(self);
    }

    fn ctx(&mut self, ctx: &Ctx<'_>, legacy_names: bool) {
        self.out.push('"');
        if legacy_names {
            for (i, frame) in ctx.frames().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let _ = write!(self.out, "{frame}");
            }
        } else {
            let _ = write!(self.out, "{ctx}");
        }
        self.out.push('"');
    }

    /// `[1,2,3]`, or `[ 1, 2, 3 ]` in the legacy layout.
    fn integers(&mut self, values: &[i64]) {
        self.out.push('[');
        self.space();
        for (i, &v) in values.iter().enumerate() {
            if i > 0 {
                self.comma();
            }
            self.integer(v);
        }
        self.space();
        self.out.push(']');
    }

    fn integer(&mut self, v: i64) {
        push_i64(self.out, v);
    }

    fn string(&mut self, s: &str) {
        push_json_string(self.out, s);
    }
}

/// An object being written: its known members are written in the writer's order, each
/// unknown member after as many known members as it followed in the file.
struct Object<'e, 'a> {
    extra: &'e Extra<'a>,
    /// Known members written so far.
    known: usize,
    first: bool,
}

impl Object<'_, '_> {
    /// The separator before a member.
    fn separate(&mut self, w: &mut Writer<'_>) {
        if !std::mem::take(&mut self.first) {
            w.comma();
        }
    }

    /// The unknown members that came after exactly `self.known` known members (`last`: and
    /// every one after more).
    fn extras(&mut self, w: &mut Writer<'_>, last: bool) {
        let known = self.known;
        for m in self.extra.members() {
            if m.after == known || (last && m.after > known) {
                self.separate(w);
                w.key(&m.key);
                w.raw(&m.value);
            }
        }
    }

    /// Starts the next known member: unknown members due before it, a separator, its key.
    fn member(&mut self, w: &mut Writer<'_>, key: &str) {
        self.extras(w, false);
        self.separate(w);
        w.key(key);
        self.known += 1;
    }

    /// `"id": <id>, "name": <name>` of a type or method, its name under `legacy_name` in
    /// the legacy layout.
    fn id_and_name(&mut self, w: &mut Writer<'_>, id: i64, legacy_name: &str, name: &str) {
        self.member(w, "id");
        w.integer(id);
        self.member(w, if w.legacy { legacy_name } else { "name" });
        w.string(name);
    }

    /// The remaining unknown members, then `}` (after a space in the legacy layout).
    fn close(mut self, w: &mut Writer<'_>) {
        self.extras(w, true);
        w.space();
        w.out.push('}');
    }
}

/// Appends the decimal digits of `v`.
pub(crate) fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut n = v.unsigned_abs();
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            // n % 10 < 10, so the cast is exact.
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    for &b in buf.get(i..).unwrap_or(&[]) {
        out.push(char::from(b));
    }
}

/// Appends `s` as a JSON string, escaping `"`, `\` and control characters.
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push_str(s);
    } else {
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if u32::from(c) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}
