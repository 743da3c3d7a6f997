//! Java class files, read just far enough to give a bytecode index its source line: the
//! constant pool's `CONSTANT_Utf8` entries, each method's name, descriptor and the
//! `LineNumberTable` of its `Code` attribute, and the class's `SourceFile` (JVM Specification
//! §4.1 "The ClassFile Structure", §4.4 "The Constant Pool", §4.6 "Methods", §4.7.3 `Code`,
//! §4.7.10 `SourceFile`, §4.7.12 `LineNumberTable`; gprofng `ClassFile::readFile`).
//!
//! gprofng prints `line N in "File.java"` for a Java frame when it finds the class file of the
//! frame's class in the experiment (`jdynclasses/` or a copy in `archives/`); the
//! [`Symbolizer`](crate::stacks::Symbolizer) looks the frames' lines up here.

use crate::cursor::{Cursor, Endian, WordSize};
use crate::error::{Error, Result};

/// `0xCAFEBABE`.
pub const MAGIC: u32 = 0xCAFE_BABE;

/// A class file's name, source file and methods with their line number tables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClassFile {
    /// `minor_version`.
    pub minor_version: u16,
    /// `major_version` (61 = Java 17).
    pub major_version: u16,
    /// The class's internal name (`java/lang/String`, `Main$Matrix`).
    pub this_class: String,
    /// The `SourceFile` attribute (`Main.java`).
    pub source_file: Option<String>,
    /// Methods in file order.
    pub methods: Vec<Method>,
}

/// One method of a class file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Method {
    /// Name (`<init>`, `main`).
    pub name: String,
    /// JVM descriptor (`([Ljava/lang/String;)V`).
    pub descriptor: String,
    /// `code_length` of its `Code` attribute (0 for abstract and native methods).
    pub code_length: u32,
    /// Its `LineNumberTable` entries in file order (all tables of the `Code` attribute).
    pub line_numbers: Vec<LineNumber>,
}

/// A `line_number_table` entry: the line of the code from `start_pc` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LineNumber {
    /// First bytecode index of the line's code.
    pub start_pc: u16,
    /// Source line.
    pub line_number: u16,
}

impl Method {
    /// The source line of bytecode index `bci` as gprofng finds it: the entry with the largest
    /// `start_pc` at or below `bci` (the last of entries sharing a `start_pc`), inside the
    /// method's code; `None` before the first entry, past the code or without a table.
    pub fn line(&self, bci: u32) -> Option<u32> {
        if bci >= self.code_length {
            return None;
        }
        self.line_numbers
            .iter()
            .filter(|l| u32::from(l.start_pc) <= bci)
            .max_by_key(|l| l.start_pc)
            .map(|l| u32::from(l.line_number))
    }
}

/// Constant pool tags and the bytes each entry takes after its tag (Utf8 is sized by its
/// length; Long and Double take two slots).
fn entry_size(tag: u8) -> Option<usize> {
    Some(match tag {
        7 | 8 | 16 | 19 | 20 => 2,
        15 => 3,
        3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => 4,
        5 | 6 => 8,
        _ => return None,
    })
}

/// The constant pool entries a reader of lines needs.
struct Pool<'a> {
    data: &'a [u8],
    /// Byte ranges of the `CONSTANT_Utf8` entries by index.
    utf8: Vec<Option<std::ops::Range<usize>>>,
    /// `name_index` of the `CONSTANT_Class` entries by index.
    class: Vec<Option<u16>>,
}

impl<'a> Pool<'a> {
    fn read(c: &mut Cursor<'a>, data: &'a [u8]) -> Result<Pool<'a>> {
        let count = usize::from(c.u16("class file constant_pool_count")?).max(1);
        // Every entry takes at least 3 bytes of input: a count the rest cannot hold is a cut-off
        // file, reported as such rather than read as a shorter pool (and never allocated for).
        let needed = (count - 1).saturating_mul(3);
        if needed > c.remaining() {
            return Err(Error::Truncated {
                what: "class file constant pool",
                offset: c.offset(),
                needed: needed as u64,
                available: c.remaining() as u64,
            });
        }
        let mut pool = Pool {
            data,
            utf8: vec![None; count],
            class: vec![None; count],
        };
        let mut i = 1;
        while i < count {
            let at = c.offset();
            let tag = c.u8("class file constant pool tag")?;
            match tag {
                1 => {
                    let len = usize::from(c.u16("CONSTANT_Utf8 length")?);
                    let start = c.position();
                    c.skip(len, "CONSTANT_Utf8 bytes")?;
                    if let Some(slot) = pool.utf8.get_mut(i) {
                        *slot = Some(start..start + len);
                    }
                }
                7 => {
                    let name = c.u16("CONSTANT_Class name_index")?;
                    if let Some(slot) = pool.class.get_mut(i) {
                        *slot = Some(name);
                    }
                }
                _ => {
                    let Some(n) = entry_size(tag) else {
                        return Err(Error::Invalid {
                            what: "class file constant pool tag",
                            offset: at,
                            expected: "1, 3-12 or 15-20".into(),
                            found: tag.to_string(),
                        });
                    };
                    c.skip(n, "class file constant pool entry")?;
                    if tag == 5 || tag == 6 {
                        i += 1;
                    }
                }
            }
            i += 1;
        }
        Ok(pool)
    }

    /// The `CONSTANT_Utf8` at `index`, read as `what` at byte offset `offset`.
    fn string(&self, index: u16, what: &'static str, offset: u64) -> Result<String> {
        let bytes = self
            .utf8
            .get(usize::from(index))
            .cloned()
            .flatten()
            .and_then(|r| self.data.get(r));
        match bytes {
            // Modified UTF-8 differs from UTF-8 only for NUL and supplementary characters.
            Some(b) => Ok(String::from_utf8_lossy(b).into_owned()),
            None => Err(Error::Invalid {
                what,
                offset,
                expected: format!("a CONSTANT_Utf8 index below {}", self.utf8.len()),
                found: index.to_string(),
            }),
        }
    }
}

