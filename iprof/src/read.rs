//! The reader: a hand-written JSON scanner over the input bytes and the parsers of the root
//! object and its sections (iprof format document, "Structure" and every profile section;
//! schema v1.0.0/v1.1.0; legacy layouts per [`crate::legacy`]).
//!
//! The input is checked for UTF-8 once, then scanned byte by byte through one [`Cursor`].
//! Strings without escapes, contexts and unknown values are borrowed from the input. No
//! allocation is sized by the input's numbers; arrays grow as elements arrive.

use std::borrow::Cow;

use callctx::ContextBuf;

use crate::error::{Error, Position};
use crate::model::{
    Ctx, Extra, Layout, Method, Profile, ProfileEntry, RawJson, Section, TopLevelKey, Type,
};

/// How deeply unknown values may nest.
const MAX_DEPTH: usize = 128;

/// Parses an `.iprof` file from bytes (detecting gzip/xz input and invalid UTF-8).
pub(crate) fn parse_bytes(input: &[u8]) -> Result<Profile<'_>, Error> {
    if input.starts_with(&[0x1f, 0x8b]) {
        return Err(Error::Compressed {
            format: "gzip",
            magic: "1f 8b",
        });
    }
    if input.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        return Err(Error::Compressed {
            format: "xz",
            magic: "fd 37 7a 58 5a 00",
        });
    }
    match std::str::from_utf8(input) {
        Ok(text) => parse_str(text),
        Err(e) => Err(Error::InvalidUtf8 {
            at: Position::locate(input, e.valid_up_to()),
        }),
    }
}

/// Parses an `.iprof` file from text.
pub(crate) fn parse_str(input: &str) -> Result<Profile<'_>, Error> {
    let mut cur = Cursor::new(input);
    // A UTF-8 byte order mark is not JSON, but editors add it; skip it.
    if input.starts_with('\u{feff}') {
        cur.pos = 3;
    }
    cur.ws();
    let profile = root(&mut cur)?;
    cur.ws();
    if cur.pos < cur.bytes.len() {
        return Err(cur.unexpected("the end of the input after the root object"));
    }
    Ok(profile)
}

/// The one cursor of this crate: the input and a byte position in it.
///
/// The input is valid UTF-8, and the cursor only ever splits it next to ASCII bytes, so every
/// slice it takes is a valid `&str`.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Integers of the array being read, before they get an allocation of their exact size.
    scratch: Vec<i64>,
}

