//! Packet fields read by their log.xml name, through the `<field>` descriptors of the
//! packet's kind (format notes §3).

use super::blocks::RawPacket;
use crate::cursor::{Endian, get_u32, get_u64};
use crate::error::{Error, Result};
use crate::log::{FieldDescriptor, FieldType, PacketDescriptor};

/// A decoded field value.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Value {
    /// `INT32`/`INT64`.
    Int(i64),
    /// `UINT32`/`UINT64`/`DATE`.
    UInt(u64),
    /// `DOUBLE`.
    Double(f64),
    /// `STRING`.
    Str(String),
}

impl Value {
    /// The value as `u64` (signed values reinterpreted; strings and doubles give `None`).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Int(v) => Some(v as u64),
            Value::UInt(v) => Some(v),
            _ => None,
        }
    }
}

/// Reads field `f` of packet `p`: `Ok(None)` for an empty string or an undecodable type.
pub fn read_field(p: &RawPacket<'_>, f: &FieldDescriptor, endian: Endian) -> Result<Option<Value>> {
    let off = f.offset as usize;
    let bad = |width: String| Error::Invalid {
        what: "packet field",
        offset: p.offset + u64::from(f.offset),
        expected: format!(
            "field `{}` ({}) inside the packet's {} bytes",
            f.name,
            width,
            p.bytes.len()
        ),
        found: format!("offset {}", f.offset),
    };
    Ok(Some(match f.field_type {
        FieldType::Int32 => Value::Int(i64::from(
            get_u32(p.bytes, off, endian).ok_or_else(|| bad("4 bytes".into()))? as i32,
        )),
        FieldType::Uint32 => Value::UInt(u64::from(
            get_u32(p.bytes, off, endian).ok_or_else(|| bad("4 bytes".into()))?,
        )),
        FieldType::Int64 => {
            Value::Int(get_u64(p.bytes, off, endian).ok_or_else(|| bad("8 bytes".into()))? as i64)
        }
        FieldType::Uint64 | FieldType::Date => {
            Value::UInt(get_u64(p.bytes, off, endian).ok_or_else(|| bad("8 bytes".into()))?)
        }
        FieldType::Double => Value::Double(f64::from_bits(
            get_u64(p.bytes, off, endian).ok_or_else(|| bad("8 bytes".into()))?,
        )),
        FieldType::String => {
            let s = p.bytes.get(off..).ok_or_else(|| bad("a string".into()))?;
            let len = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            if len == 0 {
                return Ok(None);
            }
            Value::Str(String::from_utf8_lossy(s.get(..len).unwrap_or_default()).into_owned())
        }
        FieldType::Unknown => return Ok(None),
    }))
}

/// A packet with the descriptor of its kind: every field readable by its log.xml name.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a> {
    /// The raw packet.
    pub raw: RawPacket<'a>,
    /// Its descriptor.
    pub descriptor: &'a PacketDescriptor,
    /// Byte order.
    pub endian: Endian,
}

impl<'a> Packet<'a> {
    /// Field `name`, `Ok(None)` if the descriptor has no such field (or it is an empty string).
    pub fn get(&self, name: &str) -> Result<Option<Value>> {
        match self.descriptor.field(name) {
            Some(f) => read_field(&self.raw, f, self.endian),
            None => Ok(None),
        }
    }

    /// Every field in descriptor order, with its name.
    pub fn fields(&self) -> impl Iterator<Item = (&'a str, Result<Option<Value>>)> + '_ {
        self.descriptor
            .fields
            .iter()
            .map(move |f| (f.name.as_str(), read_field(&self.raw, f, self.endian)))
    }

    /// All fields decoded into an owned record (first bad field ⇒ error).
    pub fn record(&self) -> Result<Record> {
        let mut fields = Vec::with_capacity(self.descriptor.fields.len());
        for (name, v) in self.fields() {
            if let Some(v) = v? {
                fields.push((name.to_owned(), v));
            }
        }
        Ok(Record {
            offset: self.raw.offset,
            kind: self.raw.kind,
            fields,
        })
    }
}

/// An owned, fully decoded packet: its fields by log.xml name.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Record {
    /// Byte offset in the data file.
    pub offset: u64,
    /// Packet type.
    pub kind: u16,
    /// `(name, value)` in descriptor order (empty strings left out).
    pub fields: Vec<(String, Value)>,
}

impl Record {
    /// Field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}
