//! `HEAP DUMP BEGIN … HEAP DUMP END` with its `ROOT`, `CLS`, `OBJ` and `ARR` records and their
//! tab-indented reference lines (hprof.md §2.2 "HEAP DUMP"; hprof_io.c `io_heap_*`).

use super::cursor::Cursor;
use super::error::Error;
use crate::binary::types::{StackTraceSerial, ThreadSerial};
use std::fmt::Write;

/// `HEAP DUMP BEGIN (841 objects, 427592 bytes) Sun Jul 28 00:19:32 2019`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HeapDumpBegin<S> {
    /// Number of live objects.
    pub objects: u64,
    /// Number of live bytes.
    pub bytes: u64,
    /// The dump time as printed by `ctime()`.
    pub created: S,
}

impl<'a> HeapDumpBegin<&'a str> {
    /// Parses the line after `HEAP DUMP BEGIN `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        c.expect("(")?;
        let objects = c.u64()?;
        c.expect(" objects, ")?;
        let bytes = c.u64()?;
        c.expect(" bytes) ")?;
        Ok(HeapDumpBegin {
            objects,
            bytes,
            created: c.take_rest(),
        })
    }
}

impl<S: AsRef<str>> HeapDumpBegin<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "HEAP DUMP BEGIN ({} objects, {} bytes) {}",
            self.objects,
            self.bytes,
            self.created.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> HeapDumpBegin<String> {
        HeapDumpBegin {
            objects: self.objects,
            bytes: self.bytes,
            created: self.created.as_ref().to_owned(),
        }
    }
}

/// `ROOT 5000022a (kind=<thread block>, thread=200004)`: one GC root.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Root<S> {
    /// The root object's id.
    pub id: u64,
    /// What kind of root it is, with the kind's fields.
    pub kind: RootKind<S>,
}

/// The `kind=<…>` of a [`Root`] and the fields that come with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RootKind<S> {
    /// `<thread>, id=%u, trace=%u`: a thread object.
    Thread {
        /// Thread serial number.
        thread: ThreadSerial,
        /// Trace serial number.
        trace: StackTraceSerial,
    },
    /// `<unknown>`.
    Unknown,
    /// `<JNI global ref>, id=%x, trace=%u`.
    JniGlobal {
        /// The global reference's serial number (printed in hex).
        ref_id: u64,
        /// Trace serial number.
        trace: StackTraceSerial,
    },
    /// `<JNI local ref>, thread=%u, frame=%d`.
    JniLocal {
        /// Thread serial number.
        thread: ThreadSerial,
        /// Frame depth (-1 = empty stack).
        frame: i64,
    },
    /// `<system class>, name=%s`.
    SystemClass {
        /// Class name.
        name: S,
    },
    /// `<busy monitor>`.
    BusyMonitor,
    /// `<thread block>, thread=%u`.
    ThreadBlock {
        /// Thread serial number.
        thread: ThreadSerial,
    },
    /// `<Java stack>, thread=%u, frame=%d`.
    JavaStack {
        /// Thread serial number.
        thread: ThreadSerial,
        /// Frame depth (-1 = empty stack).
        frame: i64,
    },
    /// `<native stack>, thread=%u`.
    NativeStack {
        /// Thread serial number.
        thread: ThreadSerial,
    },
}

