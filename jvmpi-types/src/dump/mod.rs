//! The three dump buffer formats of JVMPI spec §4 "Dump formats": [`heap`] (§4.2, levels 0, 1
//! and 2), [`object`] (§4.3) and [`monitor`] (§4.4), plus what they share: values (`vl`),
//! the class layouts a `JVMPI_GC_CLASS_DUMP` needs, and the resolver that supplies them.

pub mod heap;
pub mod monitor;
pub mod object;

use std::collections::{HashMap, HashSet};

use crate::constants::TypeCode;
use crate::cursor::{Cursor, Writer};
use crate::error::{Error, Result};
use crate::events::ClassLoad;
use crate::ids::ObjectId;

/// A value (`vl`) in a dump buffer. Primitive values are big-endian in the buffer; references
/// are identifiers.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Value {
    /// A reference (`JVMPI_CLASS` / `JVMPI_NORMAL_OBJECT` type code): `I` bytes.
    Object(ObjectId),
    /// `boolean`: u1, kept raw.
    Boolean(u8),
    /// `byte`: u1.
    Byte(i8),
    /// `char`: u2.
    Char(u16),
    /// `short`: u2.
    Short(i16),
    /// `int`: u4.
    Int(i32),
    /// `long`: u8.
    Long(i64),
    /// `float`: IEEE-754 bits as u4.
    Float(f32),
    /// `double`: IEEE-754 bits as u8.
    Double(f64),
}

impl Value {
    /// The type code naturally written for this value (`JVMPI_CLASS` for references).
    #[must_use]
    pub const fn type_code(&self) -> TypeCode {
        match self {
            Self::Object(_) => TypeCode::Class,
            Self::Boolean(_) => TypeCode::Boolean,
            Self::Byte(_) => TypeCode::Byte,
            Self::Char(_) => TypeCode::Char,
            Self::Short(_) => TypeCode::Short,
            Self::Int(_) => TypeCode::Int,
            Self::Long(_) => TypeCode::Long,
            Self::Float(_) => TypeCode::Float,
            Self::Double(_) => TypeCode::Double,
        }
    }

    /// Whether this value may stand in a slot of type `ty`.
    #[must_use]
    pub fn fits(&self, ty: TypeCode) -> bool {
        match self {
            Self::Object(_) => !ty.is_primitive(),
            _ => self.type_code() == ty,
        }
    }

    /// Reads one value of type `ty`.
    pub fn read(cur: &mut Cursor<'_>, ty: TypeCode) -> Result<Self> {
        Ok(match ty {
            TypeCode::NormalObject | TypeCode::Class => {
                Self::Object(ObjectId(cur.id("reference value")?))
            }
            TypeCode::Boolean => Self::Boolean(cur.u1("boolean value")?),
            TypeCode::Byte => Self::Byte(cur.u1("byte value")? as i8),
            TypeCode::Char => Self::Char(cur.u2("char value")?),
            TypeCode::Short => Self::Short(cur.u2("short value")? as i16),
            TypeCode::Int => Self::Int(cur.u4("int value")? as i32),
            TypeCode::Long => Self::Long(cur.u8("long value")? as i64),
            TypeCode::Float => Self::Float(f32::from_bits(cur.u4("float value")?)),
            TypeCode::Double => Self::Double(f64::from_bits(cur.u8("double value")?)),
        })
    }

    /// Appends this value.
    pub fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        match *self {
            Self::Object(id) => w.id(id.0, "reference value")?,
            Self::Boolean(v) => w.u1(v),
            Self::Byte(v) => w.u1(v as u8),
            Self::Char(v) => w.u2(v),
            Self::Short(v) => w.u2(v as u16),
            Self::Int(v) => w.u4(v as u32),
            Self::Long(v) => w.u8(v as u64),
            Self::Float(v) => w.u4(v.to_bits()),
            Self::Double(v) => w.u8(v.to_bits()),
        }
        Ok(())
    }
}

/// What a `JVMPI_GC_CLASS_DUMP` record leaves out and a decoder must know: the class's
/// interface count and the types of its own static fields, in `JVMPI_EVENT_CLASS_LOAD`
/// `statics[]` order (the order the VM dumps them in).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassLayout {
    /// `class_load.num_interfaces`.
    pub interfaces: u32,
    /// Types of `class_load.statics[]`, in order.
    pub statics: Vec<TypeCode>,
}

impl ClassLayout {
    /// The layout from a class's `JVMPI_EVENT_CLASS_LOAD` event.
    pub fn from_class_load(event: &ClassLoad) -> Result<Self> {
        Ok(Self {
            interfaces: u32::try_from(event.num_interfaces).map_err(|_| Error::Inconsistent {
                what: "class_load.num_interfaces",
                reason: format!("negative count {}", event.num_interfaces),
            })?,
            statics: event
                .statics
                .iter()
                .map(|f| TypeCode::from_signature(&f.field_signature))
                .collect::<Result<_>>()?,
        })
    }
}

