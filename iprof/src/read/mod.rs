//! The reader: the root object of an `.iprof` file and its members (iprof format document,
//! "Structure"; schema v1.0.0/v1.1.0; legacy layouts per [`crate::legacy`]), over the JSON
//! scanner of [`json`]. Names, contexts and unknown values are borrowed from the input.
//!
//! - [`json`]: the [`Cursor`] and the JSON grammar;
//! - [`metadata`]: `types` and `methods`;
//! - [`entries`]: the profile sections and their contexts.

mod entries;
mod json;
mod metadata;

use std::borrow::Cow;

pub(crate) use entries::records_object;
pub(crate) use json::Cursor;

use crate::error::{Error, Position};
use crate::model::{Extra, Layout, Profile, RawJson, Section, TopLevelKey};

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
    let body = input.strip_prefix("\u{feff}".as_bytes()).unwrap_or(input);
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if let Some(&b) = first {
        // A JSON value that is not an object gets the grammar's own message; anything else
        // is not JSON at all.
        if !b"{[\"-0123456789tfn".contains(&b) {
            return Err(Error::NotJson {
                found: describe_start(input),
            });
        }
    }
    match std::str::from_utf8(input) {
        Ok(text) => parse_str(text),
        Err(e) => Err(Error::InvalidUtf8 {
            at: Position::locate(input, e.valid_up_to()),
        }),
    }
}

/// What `input` starts with, for [`Error::NotJson`]: its first bytes (printable ones as text,
/// others in hex), and the format a known magic names.
fn describe_start(input: &[u8]) -> String {
    const MAGICS: [(&[u8], &str); 6] = [
        (b"JAVA PROFILE ", "an HPROF heap dump"),
        (b"FLR\0", "a JDK Flight Recorder recording"),
        (b"\x7fELF", "an ELF binary"),
        (b"PK\x03\x04", "a zip or jar archive"),
        (b"\xca\xfe\xba\xbe", "a Java class file"),
        (b"<?xml", "an XML document"),
    ];
    let head: Vec<u8> = input.iter().copied().take(16).collect();
    let shown = if head.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("{:?}", String::from_utf8_lossy(&head))
    } else {
        let hex: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", hex.join(" "))
    };
    match MAGICS.iter().find(|(magic, _)| input.starts_with(magic)) {
        Some((_, what)) => format!("{shown} ({what}?)"),
        None => shown,
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
            TopLevelKey::Types => types = Some(metadata::type_list(cur, &mut profile.layout)?),
            TopLevelKey::Methods => {
                methods = Some(metadata::method_list(cur, &mut profile.layout)?);
            }
            TopLevelKey::Section(Section::Monitor) if legacy => {
                profile.monitor_profiles = Some(crate::legacy::monitors_profile(cur)?);
            }
            TopLevelKey::Section(section) => {
                *profile.section_mut(section) = Some(entries::entries(cur, legacy)?);
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

/// Keeps the member `key` (at byte `at`), which is not one the object's parser knows, with the
/// number of known members before it; a key given twice is an error.
pub(super) fn unknown_member<'a>(
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

/// Stores a member's value, rejecting a second occurrence of the key.
pub(super) fn set<T>(
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
