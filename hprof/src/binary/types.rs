//! Basic types of the binary format: identifiers, their size, and the basic-type codes used by
//! class dumps and primitive arrays (`hprof.md` §1.4).

use core::fmt;

/// An object, class, string or frame identifier: the value of a field marked `id` (`hprof.md`
/// §1.3, §1.5), stored as `u64` whatever the header's id size (4-byte ids widen losslessly).
///
/// A type of its own, so an id cannot be mistaken for an offset, a size or a count. It prints
/// (`Display`, `Debug`, `{:x}`, `{:X}`) and serializes as the bare number; 0 is `null`
/// ([`Id::NULL`]).
///
/// ```
/// use hprof::binary::Id;
///
/// let id = Id::from(0x7f00_1000_u64);
/// assert_eq!(format!("{id} {id:#x}"), "2130710528 0x7f001000");
/// assert_eq!(u64::from(id), id.get());
/// assert!(Id::NULL.is_null() && !id.is_null());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[repr(transparent)]
pub struct Id(pub u64);

impl Id {
    /// The null reference (id 0).
    pub const NULL: Id = Id(0);

    /// The id as a number.
    #[inline(always)]
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Whether this is the null reference (id 0).
    #[inline(always)]
    #[must_use]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }
}

impl From<u64> for Id {
    #[inline(always)]
    fn from(n: u64) -> Self {
        Id(n)
    }
}

/// A 4-byte id, widened.
impl From<u32> for Id {
    #[inline(always)]
    fn from(n: u32) -> Self {
        Id(u64::from(n))
    }
}

impl From<Id> for u64 {
    #[inline(always)]
    fn from(id: Id) -> u64 {
        id.0
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::LowerHex for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

impl fmt::UpperHex for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::UpperHex::fmt(&self.0, f)
    }
}

/// Defines a serial-number newtype over `u32`: it prints (`Display` and `Debug`) as the bare
/// number, serializes as one, and converts from and to `u32`.
macro_rules! serial {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl From<u32> for $name {
            #[inline]
            fn from(n: u32) -> Self {
                $name(n)
            }
        }

        impl From<$name> for u32 {
            #[inline]
            fn from(s: $name) -> u32 {
                s.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }
    };
}

serial! {
    /// The serial number of a class (`LOAD_CLASS`): what `STACK_FRAME`, `UNLOAD_CLASS` and
    /// `ALLOC_SITES` name a class by. A type of its own, so it cannot be mistaken for another
    /// serial or a count.
    ClassSerial
}

serial! {
    /// The serial number of a stack trace (`STACK_TRACE`): what objects, threads, roots and
    /// samples name their trace by (0 or an unused serial: no trace).
    StackTraceSerial
}

serial! {
    /// The serial number of a thread (`START_THREAD`, `STACK_TRACE`, thread roots): what roots
    /// and traces name a thread by.
    ThreadSerial
}

/// Size in bytes of every identifier in a dump, from the file header (`u4 id_size`): the
/// `sizeof(void *)` of the VM that wrote it.
///
/// HotSpot writes 4 or 8, the JVMTI agent and ART always 4; other sizes are rejected.
/// The same type, variants and methods as `jvmpi_types::IdSize` (the crates share no
/// dependency, so each defines it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IdSize {
    /// 4-byte identifiers (32-bit VMs; the JVMTI agent and Android always).
    Four,
    /// 8-byte identifiers (64-bit VMs).
    Eight,
}

impl IdSize {
    /// The size in bytes (4 or 8).
    #[inline]
    #[must_use]
    pub const fn bytes(self) -> usize {
        match self {
            IdSize::Four => 4,
            IdSize::Eight => 8,
        }
    }

    /// The id size of `n` bytes, or `None` when it is neither 4 nor 8.
    #[must_use]
    pub const fn from_bytes(n: u32) -> Option<IdSize> {
        match n {
            4 => Some(IdSize::Four),
            8 => Some(IdSize::Eight),
            _ => None,
        }
    }
}

