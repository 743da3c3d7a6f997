//! A dense number for the class of every node (the class each row of a per-class answer is
//! about): one per class id of the dump (so classes of one name defined by different class
//! loaders stay apart), one per primitive-array element type, one for class objects. Found
//! while the references are decoded when [`Options::classes`](super::Options::classes) asks
//! for it, or by decoding every node again when a per-class answer is first asked for.

use super::super::hash::IdMap;
use super::super::heap_dump::SubRecord;
use super::super::types::{BasicType, Id};
use super::objects::ObjectIndex;
use super::{NONE, NodeIndex};

/// Whether the graph keeps the class of every node from its build (see
/// [`Options::classes`](super::Options::classes)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum NodeClasses {
    /// Keep nothing: [`Graph::class_retained`](super::Graph::class_retained) and
    /// [`Graph::leak_suspects`](super::Graph::leak_suspects) decode every object again for its
    /// class when called.
    #[default]
    Decode,
    /// Keep a class number per object (4 bytes per object, in the scratch storage), found
    /// while the references are decoded: the per-class answers then need no decoding pass.
    Keep,
}

/// What the class of a node is, as its sub-record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeClass {
    /// An instance or object array of the class with this id.
    Id(Id),
    /// An instance of the class with this number (its [`ClassInfo::number`](super::objects::ClassInfo)).
    Number(u32),
    /// A primitive array of this element type code.
    Primitive(u8),
    /// A class object.
    ClassObject,
    /// Nothing decodes there.
    Nothing,
}

impl NodeClass {
    /// The class of a decoded sub-record.
    pub(crate) fn of(sub: &SubRecord<'_>) -> NodeClass {
        match sub {
            SubRecord::InstanceDump(i) => NodeClass::Id(i.class_id),
            SubRecord::ObjectArrayDump(a) => NodeClass::Id(a.array_class_id),
            SubRecord::PrimitiveArrayDump(a) => NodeClass::Primitive(a.element_type.code()),
            SubRecord::PrimitiveArrayNoData(a) => NodeClass::Primitive(a.element_type.code()),
            SubRecord::ClassDump(_) => NodeClass::ClassObject,
            _ => NodeClass::Nothing,
        }
    }
}

/// Slots for primitive element type codes (codes are below 16).
const PRIMITIVE_SLOTS: u32 = 16;

/// The numbering: the dump's class ids (those with a `CLASS_DUMP` or a `LOAD_CLASS`)
/// ascending, then one number per primitive element type code, one for class objects and one
/// for objects whose class id the dump names nowhere else.
#[derive(Debug, Clone)]
pub(crate) struct ClassNumbers {
    by_id: IdMap<u32>,
    ids: Vec<Id>,
}

impl ClassNumbers {
    pub(crate) fn new(ix: &ObjectIndex<'_>) -> ClassNumbers {
        let ids = ix.class_ids.clone();
        let by_id = ids
            .iter()
            .enumerate()
            .map(|(k, &id)| (id, k as u32))
            .collect();
        ClassNumbers { by_id, ids }
    }

    /// How many numbers there are.
    pub(crate) fn len(&self) -> usize {
        self.ids.len() + PRIMITIVE_SLOTS as usize + 2
    }

    fn base(&self) -> u32 {
        self.ids.len() as u32
    }

    fn class_object(&self) -> u32 {
        self.base() + PRIMITIVE_SLOTS
    }

    fn unknown(&self) -> u32 {
        self.base() + PRIMITIVE_SLOTS + 1
    }

    /// The number of a node's class ([`NONE`] for nothing).
    #[inline]
    pub(crate) fn number(&self, class: NodeClass) -> u32 {
        match class {
            NodeClass::Id(id) => self.by_id.get(&id).copied().unwrap_or(self.unknown()),
            NodeClass::Number(k) => k,
            NodeClass::Primitive(code) => self.base() + u32::from(code) % PRIMITIVE_SLOTS,
            NodeClass::ClassObject => self.class_object(),
            NodeClass::Nothing => NONE,
        }
    }

    /// The class id of number `k` (`None` for primitive arrays, class objects and unknown
    /// classes).
    pub(crate) fn class_id(&self, k: u32) -> Option<Id> {
        self.ids.get(k as usize).copied()
    }

    /// The class name of number `k` as the histogram spells it; `example`, a node of that
    /// class, names the unknown ones.
    pub(crate) fn name(&self, ix: &ObjectIndex<'_>, k: u32, example: NodeIndex) -> String {
        if let Some(id) = self.class_id(k) {
            return ix
                .class_name(id)
                .unwrap_or_else(|| format!("<unknown class 0x{id:x}>"));
        }
        let code = k.wrapping_sub(self.base());
        if code < PRIMITIVE_SLOTS {
            if let Some(t) = BasicType::from_code(code as u8) {
                return format!("{}[]", t.java_name());
            }
        }
        if k == self.class_object() {
            return "java.lang.Class".to_owned();
        }
        ix.class_name_of(example)
    }

    /// The class number of every node, decoding each (nodes `keep` refuses get [`NONE`]).
    pub(crate) fn decode_all(
        &self,
        ix: &ObjectIndex<'_>,
        keep: impl Fn(NodeIndex) -> bool,
    ) -> Vec<u32> {
        (0..ix.len() as NodeIndex)
            .map(|v| {
                if !keep(v) {
                    return NONE;
                }
                match ix.sub_record(v) {
                    Ok(sub) => self.number(NodeClass::of(&sub)),
                    Err(_) => NONE,
                }
            })
            .collect()
    }
}