/// True for bytes a JSON string may hold without special handling.
#[inline]
fn plain(b: u8) -> bool {
    b >= 0x20 && b != b'"' && b != b'\\'
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            scratch: Vec::new(),
        }
    }

    fn position(&self, offset: usize) -> Position {
        Position::locate(self.bytes, offset)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips JSON whitespace.
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// A description of the token at the cursor, for error messages.
    fn found(&self) -> String {
        let rest = self.text.get(self.pos..).unwrap_or("");
        match rest.chars().next() {
            None => "the end of the input".to_owned(),
            Some('"') => {
                let mut escaped = false;
                let end = rest.char_indices().skip(1).take(40).find(|&(_, c)| {
                    let close = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    close
                });
                match end {
                    Some((i, _)) if i < 40 => {
                        format!("the string {}", rest.get(..=i).unwrap_or(rest))
                    }
                    _ => format!("the string {}…", rest.chars().take(40).collect::<String>()),
                }
            }
            Some(c @ ('-' | '0'..='9')) => {
                let n: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "+-.".contains(*c))
                    .take(24)
                    .collect();
                if n.is_empty() {
                    format!("{c:?}")
                } else {
                    format!("the number {n}")
                }
            }
            Some('t') if rest.starts_with("true") => "true".to_owned(),
            Some('f') if rest.starts_with("false") => "false".to_owned(),
            Some('n') if rest.starts_with("null") => "null".to_owned(),
            Some('{') => "an object".to_owned(),
            Some('[') => "an array".to_owned(),
            Some(c) => format!("{c:?}"),
        }
    }

    /// The error for `expected` at the cursor (truncation when at the end).
    fn unexpected(&self, expected: &'static str) -> Error {
        if self.pos >= self.bytes.len() {
            Error::Truncated {
                expected,
                at: self.position(self.bytes.len()),
            }
        } else {
            Error::Unexpected {
                expected,
                found: self.found(),
                at: self.position(self.pos),
            }
        }
    }

    /// Consumes `byte` (after whitespace) or fails.
    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), Error> {
        self.ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Starts an object: consumes `{`.
    fn begin_object(&mut self, expected: &'static str) -> Result<usize, Error> {
        self.ws();
        let start = self.pos;
        self.expect(b'{', expected)?;
        Ok(start)
    }

    /// The next key of an object, or `None` after its `}`.
    fn next_key(&mut self, first: &mut bool) -> Result<Option<(Cow<'a, str>, usize)>, Error> {
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(None);
        }
        if !*first {
            self.expect(b',', "',' or '}'")?;
            self.ws();
        }
        *first = false;
        let at = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a key"));
        }
        let key = self.string()?;
        self.expect(b':', "':' after the key")?;
        self.ws();
        Ok(Some((key, at)))
    }

    /// Starts an array: consumes `[`.
    fn begin_array(&mut self, expected: &'static str) -> Result<(), Error> {
        self.expect(b'[', expected)
    }

    /// True when another element follows (consuming the `,`), false after the `]`.
    fn next_element(&mut self, first: &mut bool, expected: &'static str) -> Result<bool, Error> {
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(false);
        }
        if !*first {
            self.expect(b',', expected)?;
            self.ws();
        }
        *first = false;
        Ok(true)
    }

    /// An array of elements read by `element`: `[`, then elements separated by `,`, then `]`.
    /// `begin` and `separator` say what was expected when the `[` or a `,` is missing.
    fn array<T>(
        &mut self,
        begin: &'static str,
        separator: &'static str,
        mut element: impl FnMut(&mut Self) -> Result<T, Error>,
    ) -> Result<Vec<T>, Error> {
        self.begin_array(begin)?;
        let mut out = Vec::new();
        let mut first = true;
        while self.next_element(&mut first, separator)? {
            out.push(element(self)?);
        }
        // The model is kept: give back what doubling reserved past the last element.
        out.shrink_to_fit();
        Ok(out)
    }

    /// The value of a required member, or the error that `object` (which starts at byte
    /// `start`) lacks `key`.
    fn required<T>(
        &self,
        slot: Option<T>,
        key: &'static str,
        object: &'static str,
        start: usize,
    ) -> Result<T, Error> {
        slot.ok_or_else(|| Error::MissingKey {
            key,
            object,
            at: self.position(start),
        })
    }

    /// A string at the cursor (which is at its `"`), borrowed unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, Error> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a string"));
        }
        self.pos += 1;
        let start = self.pos;
        loop {
            self.skip_plain_words();
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(Error::Truncated {
                    expected: "'\"' closing the string",
                    at: self.position(self.pos),
                });
            };
            if plain(b) {
                self.pos += 1;
                continue;
            }
            match b {
                b'"' => {
                    let s = self.slice(start, self.pos)?;
                    self.pos += 1;
                    return Ok(Cow::Borrowed(s));
                }
                b'\\' => return self.escaped_string(start).map(Cow::Owned),
                _ => {
                    return Err(Error::Unexpected {
                        expected: "a string character (control characters must be escaped)",
                        found: format!("the control character {:?}", char::from(b)),
                        at: self.position(self.pos),
                    });
                }
            }
        }
    }

    /// Skips 8 bytes at a time while none of them is `"`, `\\` or a control character.
    #[inline]
    fn skip_plain_words(&mut self) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        // Non-zero when some byte of `x` is zero (never misses one).
        let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
        while let Some(word) = self.bytes.get(self.pos..self.pos + 8) {
            let Ok(word) = <[u8; 8]>::try_from(word) else {
                break;
            };
            let x = u64::from_le_bytes(word);
            let special = has_zero(x ^ (ONES * u64::from(b'"')))
                | has_zero(x ^ (ONES * u64::from(b'\\')))
                | (x.wrapping_sub(ONES * 0x20) & !x & HIGHS);
            if special != 0 {
                break;
            }
            self.pos += 8;
        }
    }

    /// `text[start..end]`, both ends next to ASCII bytes.
    fn slice(&self, start: usize, end: usize) -> Result<&'a str, Error> {
        self.text.get(start..end).ok_or_else(|| Error::InvalidUtf8 {
            at: self.position(start),
        })
    }

    /// The rest of a string that has escapes, decoded; the cursor is at the first `\`.
    fn escaped_string(&mut self, start: usize) -> Result<String, Error> {
        let mut out = String::from(self.slice(start, self.pos)?);
        loop {
            let run = self.pos;
            while self.peek().is_some_and(plain) {
                self.pos += 1;
            }
            out.push_str(self.slice(run, self.pos)?);
            match self.peek() {
                None => {
                    return Err(Error::Truncated {
                        expected: "'\"' closing the string",
                        at: self.position(self.pos),
                    });
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let esc = self.pos;
                    self.pos += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let hi = self.hex4(esc)?;
                            let code = if (0xd800..0xdc00).contains(&hi) {
                                if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                                    return Err(self.bad_escape(esc));
                                }
                                self.pos += 2;
                                let lo = self.hex4(esc)?;
                                if !(0xdc00..0xe000).contains(&lo) {
                                    return Err(self.bad_escape(esc));
                                }
                                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(code).ok_or_else(|| self.bad_escape(esc))?);
                            continue;
                        }
                        None => {
                            return Err(Error::Truncated {
                                expected: "an escape character",
                                at: self.position(self.pos),
                            });
                        }
                        Some(_) => return Err(self.bad_escape(esc)),
                    };
                    self.pos += 1;
                    out.push(c);
                }
                Some(b) => {
                    return Err(Error::Unexpected {
                        expected: "a string character (control characters must be escaped)",
                        found: format!("the control character {:?}", char::from(b)),
                        at: self.position(self.pos),
                    });
                }
            }
        }
    }

    fn bad_escape(&self, esc: usize) -> Error {
        let end = (esc + 12).min(self.bytes.len());
        let text = self
            .text
            .get(esc..end)
            .or_else(|| self.text.get(esc..esc + 2))
            .unwrap_or("\\");
        Error::Escape {
            found: text.chars().take(12).collect(),
            at: self.position(esc),
        }
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self, esc: usize) -> Result<u32, Error> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(b) = self.peek() else {
                return Err(Error::Truncated {
                    expected: "four hex digits after \\u",
                    at: self.position(self.pos),
                });
            };
            let d = char::from(b)
                .to_digit(16)
                .ok_or_else(|| self.bad_escape(esc))?;
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    /// An integer (`-`? digits), rejecting fractions, exponents and values outside `i64`.
    fn integer(&mut self, expected: &'static str) -> Result<i64, Error> {
        self.ws();
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let digits = self.pos;
        // Accumulate negatively so that i64::MIN fits.
        let mut value: i64 = 0;
        let mut overflow = false;
        while let Some(b @ b'0'..=b'9') = self.peek() {
            let d = i64::from(b - b'0');
            match value.checked_mul(10).and_then(|v| v.checked_sub(d)) {
                Some(v) => value = v,
                None => overflow = true,
            }
            self.pos += 1;
        }
        if self.pos == digits {
            self.pos = start;
            return Err(self.unexpected(expected));
        }
        let leading_zero = self.pos - digits > 1 && self.bytes.get(digits) == Some(&b'0');
        let fraction = matches!(self.peek(), Some(b'.' | b'e' | b'E'));
        if fraction {
            while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
        }
        let number_error = |cur: &Self, what: &'static str| Error::Number {
            expected: what,
            found: cur
                .text
                .get(start..cur.pos)
                .unwrap_or("")
                .chars()
                .take(40)
                .collect(),
            at: cur.position(start),
        };
        if fraction {
            return Err(number_error(
                self,
                "an integer (this format has no fractions or exponents)",
            ));
        }
        if leading_zero {
            return Err(number_error(self, "an integer without leading zeros"));
        }
        if overflow {
            return Err(number_error(self, "an integer in the signed 64-bit range"));
        }
        if negative {
            Ok(value)
        } else {
            value
                .checked_neg()
                .ok_or_else(|| number_error(self, "an integer in the signed 64-bit range"))
        }
    }

    /// Skips any JSON value, returning its text.
    fn value(&mut self, depth: usize) -> Result<&'a str, Error> {
        self.ws();
        let start = self.pos;
        if depth > MAX_DEPTH {
            return Err(Error::TooDeep {
                limit: MAX_DEPTH,
                at: self.position(start),
            });
        }
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut first = true;
                while self.next_key(&mut first)?.is_some() {
                    self.value(depth + 1)?;
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut first = true;
                while self.next_element(&mut first, "',' or ']'")? {
                    self.value(depth + 1)?;
                }
            }
            Some(b'"') => {
                self.string()?;
            }
            Some(b'-' | b'0'..=b'9') => {
                // Any JSON number: '-'? int frac? exp?
                self.pos += 1;
                let mut prev = self.bytes.get(start).copied().unwrap_or(b'0');
                while let Some(b) = self.peek() {
                    let ok = b.is_ascii_digit()
                        || b == b'.'
                        || b == b'e'
                        || b == b'E'
                        || ((b == b'+' || b == b'-') && (prev == b'e' || prev == b'E'));
                    if !ok {
                        break;
                    }
                    prev = b;
                    self.pos += 1;
                }
                let text = self.slice(start, self.pos)?;
                if !is_json_number(text) {
                    return Err(Error::Number {
                        expected: "a JSON number",
                        found: text.chars().take(40).collect(),
                        at: self.position(start),
                    });
                }
            }
            Some(b't') => self.literal("true")?,
            Some(b'f') => self.literal("false")?,
            Some(b'n') => self.literal("null")?,
            _ => return Err(self.unexpected("a JSON value")),
        }
        self.slice(start, self.pos)
    }

    fn literal(&mut self, word: &'static str) -> Result<(), Error> {
        let end = self.pos + word.len();
        match self.bytes.get(self.pos..end) {
            Some(b) if b == word.as_bytes() => {
                self.pos = end;
                Ok(())
            }
            _ if self.bytes.len() < end
                && word
                    .as_bytes()
                    .starts_with(self.bytes.get(self.pos..).unwrap_or(&[])) =>
            {
                Err(Error::Truncated {
                    expected: "a JSON literal",
                    at: self.position(self.bytes.len()),
                })
            }
            _ => Err(self.unexpected("a JSON value")),
        }
    }

    /// An array of integers.
    fn integers(&mut self, expected: &'static str) -> Result<Vec<i64>, Error> {
        // Read into the reused scratch buffer, then allocate exactly: a record is usually 1–3
        // integers, for which a growing `Vec` would reserve 4.
        self.begin_array(expected)?;
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let mut first = true;
        let result = loop {
            match self.next_element(&mut first, "',' or ']' in an integer array") {
                Ok(true) => match self.integer("an integer") {
                    Ok(n) => scratch.push(n),
                    Err(e) => break Err(e),
                },
                Ok(false) => break Ok(scratch.as_slice().to_vec()),
                Err(e) => break Err(e),
            }
        };
        self.scratch = scratch;
        result
    }

    /// A context string: modern `m:bci<m:bci` or legacy `m:bci,m:bci`.
    fn ctx(&mut self, legacy: bool) -> Result<Ctx<'a>, Error> {
        self.ws();
        let start = self.pos + 1;
        let text = self.string()?;
        let result = match (&text, legacy) {
            (Cow::Borrowed(s), false) => Ctx::parse(s),
            (s, false) => s.parse::<ContextBuf>().map(Ctx::Owned),
            (s, true) => legacy_context(s).map(Ctx::Owned),
        };
        result.map_err(|source| Error::Context {
            at: self.position((start + source.offset).min(self.pos.saturating_sub(1))),
            text: text.clone().into_owned(),
            source,
        })
    }
}