impl<'a> Root<&'a str> {
    /// Parses the line after `ROOT `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let id = c.hex()?;
        c.expect(" (kind=<")?;
        let kind_at = c.position();
        let kind_name = c.until(b'>', "`>` closing the root kind")?;
        c.expect(">")?;
        let kind = match kind_name {
            "thread" => {
                c.expect(", id=")?;
                let thread = c.u32()?;
                c.expect(", trace=")?;
                RootKind::Thread {
                    thread: ThreadSerial(thread),
                    trace: StackTraceSerial(c.u32()?),
                }
            }
            "unknown" => RootKind::Unknown,
            "JNI global ref" => {
                c.expect(", id=")?;
                let ref_id = c.hex()?;
                c.expect(", trace=")?;
                RootKind::JniGlobal {
                    ref_id,
                    trace: StackTraceSerial(c.u32()?),
                }
            }
            "JNI local ref" => {
                let (thread, frame) = thread_and_frame(c)?;
                RootKind::JniLocal {
                    thread: ThreadSerial(thread),
                    frame,
                }
            }
            "system class" => {
                c.expect(", name=")?;
                let rest = c.rest();
                let Some(name) = rest.strip_suffix(')') else {
                    return Err(c.error("`<class name>)`"));
                };
                c.take_rest();
                return Ok(Root {
                    id,
                    kind: RootKind::SystemClass { name },
                });
            }
            "busy monitor" => RootKind::BusyMonitor,
            "thread block" => RootKind::ThreadBlock {
                thread: ThreadSerial(thread_field(c)?),
            },
            "Java stack" => {
                let (thread, frame) = thread_and_frame(c)?;
                RootKind::JavaStack {
                    thread: ThreadSerial(thread),
                    frame,
                }
            }
            "native stack" => RootKind::NativeStack {
                thread: ThreadSerial(thread_field(c)?),
            },
            _ => {
                return Err(Error::Syntax {
                    position: kind_at,
                    expected: "a root kind (thread, unknown, JNI global ref, JNI local ref, system class, busy monitor, thread block, Java stack, native stack)",
                    found: kind_name.chars().take(40).collect(),
                });
            }
        };
        c.expect(")")?;
        c.finish()?;
        Ok(Root { id, kind })
    }
}

/// Reads the `, thread=%u` field of a root kind.
fn thread_field(c: &mut Cursor<'_>) -> Result<u32, Error> {
    c.expect(", thread=")?;
    c.u32()
}

/// Reads the `, thread=%u, frame=%d` fields of a stack root kind.
fn thread_and_frame(c: &mut Cursor<'_>) -> Result<(u32, i64), Error> {
    let thread = thread_field(c)?;
    c.expect(", frame=")?;
    Ok((thread, c.i64()?))
}

impl<S: AsRef<str>> Root<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(out, "ROOT {:x} (kind=", self.id);
        let _ = match &self.kind {
            RootKind::Thread { thread, trace } => {
                write!(out, "<thread>, id={thread}, trace={trace})")
            }
            RootKind::Unknown => write!(out, "<unknown>)"),
            RootKind::JniGlobal { ref_id, trace } => {
                write!(out, "<JNI global ref>, id={ref_id:x}, trace={trace})")
            }
            RootKind::JniLocal { thread, frame } => {
                write!(out, "<JNI local ref>, thread={thread}, frame={frame})")
            }
            RootKind::SystemClass { name } => {
                write!(out, "<system class>, name={})", name.as_ref())
            }
            RootKind::BusyMonitor => write!(out, "<busy monitor>)"),
            RootKind::ThreadBlock { thread } => write!(out, "<thread block>, thread={thread})"),
            RootKind::JavaStack { thread, frame } => {
                write!(out, "<Java stack>, thread={thread}, frame={frame})")
            }
            RootKind::NativeStack { thread } => write!(out, "<native stack>, thread={thread})"),
        };
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> Root<String> {
        let kind = match self.kind {
            RootKind::Thread { thread, trace } => RootKind::Thread { thread, trace },
            RootKind::Unknown => RootKind::Unknown,
            RootKind::JniGlobal { ref_id, trace } => RootKind::JniGlobal { ref_id, trace },
            RootKind::JniLocal { thread, frame } => RootKind::JniLocal { thread, frame },
            RootKind::SystemClass { name } => RootKind::SystemClass {
                name: name.as_ref().to_owned(),
            },
            RootKind::BusyMonitor => RootKind::BusyMonitor,
            RootKind::ThreadBlock { thread } => RootKind::ThreadBlock { thread },
            RootKind::JavaStack { thread, frame } => RootKind::JavaStack { thread, frame },
            RootKind::NativeStack { thread } => RootKind::NativeStack { thread },
        };
        Root { id: self.id, kind }
    }

    /// The thread serial number this root belongs to, if its kind has one.
    pub fn thread(&self) -> Option<ThreadSerial> {
        match self.kind {
            RootKind::Thread { thread, .. }
            | RootKind::JniLocal { thread, .. }
            | RootKind::ThreadBlock { thread }
            | RootKind::JavaStack { thread, .. }
            | RootKind::NativeStack { thread } => Some(thread),
            _ => None,
        }
    }

    /// The trace serial number of this root, if its kind has one.
    pub fn trace(&self) -> Option<StackTraceSerial> {
        match self.kind {
            RootKind::Thread { trace, .. } | RootKind::JniGlobal { trace, .. } => Some(trace),
            _ => None,
        }
    }
}

