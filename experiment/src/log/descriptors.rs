//! `log.xml`'s packet descriptors: `<profile>` (one data kind), its `<profdata fname>` data
//! files and `<profpckt kind>` packet layouts made of `<field>`s with their `<state>` names
//! (format notes §3–§4, gprofng `ExperimentHandler::startElement`).

use super::{Attrs, attr, parse_i64, parse_u64};

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
    /// Kinds of the `<profpckt>` children (descriptors live in
    /// [`Log::packets`](super::Log::packets)).
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

/// A descriptor element, as read: what it says, for the log reader to place in the
/// profile (and packet descriptor) it belongs to.
#[derive(Debug)]
pub(super) enum Descriptor {
    /// `<profile>` (boxed: far larger than the other elements).
    Profile(Box<Profile>),
    /// `<profdata fname>`: a data file of the open profile.
    DataFile(String),
    /// `<profpckt kind uname>`: a packet layout of the open profile, its `profile`, `file`
    /// and `fields` still empty.
    Packet(PacketDescriptor),
    /// `<field>` of the open `<profpckt>`.
    Field(FieldDescriptor),
    /// `<state>` of the open `<field>`.
    State(StateName),
}

/// Reads a descriptor element; `None` when `name` is not one.
pub(super) fn read(name: &str, attributes: Vec<(String, String)>) -> Option<Descriptor> {
    Some(match name {
        "profile" => {
            let mut a = Attrs::new(attributes);
            Descriptor::Profile(Box::new(Profile {
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
            }))
        }
        "profdata" => {
            Descriptor::DataFile(attr(&attributes, "fname").unwrap_or_default().to_owned())
        }
        "profpckt" => {
            let kind = attr(&attributes, "kind").map(parse_u64).unwrap_or(0);
            Descriptor::Packet(PacketDescriptor {
                kind: u16::try_from(kind).unwrap_or(u16::MAX),
                uname: attr(&attributes, "uname").map(str::to_owned),
                profile: String::new(),
                file: None,
                fields: Vec::new(),
            })
        }
        "field" => {
            let type_name = attr(&attributes, "type").unwrap_or_default().to_owned();
            Descriptor::Field(FieldDescriptor {
                name: attr(&attributes, "name").unwrap_or_default().to_owned(),
                uname: attr(&attributes, "uname").map(str::to_owned),
                offset: u32::try_from(attr(&attributes, "offset").map(parse_u64).unwrap_or(0))
                    .unwrap_or(u32::MAX),
                field_type: FieldType::from_name(&type_name),
                type_name,
                noshow: attr(&attributes, "noshow").is_some(),
                format: attr(&attributes, "format").map(str::to_owned),
                states: Vec::new(),
            })
        }
        "state" => Descriptor::State(StateName {
            value: attr(&attributes, "value").map(parse_i64).unwrap_or(0),
            name: attr(&attributes, "name").unwrap_or_default().to_owned(),
            uname: attr(&attributes, "uname").unwrap_or_default().to_owned(),
        }),
        _ => return None,
    })
}