/// `attributes_count` attributes at `c`; `f` gets each one's name and a cursor over its bytes.
fn attributes<'a>(
    c: &mut Cursor<'a>,
    pool: &Pool<'a>,
    mut f: impl FnMut(&str, Cursor<'a>) -> Result<()>,
) -> Result<()> {
    let n = c.u16("attributes_count")?;
    for _ in 0..n {
        let at = c.offset();
        let name = c.u16("attribute_name_index")?;
        let len = c.u32("attribute_length")?;
        let base = c.offset();
        let bytes = c.bytes(len as usize, "attribute info")?;
        let name = pool.string(name, "attribute_name_index", at)?;
        f(&name, Cursor::new(bytes, base, Endian::Big, WordSize::W32))?;
    }
    Ok(())
}

/// A `Code` attribute's code length and line number tables into `method`.
fn code<'a>(mut c: Cursor<'a>, pool: &Pool<'a>, method: &mut Method) -> Result<()> {
    c.skip(4, "Code max_stack, max_locals")?;
    method.code_length = c.u32("Code code_length")?;
    c.skip(method.code_length as usize, "Code code")?;
    let handlers = c.u16("Code exception_table_length")?;
    c.skip(usize::from(handlers) * 8, "Code exception_table")?;
    let lines = &mut method.line_numbers;
    attributes(&mut c, pool, |name, mut a| {
        if name == "LineNumberTable" {
            let n = a.u16("LineNumberTable length")?;
            for _ in 0..n {
                lines.push(LineNumber {
                    start_pc: a.u16("LineNumberTable start_pc")?,
                    line_number: a.u16("LineNumberTable line_number")?,
                });
            }
        }
        Ok(())
    })
}

impl ClassFile {
    /// Parses the class file in `data`.
    pub fn parse(data: &[u8]) -> Result<ClassFile> {
        let mut c = Cursor::new(data, 0, Endian::Big, WordSize::W32);
        let magic = c.u32("class file magic")?;
        if magic != MAGIC {
            return Err(Error::Invalid {
                what: "class file magic",
                offset: 0,
                expected: format!("{MAGIC:#x}"),
                found: format!("{magic:#x}"),
            });
        }
        let minor_version = c.u16("class file minor_version")?;
        let major_version = c.u16("class file major_version")?;
        let pool = Pool::read(&mut c, data)?;
        c.skip(2, "class file access_flags")?;
        let at = c.offset();
        let this = c.u16("class file this_class")?;
        let this_class = pool
            .class
            .get(usize::from(this))
            .copied()
            .flatten()
            .ok_or_else(|| Error::Invalid {
                what: "class file this_class",
                offset: at,
                expected: "a CONSTANT_Class index".into(),
                found: this.to_string(),
            })
            .and_then(|name| pool.string(name, "class file this_class name", at))?;
        c.skip(2, "class file super_class")?;
        let interfaces = c.u16("class file interfaces_count")?;
        c.skip(usize::from(interfaces) * 2, "class file interfaces")?;
        let fields = c.u16("class file fields_count")?;
        for _ in 0..fields {
            c.skip(6, "field_info")?;
            attributes(&mut c, &pool, |_, _| Ok(()))?;
        }
        let count = c.u16("class file methods_count")?;
        let mut methods = Vec::new();
        for _ in 0..count {
            c.skip(2, "method access_flags")?;
            let at = c.offset();
            let name = c.u16("method name_index")?;
            let descriptor = c.u16("method descriptor_index")?;
            let mut m = Method {
                name: pool.string(name, "method name_index", at)?,
                descriptor: pool.string(descriptor, "method descriptor_index", at + 2)?,
                ..Method::default()
            };
            attributes(&mut c, &pool, |name, body| {
                if name == "Code" {
                    code(body, &pool, &mut m)?;
                }
                Ok(())
            })?;
            methods.push(m);
        }
        let mut source_file = None;
        attributes(&mut c, &pool, |name, mut body| {
            if name == "SourceFile" {
                let at = body.offset();
                let i = body.u16("SourceFile sourcefile_index")?;
                source_file = Some(pool.string(i, "SourceFile sourcefile_index", at)?);
            }
            Ok(())
        })?;
        Ok(ClassFile {
            minor_version,
            major_version,
            this_class,
            source_file,
            methods,
        })
    }

    /// The method named `name` with descriptor `descriptor`.
    pub fn method(&self, name: &str, descriptor: &str) -> Option<&Method> {
        self.methods
            .iter()
            .find(|m| m.name == name && m.descriptor == descriptor)
    }
}
