//! `jclasses` (Oracle "JAVA_CLASSES"): Java classes and methods loaded during the run, in 64 KiB
//! blocks of `ARCH_JCLASS`/`ARCH_JMETHOD`/`ARCH_JCLASS_LOCATION` packets (spec: "Java クラス";
//! format notes §8, gprofng `read_java_classes_file`).

use crate::cursor::{Cursor, Endian, WordSize};
use crate::error::{Error, Result};
use crate::packets::Packets;
use std::collections::HashMap;

/// `ARCH_JCLASS` = `(0x0A << 8) | 3`.
pub const ARCH_JCLASS: u16 = 0x0A03;
/// `ARCH_JMETHOD` = `(0x0B << 8) | 3`.
pub const ARCH_JMETHOD: u16 = 0x0B03;
/// `ARCH_JCLASS_LOCATION` = `(0x0E << 8) | 3`.
pub const ARCH_JCLASS_LOCATION: u16 = 0x0E03;

/// A Java method.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JavaMethod {
    /// `jmethodID` (what Java frames refer to).
    pub method_id: u64,
    /// Method name.
    pub name: String,
    /// JVM signature (`(Ljava/lang/String;I)V`).
    pub signature: String,
}

/// A loaded Java class with its methods.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JavaClass {
    /// `class_id` (a JNI reference: values recur for unrelated classes).
    pub class_id: u64,
    /// Load time.
    pub tstamp: u64,
    /// JVM class signature (`Ljava/lang/String;`).
    pub name: String,
    /// Source file (`String.java`, `<Unknown>`).
    pub source_file: String,
    /// Methods (the `ARCH_JMETHOD` packets that followed).
    pub methods: Vec<JavaMethod>,
}

/// Where a class was loaded from (`ARCH_JCLASS_LOCATION`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassLocation {
    /// `class_id`.
    pub class_id: u64,
    /// JVM class signature.
    pub name: String,
    /// Resource URL (`file:…/Main.class`, `jar:…`).
    pub location: String,
}

/// Everything in `jclasses`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JClasses {
    /// Classes in file order.
    pub classes: Vec<JavaClass>,
    /// Class locations in file order.
    pub locations: Vec<ClassLocation>,
    /// Methods that came before any class.
    pub orphan_methods: Vec<JavaMethod>,
    #[cfg_attr(feature = "serde", serde(skip))]
    by_method: HashMap<u64, (usize, usize)>,
}

/// Reads an `ARCH_STRLEN`-padded string: NUL-terminated, next string at `(strlen + 4) & !3`.
fn arch_string(c: &mut Cursor<'_>) -> String {
    let start = c.position();
    let s = c.cstr();
    // Pad by the bytes read (string and NUL), not by `s.len()`: lossy decoding of bytes that
    // are not UTF-8 makes the `String` longer than the bytes it came from.
    let strlen = c.position().saturating_sub(start).saturating_sub(1);
    let next = start + ((strlen + 4) & !3);
    let len = c.position() + c.remaining();
    let _ = c.seek(next.min(len), "string padding");
    s
}

/// A class as gprofng names it: the JVM signature without `L` and `;`, `/` turned into `.`
/// (`Ljava/lang/String;` → `java.lang.String`).
pub fn class_name(signature: &str) -> String {
    let s = signature
        .strip_prefix('L')
        .and_then(|s| s.strip_suffix(';'))
        .unwrap_or(signature);
    s.replace('/', ".")
}

impl JClasses {
    /// Parses `jclasses`; bad packets end with an error.
    pub fn parse(data: &[u8], endian: Endian) -> Result<JClasses> {
        let (out, stopped) = JClasses::parse_salvaging(data, endian);
        match stopped {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Parses `jclasses` up to its first bad or cut packet: the classes and methods before it,
    /// and the error that stopped reading (`None` when the whole file was read).
    pub fn parse_salvaging(data: &[u8], endian: Endian) -> (JClasses, Option<Error>) {
        let mut out = JClasses::default();
        let stopped = out.read_packets(data, endian).err();
        (out, stopped)
    }

    fn read_packets(&mut self, data: &[u8], endian: Endian) -> Result<()> {
        let out = self;
        for p in Packets::new(data, endian) {
            let p = p?;
            let mut c = Cursor::new(p.bytes, p.offset, endian, WordSize::W64);
            c.skip(8, "jclasses packet header")?;
            match p.kind {
                ARCH_JCLASS => {
                    let class_id = c.u64("class_id")?;
                    let tstamp = c.u64("tstamp")?;
                    let name = arch_string(&mut c);
                    let source_file = arch_string(&mut c);
                    out.classes.push(JavaClass {
                        class_id,
                        tstamp,
                        name,
                        source_file,
                        methods: Vec::new(),
                    });
                }
                ARCH_JMETHOD => {
                    let _class_id = c.u64("class_id")?;
                    let method_id = c.u64("method_id")?;
                    let name = arch_string(&mut c);
                    let signature = arch_string(&mut c);
                    let m = JavaMethod {
                        method_id,
                        name,
                        signature,
                    };
                    let ci = out.classes.len().wrapping_sub(1);
                    match out.classes.last_mut() {
                        Some(cl) => {
                            out.by_method
                                .entry(method_id)
                                .or_insert((ci, cl.methods.len()));
                            cl.methods.push(m);
                        }
                        None => out.orphan_methods.push(m),
                    }
                }
                ARCH_JCLASS_LOCATION => {
                    let class_id = c.u64("class_id")?;
                    let name = arch_string(&mut c);
                    let location = arch_string(&mut c);
                    out.locations.push(ClassLocation {
                        class_id,
                        name,
                        location,
                    });
                }
                other => {
                    if other & 0xFF != 3 {
                        return Err(Error::Invalid {
                            what: "jclasses packet type",
                            offset: p.offset + 2,
                            expected: "an ARCH_ type (low byte 3) or padding".into(),
                            found: format!("{other:#06x}"),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Appends a class with its methods and indexes them (for building experiments in memory;
    /// a method id already known keeps its first class, like the parser).
    pub fn push_class(&mut self, class: JavaClass) {
        let ci = self.classes.len();
        for (mi, m) in class.methods.iter().enumerate() {
            self.by_method.entry(m.method_id).or_insert((ci, mi));
        }
        self.classes.push(class);
    }

    /// gprofng's full name of method `id` without its arguments: class name, `.`, method name
    /// (`java.lang.ClassLoader.findBootstrapClass`), as `read_java_classes_file` builds it.
    pub fn method_full_name(&self, id: u64) -> Option<String> {
        let (class, method) = self.method(id)?;
        Some(format!("{}.{}", class_name(&class.name), method.name))
    }

    /// The method with `jmethodID` `id`, with its class.
    pub fn method(&self, id: u64) -> Option<(&JavaClass, &JavaMethod)> {
        let &(ci, mi) = self.by_method.get(&id)?;
        let class = self.classes.get(ci)?;
        Some((class, class.methods.get(mi)?))
    }
}