/// A basic-type code (`hprof.md` §1.4): field types in class dumps, element types of primitive
/// arrays, `is_array` of allocation sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum BasicType {
    /// 2: an object reference (id-sized).
    Object = 2,
    /// 4: `boolean` (1 byte).
    Boolean = 4,
    /// 5: `char` (2 bytes, UTF-16 code unit).
    Char = 5,
    /// 6: `float` (4 bytes).
    Float = 6,
    /// 7: `double` (8 bytes).
    Double = 7,
    /// 8: `byte` (1 byte).
    Byte = 8,
    /// 9: `short` (2 bytes).
    Short = 9,
    /// 10: `int` (4 bytes).
    Int = 10,
    /// 11: `long` (8 bytes).
    Long = 11,
}

impl BasicType {
    /// Every basic type, in code order.
    pub const ALL: [BasicType; 9] = [
        BasicType::Object,
        BasicType::Boolean,
        BasicType::Char,
        BasicType::Float,
        BasicType::Double,
        BasicType::Byte,
        BasicType::Short,
        BasicType::Int,
        BasicType::Long,
    ];

    /// The type for a code, or `None` for codes 0, 1, 3 and ≥ 12.
    #[inline]
    pub const fn from_code(code: u8) -> Option<BasicType> {
        Some(match code {
            2 => BasicType::Object,
            4 => BasicType::Boolean,
            5 => BasicType::Char,
            6 => BasicType::Float,
            7 => BasicType::Double,
            8 => BasicType::Byte,
            9 => BasicType::Short,
            10 => BasicType::Int,
            11 => BasicType::Long,
            _ => return None,
        })
    }

    /// The code written in files.
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Size in bytes of one value of this type (objects take the id size).
    #[inline]
    pub const fn size(self, id_size: IdSize) -> usize {
        match self {
            BasicType::Object => id_size.bytes(),
            BasicType::Boolean | BasicType::Byte => 1,
            BasicType::Char | BasicType::Short => 2,
            BasicType::Float | BasicType::Int => 4,
            BasicType::Double | BasicType::Long => 8,
        }
    }

    /// The Java keyword (`int`), or `Object` for references.
    pub const fn java_name(self) -> &'static str {
        match self {
            BasicType::Object => "Object",
            BasicType::Boolean => "boolean",
            BasicType::Char => "char",
            BasicType::Float => "float",
            BasicType::Double => "double",
            BasicType::Byte => "byte",
            BasicType::Short => "short",
            BasicType::Int => "int",
            BasicType::Long => "long",
        }
    }
}

/// A typed value: a static field, a constant-pool entry or a decoded instance field.
///
/// Floating-point values keep their exact bits (`f32::from_bits` gives the number), so values
/// compare and round-trip exactly, NaN payloads included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    /// An object reference (0 is `null`).
    Object(Id),
    /// A `boolean`, as the raw byte (0 false, anything else true).
    Boolean(u8),
    /// A `char` (UTF-16 code unit).
    Char(u16),
    /// A `float`, as its IEEE 754 bits.
    Float(u32),
    /// A `double`, as its IEEE 754 bits.
    Double(u64),
    /// A `byte`.
    Byte(i8),
    /// A `short`.
    Short(i16),
    /// An `int`.
    Int(i32),
    /// A `long`.
    Long(i64),
}

impl Value {
    /// The value's basic type.
    pub const fn basic_type(&self) -> BasicType {
        match self {
            Value::Object(_) => BasicType::Object,
            Value::Boolean(_) => BasicType::Boolean,
            Value::Char(_) => BasicType::Char,
            Value::Float(_) => BasicType::Float,
            Value::Double(_) => BasicType::Double,
            Value::Byte(_) => BasicType::Byte,
            Value::Short(_) => BasicType::Short,
            Value::Int(_) => BasicType::Int,
            Value::Long(_) => BasicType::Long,
        }
    }

    /// The referenced id, for object values.
    pub const fn as_object(&self) -> Option<Id> {
        match self {
            Value::Object(id) => Some(*id),
            _ => None,
        }
    }

