//! `dyntext`: code, source file and line table of dynamically generated functions (vDSO, JIT,
//! collector API `collector_func_load`) as a flat sequence of `DT_common {type, size}` records
//! (spec: "動的関数"; format notes §7, gprofng `read_dyntext_file`).
//!
//! Unlike gprofng (which loops forever on a size-0 record) every record must be at least its
//! 8-byte header and fit in the file.

use crate::cursor::{Cursor, Endian};
use crate::error::{Error, Result};

/// `DT_HEADER`.
pub const DT_HEADER: u32 = 1;
/// `DT_CODE`.
pub const DT_CODE: u32 = 2;
/// `DT_LTABLE` (3, as the collector writes it; some notes swap it with `DT_SRCFILE`).
pub const DT_LTABLE: u32 = 3;
/// `DT_SRCFILE` (4).
pub const DT_SRCFILE: u32 = 4;

/// One dyntext record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Record<'a> {
    /// `DT_HEADER`: starts a function.
    Header {
        /// Load time (relative ns).
        time: u64,
        /// Code address (matches a map.xml `function` or `jcm` event).
        vaddr: u64,
    },
    /// `DT_CODE`: the code bytes (zero-padded to 16).
    Code(#[cfg_attr(feature = "serde", serde(borrow))] &'a [u8]),
    /// `DT_SRCFILE`: source file name.
    SourceFile(String),
    /// `DT_LTABLE`: `(code offset, line or bci)` pairs.
    LineTable(Vec<(u32, u32)>),
    /// Unknown type, skipped by size.
    Unknown {
        /// The type.
        record_type: u32,
        /// Payload.
        data: &'a [u8],
    },
}

/// Lazy, fallible iterator over the records; ends after the first error.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    c: Cursor<'a>,
    done: bool,
}

/// Iterates the records of `data`.
pub fn records(data: &[u8], endian: Endian) -> Records<'_> {
    Records {
        c: Cursor::new(data, 0, endian, crate::cursor::WordSize::W64),
        done: false,
    }
}

impl<'a> Records<'a> {
    fn read(&mut self) -> Result<Record<'a>> {
        let offset = self.c.offset();
        let t = self.c.u32("dyntext record type")?;
        let size = self.c.u32("dyntext record size")? as usize;
        if size < 8 {
            return Err(Error::Invalid {
                what: "dyntext record size",
                offset: offset + 4,
                expected: "at least 8 (the record header)".into(),
                found: size.to_string(),
            });
        }
        let body = self.c.bytes(size - 8, "dyntext record")?;
        let mut b = Cursor::new(body, offset + 8, self.c.endian(), self.c.word_size());
        Ok(match t {
            DT_HEADER => Record::Header {
                time: b.u64("DT_HEADER time")?,
                vaddr: b.u64("DT_HEADER vaddr")?,
            },
            DT_CODE => Record::Code(body),
            DT_SRCFILE => Record::SourceFile(b.cstr()),
            DT_LTABLE => {
                let mut v = Vec::with_capacity(body.len() / 8);
                while b.remaining() >= 8 {
                    v.push((b.u32("DT_lineno offset")?, b.u32("DT_lineno lineno")?));
                }
                Record::LineTable(v)
            }
            other => Record::Unknown {
                record_type: other,
                data: body,
            },
        })
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.c.is_empty() {
            return None;
        }
        let r = self.read();
        if r.is_err() {
            self.done = true;
        }
        Some(r)
    }
}

/// A dynamic function: its header and what followed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DynFunction {
    /// Load time (relative ns).
    pub time: u64,
    /// Code address.
    pub vaddr: u64,
    /// Code bytes (owned).
    pub code: Vec<u8>,
    /// Source file, if recorded.
    pub source_file: Option<String>,
    /// Line table.
    pub lines: Vec<(u32, u32)>,
}

/// Groups the records into functions (records before the first header are dropped).
pub fn functions(data: &[u8], endian: Endian) -> Result<Vec<DynFunction>> {
    let mut out: Vec<DynFunction> = Vec::new();
    for r in records(data, endian) {
        match r? {
            Record::Header { time, vaddr } => out.push(DynFunction {
                time,
                vaddr,
                ..DynFunction::default()
            }),
            Record::Code(c) => {
                if let Some(f) = out.last_mut() {
                    f.code = c.to_vec();
                }
            }
            Record::SourceFile(s) => {
                if let Some(f) = out.last_mut() {
                    f.source_file = Some(s);
                }
            }
            Record::LineTable(l) => {
                if let Some(f) = out.last_mut() {
                    f.lines = l;
                }
            }
            Record::Unknown { .. } => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_zero_record_is_an_error_not_a_loop() {
        let d = [2, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3];
        let v: Vec<_> = records(&d, Endian::Little).collect();
        assert_eq!(v.len(), 1);
        assert!(matches!(v[0], Err(Error::Invalid { offset: 4, .. })));
    }
}
