//! A heap of a known shape, written as a whole dump: for tests, doc examples and fuzz seeds
//! of tools built on this crate, where a real dump would be too big or too vague.

use std::io;

use super::super::header::{Header, Version};
use super::super::heap_dump::{
    ClassDump, GcRoot, InstanceDump, ObjectArrayDump, PrimitiveArrayDump, SubRecord,
};
use super::super::records::{LoadClass, Record, Utf8, tag};
use super::super::types::IdList;
use super::super::types::{BasicType, ClassSerial, Id, IdSize, StackTraceSerial, Value, write_id};
use super::Writer;

/// Builds a small dump (`JAVA PROFILE 1.0.2`) from classes, objects and roots named in Java's
/// words: `UTF8` and `LOAD_CLASS` records for the names, one heap dump with the class dumps,
/// objects and roots in the order they were added, and `HEAP_DUMP_END`.
///
/// ```
/// use hprof::binary::{BasicType, GcRoot, Histogram, Id, IdSize, Value};
/// use hprof::binary::write::HeapBuilder;
///
/// let mut heap = HeapBuilder::new(IdSize::Eight);
/// heap.class(Id(0x10), "java.lang.Object", Id::NULL, &[])
///     .class(Id(0x20), "com.example.Node", Id(0x10), &[("next", BasicType::Object), ("size", BasicType::Int)])
///     .instance(Id(0x100), Id(0x20), &[Value::Object(Id(0x101)), Value::Int(7)])
///     .instance(Id(0x101), Id(0x20), &[Value::Object(Id::NULL), Value::Int(8)])
///     .root(GcRoot::StickyClass { object_id: Id(0x20) });
/// let data = heap.build()?;
/// let histogram = Histogram::parse(&data)?;
/// assert!(histogram.rows().iter().any(|r| r.class_name == "com.example.Node" && r.instances == 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct HeapBuilder {
    id_size: IdSize,
    /// `UTF8` records: (id, text).
    strings: Vec<(Id, String)>,
    /// `LOAD_CLASS` records: (class id, name string id).
    load_classes: Vec<(Id, Id)>,
    /// Encoded sub-records, in the order added.
    sub_records: Vec<u8>,
    /// The next string id.
    next_string: Id,
}

impl HeapBuilder {
    /// An empty heap whose ids take `id_size` bytes.
    pub fn new(id_size: IdSize) -> HeapBuilder {
        HeapBuilder {
            id_size,
            strings: Vec::new(),
            load_classes: Vec::new(),
            sub_records: Vec::new(),
            // String ids live in their own space, far from object ids.
            next_string: Id(0x7000_0000),
        }
    }

    fn string(&mut self, text: &str) -> Id {
        if let Some((id, _)) = self.strings.iter().find(|(_, t)| t == text) {
            return *id;
        }
        let id = self.next_string;
        self.next_string = Id(id.get() + 1);
        self.strings.push((id, text.to_owned()));
        id
    }

    fn push(&mut self, sub: &SubRecord<'_>) -> &mut HeapBuilder {
        // Encoding into a Vec fails only on lengths no small heap reaches.
        let _ = super::encode_sub_record(sub, self.id_size, &mut self.sub_records);
        self
    }

    /// A class `name` (Java's spelling, `com.example.Node`; arrays as the JVM names them,
    /// `[Ljava.lang.Object;`) with id `class_id`, superclass `super_id` (0 for none) and its
    /// own instance fields, in the order its instances store them.
    pub fn class(
        &mut self,
        class_id: Id,
        name: &str,
        super_id: Id,
        fields: &[(&str, BasicType)],
    ) -> &mut HeapBuilder {
        self.class_with_statics(class_id, name, super_id, fields, &[])
    }

    /// [`class`](HeapBuilder::class) with static fields and their values.
    pub fn class_with_statics(
        &mut self,
        class_id: Id,
        name: &str,
        super_id: Id,
        fields: &[(&str, BasicType)],
        statics: &[(&str, Value)],
    ) -> &mut HeapBuilder {
        self.class_dump(class_id, name, super_id, Id::NULL, fields, statics)
    }

    /// [`class`](HeapBuilder::class) defined by the class loader object `loader_id` (0, as
    /// the other methods write, is the boot loader): several classes may share a name when
    /// their loaders differ.
    pub fn class_loaded_by(
        &mut self,
        class_id: Id,
        name: &str,
        super_id: Id,
        loader_id: Id,
        fields: &[(&str, BasicType)],
    ) -> &mut HeapBuilder {
        self.class_dump(class_id, name, super_id, loader_id, fields, &[])
    }

