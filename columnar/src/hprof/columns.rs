//! The column stores of the HPROF tables: plain vectors handed to Arrow without copying for
//! the big tables (`objects`, `references`), one row push per table for the small ones.

use std::collections::HashMap;

use arrow_array::ArrayRef;
use arrow_array::types::{UInt8Type, UInt32Type, UInt64Type};
use arrow_schema::SchemaRef;

use hprof::binary::heap_dump::GcRoot;
use hprof::binary::types::{BasicType, Id};

use super::lossy;
use super::schema::{RootRows, StringsRows, TraceRows, objects_schema, references_schema, table};
use crate::BATCH_ROWS;
use crate::Result;
use crate::rows::{Rows, plain};

/// `objects.kind`: one declaration per kind, its code (the row's dictionary key) and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum ObjectKind {
    Instance = 0,
    ObjectArray = 1,
    PrimitiveArray = 2,
    Class = 3,
}

impl ObjectKind {
    /// Every kind, in code order.
    const ALL: [ObjectKind; 4] = [
        ObjectKind::Instance,
        ObjectKind::ObjectArray,
        ObjectKind::PrimitiveArray,
        ObjectKind::Class,
    ];

    /// The name `objects.kind` gives it.
    const fn name(self) -> &'static str {
        match self {
            ObjectKind::Instance => "instance",
            ObjectKind::ObjectArray => "object_array",
            ObjectKind::PrimitiveArray => "primitive_array",
            ObjectKind::Class => "class",
        }
    }

    const fn code(self) -> u8 {
        self as u8
    }
}

/// No heap name, no element type, no field name: a null string.
pub(super) const NO_NAME: u32 = u32::MAX;

/// One row of `objects`.
pub(super) struct ObjectRow {
    pub(super) id: Id,
    /// 0 for primitive arrays (null), and for class objects when the dump has no
    /// `java.lang.Class`.
    pub(super) class_id: Id,
    pub(super) kind: ObjectKind,
    pub(super) shallow_size: u64,
    /// Ignored unless `kind` says an array.
    pub(super) array_length: u32,
    /// For primitive arrays.
    pub(super) element_type: Option<BasicType>,
    /// The sub-record's byte offset in the file.
    pub(super) offset: u64,
}

/// The columns of `objects`, one vector each; `class_id`, `array_length` and `element_type`
/// are null by `kind` (so no validity is kept per row), `heap` by code.
pub(super) struct ObjectColumns {
    id: Vec<u64>,
    class_id: Vec<u64>,
    kind: Vec<u8>,
    shallow_size: Vec<u64>,
    array_length: Vec<u32>,
    /// Index in [`BasicType::ALL`], [`NO_NAME`] when not a primitive array.
    element_type: Vec<u8>,
    heap: Vec<u32>,
    offset: Vec<u64>,
    /// Heap names (Android's `HEAP_DUMP_INFO`), by code.
    heap_names: Vec<String>,
    /// The heap objects are in now.
    current_heap: u32,
    /// The dictionaries of `kind`, `element_type` and `heap`.
    kind_names: ArrayRef,
    element_names: ArrayRef,
    heap_dictionary: ArrayRef,
}

impl Default for ObjectColumns {
    fn default() -> Self {
        ObjectColumns {
            id: Vec::new(),
            class_id: Vec::new(),
            kind: Vec::new(),
            shallow_size: Vec::new(),
            array_length: Vec::new(),
            element_type: Vec::new(),
            heap: Vec::new(),
            offset: Vec::new(),
            heap_names: Vec::new(),
            current_heap: NO_NAME,
            kind_names: plain::names(ObjectKind::ALL.map(ObjectKind::name)),
            element_names: plain::names(BasicType::ALL.map(BasicType::java_name)),
            heap_dictionary: plain::names([]),
        }
    }
}

impl ObjectColumns {
    /// Objects after this are in heap `name` (`None`: no heap name).
    pub(super) fn set_heap(&mut self, name: Option<String>) {
        self.current_heap = match name {
            None => NO_NAME,
            Some(name) => match self.heap_names.iter().position(|h| *h == name) {
                Some(i) => i as u32,
                None => {
                    self.heap_names.push(name);
                    self.heap_dictionary = plain::names(self.heap_names.iter().map(String::as_str));
                    (self.heap_names.len() - 1) as u32
                }
            },
        };
    }

    /// One row, in the current heap.
    #[inline]
    pub(super) fn push(&mut self, row: ObjectRow) {
        self.id.push(row.id.get());
        self.class_id.push(row.class_id.get());
        self.kind.push(row.kind.code());
        self.shallow_size.push(row.shallow_size);
        self.array_length.push(row.array_length);
        self.element_type.push(
            row.element_type
                .and_then(|t| BasicType::ALL.iter().position(|&a| a == t))
                .map_or(u8::MAX, |i| i as u8),
        );
        self.heap.push(self.current_heap);
        self.offset.push(row.offset);
    }
}

