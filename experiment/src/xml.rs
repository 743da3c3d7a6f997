//! A small lenient XML tokenizer with exactly the leniency of the collector's log files
//! (`log.xml`, `map.xml`, `labels.xml`, `warnings.xml`; format notes §4):
//! several top-level elements, NUL/garbage between tags ignored, `<?…?>`/`<!…>` skipped,
//! `&lt; &gt; &amp; &apos; &quot;` and `%XX%` escapes, an element cut by end of file dropped.
//! A mismatched end tag is an error (gprofng treats it as fatal too).
//!
//! Why hand-written instead of quick-xml: the files are not XML documents (several roots,
//! NUL padding inside 64 KiB blocks, `%XX%` escapes), they are small, and this keeps the crate
//! free of a dependency whose strictness would have to be switched off piece by piece.

use crate::error::{Error, Result};

/// One event of the tokenizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XmlEvent {
    /// `<name attr="value" …>` or `<name … />` (`empty`); an empty element gets no `End`.
    Start {
        /// Element name.
        name: String,
        /// Attributes in document order, values unescaped.
        attributes: Vec<(String, String)>,
        /// True for `<name … />`.
        empty: bool,
        /// Byte offset of the `<`.
        offset: usize,
    },
    /// `</name>`.
    End {
        /// Element name.
        name: String,
    },
    /// Character data between tags (unescaped, NULs removed), never only whitespace.
    Text(String),
}

/// Pull tokenizer over the bytes of one XML-ish file.
#[derive(Debug, Clone)]
pub struct XmlReader<'a> {
    data: &'a [u8],
    pos: usize,
    file: &'a str,
    open: Vec<String>,
    cut: Option<usize>,
}

