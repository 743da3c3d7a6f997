//! `archives/`: copies of load objects made by `gp-archive`, named `basename_H(dirname)`;
//! this maps archive names back to load objects (spec: "アーカイブ"; format notes §9, gprofng
//! `get_archived_name`, util.cc `crc64`).

use crate::map::Map;
use crate::source::Source;

/// gprofng's 64-bit CRC: polynomial 0x807 (x^64+x^11+x^2+x+1), MSB first, init 0, no final xor.
pub fn crc64(data: &[u8]) -> u64 {
    const POLY: u64 = 0x807;
    let mut crc = 0u64;
    for &b in data {
        crc ^= u64::from(b) << 56;
        for _ in 0..8 {
            crc = if crc & (1 << 63) != 0 {
                (crc << 1) ^ POLY
            } else {
                crc << 1
            };
        }
    }
    crc
}

const DIGITS: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";

/// The 11-character hash gprofng appends: the CRC in base 64, low 6 bits first.
pub fn hash_suffix(data: &[u8]) -> String {
    let mut v = crc64(data);
    let mut s = String::with_capacity(11);
    for _ in 0..11 {
        let d = DIGITS.get((v & 63) as usize).copied().unwrap_or(b'0');
        s.push(char::from(d));
        v >>= 6;
    }
    s
}

/// The archive name of the load object at `path`: `basename + '_' + H(dirname + '/')`
/// (`"./"` when the path has no directory). Very long basenames (over 243 bytes) are cut and
/// get `_` + H(basename) appended.
pub fn archive_name(path: &str) -> String {
    let (dir, base) = match path.rfind('/') {
        Some(i) => (
            path.get(..=i).unwrap_or("./"),
            path.get(i + 1..).unwrap_or_default(),
        ),
        None => ("./", path),
    };
    const MAX: usize = 256 - 11 - 2;
    let base = if base.len() > MAX {
        let mut cut = MAX - 12;
        while !base.is_char_boundary(cut) {
            cut -= 1;
        }
        format!(
            "{}_{}",
            base.get(..cut).unwrap_or_default(),
            hash_suffix(base.as_bytes())
        )
    } else {
        base.to_owned()
    };
    format!("{}_{}", base, hash_suffix(dir.as_bytes()))
}

/// The names in `archives/`.
pub fn list<S: Source>(source: &S) -> Vec<String> {
    let mut v = source.list("archives");
    v.sort();
    v
}

/// The load object (a map.xml segment name) an archive name stands for.
pub fn load_object<'m>(map: &'m Map, archive: &str) -> Option<&'m str> {
    map.segments()
        .map(|s| s.name.as_str())
        .find(|n| archive_name(n) == archive)
}

/// One line of `archive.log`: gp-archive copied `source` to `archive`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Copy {
    /// The original file.
    pub source: String,
    /// Where the copy went (inside `archives/`).
    pub archive: String,
}

/// Parses the ``Copying `SRC'  to `DST'`` lines of `archive.log` (other lines are skipped).
pub fn parse_log(text: &str) -> Vec<Copy> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("Copying `")?;
            let (source, rest) = rest.split_once('\'')?;
            let rest = rest.trim_start().strip_prefix("to `")?;
            let (archive, _) = rest.split_once('\'')?;
            Some(Copy {
                source: source.to_owned(),
                archive: archive.to_owned(),
            })
        })
        .collect()
}