/// A 0.2.0 `methodBciList` (`m:bci,m:bci`, innermost first) as a context.
fn legacy_context(text: &str) -> Result<ContextBuf, callctx::ParseError> {
    let mut frames = Vec::with_capacity(8);
    let mut base = 0;
    for piece in text.split(',') {
        let ctx = callctx::Context::parse(piece).map_err(|e| callctx::ParseError {
            offset: base + e.offset,
            kind: e.kind,
        })?;
        frames.extend(ctx.frames());
        base += piece.len() + 1;
    }
    Ok(ContextBuf::from_frames(frames))
}

/// True for text matching the JSON number grammar.
fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - s
    };
    if b.first() == Some(&b'-') {
        i += 1;
    }
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b.get(int_start) == Some(&b'0')) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Which top-level key a name is, and whether it is a legacy name.
fn classify(key: &str) -> Option<(TopLevelKey, bool)> {
    Some(match key {
        "version" => (TopLevelKey::Version, false),
        "types" => (TopLevelKey::Types, false),
        "methods" => (TopLevelKey::Methods, false),
        "callCountProfiles" => (TopLevelKey::Section(Section::CallCount), false),
        "conditionalProfiles" => (TopLevelKey::Section(Section::Conditional), false),
        "virtualInvokeProfiles" => (TopLevelKey::Section(Section::VirtualInvoke), false),
        "monitorProfiles" => (TopLevelKey::Section(Section::Monitor), false),
        "samplingProfiles" => (TopLevelKey::Section(Section::Sampling), false),
        "instanceofProfiles" => (TopLevelKey::Section(Section::Instanceof), false),
        "hotnessPoints" => (TopLevelKey::Section(Section::CallCount), true),
        "conditionalPoints" => (TopLevelKey::Section(Section::Conditional), true),
        "invokePoints" => (TopLevelKey::Section(Section::VirtualInvoke), true),
        "monitorsProfile" => (TopLevelKey::Section(Section::Monitor), true),
        _ => return None,
    })
}

