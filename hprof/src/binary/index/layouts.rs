//! Class layouts along the superclass chain, for decoding `INSTANCE_DUMP` field values on
//! demand: one class at a time ([`Index::layout`]) or cached ([`LayoutCache`]).

use super::build::Index;
use crate::binary::cursor::Cursor;
use crate::binary::error::{Error, Result};
use crate::binary::hash::IdMap;
use crate::binary::heap_dump::{FieldDescriptor, InstanceDump};
use crate::binary::layout::{ChainEnd, SuperclassChain};
use crate::binary::types::{BasicType, Id, IdSize, Value};

/// One instance field of a class layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayoutField<'a> {
    /// The field name (modified UTF-8), or empty when its UTF8 record is missing.
    pub name: &'a [u8],
    /// The field's type.
    pub field_type: BasicType,
    /// The class that declares it.
    pub declaring_class_id: Id,
    /// Byte offset of its value in the instance's field data.
    pub offset: usize,
}

/// The full field layout of a class: its own fields first, then its superclass's, and so on
/// (the order of `INSTANCE_DUMP` field data).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassLayout<'a> {
    /// The class.
    pub class_id: Id,
    /// Every field in data order.
    pub fields: Vec<LayoutField<'a>>,
    /// Total bytes of field data.
    pub size: usize,
}

impl<'a> ClassLayout<'a> {
    /// Decodes every field value of an instance of this class.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the instance's data is shorter than the layout.
    pub fn decode(
        &self,
        instance: &InstanceDump<'_>,
        id_size: IdSize,
        data_offset: u64,
    ) -> Result<Vec<(&'a [u8], Value)>> {
        let mut c = Cursor::new(instance.data, data_offset, id_size);
        let mut out = Vec::with_capacity(self.fields.len());
        for f in &self.fields {
            let v = c
                .value(f.field_type, "an instance field value")
                .map_err(|_| Error::Invalid {
                    offset: data_offset,
                    message: format!(
                        "instance 0x{:x} has {} field byte(s), its class layout needs {}",
                        instance.object_id,
                        instance.data.len(),
                        self.size
                    ),
                })?;
            out.push((f.name, v));
        }
        Ok(out)
    }

    /// The value of the first field named `name` (searching the class's own fields first, so
    /// a shadowing field wins).
    pub fn field(&self, instance: &InstanceDump<'_>, id_size: IdSize, name: &str) -> Option<Value> {
        let f = self.fields.iter().find(|f| f.name == name.as_bytes())?;
        let bytes = instance.data.get(f.offset..)?;
        Cursor::new(bytes, 0, id_size)
            .value(f.field_type, "INSTANCE_DUMP field value")
            .ok()
    }
}

impl<'a> Index<'a> {
    /// The full field layout of a class along its superclass chain.
    ///
    /// # Errors
    /// [`Error::Invalid`] when a class in the chain has no `CLASS_DUMP` or the chain loops,
    /// at the offset of the `CLASS_DUMP` naming that superclass (0 when `class_id` itself
    /// has no `CLASS_DUMP`).
    pub fn layout(&self, class_id: Id) -> Result<ClassLayout<'a>> {
        let mut fields = Vec::new();
        let mut offset = 0usize;
        // Offset of the CLASS_DUMP that named the next class as its superclass (0: `class_id`
        // itself).
        let mut named_at = 0;
        let mut chain = SuperclassChain::new(class_id, self.class_dumps.len(), |id| {
            self.class_dumps.get(&id).copied()
        });
        for (id, c) in &mut chain {
            let c = c.ok_or_else(|| Error::Invalid {
                offset: named_at,
                message: format!(
                    "no CLASS_DUMP for class 0x{id:x} (in the superclass chain of 0x{class_id:x})"
                ),
            })?;
            for FieldDescriptor {
                name_id,
                field_type,
            } in c.instance_fields()
            {
                fields.push(LayoutField {
                    name: self.string(name_id).unwrap_or_default(),
                    field_type,
                    declaring_class_id: id,
                    offset,
                });
                offset += field_type.size(self.header.id_size);
            }
            named_at = self.class_dump_offsets.get(&id).copied().unwrap_or(0);
        }
        if chain.end() == Some(ChainEnd::Loop) {
            return Err(Error::Invalid {
                offset: named_at,
                message: format!("the superclass chain of class 0x{class_id:x} loops"),
            });
        }
        Ok(ClassLayout {
            class_id,
            fields,
            size: offset,
        })
    }

    /// Decodes every field of an instance through its class layout: `(name, value)` pairs,
    /// own fields first. This builds the class's layout for the call; to decode many
    /// instances, use a [`LayoutCache`] ([`Index::layout_cache`]), which builds each class's
    /// layout once.
    ///
    /// # Errors
    /// As [`Index::layout`] and [`ClassLayout::decode`].
    pub fn instance_fields(&self, instance: &InstanceDump<'_>) -> Result<Vec<(&'a [u8], Value)>> {
        let layout = self.layout(instance.class_id)?;
        self.decode_instance(&layout, instance)
    }

    /// A cache of class layouts over this index, for decoding many instances.
    pub fn layout_cache(&self) -> LayoutCache<'_, 'a> {
        LayoutCache {
            index: self,
            layouts: IdMap::default(),
            cached_fields: 0,
            uncached: None,
        }
    }

    /// Decodes `instance` through `layout`, errors at the instance's offset in the file.
    fn decode_instance(
        &self,
        layout: &ClassLayout<'a>,
        instance: &InstanceDump<'_>,
    ) -> Result<Vec<(&'a [u8], Value)>> {
        layout
            .decode(instance, self.header.id_size, 0)
            .map_err(|e| match e {
                // Say where the instance's field bytes are in the file.
                Error::Invalid { message, .. } => Error::Invalid {
                    offset: self.offset_of(instance.data),
                    message,
                },
                e => e,
            })
    }
}

