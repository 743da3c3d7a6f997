//! Strings as the format writes them: an encoding byte (0 null, 1 empty, 2 a reference into
//! the `java.lang.String` constant pool, 3 UTF-8, 4 an array of chars, 5 Latin-1), then the
//! length and the bytes or chars.

use std::borrow::Cow;

use crate::cursor::Cursor;
use crate::error::{Error, Result};

/// A string as read, before any constant-pool reference is resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawString<'a> {
    Null,
    Text(Cow<'a, str>),
    /// Encoding 2: the key of an entry of the `java.lang.String` pool.
    Constant(i64),
}

pub(crate) fn read<'a>(c: &mut Cursor<'a>) -> Result<RawString<'a>> {
    let at = c.pos();
    match c.u8("string encoding")? {
        0 => Ok(RawString::Null),
        1 => Ok(RawString::Text(Cow::Borrowed(""))),
        2 => Ok(RawString::Constant(c.long("string constant-pool key")?)),
        3 => {
            let len = c.length("UTF-8 string length")?;
            let bytes = c.bytes(len, "UTF-8 string")?;
            Ok(RawString::Text(String::from_utf8_lossy(bytes)))
        }
        4 => {
            let len = c.count("char-array string length")?;
            let mut units = Vec::with_capacity(len.min(crate::cursor::PREALLOCATE));
            for _ in 0..len {
                units.push(c.short("char-array string char")? as u16);
            }
            Ok(RawString::Text(Cow::Owned(String::from_utf16_lossy(
                &units,
            ))))
        }
        5 => {
            let len = c.length("Latin-1 string length")?;
            let bytes = c.bytes(len, "Latin-1 string")?;
            Ok(RawString::Text(latin1(bytes)))
        }
        other => Err(Error::invalid(
            "string encoding",
            "0 (null), 1 (empty), 2 (constant pool), 3 (UTF-8), 4 (chars) or 5 (Latin-1)",
            other,
            at as u64,
        )),
    }
}

/// Skips a string without building it (the UTF-8 is not checked: invalid bytes decode to
/// U+FFFD, as the JDK decodes them, so they are never an error).
pub(crate) fn skip(c: &mut Cursor<'_>) -> Result<()> {
    let at = c.pos();
    match c.u8("string encoding")? {
        0 | 1 => Ok(()),
        2 => c.long("string constant-pool key").map(drop),
        3 | 5 => {
            let len = c.length("string length")?;
            c.bytes(len, "string bytes").map(drop)
        }
        4 => {
            let len = c.count("char-array string length")?;
            for _ in 0..len {
                c.short("char-array string char")?;
            }
            Ok(())
        }
        other => Err(Error::invalid(
            "string encoding",
            "0 (null), 1 (empty), 2 (constant pool), 3 (UTF-8), 4 (chars) or 5 (Latin-1)",
            other,
            at as u64,
        )),
    }
}

fn latin1(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) if bytes.is_ascii() => Cow::Borrowed(s),
        _ => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &[u8]) -> Result<RawString<'_>> {
        read(&mut Cursor::new(bytes, 0, bytes.len(), true))
    }

    #[test]
    fn every_encoding() {
        assert_eq!(one(&[0]).unwrap(), RawString::Null);
        assert_eq!(one(&[1]).unwrap(), RawString::Text("".into()));
        assert_eq!(one(&[2, 0x81, 0x01]).unwrap(), RawString::Constant(129));
        assert_eq!(
            one(&[3, 2, b'h', b'i']).unwrap(),
            RawString::Text("hi".into())
        );
        assert_eq!(
            one(&[4, 2, 0xe9, 0x01, 0x41]).unwrap(),
            RawString::Text("éA".into())
        );
        assert_eq!(
            one(&[5, 2, 0xe9, b'A']).unwrap(),
            RawString::Text("éA".into())
        );
        assert!(matches!(one(&[3, 5, b'a']), Err(Error::Truncated { .. })));
        let e = one(&[9]).unwrap_err().to_string();
        assert!(e.contains("found 9") && e.contains("offset 0"), "{e}");
        for bytes in [
            &[0u8][..],
            &[1],
            &[2, 5],
            &[3, 1, b'x'],
            &[4, 1, 65],
            &[5, 1, 0xff],
        ] {
            let mut c = Cursor::new(bytes, 0, bytes.len(), true);
            skip(&mut c).unwrap();
            assert_eq!(c.remaining(), 0);
        }
    }
}