    fn class_dump(
        &mut self,
        class_id: Id,
        name: &str,
        super_id: Id,
        loader_id: Id,
        fields: &[(&str, BasicType)],
        statics: &[(&str, Value)],
    ) -> &mut HeapBuilder {
        let name_id = self.string(&name.replace('.', "/"));
        self.load_classes.push((class_id, name_id));
        let mut instance_fields = Vec::new();
        let mut instance_size = 0;
        for &(field, t) in fields {
            let id = self.string(field);
            write_id(id, self.id_size, &mut instance_fields);
            instance_fields.push(t.code());
            instance_size += t.size(self.id_size);
        }
        let mut static_fields = Vec::new();
        for &(field, value) in statics {
            let id = self.string(field);
            write_id(id, self.id_size, &mut static_fields);
            static_fields.push(value.basic_type().code());
            encode_value(value, self.id_size, &mut static_fields);
        }
        self.push(&SubRecord::ClassDump(ClassDump {
            class_id,
            stack_trace_serial: StackTraceSerial(0),
            super_class_id: super_id,
            class_loader_id: loader_id,
            signers_id: Id::NULL,
            protection_domain_id: Id::NULL,
            reserved1: Id::NULL,
            reserved2: Id::NULL,
            instance_size: u32::try_from(instance_size).unwrap_or(u32::MAX),
            constant_pool_len: 0,
            constant_pool: &[],
            static_fields_len: u16::try_from(statics.len()).unwrap_or(u16::MAX),
            static_fields: &static_fields,
            instance_fields_len: u16::try_from(fields.len()).unwrap_or(u16::MAX),
            instance_fields: &instance_fields,
            id_size: self.id_size,
        }))
    }

    /// An instance of `class_id` with the field `values` in `INSTANCE_DUMP` order: the class's
    /// own fields first, then its superclass's, and so on.
    pub fn instance(&mut self, object_id: Id, class_id: Id, values: &[Value]) -> &mut HeapBuilder {
        let mut data = Vec::new();
        for &v in values {
            encode_value(v, self.id_size, &mut data);
        }
        self.push(&SubRecord::InstanceDump(InstanceDump {
            object_id,
            stack_trace_serial: StackTraceSerial(0),
            class_id,
            data: &data,
        }))
    }

    /// An object array of class `array_class_id` holding `elements` (0 is `null`).
    pub fn object_array(
        &mut self,
        array_id: Id,
        array_class_id: Id,
        elements: &[Id],
    ) -> &mut HeapBuilder {
        let mut bytes = Vec::new();
        for &e in elements {
            write_id(e, self.id_size, &mut bytes);
        }
        self.push(&SubRecord::ObjectArrayDump(ObjectArrayDump {
            array_id,
            stack_trace_serial: StackTraceSerial(0),
            array_class_id,
            elements: IdList::new(&bytes, self.id_size),
        }))
    }

    /// A primitive array of `element_type` whose elements are the big-endian bytes `data`
    /// (a `byte[]`'s bytes as they are; `data.len()` a multiple of the element size).
    pub fn primitive_array(
        &mut self,
        array_id: Id,
        element_type: BasicType,
        data: &[u8],
    ) -> &mut HeapBuilder {
        self.push(&SubRecord::PrimitiveArrayDump(PrimitiveArrayDump {
            array_id,
            stack_trace_serial: StackTraceSerial(0),
            element_type,
            data,
        }))
    }

    /// A GC root.
    pub fn root(&mut self, root: GcRoot) -> &mut HeapBuilder {
        self.push(&SubRecord::Root(root))
    }

    /// The whole dump: header, names, one heap dump, `HEAP_DUMP_END`.
    ///
    /// # Errors
    /// `InvalidInput` when a sub-record is too long for its length field.
    pub fn build(&self) -> io::Result<Vec<u8>> {
        let header = Header {
            version: Version::V1_0_2,
            id_size: self.id_size,
            timestamp_ms: 0,
        };
        let mut w = Writer::new(Vec::new(), &header)?;
        for (id, text) in &self.strings {
            w.write_record(
                0,
                &Record::Utf8(Utf8 {
                    id: *id,
                    bytes: text.as_bytes(),
                }),
            )?;
        }
        for (serial, &(class_id, name_id)) in self.load_classes.iter().enumerate() {
            w.write_record(
                0,
                &Record::LoadClass(LoadClass {
                    class_serial: ClassSerial(u32::try_from(serial + 1).unwrap_or(u32::MAX)),
                    class_id,
                    stack_trace_serial: StackTraceSerial(0),
                    name_id,
                }),
            )?;
        }
        w.start_heap_dump_record(tag::HEAP_DUMP_SEGMENT, 0)?;
        w.body.extend_from_slice(&self.sub_records);
        w.close_heap_dump_record()?;
        w.write_record(0, &Record::HeapDumpEnd)?;
        w.finish()
    }
}

/// Appends `v` big-endian, as instance fields, static values and constants store it.
fn encode_value(v: Value, id_size: IdSize, out: &mut Vec<u8>) {
    match v {
        Value::Object(id) => write_id(id, id_size, out),
        Value::Boolean(b) => out.push(b),
        Value::Byte(b) => out.extend_from_slice(&b.to_be_bytes()),
        Value::Char(c) => out.extend_from_slice(&c.to_be_bytes()),
        Value::Short(s) => out.extend_from_slice(&s.to_be_bytes()),
        Value::Float(bits) => out.extend_from_slice(&bits.to_be_bytes()),
        Value::Int(i) => out.extend_from_slice(&i.to_be_bytes()),
        Value::Double(bits) => out.extend_from_slice(&bits.to_be_bytes()),
        Value::Long(l) => out.extend_from_slice(&l.to_be_bytes()),
    }
}