    /// Appends the value's big-endian bytes (objects with `id_size` bytes).
    pub fn write(&self, id_size: IdSize, out: &mut Vec<u8>) {
        match *self {
            Value::Object(id) => write_id(id, id_size, out),
            Value::Boolean(b) => out.push(b),
            Value::Char(c) => out.extend_from_slice(&c.to_be_bytes()),
            Value::Float(f) => out.extend_from_slice(&f.to_be_bytes()),
            Value::Double(d) => out.extend_from_slice(&d.to_be_bytes()),
            Value::Byte(b) => out.extend_from_slice(&b.to_be_bytes()),
            Value::Short(s) => out.extend_from_slice(&s.to_be_bytes()),
            Value::Int(i) => out.extend_from_slice(&i.to_be_bytes()),
            Value::Long(l) => out.extend_from_slice(&l.to_be_bytes()),
        }
    }
}

/// Appends an identifier with `id_size` bytes (4-byte ids keep the low 32 bits).
#[inline]
pub(crate) fn write_id(id: Id, id_size: IdSize, out: &mut Vec<u8>) {
    match id_size {
        IdSize::Four => out.extend_from_slice(&(id.0 as u32).to_be_bytes()),
        IdSize::Eight => out.extend_from_slice(&id.0.to_be_bytes()),
    }
}

/// A list of identifiers stored back to back (trace frames, object-array elements).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct IdList<'a> {
    data: &'a [u8],
    id_size: IdSize,
}

impl<'a> IdList<'a> {
    /// A list over `data`, whose length must be a multiple of the id size.
    pub fn new(data: &'a [u8], id_size: IdSize) -> IdList<'a> {
        IdList { data, id_size }
    }

    /// The raw big-endian bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The id size.
    pub fn id_size(&self) -> IdSize {
        self.id_size
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.data.len() / self.id_size.bytes()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The id at `index`.
    pub fn get(&self, index: usize) -> Option<Id> {
        let n = self.id_size.bytes();
        let start = index.checked_mul(n)?;
        let b = self.data.get(start..start.checked_add(n)?)?;
        Some(read_id(b))
    }

    /// The ids in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Id> + 'a {
        self.data.chunks_exact(self.id_size.bytes()).map(read_id)
    }
}

impl std::fmt::Debug for IdList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[inline]
fn read_id(b: &[u8]) -> Id {
    Id(b.iter().fold(0, |acc, &x| (acc << 8) | u64::from(x)))
}

#[cfg(test)]
mod tests {
    use super::{ClassSerial, Id, StackTraceSerial, ThreadSerial};

    #[test]
    fn ids_print_and_serialize_as_their_number() {
        let id = Id(0x7f_0000_1000);
        assert_eq!(
            format!("{id} {id:?} {id:x} {id:#X} {id:>14}"),
            "545460850688 545460850688 7f00001000 0x7F00001000   545460850688"
        );
        assert_eq!(u64::from(id), 0x7f_0000_1000);
        assert_eq!(Id::from(7u32), Id(7));
        assert_eq!(Id::default(), Id::NULL);
        assert!(Id::NULL.is_null() && !id.is_null());
        #[cfg(feature = "serde")]
        {
            assert_eq!(serde_json::to_string(&id).unwrap(), "545460850688");
            assert_eq!(serde_json::from_str::<Id>("545460850688").unwrap(), id);
            let v = super::Value::Object(id);
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                r#"{"Object":545460850688}"#
            );
        }
    }

    #[test]
    fn serials_print_and_serialize_as_their_number() {
        let (c, s, t) = (
            ClassSerial(7),
            StackTraceSerial(300_001),
            ThreadSerial(200_001),
        );
        assert_eq!(format!("{c} {s:>8} {t:?}"), "7   300001 200001");
        assert_eq!(u32::from(s), 300_001);
        assert_eq!(ThreadSerial::from(5), ThreadSerial(5));
        #[cfg(feature = "serde")]
        {
            assert_eq!(serde_json::to_string(&s).unwrap(), "300001");
            assert_eq!(serde_json::from_str::<ClassSerial>("7").unwrap(), c);
        }
    }
}