/// `CLS 500001a9 (name=java.lang.Thread, trace=300000)`: a class object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassDump<S> {
    /// The class object's id.
    pub id: u64,
    /// Class name.
    pub name: S,
    /// Trace serial number.
    pub trace: StackTraceSerial,
}

impl<'a> ClassDump<&'a str> {
    /// Parses the line after `CLS `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let id = c.hex()?;
        c.expect(" (name=")?;
        let Some(name) = c.until_last(", trace=") else {
            return Err(c.error("`<name>, trace=<serial>)`"));
        };
        let trace = c.u32()?;
        c.expect(")")?;
        c.finish()?;
        Ok(ClassDump {
            id,
            name,
            trace: StackTraceSerial(trace),
        })
    }
}

impl<S: AsRef<str>> ClassDump<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "CLS {:x} (name={}, trace={})",
            self.id,
            self.name.as_ref(),
            self.trace
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> ClassDump<String> {
        ClassDump {
            id: self.id,
            name: self.name.as_ref().to_owned(),
            trace: self.trace,
        }
    }
}

/// One reference line below a `CLS` line: `\tsuper\t\t500001d1`, `\tstatic NAME\t5000…`,
/// `\tconstant pool entry 79\t50000156`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassRef<S> {
    /// Which reference this is.
    pub kind: ClassRefKind<S>,
    /// The referenced object's id.
    pub value: u64,
}

/// The kinds of [`ClassRef`] lines.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ClassRefKind<S> {
    /// `super`: the superclass.
    Super,
    /// `loader`: the class loader.
    Loader,
    /// `signers`: the signers array.
    Signers,
    /// `domain`: the protection domain.
    Domain,
    /// `static NAME`: a non-null object static field.
    Static(S),
    /// `constant pool entry N`: a non-null object constant-pool entry (JVMTI agent).
    ConstantPoolEntry(u32),
    /// `constant[N]`: a constant-pool entry as the JVMPI-era agent printed it.
    Constant(u32),
}

impl<'a> ClassRef<&'a str> {
    /// Parses a class reference line after its leading tab.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        // Most lines of a real dump are constant-pool entries: test for them first.
        let kind = if c.eat("constant pool entry ") {
            ClassRefKind::ConstantPoolEntry(c.u32()?)
        } else if c.eat("static ") {
            ClassRefKind::Static(c.until(b'\t', "a tab after the static field name")?)
        } else if c.eat("super\t") {
            ClassRefKind::Super
        } else if c.eat("loader\t") {
            ClassRefKind::Loader
        } else if c.eat("signers\t") {
            ClassRefKind::Signers
        } else if c.eat("domain\t") {
            ClassRefKind::Domain
        } else if c.eat("constant[") {
            let n = c.u32()?;
            c.expect("]")?;
            ClassRefKind::Constant(n)
        } else {
            return Err(c.error(
                "`super`, `loader`, `signers`, `domain`, `static` or `constant pool entry`",
            ));
        };
        c.expect("\t")?;
        let value = ref_value(c)?;
        Ok(ClassRef { kind, value })
    }
}