/// Supplies class layouts to the heap and object dump decoders, keyed by class id.
pub trait ClassResolver {
    /// The layout of the class whose `java.lang.Class` object id is `class`, if known.
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout>;
}

impl<R: ClassResolver + ?Sized> ClassResolver for &R {
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout> {
        (**self).class_layout(class)
    }
}

impl<S: std::hash::BuildHasher> ClassResolver for HashMap<ObjectId, ClassLayout, S> {
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout> {
        self.get(&class)
    }
}

/// A resolver that knows no class: enough for dumps without `JVMPI_GC_CLASS_DUMP` records
/// (level 0, monitor dumps, object dumps of instances and arrays).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoClasses;

impl ClassResolver for NoClasses {
    fn class_layout(&self, _class: ObjectId) -> Option<&ClassLayout> {
        None
    }
}

/// Class layouts gathered from `JVMPI_EVENT_CLASS_LOAD` events (or a [`ClassTable`]).
///
/// Besides what class dumps need, it can keep each class's own instance field types and its
/// superclass, which together give the layout of a `JVMPI_GC_INSTANCE_DUMP`'s values (own
/// fields, then the superclass's, up to `java.lang.Object`): see
/// [`ClassLayouts::instance_field_types`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassLayouts {
    map: HashMap<ObjectId, ClassLayout>,
    instances: HashMap<ObjectId, Vec<TypeCode>>,
    supers: HashMap<ObjectId, ObjectId>,
}

impl ClassLayouts {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the layout of `class`.
    pub fn insert(&mut self, class: ObjectId, layout: ClassLayout) {
        self.map.insert(class, layout);
    }

    /// Adds the layout described by a `JVMPI_EVENT_CLASS_LOAD` event, including the types of
    /// its own instance fields (`instances[]`, in the order the VM dumps them).
    pub fn insert_class_load(&mut self, event: &ClassLoad) -> Result<()> {
        self.insert(event.class_id, ClassLayout::from_class_load(event)?);
        let instances = event
            .instances
            .iter()
            .map(|f| TypeCode::from_signature(&f.field_signature))
            .collect::<Result<_>>()?;
        self.instances.insert(event.class_id, instances);
        Ok(())
    }

    /// Records the types of `class`'s own instance fields, in dump order.
    pub fn insert_instance_fields(&mut self, class: ObjectId, types: Vec<TypeCode>) {
        self.instances.insert(class, types);
    }

    /// Records that `super_class` is the superclass of `class` (NULL: none).
    pub fn insert_super(&mut self, class: ObjectId, super_class: ObjectId) {
        self.supers.insert(class, super_class);
    }

    /// Records the superclass of every `JVMPI_GC_CLASS_DUMP` among `records`.
    pub fn insert_supers<'r>(
        &mut self,
        records: impl IntoIterator<Item = &'r heap::HeapDumpRecord>,
    ) {
        for r in records {
            if let heap::HeapDumpRecord::ClassDump(c) = r {
                self.insert_super(c.class, c.super_class);
            }
        }
    }

    /// The types of the values of an instance of `class`, in `JVMPI_GC_INSTANCE_DUMP` order:
    /// `class`'s own instance fields, then its superclass's, and so on. `None` when a class of
    /// the chain has no known fields or superclass (or the chain loops).
    #[must_use]
    pub fn instance_field_types(&self, class: ObjectId) -> Option<Vec<TypeCode>> {
        // Walk the chain once (each class at most once: a loop gives `None` as soon as a
        // class repeats), then build the list only for a chain that ends in NULL.
        let mut chain: Vec<&[TypeCode]> = Vec::new();
        let mut seen = HashSet::new();
        let mut current = class;
        loop {
            if !seen.insert(current) {
                return None;
            }
            chain.push(self.instances.get(&current)?);
            let next = *self.supers.get(&current)?;
            if next.is_null() {
                break;
            }
            current = next;
        }
        Some(chain.concat())
    }

    /// A cache of [`ClassLayouts::instance_field_types`] over this table, for decoding many
    /// instances ([`heap::InstanceDump::fields_with`]).
    #[must_use]
    pub fn instance_layout_cache(&self) -> InstanceLayoutCache<'_> {
        InstanceLayoutCache::new(self)
    }

    /// Number of classes known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no class is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl ClassResolver for ClassLayouts {
    fn class_layout(&self, class: ObjectId) -> Option<&ClassLayout> {
        self.map.get(&class)
    }
}

/// How many field types an [`InstanceLayoutCache`] keeps in all (1 MiB): past it, the types
/// are gathered per call, so long superclass chains (whose instance layouts repeat the
/// superclasses' fields) cannot make the cache grow quadratically.
const CACHED_TYPES: usize = 1 << 20;