/// The root object.
fn root<'a>(cur: &mut Cursor<'a>) -> Result<Profile<'a>, Error> {
    let start = cur.begin_object("'{' starting the profile object")?;
    let mut profile = Profile::default();
    let mut version = None;
    let mut types = None;
    let mut methods = None;
    let mut unknown_keys = std::collections::HashSet::new();
    let mut known_keys: Vec<TopLevelKey> = Vec::with_capacity(16);
    let mut first = true;
    while let Some((key, at)) = cur.next_key(&mut first)? {
        let Some((which, legacy)) = classify(&key) else {
            let value = cur.value(1)?;
            if !unknown_keys.insert(key.clone()) {
                return Err(Error::DuplicateKey {
                    key: key.into_owned(),
                    at: cur.position(at),
                });
            }
            profile
                .key_order
                .push(TopLevelKey::Unknown(profile.unknown.len()));
            profile.unknown.push((key, RawJson(Cow::Borrowed(value))));
            continue;
        };
        if known_keys.contains(&which) {
            return Err(Error::DuplicateKey {
                key: key.into_owned(),
                at: cur.position(at),
            });
        }
        known_keys.push(which);
        profile.key_order.push(which);
        if legacy {
            profile.layout = Layout::Legacy;
        }
        match which {
            TopLevelKey::Version => version = Some(cur.string()?),
            TopLevelKey::Types => types = Some(type_list(cur, &mut profile.layout)?),
            TopLevelKey::Methods => methods = Some(method_list(cur, &mut profile.layout)?),
            TopLevelKey::Section(Section::Monitor) if legacy => {
                profile.monitor_profiles = Some(crate::legacy::monitors_profile(cur)?);
            }
            TopLevelKey::Section(section) => {
                *profile.section_mut(section) = Some(entries(cur, legacy)?);
            }
            TopLevelKey::Unknown(_) => {}
        }
    }
    let object = "the profile object";
    profile.version = cur.required(version, "version", object, start)?;
    profile.types = cur.required(types, "types", object, start)?;
    profile.methods = cur.required(methods, "methods", object, start)?;
    Ok(profile)
}