/// Reads the tab padding and the hexadecimal object id that end a reference line.
fn ref_value(c: &mut Cursor<'_>) -> Result<u64, Error> {
    c.skip_tabs();
    let value = c.hex()?;
    c.finish()?;
    Ok(value)
}

impl<S: AsRef<str>> ClassRef<S> {
    /// Writes the line (without line ending), including its leading tab.
    pub fn write_to(&self, out: &mut String) {
        let v = self.value;
        let _ = match &self.kind {
            ClassRefKind::Super => write!(out, "\tsuper\t\t{v:x}"),
            ClassRefKind::Loader => write!(out, "\tloader\t\t{v:x}"),
            ClassRefKind::Signers => write!(out, "\tsigners\t\t{v:x}"),
            ClassRefKind::Domain => write!(out, "\tdomain\t\t{v:x}"),
            ClassRefKind::Static(name) => write!(out, "\tstatic {}\t{v:x}", name.as_ref()),
            ClassRefKind::ConstantPoolEntry(n) => write!(out, "\tconstant pool entry {n}\t{v:x}"),
            ClassRefKind::Constant(n) => write!(out, "\tconstant[{n}]\t{v:x}"),
        };
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> ClassRef<String> {
        let kind = match self.kind {
            ClassRefKind::Super => ClassRefKind::Super,
            ClassRefKind::Loader => ClassRefKind::Loader,
            ClassRefKind::Signers => ClassRefKind::Signers,
            ClassRefKind::Domain => ClassRefKind::Domain,
            ClassRefKind::Static(s) => ClassRefKind::Static(s.as_ref().to_owned()),
            ClassRefKind::ConstantPoolEntry(n) => ClassRefKind::ConstantPoolEntry(n),
            ClassRefKind::Constant(n) => ClassRefKind::Constant(n),
        };
        ClassRef {
            kind,
            value: self.value,
        }
    }
}

/// `OBJ 500001ff (sz=40, trace=300019, class=java.io.ObjectStreamField@5000015b)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InstanceDump<S> {
    /// The object's id.
    pub id: u64,
    /// Size in bytes.
    pub size: u64,
    /// Trace serial number of the allocation site.
    pub trace: StackTraceSerial,
    /// Class name.
    pub class_name: S,
    /// The class object's id.
    pub class_id: u64,
}

impl<'a> InstanceDump<&'a str> {
    /// Parses the line after `OBJ `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let (id, size, trace) = id_size_trace(c)?;
        c.expect(", class=")?;
        let before = c.clone();
        let (class_name, class_id) = name_at_id(c)?;
        let Some(class_id) = class_id else {
            return Err(before.error("`<class name>@<class id>)`"));
        };
        Ok(InstanceDump {
            id,
            size,
            trace: StackTraceSerial(trace),
            class_name,
            class_id,
        })
    }
}

/// Reads the `%x (sz=%u, trace=%u` that starts the OBJ and ARR lines.
fn id_size_trace(c: &mut Cursor<'_>) -> Result<(u64, u64, u32), Error> {
    let id = c.hex()?;
    c.expect(" (sz=")?;
    let size = c.u64()?;
    c.expect(", trace=")?;
    Ok((id, size, c.u32()?))
}

/// Reads `name@hexid)` or `name)` to the end of the line.
fn name_at_id<'a>(c: &mut Cursor<'a>) -> Result<(&'a str, Option<u64>), Error> {
    let rest = c.rest();
    let Some(body) = rest.strip_suffix(')') else {
        return Err(c.error("`)` at the end of the line"));
    };
    // Walk back over the hex digits of the id (the name itself may contain `@`).
    let bytes = body.as_bytes();
    let digits = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    let at = bytes.len() - digits;
    if digits > 0 && at > 0 && bytes.get(at - 1) == Some(&b'@') {
        c.advance(at);
        let id = c.hex()?;
        c.expect(")")?;
        return Ok((body.get(..at - 1).unwrap_or_default(), Some(id)));
    }
    c.take_rest();
    Ok((body, None))
}