/// The instance field types of each class ([`ClassLayouts::instance_field_types`]), gathered
/// once per class: decoding many `JVMPI_GC_INSTANCE_DUMP`s through it
/// ([`heap::InstanceDump::fields_with`]) costs one lookup per instance instead of a walk of
/// the superclass chain and a new list each.
///
/// ```
/// use jvmpi_types::dump::heap::InstanceDump;
/// use jvmpi_types::dump::Value;
/// use jvmpi_types::{ClassLayouts, DumpLevel, DumpOptions, IdOrder, IdSize, ObjectId, TypeCode};
///
/// let mut classes = ClassLayouts::new();
/// classes.insert_instance_fields(ObjectId(2), vec![TypeCode::Int]);
/// classes.insert_super(ObjectId(2), ObjectId::NULL);
/// let options = DumpOptions::new(IdSize::Four, IdOrder::Little);
/// let mut cache = classes.instance_layout_cache();
/// for n in 0..3 {
///     let instance = InstanceDump { object: ObjectId(10 + n), class: ObjectId(2), values: vec![0, 0, 0, 7] };
///     let fields = instance.fields_with(&mut cache, options, DumpLevel::Level2).unwrap()?;
///     assert_eq!(fields, [Value::Int(7)]);
/// }
/// assert_eq!(cache.len(), 1);
/// # Ok::<(), jvmpi_types::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct InstanceLayoutCache<'c> {
    classes: &'c ClassLayouts,
    /// `None`: a class of the chain is unknown (or the chain loops).
    types: HashMap<ObjectId, Option<Box<[TypeCode]>>>,
    /// Field types held by `types` (each `None` counted as one).
    cached: usize,
    /// The last types gathered past [`CACHED_TYPES`].
    uncached: Option<Vec<TypeCode>>,
}

impl<'c> InstanceLayoutCache<'c> {
    /// An empty cache over `classes`.
    #[must_use]
    pub fn new(classes: &'c ClassLayouts) -> Self {
        Self {
            classes,
            types: HashMap::new(),
            cached: 0,
            uncached: None,
        }
    }

    /// The types of the values of an instance of `class`, as
    /// [`ClassLayouts::instance_field_types`] gives them, gathered on the first call for the
    /// class.
    pub fn field_types(&mut self, class: ObjectId) -> Option<&[TypeCode]> {
        if !self.types.contains_key(&class) {
            let types = self.classes.instance_field_types(class);
            let size = types.as_ref().map_or(1, Vec::len).max(1);
            if self.cached.saturating_add(size) > CACHED_TYPES {
                return self.uncached.insert(types?).get(..);
            }
            self.cached += size;
            self.types.insert(class, types.map(Vec::into_boxed_slice));
        }
        self.types.get(&class)?.as_deref()
    }

    /// The number of classes cached (known or not).
    #[must_use]
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether no class is cached.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }
}

/// The JSON form of class layouts used by the `jvmpi-dump` example:
/// `{"classes":[{"id":N,"interfaces":N,"statics":["I","J","Ljava/lang/String;"]}]}`, with
/// field signatures as in `JVMPI_Field.field_signature`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassTable {
    /// One entry per class.
    pub classes: Vec<ClassTableEntry>,
}

/// One class of a [`ClassTable`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassTableEntry {
    /// The class id (`class_load.class_id`).
    pub id: u64,
    /// `class_load.num_interfaces`.
    pub interfaces: u32,
    /// Static field signatures, in `class_load.statics[]` order.
    #[cfg_attr(feature = "serde", serde(default))]
    pub statics: Vec<String>,
}

impl ClassTableEntry {
    /// The entry for a class from its `JVMPI_EVENT_CLASS_LOAD` event.
    pub fn from_class_load(event: &ClassLoad) -> Result<Self> {
        Ok(Self {
            id: event.class_id.0,
            interfaces: u32::try_from(event.num_interfaces).map_err(|_| Error::Inconsistent {
                what: "class_load.num_interfaces",
                reason: format!("negative count {}", event.num_interfaces),
            })?,
            statics: event
                .statics
                .iter()
                .map(|f| f.field_signature.clone())
                .collect(),
        })
    }
}

impl ClassTable {
    /// The resolver this table describes; fails on a malformed signature.
    pub fn layouts(&self) -> Result<ClassLayouts> {
        let mut out = ClassLayouts::new();
        for c in &self.classes {
            let statics = c
                .statics
                .iter()
                .map(|s| TypeCode::from_signature(s))
                .collect::<Result<_>>()?;
            out.insert(
                ObjectId(c.id),
                ClassLayout {
                    interfaces: c.interfaces,
                    statics,
                },
            );
        }
        Ok(out)
    }
}