/// `types`: `[{"id": …, "name": …}, …]` (legacy `typeName`).
fn type_list<'a>(cur: &mut Cursor<'a>, layout: &mut Layout) -> Result<Vec<Type<'a>>, Error> {
    let types = "'[' starting the types array";
    cur.array(types, "',' or ']' in the types array", |cur| {
        let start = cur.begin_object("'{' starting a type")?;
        let mut id_name = IdName::default();
        let mut extra = Extra::default();
        let mut first_key = true;
        while let Some((key, at)) = cur.next_key(&mut first_key)? {
            let id_expected = "an integer type id";
            if !id_name.member(cur, &key, at, id_expected, "typeName", layout)? {
                let known = usize::from(id_name.id.is_some()) + usize::from(id_name.name.is_some());
                unknown_member(cur, &mut extra, known, key, at)?;
            }
        }
        Ok(Type {
            id: cur.required(id_name.id, "id", "a type", start)?,
            name: cur.required(id_name.name, "name", "a type", start)?,
            extra,
        })
    })
}

/// The `id` and `name` members of a type or method, as far as read.
#[derive(Default)]
struct IdName<'a> {
    id: Option<i64>,
    name: Option<Cow<'a, str>>,
}

impl<'a> IdName<'a> {
    /// Reads the member `key` (at byte `at`) if it is `id`, `name` or `legacy_name`;
    /// `id_expected` is what the id should be. False for any other key (its value not read).
    fn member(
        &mut self,
        cur: &mut Cursor<'a>,
        key: &str,
        at: usize,
        id_expected: &'static str,
        legacy_name: &str,
        layout: &mut Layout,
    ) -> Result<bool, Error> {
        if key == "id" {
            set(&mut self.id, cur.integer(id_expected)?, key, at, cur)?;
        } else if key == "name" {
            set(&mut self.name, cur.string()?, key, at, cur)?;
        } else if key == legacy_name {
            *layout = Layout::Legacy;
            set(&mut self.name, cur.string()?, key, at, cur)?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

/// `methods`: `[{"id": …, "name": …, "signature": […]}, …]` (legacy `methodName`).
fn method_list<'a>(cur: &mut Cursor<'a>, layout: &mut Layout) -> Result<Vec<Method<'a>>, Error> {
    let methods = "'[' starting the methods array";
    cur.array(methods, "',' or ']' in the methods array", |cur| {
        let start = cur.begin_object("'{' starting a method")?;
        let (mut id_name, mut signature) = (IdName::default(), None);
        let mut extra = Extra::default();
        let mut first_key = true;
        while let Some((key, at)) = cur.next_key(&mut first_key)? {
            let id_expected = "an integer method id";
            if *key == *"signature" {
                let value = cur.integers("'[' starting the signature")?;
                set(&mut signature, value, &key, at, cur)?;
            } else if !id_name.member(cur, &key, at, id_expected, "methodName", layout)? {
                let known = usize::from(id_name.id.is_some())
                    + usize::from(id_name.name.is_some())
                    + usize::from(signature.is_some());
                unknown_member(cur, &mut extra, known, key, at)?;
            }
        }
        Ok(Method {
            id: cur.required(id_name.id, "id", "a method", start)?,
            name: cur.required(id_name.name, "name", "a method", start)?,
            signature: cur.required(signature, "signature", "a method", start)?,
            extra,
        })
    })
}

/// A section array: `[{"ctx": …, "records": […]}, …]` (legacy `methodBciList`).
pub(crate) fn entries<'a>(
    cur: &mut Cursor<'a>,
    legacy: bool,
) -> Result<Vec<ProfileEntry<'a>>, Error> {
    cur.array(
        "'[' starting a profile array",
        "',' or ']' in a profile array",
        |cur| entry(cur, legacy),
    )
}

