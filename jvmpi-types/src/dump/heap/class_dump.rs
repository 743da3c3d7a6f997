//! `JVMPI_GC_CLASS_DUMP` (`jvmpi.md` §7): a class dump's interface count and static field types
//! come from its class's CLASS_LOAD event, through a [`ClassResolver`].

use crate::constants::{DumpLevel, TypeCode};
use crate::cursor::{Cursor, Writer};
use crate::dump::{ClassLayout, ClassResolver, Value};
use crate::error::{Error, Result};
use crate::ids::{ObjectId, Pointer};
use std::collections::HashMap;

use super::read_value_type;

/// `JVMPI_GC_CLASS_DUMP`: a class object.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassDump {
    /// The class.
    pub class: ObjectId,
    /// Its superclass (NULL for `java.lang.Object` and interfaces).
    pub super_class: ObjectId,
    /// Its class loader.
    pub class_loader: ObjectId,
    /// Its signers.
    pub signers: ObjectId,
    /// Its protection domain.
    pub protection_domain: ObjectId,
    /// A `java.lang.String` id of the class name (may be NULL; `void *reserved` in 1.2.1).
    pub class_name: ObjectId,
    /// The `void *` reserved slot (NULL in every known writer).
    pub reserved: Pointer,
    /// Instance size in bytes.
    pub instance_size: u32,
    /// Directly implemented interfaces (count from the class's CLASS_LOAD).
    pub interfaces: Vec<ObjectId>,
    /// Constant pool entries (`u2` count in the record).
    pub constant_pool: Vec<ConstantPoolEntry>,
    /// Static field values in CLASS_LOAD `statics[]` order; at level 1 only the reference
    /// statics (primitive values are left out).
    pub statics: Vec<Value>,
}

/// One constant-pool entry of a class dump: `u2 index`, `ty`, `vl`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConstantPoolEntry {
    /// Constant pool index.
    pub index: u16,
    /// The `ty` byte as written (references may use `JVMPI_CLASS` or `JVMPI_NORMAL_OBJECT`).
    pub ty: TypeCode,
    /// The value.
    pub value: Value,
}

/// What a level-1 `JVMPI_GC_CLASS_DUMP` needs from its class's layout: the interface count and
/// the number of reference statics (the primitive ones take no bytes at level 1). The record
/// iterators keep it per class, so a class dumped many times has its statics list walked once.
pub(crate) type Level1Shapes = HashMap<ObjectId, (u32, usize)>;

/// The static values a class dump holds.
pub(super) enum Statics<'l> {
    /// Level 1: this many reference values.
    References(usize),
    /// Level 2: one value of each type.
    All(&'l [TypeCode]),
}

/// The interface count and statics of the class dump of `class` (tag at `offset`).
pub(super) fn class_shape<'l>(
    class: ObjectId,
    offset: usize,
    level: DumpLevel,
    resolver: &'l dyn ClassResolver,
    shapes: Option<&mut Level1Shapes>,
) -> Result<(u32, Statics<'l>)> {
    if level == DumpLevel::Level1 {
        if let Some(&(interfaces, refs)) = shapes.as_ref().and_then(|s| s.get(&class)) {
            return Ok((interfaces, Statics::References(refs)));
        }
    }
    let layout: &ClassLayout = resolver
        .class_layout(class)
        .ok_or(Error::MissingClassInfo { offset, class })?;
    if level == DumpLevel::Level1 {
        let refs = layout.statics.iter().filter(|t| !t.is_primitive()).count();
        if let Some(shapes) = shapes {
            shapes.insert(class, (layout.interfaces, refs));
        }
        return Ok((layout.interfaces, Statics::References(refs)));
    }
    Ok((layout.interfaces, Statics::All(&layout.statics)))
}

pub(super) fn read_class_dump(
    cur: &mut Cursor<'_>,
    offset: usize,
    level: DumpLevel,
    resolver: &dyn ClassResolver,
    shapes: Option<&mut Level1Shapes>,
) -> Result<ClassDump> {
    let class = ObjectId(cur.id("class id")?);
    let super_class = ObjectId(cur.id("super class id")?);
    let class_loader = ObjectId(cur.id("class loader id")?);
    let signers = ObjectId(cur.id("signers id")?);
    let protection_domain = ObjectId(cur.id("protection domain id")?);
    let class_name = ObjectId(cur.id("class name id")?);
    let reserved = Pointer(cur.void_id("reserved")?);
    let instance_size = cur.u4("u4 instance size")?;
    let (interfaces, statics_shape) = class_shape(class, offset, level, resolver, shapes)?;
    let interfaces = cur.ids(u64::from(interfaces), "interface ids")?;
    let m = cur.u2("u2 constant pool size")?;
    // Smallest entry: u2 + ty + 1-byte value.
    let m = cur.ensure_items(u64::from(m), 4, "constant pool entries")?;
    let mut constant_pool = Vec::with_capacity(m);
    for _ in 0..m {
        let index = cur.u2("u2 constant pool index")?;
        let ty = read_value_type(cur)?;
        constant_pool.push(ConstantPoolEntry {
            index,
            ty,
            value: Value::read(cur, ty)?,
        });
    }
    let statics = match statics_shape {
        Statics::References(n) => {
            let n = cur.ensure_items(n as u64, cur.options().id_bytes(), "reference value")?;
            let mut statics = Vec::with_capacity(n);
            for _ in 0..n {
                statics.push(Value::Object(ObjectId(cur.id("reference value")?)));
            }
            statics
        }
        // Every value takes at least one byte, so the reservation is bounded by the buffer.
        Statics::All(types) => {
            let mut statics = Vec::with_capacity(types.len().min(cur.remaining()));
            for &ty in types {
                statics.push(Value::read(cur, ty)?);
            }
            statics
        }
    };
    Ok(ClassDump {
        class,
        super_class,
        class_loader,
        signers,
        protection_domain,
        class_name,
        reserved,
        instance_size,
        interfaces,
        constant_pool,
        statics,
    })
}

pub(super) fn write_class_dump(c: &ClassDump, w: &mut Writer<'_>, level: DumpLevel) -> Result<()> {
    w.id(c.class.0, "class id")?;
    w.id(c.super_class.0, "super class id")?;
    w.id(c.class_loader.0, "class loader id")?;
    w.id(c.signers.0, "signers id")?;
    w.id(c.protection_domain.0, "protection domain id")?;
    w.id(c.class_name.0, "class name id")?;
    w.void_id(c.reserved.0, "reserved")?;
    w.u4(c.instance_size);
    for i in &c.interfaces {
        w.id(i.0, "interface id")?;
    }
    let m = u16::try_from(c.constant_pool.len()).map_err(|_| Error::Inconsistent {
        what: "JVMPI_GC_CLASS_DUMP constant pool",
        reason: format!("{} entries do not fit a u2 count", c.constant_pool.len()),
    })?;
    w.u2(m);
    for e in &c.constant_pool {
        if !e.value.fits(e.ty) {
            return Err(Error::Inconsistent {
                what: "JVMPI_GC_CLASS_DUMP constant pool entry",
                reason: format!("value {:?} does not match type {}", e.value, e.ty),
            });
        }
        w.u2(e.index);
        w.u1(e.ty.raw());
        e.value.write(w)?;
    }
    for v in &c.statics {
        if level == DumpLevel::Level1 && !matches!(v, Value::Object(_)) {
            return Err(Error::Inconsistent {
                what: "JVMPI_GC_CLASS_DUMP static value",
                reason: format!("primitive static {v:?} cannot be written at level 1"),
            });
        }
        v.write(w)?;
    }
    Ok(())
}