/// How many layout fields a [`LayoutCache`] keeps in all (about 10 MiB): past it, layouts
/// are built per call as by [`Index::layout`], so a dump of long superclass chains (whose
/// layouts repeat the superclasses' fields) cannot make the cache grow quadratically.
const CACHED_FIELDS: usize = 1 << 18;

/// Class layouts built once per class, from [`Index::layout_cache`]: decoding the fields of
/// many instances through it costs one lookup per instance, where [`Index::instance_fields`]
/// walks the superclass chain and looks up every field name again for each one.
///
/// ```
/// use hprof::binary::{BasicType, Id, IdSize, Index, SubRecord, Value};
/// use hprof::binary::write::HeapBuilder;
///
/// // A dump's bytes (`std::fs::read` or a memory map); here 2,000 points of a known shape.
/// let mut heap = HeapBuilder::new(IdSize::Eight);
/// heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
///     .class(Id(0x20), "com.example.Point", Id(0x10), &[("x", BasicType::Int), ("y", BasicType::Int)])
///     .class(Id(0x30), "com.example.Point3", Id(0x20), &[("z", BasicType::Int)]);
/// for k in 0..1000 {
///     heap.instance(Id(0x1000 + k), Id(0x20), &[Value::Int(1), Value::Int(2)])
///         .instance(Id(0x9000 + k), Id(0x30), &[Value::Int(3), Value::Int(1), Value::Int(2)]);
/// }
/// let data = heap.build()?;
/// let index = Index::build(&data)?;
/// let mut layouts = index.layout_cache();
/// let mut decoded = 0;
/// for sub in index.sub_records() {
///     if let SubRecord::InstanceDump(instance) = sub? {
///         let fields = layouts.instance_fields(&instance)?;
///         assert_eq!(fields, index.instance_fields(&instance)?);
///         decoded += 1;
///     }
/// }
/// assert_eq!((decoded, layouts.len()), (2000, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct LayoutCache<'i, 'a> {
    index: &'i Index<'a>,
    layouts: IdMap<ClassLayout<'a>>,
    /// Fields held by `layouts`.
    cached_fields: usize,
    /// The last layout built past [`CACHED_FIELDS`].
    uncached: Option<ClassLayout<'a>>,
}

impl<'a> LayoutCache<'_, 'a> {
    /// The layout of `class_id`, as [`Index::layout`] gives it, built on the first call for
    /// the class. Errors are not cached.
    ///
    /// # Errors
    /// As [`Index::layout`].
    pub fn layout(&mut self, class_id: Id) -> Result<&ClassLayout<'a>> {
        if !self.layouts.contains_key(&class_id) {
            let layout = self.index.layout(class_id)?;
            if self.cached_fields.saturating_add(layout.fields.len()) > CACHED_FIELDS {
                return Ok(self.uncached.insert(layout));
            }
            self.cached_fields += layout.fields.len();
            self.layouts.insert(class_id, layout);
        }
        self.layouts.get(&class_id).ok_or_else(|| Error::Invalid {
            offset: 0,
            message: format!("class 0x{class_id:x} left the layout cache"),
        })
    }

    /// Decodes every field of an instance, as [`Index::instance_fields`] does, through the
    /// cached layout of its class.
    ///
    /// # Errors
    /// As [`Index::instance_fields`].
    pub fn instance_fields(
        &mut self,
        instance: &InstanceDump<'_>,
    ) -> Result<Vec<(&'a [u8], Value)>> {
        let index = self.index;
        let layout = self.layout(instance.class_id)?;
        index.decode_instance(layout, instance)
    }

    /// The number of classes whose layout is cached.
    pub fn len(&self) -> usize {
        self.layouts.len()
    }

    /// True when no layout is cached.
    pub fn is_empty(&self) -> bool {
        self.layouts.is_empty()
    }
}
