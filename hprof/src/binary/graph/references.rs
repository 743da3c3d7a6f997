//! The references a sub-record holds under an [`EdgePolicy`]: instance fields through the
//! class layout, array elements, a class's static values and constant pool (and, recorded,
//! an object's class, a class's superclass, loader, signers and protection domain).

use super::super::heap_dump::SubRecord;
use super::super::layout::SuperclassChain;
use super::super::types::{BasicType, Id, IdList, IdSize};
use super::classes::NodeClass;
use super::objects::ObjectIndex;
use super::{EdgePolicy, NodeIndex};

/// What an outgoing reference goes through.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Via {
    /// An instance field (by name; empty when its `UTF8` record is missing).
    Field(String),
    /// An object-array element.
    Element(u64),
    /// The object's class (instance → class, object array → array class).
    Class,
    /// A class's superclass.
    SuperClass,
    /// A class's class loader.
    ClassLoader,
    /// A class's signers.
    Signers,
    /// A class's protection domain.
    ProtectionDomain,
    /// A static field (by name).
    StaticField(String),
    /// A constant-pool entry (by index).
    ConstantPool(u16),
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Field(n) => write!(f, ".{n}"),
            Via::Element(i) => write!(f, "[{i}]"),
            Via::Class => f.write_str("<class>"),
            Via::SuperClass => f.write_str("<super>"),
            Via::ClassLoader => f.write_str("<classloader>"),
            Via::Signers => f.write_str("<signers>"),
            Via::ProtectionDomain => f.write_str("<protection domain>"),
            Via::StaticField(n) => write!(f, "static {n}"),
            Via::ConstantPool(i) => write!(f, "<constant pool #{i}>"),
        }
    }
}

#[inline(always)]
fn read_id(b: &[u8], id_size: IdSize) -> Id {
    match id_size {
        IdSize::Four => b
            .first_chunk::<4>()
            .map_or(Id::NULL, |a| Id::from(u32::from_be_bytes(*a))),
        IdSize::Eight => b
            .first_chunk::<8>()
            .map_or(Id::NULL, |a| Id(u64::from_be_bytes(*a))),
    }
}

/// Calls `out(target id, weak, via)` for every nonzero object id that node `node` references
/// under `policy` (targets are not resolved: they may name no node). `via` is computed only
/// when `NAMES` is true (otherwise [`Via::Class`] is passed as a placeholder).
/// Returns how many instances had field data shorter than their class layout, and whether the
/// instance's class was unknown.
pub(crate) fn for_each_reference<const NAMES: bool>(
    ix: &ObjectIndex<'_>,
    node: NodeIndex,
    policy: EdgePolicy,
    mut out: impl FnMut(Id, bool, Via),
) -> RefStats {
    let id_size = ix.id_size();
    let mut stats = RefStats::default();
    let Ok(sub) = ix.sub_record(node) else {
        return stats;
    };
    stats.class = NodeClass::of(&sub);
    let ahat = policy == EdgePolicy::Ahat;
    match sub {
        SubRecord::InstanceDump(i) => {
            match ix.classes.get(&i.class_id) {
                Some(info) => {
                    stats.class = NodeClass::Number(info.number);
                    let layout = &info.layout;
                    for (k, &(off, weak)) in layout.refs.iter().enumerate() {
                        let Some(b) = i.data.get(off as usize..off as usize + id_size.bytes())
                        else {
                            stats.short_instance = true;
                            break;
                        };
                        let id = read_id(b, id_size);
                        if !id.is_null() {
                            let via = if NAMES {
                                Via::Field(field_name(ix, i.class_id, k))
                            } else {
                                Via::Class
                            };
                            out(id, ahat && weak, via);
                        }
                    }
                    if (layout.size as usize) > i.data.len() && !layout.refs.is_empty() {
                        stats.short_instance = true;
                    }
                }
                None => stats.unknown_class = true,
            }
            if !ahat && !i.class_id.is_null() {
                out(i.class_id, false, Via::Class);
            }
        }
        SubRecord::ObjectArrayDump(a) => {
            elements::<NAMES>(a.elements, &mut out);
            if !ahat && !a.array_class_id.is_null() {
                out(a.array_class_id, false, Via::Class);
            }
        }
        SubRecord::ClassDump(c) => {
            if !ahat {
                for (id, via) in [
                    (c.super_class_id, Via::SuperClass),
                    (c.class_loader_id, Via::ClassLoader),
                    (c.signers_id, Via::Signers),
                    (c.protection_domain_id, Via::ProtectionDomain),
                ] {
                    if !id.is_null() {
                        out(id, false, via);
                    }
                }
            }
            for s in c.static_fields() {
                if let Some(id) = s.value.as_object().filter(|id| !id.is_null()) {
                    let via = if NAMES {
                        Via::StaticField(name_of(ix, s.name_id))
                    } else {
                        Via::Class
                    };
                    out(id, false, via);
                }
            }
            if !ahat {
                for e in c.constant_pool() {
                    if let Some(id) = e.value.as_object().filter(|id| !id.is_null()) {
                        out(id, false, Via::ConstantPool(e.index));
                    }
                }
            }
        }
        _ => {}
    }
    stats
}

fn elements<const NAMES: bool>(list: IdList<'_>, out: &mut impl FnMut(Id, bool, Via)) {
    for (k, id) in list.iter().enumerate() {
        if !id.is_null() {
            let via = if NAMES {
                Via::Element(k as u64)
            } else {
                Via::Class
            };
            out(id, false, via);
        }
    }
}

fn name_of(ix: &ObjectIndex<'_>, name_id: Id) -> String {
    ix.string(name_id)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

/// The name of the `k`-th object-typed field of the layout of `class_id`.
fn field_name(ix: &ObjectIndex<'_>, class_id: Id, k: usize) -> String {
    let mut seen = 0;
    let chain = SuperclassChain::new(class_id, ix.classes.len(), |id| ix.class_dump(id).copied());
    for (_, c) in chain {
        let Some(c) = c else { break };
        for f in c.instance_fields() {
            if f.field_type == BasicType::Object {
                if seen == k {
                    return name_of(ix, f.name_id);
                }
                seen += 1;
            }
        }
    }
    String::new()
}

/// Per-node problems met while listing references, and the node's class.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RefStats {
    pub(crate) short_instance: bool,
    pub(crate) unknown_class: bool,
    pub(crate) class: NodeClass,
}

impl Default for RefStats {
    fn default() -> Self {
        RefStats {
            short_instance: false,
            unknown_class: false,
            class: NodeClass::Nothing,
        }
    }
}
