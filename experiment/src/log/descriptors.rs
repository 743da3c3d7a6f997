//! `log.xml`'s packet descriptors: `<profile>` (one data kind), its `<profdata fname>` data
//! files and `<profpckt kind>` packet layouts made of `<field>`s with their `<state>` names
//! (format notes §3–§4, gprofng `ExperimentHandler::startElement`).

use super::parse::{Ctx, Parser};
use super::{Attrs, Log, attr, parse_i64, parse_u64};
use crate::error::{Error, Result};

/// Type of a `<field>` of a packet descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum FieldType {
    /// `INT32`.
    Int32,
    /// `UINT32`.
    Uint32,
    /// `INT64`.
    Int64,
    /// `UINT64`.
    Uint64,
    /// `STRING`: from the offset to the end of the packet, NUL-terminated.
    String,
    /// `DOUBLE`.
    Double,
    /// `DATE` (read as `UINT64`).
    Date,
    /// Any other type name: not decoded.
    Unknown,
}

impl FieldType {
    /// The type named in log.xml.
    pub fn from_name(s: &str) -> Self {
        match s {
            "INT32" => FieldType::Int32,
            "UINT32" => FieldType::Uint32,
            "INT64" => FieldType::Int64,
            "UINT64" => FieldType::Uint64,
            "STRING" => FieldType::String,
            "DOUBLE" => FieldType::Double,
            "DATE" => FieldType::Date,
            _ => FieldType::Unknown,
        }
    }

    /// Width in bytes of a fixed-size field (`None` for strings and unknown types).
    pub fn width(self) -> Option<usize> {
        match self {
            FieldType::Int32 | FieldType::Uint32 => Some(4),
            FieldType::Int64 | FieldType::Uint64 | FieldType::Double | FieldType::Date => Some(8),
            FieldType::String | FieldType::Unknown => None,
        }
    }
}

/// `<state value name uname>` inside a `<field>`: a name for one value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StateName {
    /// The value.
    pub value: i64,
    /// Short name.
    pub name: String,
    /// User-visible name.
    pub uname: String,
}

/// `<field name uname offset type [noshow] [format]>`: one field of a packet kind.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FieldDescriptor {
    /// Property name (`TSTAMP`, `THRID`, `HSIZE`, …).
    pub name: String,
    /// User-visible name.
    pub uname: Option<String>,
    /// Byte offset in the packet.
    pub offset: u32,
    /// Type.
    pub field_type: FieldType,
    /// The type name as written.
    pub type_name: String,
    /// `noshow` present.
    pub noshow: bool,
    /// `format`, if given.
    pub format: Option<String>,
    /// `<state>` children.
    pub states: Vec<StateName>,
}

/// `<profpckt kind uname>`: the layout of one packet kind, with the data file it lives in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PacketDescriptor {
    /// Packet type (`8` clock, `2` sync, `3` HW counter, `5` heap, `19` I/O, …).
    pub kind: u16,
    /// User-visible name.
    pub uname: Option<String>,
    /// Name of the enclosing `<profile>`.
    pub profile: String,
    /// Data file (from the profile's `<profdata fname>`), if any.
    pub file: Option<String>,
    /// Fields in order.
    pub fields: Vec<FieldDescriptor>,
}

impl PacketDescriptor {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldDescriptor> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// `<profile name …>`: one data kind being collected. Which attributes a profile carries
/// depends on its kind; those gprofng reads are fields here, any others are kept in `other`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Profile {
    /// `name` (`profile`, `heaptrace`, `synctrace`, `iotrace`, `hwcounter`, `jprofile`, …).
    pub name: String,
    /// `<profdata fname>` children.
    pub data_files: Vec<String>,
    /// Kinds of the `<profpckt>` children (descriptors live in [`Log::packets`]).
    pub packet_kinds: Vec<u16>,
    /// `ptimer` of `profile` (clock profiling): the sampling interval in µs.
    pub ptimer: Option<u64>,
    /// `numstates` of `profile`: the microstate layout (gprofng's `LMS_*` magic id).
    pub numstates: Option<u64>,
    /// `threshold` of `synctrace`: the wait time in µs below which waits are not recorded.
    pub threshold: Option<u64>,
    /// `scope` of `synctrace`: which waits are traced (bit 0 native, bit 1 Java).
    pub scope: Option<u64>,
    /// `jversion` of `jprofile`: the JVM's version.
    pub jversion: Option<String>,
    /// `api` of `jprofile` (e.g. `JVMTI 1.0`).
    pub api: Option<String>,
    /// `hwcname` of `hwcounter`: the counter's user name (e.g. `cycles`).
    pub hwcname: Option<String>,
    /// `int_name` of `hwcounter`: the counter's internal name.
    pub int_name: Option<String>,
    /// `interval` of `hwcounter`: events per overflow.
    pub interval: Option<u64>,
    /// `tag` of `hwcounter`: the `HWCTAG` its packets carry.
    pub tag: Option<u64>,
    /// `cpuver` of `hwcounter`.
    pub cpuver: Option<i64>,
    /// `memop` of `hwcounter`.
    pub memop: Option<String>,
    /// `modstr` of `hwcounter`: the counter's modifiers.
    pub modstr: Option<String>,
    /// `version` of `dversion`.
    pub version: Option<String>,
    /// `scheme` of `datarace`.
    pub scheme: Option<String>,
    /// Attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
}

