//! The file header (`hprof.md` §1.1): NUL-terminated magic `JAVA PROFILE 1.0.x`, `u4`
//! identifier size, `u8` timestamp in milliseconds since the Unix epoch.

use super::cursor::Cursor;
use super::error::{Error, Result};
use super::types::IdSize;

/// The format version named by the magic string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Version {
    /// `JAVA PROFILE 1.0` (listed by Shark; never seen in the wild).
    V1_0,
    /// `JAVA PROFILE 1.0.1`: one `HEAP_DUMP` record (JVMTI agent, HotSpot ≤ 8 with small heaps).
    V1_0_1,
    /// `JAVA PROFILE 1.0.2`: `HEAP_DUMP_SEGMENT`s closed by `HEAP_DUMP_END`.
    V1_0_2,
    /// `JAVA PROFILE 1.0.3`: Android (ART, Dalvik), with the Android sub-records.
    V1_0_3,
}

impl Version {
    /// The magic string, without its NUL terminator.
    pub const fn magic(self) -> &'static str {
        match self {
            Version::V1_0 => "JAVA PROFILE 1.0",
            Version::V1_0_1 => "JAVA PROFILE 1.0.1",
            Version::V1_0_2 => "JAVA PROFILE 1.0.2",
            Version::V1_0_3 => "JAVA PROFILE 1.0.3",
        }
    }

    fn from_magic(magic: &[u8]) -> Option<Version> {
        Some(match magic {
            b"JAVA PROFILE 1.0" => Version::V1_0,
            b"JAVA PROFILE 1.0.1" => Version::V1_0_1,
            b"JAVA PROFILE 1.0.2" => Version::V1_0_2,
            b"JAVA PROFILE 1.0.3" => Version::V1_0_3,
            _ => return None,
        })
    }
}

/// The decoded file header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Header {
    /// The version from the magic string.
    pub version: Version,
    /// Size of every identifier in the file.
    pub id_size: IdSize,
    /// Milliseconds since the Unix epoch when the dump was written.
    pub timestamp_ms: u64,
}

/// The longest magic plus NUL, id size and timestamp.
pub(crate) const MAX_HEADER_LEN: usize = 19 + 4 + 8;

impl Header {
    /// Decodes the header at the start of `data`; returns it and its length in bytes (31 for
    /// the usual magics).
    ///
    /// # Errors
    /// [`Error::Gzip`] for gzip input, [`Error::BadMagic`], [`Error::BadIdSize`], or
    /// [`Error::Truncated`] when `data` ends inside the header.
    pub fn parse(data: &[u8]) -> Result<(Header, usize)> {
        if data.starts_with(&[0x1f, 0x8b]) {
            return Err(Error::Gzip);
        }
        let prefix = b"JAVA PROFILE 1.0";
        let n = prefix.len().min(data.len());
        if data.get(..n) != prefix.get(..n) {
            return Err(Error::BadMagic {
                found: String::from_utf8_lossy(data.get(..20).unwrap_or(data)).into_owned(),
            });
        }
        let Some(nul) = data.iter().take(20).position(|&b| b == 0) else {
            if data.len() < 20 {
                return Err(Error::Truncated {
                    offset: data.len() as u64,
                    expected: "the NUL-terminated magic string",
                    needed: 1,
                });
            }
            return Err(Error::BadMagic {
                found: String::from_utf8_lossy(data.get(..20).unwrap_or(data)).into_owned(),
            });
        };
        let magic = data.get(..nul).unwrap_or_default();
        let version = Version::from_magic(magic).ok_or_else(|| Error::BadMagic {
            found: String::from_utf8_lossy(magic).into_owned(),
        })?;
        let mut c = Cursor::new(
            data.get(nul + 1..).unwrap_or_default(),
            nul as u64 + 1,
            IdSize::Four,
        );
        let id_offset = c.offset();
        let raw = c.u4("the identifier size")?;
        let id_size = IdSize::from_bytes(raw).ok_or(Error::BadIdSize {
            offset: id_offset,
            found: raw,
        })?;
        let timestamp_ms = c.u8("the header timestamp")?;
        Ok((
            Header {
                version,
                id_size,
                timestamp_ms,
            },
            c.offset() as usize,
        ))
    }

    /// Appends the encoded header.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.version.magic().as_bytes());
        out.push(0);
        out.extend_from_slice(&(self.id_size.bytes() as u32).to_be_bytes());
        out.extend_from_slice(&self.timestamp_ms.to_be_bytes());
    }

    /// The encoded length of this header.
    pub fn len(&self) -> usize {
        self.version.magic().len() + 1 + 12
    }

    /// Always `false` (a header is never empty); present for symmetry with [`Header::len`].
    pub fn is_empty(&self) -> bool {
        false
    }
}