/// One `{"ctx": …, "records": […]}` object.
fn entry<'a>(cur: &mut Cursor<'a>, legacy: bool) -> Result<ProfileEntry<'a>, Error> {
    let start = cur.begin_object("'{' starting a profile entry")?;
    let (mut ctx, mut records) = (None, None);
    let mut extra = Extra::default();
    let mut first = true;
    let ctx_key = if legacy { "methodBciList" } else { "ctx" };
    while let Some((key, at)) = cur.next_key(&mut first)? {
        if *key == *ctx_key {
            set(&mut ctx, cur.ctx(legacy)?, &key, at, cur)?;
        } else if *key == *"records" {
            records_member(cur, &mut records, &key, at)?;
        } else {
            let known = usize::from(ctx.is_some()) + usize::from(records.is_some());
            unknown_member(cur, &mut extra, known, key, at)?;
        }
    }
    Ok(ProfileEntry {
        ctx: cur.required(ctx, ctx_key, "a profile entry", start)?,
        records: cur.required(records, "records", "a profile entry", start)?,
        extra,
    })
}

/// Reads a legacy object holding `records` (the 0.2.0 `monitorsProfile`), with its unknown
/// members.
pub(crate) fn records_object<'a>(cur: &mut Cursor<'a>) -> Result<(Vec<i64>, Extra<'a>), Error> {
    let start = cur.begin_object("'{' starting the monitorsProfile object")?;
    let mut records = None;
    let mut extra = Extra::default();
    let mut first = true;
    while let Some((key, at)) = cur.next_key(&mut first)? {
        if *key == *"records" {
            records_member(cur, &mut records, &key, at)?;
        } else {
            // The writer puts `records` after a context: count it as the first known member.
            let known = 1 + usize::from(records.is_some());
            unknown_member(cur, &mut extra, known, key, at)?;
        }
    }
    Ok((
        cur.required(records, "records", "monitorsProfile", start)?,
        extra,
    ))
}