/// Line and column (1-based) of byte `offset` in `data`.
pub(crate) fn line_column(data: &[u8], offset: usize) -> (u32, u32) {
    let before = data.get(..offset).unwrap_or(data);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

/// Decodes the entity and `%XX%` escapes of an attribute value or text.
pub fn unescape(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        if b == b'&' {
            let rest = raw.get(i..).unwrap_or_default();
            let table: [(&[u8], u8); 5] = [
                (b"&lt;", b'<'),
                (b"&gt;", b'>'),
                (b"&amp;", b'&'),
                (b"&apos;", b'\''),
                (b"&quot;", b'"'),
            ];
            if let Some((pat, c)) = table.iter().find(|(pat, _)| rest.starts_with(pat)) {
                out.push(*c);
                i += pat.len();
                continue;
            }
        } else if b == b'%' {
            if let (Some(&h), Some(&l), Some(b'%')) =
                (raw.get(i + 1), raw.get(i + 2), raw.get(i + 3))
            {
                if let (Some(h), Some(l)) = (hex_lower(h), hex_lower(l)) {
                    out.push(h << 4 | l);
                    i += 4;
                    continue;
                }
            }
        } else if b == 0 {
            i += 1;
            continue;
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_lower(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b':' || b == b'.'
}

impl<'a> XmlReader<'a> {
    /// A tokenizer over `data`; `file` names it in errors.
    pub fn new(data: &'a [u8], file: &'a str) -> Self {
        XmlReader {
            data,
            pos: 0,
            file,
            open: Vec::new(),
            cut: None,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn error(&self, offset: usize, expected: &str, found: String) -> Error {
        let (line, column) = line_column(self.data, offset);
        Error::Xml {
            file: self.file.to_owned(),
            line,
            column,
            expected: expected.to_owned(),
            found,
        }
    }

    fn found_at(&self, offset: usize) -> String {
        match self.data.get(offset) {
            None => "end of file".to_owned(),
            Some(&b) if b.is_ascii_graphic() => format!("`{}`", b as char),
            Some(&b) => format!("byte {b:#04x}"),
        }
    }

    fn find(&self, from: usize, pat: &[u8]) -> Option<usize> {
        let hay = self.data.get(from..)?;
        hay.windows(pat.len())
            .position(|w| w == pat)
            .map(|p| p + from)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | 0)) {
            self.pos += 1;
        }
    }

    fn name(&mut self) -> Option<String> {
        let start = self.pos;
        if !self.peek().is_some_and(is_name_start) {
            return None;
        }
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        self.data
            .get(start..self.pos)
            .map(|s| String::from_utf8_lossy(s).into_owned())
    }

    /// Where the end of input cut an element short (the byte offset of its `<`): the element
    /// was dropped. `None` while the input ended between elements.
    pub fn cut(&self) -> Option<usize> {
        self.cut
    }

    /// The elements open at the end of input (outermost first), e.g. `["experiment"]` for a
    /// log.xml without its closing tag.
    pub fn unclosed(&self) -> &[String] {
        &self.open
    }

    /// [`XmlReader::cut`] as an error naming the line and column of the dropped element.
    pub fn cut_error(&self) -> Option<Error> {
        let at = self.cut?;
        Some(self.error(
            at,
            "the rest of the element that starts here",
            "end of file (the file was cut: the element and anything after it are lost)".into(),
        ))
    }

    fn cut_at(&mut self, lt: usize) -> Option<XmlEvent> {
        self.cut = Some(lt);
        self.pos = self.data.len();
        None
    }

    /// The next event, `Ok(None)` at end of input (an element cut by the end is dropped:
    /// [`XmlReader::cut`] says where).
    pub fn next_event(&mut self) -> Result<Option<XmlEvent>> {
        loop {
            let Some(b) = self.peek() else {
                return Ok(None);
            };
            if b != b'<' {
                let start = self.pos;
                let end = self.find(start, b"<").unwrap_or(self.data.len());
                self.pos = end;
                let raw = self.data.get(start..end).unwrap_or_default();
                if raw.iter().all(|b| b.is_ascii_whitespace() || *b == 0) || self.open.is_empty() {
                    continue;
                }
                return Ok(Some(XmlEvent::Text(unescape(raw))));
            }
            let lt = self.pos;
            match self.data.get(lt + 1) {
                None => return Ok(self.cut_at(lt)),
                Some(b'?') => match self.find(lt + 2, b"?>") {
                    Some(p) => self.pos = p + 2,
                    None => return Ok(self.cut_at(lt)),
                },
                Some(b'!') => {
                    let end = if self.data.get(lt..).is_some_and(|s| s.starts_with(b"<!--")) {
                        self.find(lt + 4, b"-->").map(|p| p + 3)
                    } else {
                        self.find(lt + 2, b">").map(|p| p + 1)
                    };
                    match end {
                        Some(p) => self.pos = p,
                        None => return Ok(self.cut_at(lt)),
                    }
                }
                Some(b'/') => {
                    self.pos = lt + 2;
                    let Some(name) = self.name() else {
                        if self.pos >= self.data.len() {
                            return Ok(self.cut_at(lt));
                        }
                        return Err(self.error(
                            self.pos,
                            "an element name after `</`",
                            self.found_at(self.pos),
                        ));
                    };
                    self.skip_ws();
                    match self.peek() {
                        None => return Ok(self.cut_at(lt)),
                        Some(b'>') => self.pos += 1,
                        Some(_) => {
                            return Err(self.error(self.pos, "`>`", self.found_at(self.pos)));
                        }
                    }
                    match self.open.pop() {
                        Some(open) if open == name => return Ok(Some(XmlEvent::End { name })),
                        Some(open) => {
                            return Err(self.error(
                                lt,
                                &format!("`</{open}>`"),
                                format!("`</{name}>`"),
                            ));
                        }
                        None => {
                            return Err(self.error(
                                lt,
                                "a start tag before an end tag",
                                format!("`</{name}>`"),
                            ));
                        }
                    }
                }
                Some(_) => {
                    self.pos = lt + 1;
                    let Some(name) = self.name() else {
                        return Err(self.error(
                            self.pos,
                            "an element name after `<`",
                            self.found_at(self.pos),
                        ));
                    };
                    return self.attributes(name, lt);
                }
            }
        }
    }

    fn attributes(&mut self, name: String, lt: usize) -> Result<Option<XmlEvent>> {
        let mut attributes = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(self.cut_at(lt)),
                Some(b'>') => {
                    self.pos += 1;
                    self.open.push(name.clone());
                    return Ok(Some(XmlEvent::Start {
                        name,
                        attributes,
                        empty: false,
                        offset: lt,
                    }));
                }
                Some(b'/') => {
                    match self.data.get(self.pos + 1) {
                        None => return Ok(self.cut_at(lt)),
                        Some(b'>') => {}
                        Some(_) => {
                            return Err(self.error(
                                self.pos + 1,
                                "`>` after `/`",
                                self.found_at(self.pos + 1),
                            ));
                        }
                    }
                    self.pos += 2;
                    return Ok(Some(XmlEvent::Start {
                        name,
                        attributes,
                        empty: true,
                        offset: lt,
                    }));
                }
                Some(_) => {
                    let Some(attr) = self.name() else {
                        return Err(self.error(
                            self.pos,
                            "an attribute name",
                            self.found_at(self.pos),
                        ));
                    };
                    self.skip_ws();
                    if self.peek() != Some(b'=') {
                        if self.pos >= self.data.len() {
                            return Ok(self.cut_at(lt));
                        }
                        // A bare attribute: treat it as present with an empty value.
                        attributes.push((attr, String::new()));
                        continue;
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let value = if self.peek() == Some(b'"') {
                        let Some(close) = self.find(self.pos + 1, b"\"") else {
                            return Ok(self.cut_at(lt));
                        };
                        let raw = self.data.get(self.pos + 1..close).unwrap_or_default();
                        self.pos = close + 1;
                        unescape(raw)
                    } else {
                        let start = self.pos;
                        while self
                            .peek()
                            .is_some_and(|b| b != b'>' && !b.is_ascii_whitespace())
                        {
                            self.pos += 1;
                        }
                        if self.pos >= self.data.len() {
                            return Ok(self.cut_at(lt));
                        }
                        let mut raw = self.data.get(start..self.pos).unwrap_or_default();
                        if raw.ends_with(b"/") {
                            self.pos -= 1;
                            raw = raw.get(..raw.len() - 1).unwrap_or_default();
                        }
                        unescape(raw)
                    };
                    attributes.push((attr, value));
                }
            }
        }
    }
}

/// Where the end of `data` cuts an element of the XML-ish file `file` short (see
/// [`XmlReader::cut_error`]); `None` when it ends between elements or is malformed earlier.
pub fn find_cut(data: &[u8], file: &str) -> Option<Error> {
    let mut r = XmlReader::new(data, file);
    while let Ok(Some(_)) = r.next_event() {}
    r.cut_error()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &[u8]) -> Result<Vec<XmlEvent>> {
        let mut r = XmlReader::new(s, "t.xml");
        let mut v = Vec::new();
        while let Some(e) = r.next_event()? {
            v.push(e);
        }
        Ok(v)
    }

    #[test]
    fn lenient_forms() {
        let ev = all(b"\0\0<?xml x?><a x=\"1&lt;%2f%\" y=2>t&amp;u</a>\0\0<b/>\n<c z=\"").unwrap();
        assert_eq!(ev.len(), 4);
        assert_eq!(
            ev[0],
            XmlEvent::Start {
                name: "a".into(),
                attributes: vec![("x".into(), "1</".into()), ("y".into(), "2".into())],
                empty: false,
                offset: 11
            }
        );
        assert_eq!(ev[1], XmlEvent::Text("t&u".into()));
        assert!(matches!(&ev[3], XmlEvent::Start { name, empty: true, .. } if name == "b"));
    }

    #[test]
    fn mismatched_end_is_an_error_with_position() {
        let e = all(b"<a>\n  </b>").unwrap_err();
        assert_eq!(
            e,
            Error::Xml {
                file: "t.xml".into(),
                line: 2,
                column: 3,
                expected: "`</a>`".into(),
                found: "`</b>`".into()
            }
        );
    }

    #[test]
    fn uppercase_hex_is_not_an_escape() {
        assert_eq!(unescape(b"%2F%"), "%2F%");
        assert_eq!(unescape(b"%20%x"), " x");
    }
}