/// Rows a column vector holds past [`BATCH_ROWS`] before it grows: the batch is sent once an
/// object is done, and an instance's references (or a short array's elements) still fit.
const BATCH_SLACK: usize = 4096;

/// The column so far, leaving an empty one with room for the next batch.
fn take<T>(v: &mut Vec<T>) -> Vec<T> {
    std::mem::replace(v, Vec::with_capacity(BATCH_ROWS + BATCH_SLACK))
}

impl Rows for ObjectColumns {
    const TABLE: &'static str = table::OBJECTS;
    fn schema() -> SchemaRef {
        objects_schema()
    }
    fn len(&self) -> usize {
        self.id.len()
    }
    fn reset_len(&mut self) {}
    fn columns(&mut self) -> Result<Vec<ArrayRef>> {
        const PRIMITIVE_ARRAY: u8 = ObjectKind::PrimitiveArray.code();
        const OBJECT_ARRAY: u8 = ObjectKind::ObjectArray.code();
        const CLASS: u8 = ObjectKind::Class.code();
        let kind = take(&mut self.kind);
        let class_id = take(&mut self.class_id);
        // Null for primitive arrays, and for class objects when the dump has no
        // `java.lang.Class` (their class id is pushed as 0).
        let class_id_nulls =
            plain::nulls(class_id.len(), |i| match (kind.get(i), class_id.get(i)) {
                (Some(&PRIMITIVE_ARRAY), _) | (Some(&CLASS), Some(&0)) => false,
                (Some(_), Some(_)) => true,
                _ => false,
            });
        let array_length_nulls =
            plain::nulls_of(&kind, |k| matches!(k, OBJECT_ARRAY | PRIMITIVE_ARRAY));
        Ok(vec![
            plain::primitive::<UInt64Type>(take(&mut self.id)),
            plain::with_nulls::<UInt64Type>(class_id, class_id_nulls),
            plain::dictionary::<UInt8Type>(kind, &self.kind_names)?,
            plain::primitive::<UInt64Type>(take(&mut self.shallow_size)),
            plain::with_nulls::<UInt32Type>(take(&mut self.array_length), array_length_nulls),
            plain::dictionary::<UInt8Type>(take(&mut self.element_type), &self.element_names)?,
            plain::dictionary::<UInt32Type>(take(&mut self.heap), &self.heap_dictionary)?,
            plain::primitive::<UInt64Type>(take(&mut self.offset)),
        ])
    }
}

/// The columns of `references`, one vector each; `field` is a code into the interned field
/// names ([`NO_NAME`] for array elements), and `array_index` is null where `field` is not.
pub(super) struct RefColumns {
    from_id: Vec<u64>,
    to_id: Vec<u64>,
    field: Vec<u32>,
    array_index: Vec<u32>,
    /// Field names, by code.
    names: Vec<String>,
    codes: HashMap<Vec<u8>, u32>,
    /// `names` as the dictionary of `field` (`None` after a name was added).
    dictionary: Option<ArrayRef>,
}

/// The names of a class object's own references, interned first: their codes are their
/// positions.
const CLASS_REFERENCES: [&str; 4] = ["<super>", "<loader>", "<signers>", "<protection_domain>"];
/// The code of `<super>`.
pub(super) const SUPER: u32 = 0;
/// The code of `<loader>`.
pub(super) const LOADER: u32 = 1;
/// The code of `<signers>`.
pub(super) const SIGNERS: u32 = 2;
/// The code of `<protection_domain>`.
pub(super) const PROTECTION_DOMAIN: u32 = 3;

impl Default for RefColumns {
    fn default() -> Self {
        let mut r = RefColumns {
            from_id: Vec::new(),
            to_id: Vec::new(),
            field: Vec::new(),
            array_index: Vec::new(),
            names: Vec::new(),
            codes: HashMap::new(),
            dictionary: None,
        };
        for name in CLASS_REFERENCES {
            r.intern(name.as_bytes());
        }
        r
    }
}

impl RefColumns {
    /// The code of field name `name` (its bytes as the dump spells them).
    pub(super) fn intern(&mut self, name: &[u8]) -> u32 {
        if let Some(&code) = self.codes.get(name) {
            return code;
        }
        let code = self.names.len() as u32;
        self.names.push(lossy(name).into_owned());
        self.codes.insert(name.to_vec(), code);
        self.dictionary = None;
        code
    }

    /// A reference through field `field` (a code).
    #[inline]
    pub(super) fn push_field(&mut self, from: Id, to: Id, field: u32) {
        self.from_id.push(from.get());
        self.to_id.push(to.get());
        self.field.push(field);
        self.array_index.push(0);
    }