/// Keeps the member `key` (at byte `at`), which is not one the object's parser knows, with the
/// number of known members before it; a key given twice is an error.
fn unknown_member<'a>(
    cur: &mut Cursor<'a>,
    extra: &mut Extra<'a>,
    known: usize,
    key: Cow<'a, str>,
    at: usize,
) -> Result<(), Error> {
    let value = cur.value(2)?;
    if extra.contains_key(&key) {
        return Err(Error::DuplicateKey {
            key: key.into_owned(),
            at: cur.position(at),
        });
    }
    extra.push(known, key, RawJson(Cow::Borrowed(value)));
    Ok(())
}

/// The value of a `records` member (an integer array) into `slot`.
fn records_member(
    cur: &mut Cursor<'_>,
    slot: &mut Option<Vec<i64>>,
    key: &str,
    at: usize,
) -> Result<(), Error> {
    let records = cur.integers("'[' starting the records")?;
    set(slot, records, key, at, cur)
}

/// Stores a member's value, rejecting a second occurrence of the key.
fn set<T>(
    slot: &mut Option<T>,
    value: T,
    key: &str,
    at: usize,
    cur: &Cursor<'_>,
) -> Result<(), Error> {
    if slot.is_some() {
        return Err(Error::DuplicateKey {
            key: key.to_owned(),
            at: cur.position(at),
        });
    }
    *slot = Some(value);
    Ok(())
}