/// A hardware counter being collected: the `HWCTAG` of HW packets selects one by `tag`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HwCounter {
    /// `tag`.
    pub tag: u64,
    /// `hwcname` (user name, e.g. `cycles`).
    pub name: String,
    /// `int_name` (internal name).
    pub int_name: String,
    /// `interval`: events per overflow.
    pub interval: u64,
    /// `cpuver`.
    pub cpuver: Option<i64>,
    /// `memop`.
    pub memop: Option<String>,
}

/// Handles a descriptor element; `None` when `name` is not one.
pub(super) fn start(
    p: &mut Parser<'_>,
    name: &str,
    parent: Option<Ctx>,
    attributes: Vec<(String, String)>,
    offset: usize,
) -> Result<Option<Ctx>> {
    let (data, file) = (p.data, p.file);
    let log = &mut p.log;
    let profile = &mut p.profile;
    let unfiled = &mut p.unfiled;
    Ok(Some(match name {
        "profile" => {
            let mut a = Attrs::new(attributes);
            log.profiles.push(Profile {
                name: a.take("name").unwrap_or_default(),
                data_files: Vec::new(),
                packet_kinds: Vec::new(),
                ptimer: a.take_u64("ptimer"),
                numstates: a.take_u64("numstates"),
                threshold: a.take_u64("threshold"),
                scope: a.take_u64("scope"),
                jversion: a.take("jversion"),
                api: a.take("api"),
                hwcname: a.take("hwcname"),
                int_name: a.take("int_name"),
                interval: a.take_u64("interval"),
                tag: a.take_u64("tag"),
                cpuver: a.take_i64("cpuver"),
                memop: a.take("memop"),
                modstr: a.take("modstr"),
                version: a.take("version"),
                scheme: a.take("scheme"),
                other: a.other(),
            });
            *profile = Some(log.profiles.len() - 1);
            Ctx::Profile
        }
        "profdata" => {
            let fname = attr(&attributes, "fname").unwrap_or_default().to_owned();
            let idx = profile_for(log, parent, profile);
            if let Some(p) = log.profiles.get_mut(idx) {
                p.data_files.push(fname.clone());
            }
            let pname = log
                .profiles
                .get(idx)
                .map(|p| p.name.clone())
                .unwrap_or_default();
            for i in unfiled.remove(&pname).unwrap_or_default() {
                if let Some(d) = log.packets.get_mut(i) {
                    d.file = Some(fname.clone());
                }
            }
            Ctx::Other
        }
        "profpckt" => {
            let idx = profile_for(log, parent, profile);
            let kind = attr(&attributes, "kind").map(parse_u64).unwrap_or(0);
            let kind = u16::try_from(kind).unwrap_or(u16::MAX);
            let (pname, file) = match log.profiles.get_mut(idx) {
                Some(p) => {
                    p.packet_kinds.push(kind);
                    (p.name.clone(), p.data_files.last().cloned())
                }
                None => (String::new(), None),
            };
            if file.is_none() {
                unfiled
                    .entry(pname.clone())
                    .or_default()
                    .push(log.packets.len());
            }
            log.packets.push(PacketDescriptor {
                kind,
                uname: attr(&attributes, "uname").map(str::to_owned),
                profile: pname,
                file,
                fields: Vec::new(),
            });
            Ctx::Packet
        }
        "field" => {
            let Some(d) = log
                .packets
                .last_mut()
                .filter(|_| parent == Some(Ctx::Packet))
            else {
                let (line, column) = crate::xml::line_column(data, offset);
                return Err(Error::Xml {
                    file: file.to_owned(),
                    line,
                    column,
                    expected: "`<field>` inside `<profpckt>`".into(),
                    found: "`<field>` outside any packet descriptor".into(),
                });
            };
            let type_name = attr(&attributes, "type").unwrap_or_default().to_owned();
            d.fields.push(FieldDescriptor {
                name: attr(&attributes, "name").unwrap_or_default().to_owned(),
                uname: attr(&attributes, "uname").map(str::to_owned),
                offset: u32::try_from(attr(&attributes, "offset").map(parse_u64).unwrap_or(0))
                    .unwrap_or(u32::MAX),
                field_type: FieldType::from_name(&type_name),
                type_name,
                noshow: attr(&attributes, "noshow").is_some(),
                format: attr(&attributes, "format").map(str::to_owned),
                states: Vec::new(),
            });
            Ctx::Field
        }
        "state" => {
            if parent == Some(Ctx::Field) {
                if let Some(f) = log.packets.last_mut().and_then(|d| d.fields.last_mut()) {
                    f.states.push(StateName {
                        value: attr(&attributes, "value").map(parse_i64).unwrap_or(0),
                        name: attr(&attributes, "name").unwrap_or_default().to_owned(),
                        uname: attr(&attributes, "uname").unwrap_or_default().to_owned(),
                    });
                }
            }
            Ctx::Other
        }
        _ => return Ok(None),
    }))
}

/// The profile a `profdata`/`profpckt` belongs to: the open `<profile>`, or (old HWC logs)
/// an implicit `hwcounter` profile.
fn profile_for(log: &mut Log, parent: Option<Ctx>, open: &mut Option<usize>) -> usize {
    if let (Some(Ctx::Profile), Some(i)) = (parent, *open) {
        return i;
    }
    if let Some(i) = *open {
        return i;
    }
    log.profiles.push(Profile {
        name: "hwcounter".into(),
        ..Profile::default()
    });
    let i = log.profiles.len() - 1;
    *open = Some(i);
    i
}