impl<S: AsRef<str>> InstanceDump<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "OBJ {:x} (sz={}, trace={}, class={}@{:x})",
            self.id,
            self.size,
            self.trace,
            self.class_name.as_ref(),
            self.class_id
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> InstanceDump<String> {
        InstanceDump {
            id: self.id,
            size: self.size,
            trace: self.trace,
            class_name: self.class_name.as_ref().to_owned(),
            class_id: self.class_id,
        }
    }
}

/// One non-null object field below an `OBJ` line: `\tname\t\t50000785`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FieldRef<S> {
    /// Field name.
    pub name: S,
    /// The referenced object's id.
    pub value: u64,
}

impl<'a> FieldRef<&'a str> {
    /// Parses a field line after its leading tab.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let name = c.until(b'\t', "a tab after the field name")?;
        let value = ref_value(c)?;
        Ok(FieldRef { name, value })
    }
}

impl<S: AsRef<str>> FieldRef<S> {
    /// Writes the line (without line ending): names shorter than 8 bytes get a second tab.
    pub fn write_to(&self, out: &mut String) {
        let name = self.name.as_ref();
        let sep = if name.len() < 8 { "\t" } else { "" };
        let _ = write!(out, "\t{name}\t{sep}{:x}", self.value);
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> FieldRef<String> {
        FieldRef {
            name: self.name.as_ref().to_owned(),
            value: self.value,
        }
    }
}

/// `ARR 500001e3 (sz=32, trace=300004, nelems=3, elem type=java.io.ObjectStreamField[]@50000159)`
/// (object array) or `ARR 500001fe (sz=44, trace=300016, nelems=22, elem type=char[])`
/// (primitive array).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrayDump<S> {
    /// The array's id.
    pub id: u64,
    /// Size in bytes.
    pub size: u64,
    /// Trace serial number of the allocation site.
    pub trace: StackTraceSerial,
    /// Number of elements.
    pub length: u64,
    /// The `elem type` text: the array class name, e.g. `char[]`.
    pub elem_type: S,
    /// The array class id: `Some` for object arrays, `None` for primitive arrays.
    pub class_id: Option<u64>,
}

impl<'a> ArrayDump<&'a str> {
    /// Parses the line after `ARR `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let (id, size, trace) = id_size_trace(c)?;
        c.expect(", nelems=")?;
        let length = c.u64()?;
        c.expect(", elem type=")?;
        let (elem_type, class_id) = name_at_id(c)?;
        Ok(ArrayDump {
            id,
            size,
            trace: StackTraceSerial(trace),
            length,
            elem_type,
            class_id,
        })
    }
}

impl<S: AsRef<str>> ArrayDump<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(
            out,
            "ARR {:x} (sz={}, trace={}, nelems={}, elem type={}",
            self.id,
            self.size,
            self.trace,
            self.length,
            self.elem_type.as_ref()
        );
        let _ = match self.class_id {
            Some(id) => write!(out, "@{id:x})"),
            None => write!(out, ")"),
        };
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> ArrayDump<String> {
        ArrayDump {
            id: self.id,
            size: self.size,
            trace: self.trace,
            length: self.length,
            elem_type: self.elem_type.as_ref().to_owned(),
            class_id: self.class_id,
        }
    }
}

/// One non-null element below an object-array `ARR` line: `\t[2]\t\t500001ff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArrayElement {
    /// Element index.
    pub index: u64,
    /// The referenced object's id.
    pub value: u64,
}

impl ArrayElement {
    /// Parses an element line after its leading tab.
    pub(crate) fn parse(c: &mut Cursor<'_>) -> Result<Self, Error> {
        c.expect("[")?;
        let index = c.u64()?;
        c.expect("]\t")?;
        let value = ref_value(c)?;
        Ok(ArrayElement { index, value })
    }

    /// Writes the line (without line ending), including its leading tab.
    pub fn write_to(&self, out: &mut String) {
        let _ = write!(out, "\t[{}]\t\t{:x}", self.index, self.value);
    }
}
