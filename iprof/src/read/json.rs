//! The JSON scanner of the reader: one [`Cursor`] over the input text, reading the JSON
//! grammar (RFC 8259) with errors that say what was expected, what was found, and where.
//!
//! The input is checked for UTF-8 once, then scanned byte by byte. Strings without escapes and
//! skipped values are borrowed from the input. No allocation is sized by the input's numbers;
//! arrays grow as elements arrive and are trimmed to their length.

use std::borrow::Cow;

use crate::error::{Error, Position};

/// How deeply unknown values may nest.
const MAX_DEPTH: usize = 128;

/// The one cursor of this crate: the input and a byte position in it.
///
/// The input is valid UTF-8, and the cursor only ever splits it next to ASCII bytes, so every
/// slice it takes is a valid `&str`.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
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

    pub(crate) fn position(&self, offset: usize) -> Position {
        Position::locate(self.bytes, offset)
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips JSON whitespace.
    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// A description of the token at the cursor, for error messages.
    pub(crate) fn found(&self) -> String {
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
    pub(crate) fn unexpected(&self, expected: &'static str) -> Error {
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
    pub(crate) fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), Error> {
        self.ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Starts an object: consumes `{`.
    pub(crate) fn begin_object(&mut self, expected: &'static str) -> Result<usize, Error> {
        self.ws();
        let start = self.pos;
        self.expect(b'{', expected)?;
        Ok(start)
    }

    /// The next key of an object, or `None` after its `}`.
    pub(crate) fn next_key(
        &mut self,
        first: &mut bool,
    ) -> Result<Option<(Cow<'a, str>, usize)>, Error> {
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
    pub(crate) fn begin_array(&mut self, expected: &'static str) -> Result<(), Error> {
        self.expect(b'[', expected)
    }

    /// True when another element follows (consuming the `,`), false after the `]`.
    pub(crate) fn next_element(
        &mut self,
        first: &mut bool,
        expected: &'static str,
    ) -> Result<bool, Error> {
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
    pub(crate) fn array<T>(
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
    pub(crate) fn required<T>(
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
    pub(crate) fn string(&mut self) -> Result<Cow<'a, str>, Error> {
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
    pub(crate) fn skip_plain_words(&mut self) {
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
    pub(crate) fn slice(&self, start: usize, end: usize) -> Result<&'a str, Error> {
        self.text.get(start..end).ok_or_else(|| Error::InvalidUtf8 {
            at: self.position(start),
        })
    }

    /// The rest of a string that has escapes, decoded; the cursor is at the first `\`.
    pub(crate) fn escaped_string(&mut self, start: usize) -> Result<String, Error> {
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

    pub(crate) fn bad_escape(&self, esc: usize) -> Error {
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
    pub(crate) fn hex4(&mut self, esc: usize) -> Result<u32, Error> {
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
    pub(crate) fn integer(&mut self, expected: &'static str) -> Result<i64, Error> {
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
    pub(crate) fn value(&mut self, depth: usize) -> Result<&'a str, Error> {
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

    pub(crate) fn literal(&mut self, word: &'static str) -> Result<(), Error> {
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
    pub(crate) fn integers(&mut self, expected: &'static str) -> Result<Vec<i64>, Error> {
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