    /// A reference from element `index` of an object array.
    #[inline]
    pub(super) fn push_element(&mut self, from: Id, to: Id, index: u32) {
        self.from_id.push(from.get());
        self.to_id.push(to.get());
        self.field.push(NO_NAME);
        self.array_index.push(index);
    }
}

impl Rows for RefColumns {
    const TABLE: &'static str = table::REFERENCES;
    fn schema() -> SchemaRef {
        references_schema()
    }
    fn len(&self) -> usize {
        self.from_id.len()
    }
    fn reset_len(&mut self) {}
    fn columns(&mut self) -> Result<Vec<ArrayRef>> {
        let field = take(&mut self.field);
        let names = self
            .dictionary
            .get_or_insert_with(|| plain::names(self.names.iter().map(String::as_str)));
        let array_index = plain::with_nulls::<UInt32Type>(
            take(&mut self.array_index),
            plain::nulls_of(&field, |f| f == NO_NAME),
        );
        Ok(vec![
            plain::primitive::<UInt64Type>(take(&mut self.from_id)),
            plain::primitive::<UInt64Type>(take(&mut self.to_id)),
            plain::dictionary::<UInt32Type>(field, names)?,
            array_index,
        ])
    }
}

/// The `root_kind` of a GC root: the HPROF name of its sub-record in snake case
/// (`ROOT_JAVA_FRAME` → `java_frame`).
pub fn root_kind(root: &GcRoot) -> &'static str {
    match root {
        GcRoot::Unknown { .. } => "unknown",
        GcRoot::JniGlobal { .. } => "jni_global",
        GcRoot::JniLocal { .. } => "jni_local",
        GcRoot::JavaFrame { .. } => "java_frame",
        GcRoot::NativeStack { .. } => "native_stack",
        GcRoot::StickyClass { .. } => "sticky_class",
        GcRoot::ThreadBlock { .. } => "thread_block",
        GcRoot::MonitorUsed { .. } => "monitor_used",
        GcRoot::ThreadObject { .. } => "thread_object",
        GcRoot::InternedString { .. } => "interned_string",
        GcRoot::Finalizing { .. } => "finalizing",
        GcRoot::Debugger { .. } => "debugger",
        GcRoot::ReferenceCleanup { .. } => "reference_cleanup",
        GcRoot::VmInternal { .. } => "vm_internal",
        GcRoot::JniMonitor { .. } => "jni_monitor",
        GcRoot::Unreachable { .. } => "unreachable",
        #[allow(unreachable_patterns)] // GcRoot may grow
        _ => "other",
    }
}

impl RootRows {
    /// One root, in heap `heap`.
    pub(super) fn push(&mut self, root: &GcRoot, heap: Option<&str>) {
        let (thread, frame, jni) = match *root {
            GcRoot::JniGlobal {
                jni_global_ref_id, ..
            } => (None, None, Some(jni_global_ref_id)),
            GcRoot::JniLocal {
                thread_serial,
                frame_number,
                ..
            }
            | GcRoot::JavaFrame {
                thread_serial,
                frame_number,
                ..
            } => (Some(thread_serial), Some(frame_number), None),
            GcRoot::NativeStack { thread_serial, .. }
            | GcRoot::ThreadBlock { thread_serial, .. }
            | GcRoot::ThreadObject { thread_serial, .. } => (Some(thread_serial), None, None),
            GcRoot::JniMonitor {
                thread_serial,
                stack_depth,
                ..
            } => (Some(thread_serial), Some(stack_depth), None),
            _ => (None, None, None),
        };
        self.object_id.append_value(root.object_id().get());
        self.root_kind.append_value(root_kind(root));
        self.thread_serial.append_option(thread.map(u32::from));
        self.frame.append_option(frame);
        self.jni_global_ref_id.append_option(jni.map(Id::get));
        self.heap.append_option(heap);
        self.len += 1;
    }
}

impl StringsRows {
    /// One `UTF8` record.
    pub(super) fn push(&mut self, id: Id, value: &str) {
        self.id.append_value(id.get());
        self.value.append_value(value);
        self.len += 1;
    }
}

/// One frame of a `TRACE` record.
pub(super) struct TraceFrame {
    pub(super) stack_trace_serial: u32,
    pub(super) thread_serial: u32,
    /// 0 = innermost.
    pub(super) depth: u32,
    pub(super) frame_id: Id,
}

impl TraceRows {
    /// One frame of a trace.
    pub(super) fn push(&mut self, frame: TraceFrame) {
        self.stack_trace_serial
            .append_value(frame.stack_trace_serial);
        self.thread_serial.append_value(frame.thread_serial);
        self.depth.append_value(frame.depth);
        self.frame_id.append_value(frame.frame_id.get());
        self.len += 1;
    }
}
