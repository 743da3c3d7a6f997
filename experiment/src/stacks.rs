//! Named call stacks: the frames of gprofng's user view for each packet, with gprofng's
//! function names, load objects and offsets, interned so that a packet costs one id
//! (gprofng `CallStack::add_stack`, `CallStackP::add_stack_java`, `LoadObject::find_function`,
//! `JMethod::jni_match`; format notes §4–§5, §8).
//!
//! A [`Symbolizer`] names the PCs of an [`Experiment`]'s stacks through `map.xml` and the load
//! objects' ELF symbols. The load objects come from the experiment's `archives/` (through its
//! [`Source`]) or, for objects not archived, from [`Source::load_object`] (the `fs` feature's
//! directory source searches like gprofng) or a caller-supplied closure
//! ([`Symbolizer::with_load_objects`]; the crate does no I/O). An object found nowhere is
//! named as gprofng names it, `<static>@0x0 (<libc.so.6>) --  no functions found`
//! ([`missing_object_name`]).
//!
//! Names follow gprofng exactly where the inputs allow:
//! * a native PC is named by the ELF function symbol containing it (`.symtab`, else `.dynsym`,
//!   aliases folded to the shortest name), C++ names demangled ([`function_name`]); a PC between
//!   symbols by gprofng's hole filler
//!   `<static>@0xLOW (<object>)`, `LOW` being the end of the function before the hole;
//! * a PC no mapping covers is `<Unknown>`; generated code (vDSO, collector API functions,
//!   JVM stubs) is named by its `map.xml` function;
//! * a native stack the collector cut off starts with `<Truncated-stack>`, one it could not
//!   unwind with `<Stack-unwind-failed>`; a leaf PC in a `.plt` section (gprofng's `@plt`
//!   function) is left out;
//! * C names of GCC's outlined and cloned parts (`main.cold`, `foo.part.0`,
//!   `foo.constprop.0`, `foo.isra.0`) are kept as they are and C++ ones demangled with
//!   binutils' ` [clone .part.0]` suffix, each its own function as in gprofng (which links only
//!   Sun compilers' `_$o1…` outlines to their parent);
//! * Java stacks (Java experiments): `Class.method(argument types)` per frame, root first,
//!   `<Truncated-stack>`, `<JVM-System>` for threads without a Java stack,
//!   `<no Java callstack recorded>` for AsyncGetCallTrace errors, and the native frames of a
//!   `Java_…` JNI function spliced under its `<Java native method>` frame.
//!
//! Inputs that disagree (PCs no mapping covers, load objects that cannot be read) still give
//! frames; [`Symbolizer::warnings`] counts them.

use crate::classfile::ClassFile;
use crate::elf::Elf;
use crate::experiment::Experiment;
use crate::frameinfo::{JNI_MARKER, Stack, jni_match};
use crate::jclasses::JClasses;
use crate::log::Timestamp;
use crate::map::{MapEvent, MapIndex};
use crate::source::Source;
use bytes::Bytes;
use std::collections::HashMap;

/// gprofng's name for a PC no load object covers.
pub const UNKNOWN: &str = "<Unknown>";
/// gprofng's root frame of a stack the collector cut off.
pub const TRUNCATED_STACK: &str = "<Truncated-stack>";
/// gprofng's root frame of a native stack the collector could not unwind to its end.
pub const STACK_UNWIND_FAILED: &str = "<Stack-unwind-failed>";
/// gprofng's frame for samples of JVM threads without a Java stack.
pub const JVM_SYSTEM: &str = "<JVM-System>";
/// gprofng's frame for a Java stack AsyncGetCallTrace could not walk.
pub const NO_JAVA_CALLSTACK: &str = "<no Java callstack recorded>";
/// gprofng's row of the whole experiment.
pub const TOTAL: &str = "<Total>";

/// What a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum FrameKind {
    /// Machine code of a load object or generated code.
    Native,
    /// A Java method whose execution mode the native stack does not show (a native method,
    /// or a native stack too short to reach the frame).
    Java,
    /// A Java method running in the interpreter: its native frame is in the JVM's
    /// `Interpreter` code (map.xml `object="function" name="Interpreter"`).
    JavaInterpreted,
    /// A Java method running as JIT-compiled code (map.xml `object="jcm"`), or inlined into
    /// one.
    JavaCompiled,
    /// A native frame spliced under a `<Java native method>` frame (the JNI function and
    /// what it called).
    Jni,
    /// A frame gprofng makes up: `<Truncated-stack>`, `<JVM-System>`, `<Unknown>`, …
    Pseudo,
}

/// Where native frames get their lines from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NativeLines {
    /// The DWARF line tables of the load objects (archived, or found by the source), of every
    /// DWARF version (gprofng 2.40 reads versions 2 to 4 only).
    #[cfg(feature = "dwarf")]
    Dwarf,
    /// None: every native function is `<Function: f, instructions without line numbers>`, as
    /// gprofng shows objects without line tables (and, in 2.40, DWARF 5 programs).
    Off,
}

/// The order a stack's frames are given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Order {
    /// Outermost caller first (`<Total>`'s child first, as call trees and folded stacks read).
    RootFirst,
    /// Innermost callee first (the sampled PC first, as data.frameinfo records stacks).
    LeafFirst,
}

/// The frames of one stack in the [`Order`] asked for (see [`Symbolizer::stack_frames`]).
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    frames: std::slice::Iter<'a, Frame>,
    order: Order,
}

impl<'a> Iterator for Frames<'a> {
    type Item = &'a Frame;

    fn next(&mut self) -> Option<&'a Frame> {
        match self.order {
            Order::RootFirst => self.frames.next(),
            Order::LeafFirst => self.frames.next_back(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.frames.size_hint()
    }
}

impl DoubleEndedIterator for Frames<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self.order {
            Order::RootFirst => self.frames.next_back(),
            Order::LeafFirst => self.frames.next(),
        }
    }
}

impl ExactSizeIterator for Frames<'_> {}

/// Index of a function in [`Symbolizer::functions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FunctionId(pub u32);

/// Index of an interned stack in a [`Symbolizer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StackId(pub u32);

/// A function as gprofng lists it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Function {
    /// The name exactly as gprofng prints it.
    pub name: String,
    /// The load object (its path in map.xml), `None` for pseudo-functions and Java methods.
    pub load_object: Option<String>,
    /// The JVM signature of a Java method (`()Ljava/lang/Object;`): two methods whose names
    /// print the same (a bridge method and the method it bridges) stay two functions.
    pub signature: Option<String>,
}

/// One frame of a named stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame {
    /// The function.
    pub function: FunctionId,
    /// Offset of the PC in the function (native), or the bci (Java).
    pub offset: u64,
    /// Source line, where the experiment has it: for a Java frame the line of its bci in the
    /// `LineNumberTable` of its class file (`jdynclasses/` or `archives/`); for a native frame
    /// the line of its PC in the DWARF line table of its load object, when the symbolizer was
    /// asked for them (`Symbolizer::with_native_lines`, feature `dwarf`).
    pub line: Option<u32>,
    /// The frame's source file, an index in [`Symbolizer::files`]: a Java method's class's
    /// `SourceFile` (as jclasses records it, with or without a line), a native frame's file
    /// of its line.
    pub file: Option<u32>,
    /// What the frame is.
    pub kind: FrameKind,
}

/// Counts of inputs that did not agree; frames were still produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Warnings {
    /// Native PCs no mapping of map.xml covers (named `<Unknown>`).
    pub unknown_pcs: u64,
    /// Load objects whose ELF could not be had or read (their PCs are named
    /// `<static>@0x0 (<object>) --  no functions found` and the like, see [`missing_object_name`]).
    pub unreadable_objects: u64,
    /// Packets whose `FRINFO` has no frame packet in data.frameinfo (empty stacks).
    pub missing_stacks: u64,
    /// Stacks whose compressed links could not be resolved (empty stacks).
    pub bad_stacks: u64,
    /// Java frames whose method id jclasses does not know (named `<Unknown>`).
    pub unknown_methods: u64,
    /// Load objects whose DWARF line tables could not be read (their native frames have no
    /// lines; [`Symbolizer::line_table_errors`] says why).
    pub bad_line_tables: u64,
}

impl Warnings {
    /// Whether every input agreed.
    pub fn is_empty(&self) -> bool {
        *self == Warnings::default()
    }
}

/// One clause per kind of disagreement, `; `-separated (empty when there is none):
/// `3 native PCs no mapping covers; 1 unreadable load objects`.
impl std::fmt::Display for Warnings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = [
            (self.unknown_pcs, "native PCs no mapping covers"),
            (self.unreadable_objects, "unreadable load objects"),
            (self.missing_stacks, "packets whose frame info is missing"),
            (self.bad_stacks, "stacks whose links could not be resolved"),
            (self.unknown_methods, "Java frames of unknown methods"),
            (
                self.bad_line_tables,
                "load objects with unreadable line tables",
            ),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, what)| format!("{count} {what}"))
        .collect();
        f.write_str(&parts.join("; "))
    }
}

type LoadFn<'e> = Box<dyn Fn(&str) -> Option<Bytes> + 'e>;

/// Names the stacks of one experiment. See the module docs.
pub struct Symbolizer<'e, S> {
    exp: &'e Experiment<S>,
    map: MapIndex<'e>,
    /// Sorted times of the map events: two packets whose times fall between the same two
    /// events see the same mappings (the stack cache is keyed by this epoch).
    map_times: Vec<Timestamp>,
    run_start: Timestamp,
    java: bool,
    jclasses: JClasses,
    archived: HashMap<String, String>,
    /// Reads `archives/NAME` of the founder, for a descendant (whose own directory has none).
    founder_archives: Option<LoadFn<'e>>,
    load: Option<LoadFn<'e>>,
    objects: HashMap<String, Option<Elf>>,
    functions: Vec<Function>,
    function_ids: HashMap<Function, FunctionId>,
    frames: Vec<Frame>,
    stacks: Vec<std::ops::Range<u32>>,
    stack_ids: HashMap<Vec<Frame>, StackId>,
    by_frinfo: crate::hash::IntMap<(u64, u32), StackId>,
    warnings: Warnings,
    scratch: Vec<Frame>,
    /// Class files read so far, by internal class name (`None`: not in the experiment).
    classes: HashMap<String, Option<ClassFile>>,
    /// Source file names, for [`Frame::file`].
    files: Vec<String>,
    file_ids: HashMap<String, u32>,
    /// Native frames get their lines from the load objects' DWARF line tables.
    #[cfg(feature = "dwarf")]
    native_lines: bool,
    /// The line tables of the load objects read so far (`None`: none or unreadable).
    #[cfg(feature = "dwarf")]
    line_tables: HashMap<String, Option<crate::dwarf::LineTable>>,
    /// Load objects whose line tables could not be read, with why.
    line_table_errors: Vec<(String, crate::Error)>,
    /// The chain of inlined calls of native frames in inlined code (by function and offset),
    /// which [`Symbolizer::frame_text`] appends as gprofng does.
    inlined_chains: HashMap<(FunctionId, u64), String>,
    /// Java methods seen as native methods (their frames print `<Java native method>`).
    native_methods: std::collections::HashSet<FunctionId>,
}

impl<S> std::fmt::Debug for Symbolizer<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symbolizer")
            .field("functions", &self.functions.len())
            .field("stacks", &self.stacks.len())
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

/// gprofng's name of a load object: its file name in angle brackets.
pub fn object_name(path: &str) -> String {
    format!("<{}>", path.rsplit('/').next().unwrap_or(path))
}

/// gprofng's name for a hole between function symbols (`LoadObject::find_function`): the hole
/// starts at the end of the function before it (0 before the first). gprofng's quirk is kept:
/// a hole just before the *last* function is named after that function's end.
pub fn static_name(elf: Option<&Elf>, address: u64, object: &str) -> (String, u64) {
    let funcs = elf.map(|e| e.functions.as_slice()).unwrap_or_default();
    let left = funcs.partition_point(|f| f.address <= address);
    let low = match (funcs.len().checked_sub(1), left) {
        (None, _) | (Some(_), 0) => 0,
        (Some(last), left) if left < last => funcs
            .get(left - 1)
            .map_or(0, |f| f.address.wrapping_add(f.size)),
        (Some(last), _) => funcs
            .get(last)
            .map_or(0, |f| f.address.wrapping_add(f.size)),
    };
    (
        format!("<static>@{low:#x} ({})", object_name(object)),
        address.wrapping_sub(low),
    )
}

/// gprofng's function for a PC of a load object it has no function symbols of (not archived
/// and not found, unreadable, or stripped bare), and the PC's offset in it. gprofng takes such
/// an object for one function covering the first `segment_size` bytes of the file, the size of
/// the mapping holding the PC, named `<static>@0x0 (<object>) --  no functions found`; a PC at
/// a file offset past that falls in the hole after it, `<static>@0xSIZE (<object>) --  no
/// functions found` (as [`static_name`] names a hole after the last function). So a library
/// whose code starts past its size reads `<static>@0x2d000 (<libgp-collector.so>)` (code mapped
/// at 0x47000, 0x2d000 bytes), a small program's `<static>@0x1000 (<prog>)`, and libc's
/// `<static>@0x0 (<libc.so.6>)` (code at 0x26000, 0x156000 bytes).
pub fn missing_object_name(segment_size: u64, file_offset: u64, object: &str) -> (String, u64) {
    let low = if file_offset < segment_size {
        0
    } else {
        segment_size
    };
    (
        format!(
            "<static>@{low:#x} ({}) --  no functions found",
            object_name(object)
        ),
        file_offset - low,
    )
}

/// The name gprofng shows for the ELF symbol `symbol` (`Function::set_name`): a globalization
/// prefix (`$X…` or `.X…` up to the first `.` after it) is dropped, and a name starting with `_`
/// is demangled with its parameter lists where it is a C++ (Itanium ABI) name, GCC's clone
/// suffixes printed the way binutils prints them (`_ZL8split_mei.part.0` is
/// `split_me(int) [clone .part.0]`); anything else (C names, `main.cold`, `foo.constprop.0`) is
/// shown as it is. Demangling needs the `demangle` feature (on by default); without it names
/// stay mangled.
pub fn function_name(symbol: &str) -> std::borrow::Cow<'_, str> {
    let name = match symbol.get(..2) {
        Some("$X" | ".X") => symbol
            .get(2..)
            .and_then(|rest| rest.split_once('.'))
            .map_or(symbol, |(_, n)| n),
        _ => symbol,
    };
    if name.starts_with('_') {
        if let Some(d) = demangle(name) {
            return std::borrow::Cow::Owned(d);
        }
    }
    std::borrow::Cow::Borrowed(name)
}

#[cfg(feature = "demangle")]
fn demangle(name: &str) -> Option<String> {
    let d = cpp_demangle::Symbol::new(name.as_bytes())
        .ok()?
        .demangle()
        .ok()?;
    Some(std_abbreviations(&d))
}

/// binutils without `DMGL_VERBOSE` (gprofng's `cplus_demangle(name, DMGL_PARAMS)`) prints the
/// standard substitutions `Ss`, `Si`, `So`, `Sd` as `std::string`, `std::istream`,
/// `std::ostream`, `std::iostream`, except as the class of a constructor or destructor;
/// `cpp_demangle` spells some of them out (and names `Dn` `std::nullptr_t` where binutils
/// prints `decltype(nullptr)`).
#[cfg(feature = "demangle")]
fn std_abbreviations(name: &str) -> String {
    const FULL: [(&str, &str, &str); 4] = [
        (
            "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
            "std::string",
            "basic_string",
        ),
        (
            "std::basic_istream<char, std::char_traits<char> >",
            "std::istream",
            "basic_istream",
        ),
        (
            "std::basic_ostream<char, std::char_traits<char> >",
            "std::ostream",
            "basic_ostream",
        ),
        (
            "std::basic_iostream<char, std::char_traits<char> >",
            "std::iostream",
            "basic_iostream",
        ),
    ];
    // `Dn`: binutils prints the type as written in the ABI.
    let mut out = name.replace("std::nullptr_t", "decltype(nullptr)");
    for (full, short, ctor) in FULL {
        // A constructor or destructor named after the short form (`std::ostream::ostream(`).
        let tail = short.strip_prefix("std::").unwrap_or(short);
        for tilde in ["", "~"] {
            for open in ["(", "<"] {
                let abbreviated = format!("{short}::{tilde}{tail}{open}");
                if out.contains(&abbreviated) {
                    out = out.replace(&abbreviated, &format!("{full}::{tilde}{ctor}{open}"));
                }
            }
        }
        if !out.contains(full) {
            continue;
        }
        let mut next = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(full) {
            next.push_str(rest.get(..at).unwrap_or_default());
            let after = rest.get(at + full.len()..).unwrap_or_default();
            let member = after
                .strip_prefix("::")
                .map(|m| m.strip_prefix('~').unwrap_or(m));
            let structor = member.is_some_and(|m| {
                m.strip_prefix(ctor)
                    .is_some_and(|r| r.starts_with('(') || r.starts_with('<') || r.starts_with(' '))
            });
            next.push_str(if structor { full } else { short });
            rest = after;
        }
        next.push_str(rest);
        out = next;
    }
    out
}

#[cfg(not(feature = "demangle"))]
fn demangle(_: &str) -> Option<String> {
    None
}

/// A Java method as gprofng names it: `pkg.Class.method(type, type[])` from the JVM signature
/// `(Ltype;[I)V` (`$` of nested classes kept).
pub fn java_method_name(class: &str, method: &str, signature: &str) -> String {
    let mut out = format!("{class}.{method}(");
    let args = signature
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .unwrap_or_default();
    let mut b = args.bytes().peekable();
    let mut first = true;
    while b.peek().is_some() {
        let mut dims = 0;
        while b.peek() == Some(&b'[') {
            dims += 1;
            b.next();
        }
        let ty: String = match b.next() {
            Some(b'L') => {
                let name: Vec<u8> = b.by_ref().take_while(|&c| c != b';').collect();
                String::from_utf8_lossy(&name).replace('/', ".")
            }
            Some(b'I') => "int".into(),
            Some(b'J') => "long".into(),
            Some(b'Z') => "boolean".into(),
            Some(b'B') => "byte".into(),
            Some(b'C') => "char".into(),
            Some(b'S') => "short".into(),
            Some(b'F') => "float".into(),
            Some(b'D') => "double".into(),
            Some(b'V') => "void".into(),
            Some(c) => char::from(c).to_string(),
            None => break,
        };
        if !first {
            out.push_str(", ");
        }
        first = false;
        out.push_str(&ty);
        for _ in 0..dims {
            out.push_str("[]");
        }
    }
    out.push(')');
    out
}

impl<'e, S: Source> Symbolizer<'e, S> {
    /// A symbolizer reading load objects from the experiment's `archives/`, else through its
    /// source's [`Source::load_object`].
    pub fn new(exp: &'e Experiment<S>) -> Self {
        let mut archived = HashMap::new();
        for a in exp.archives() {
            if let Some(lo) = crate::archives::load_object(exp.map(), &a) {
                archived.entry(lo.to_owned()).or_insert(a);
            }
        }
        let mut map_times: Vec<Timestamp> = exp
            .map()
            .events
            .iter()
            .filter_map(|e| match e {
                MapEvent::Segment(s) => Some(s.tstamp),
                MapEvent::Function { tstamp, .. }
                | MapEvent::Jcm { tstamp, .. }
                | MapEvent::Unmap { tstamp, .. } => Some(*tstamp),
                _ => None,
            })
            .collect();
        map_times.sort_unstable();
        map_times.dedup();
        let java = exp.log().is_java();
        let jclasses = if java {
            // A cut jclasses still names the methods before the cut (`Experiment::partial`
            // reports the cut).
            match exp.file("jclasses").ok().flatten() {
                Some(b) => JClasses::parse_salvaging(&b, exp.endian()).0,
                None => exp.jclasses().ok().flatten().unwrap_or_default(),
            }
        } else {
            JClasses::default()
        };
        Symbolizer {
            exp,
            map: exp.map().index(),
            map_times,
            run_start: exp.log().run_start().unwrap_or(0),
            java,
            jclasses,
            archived,
            founder_archives: None,
            load: None,
            objects: HashMap::new(),
            functions: Vec::new(),
            function_ids: HashMap::new(),
            frames: Vec::new(),
            stacks: Vec::new(),
            stack_ids: HashMap::new(),
            by_frinfo: crate::hash::IntMap::default(),
            warnings: Warnings::default(),
            scratch: Vec::new(),
            classes: HashMap::new(),
            files: Vec::new(),
            file_ids: HashMap::new(),
            #[cfg(feature = "dwarf")]
            native_lines: false,
            #[cfg(feature = "dwarf")]
            line_tables: HashMap::new(),
            line_table_errors: Vec::new(),
            inlined_chains: HashMap::new(),
            native_methods: std::collections::HashSet::new(),
        }
    }

    /// Also reads load objects that are not archived through `load` (given the path map.xml
    /// records), e.g. from the file system where the experiment was recorded; asked before
    /// the source's [`Source::load_object`].
    pub fn with_load_objects(mut self, load: impl Fn(&str) -> Option<Bytes> + 'e) -> Self {
        self.load = Some(Box::new(load));
        self
    }

    /// For a descendant experiment: reads load objects from the archives of `founder` (gprofng
    /// looks for a descendant's archives in its founder's `archives/`).
    pub fn with_founder_archives<F: Source>(mut self, founder: &'e Experiment<F>) -> Self {
        for a in founder.archives() {
            if let Some(lo) = crate::archives::load_object(self.exp.map(), &a) {
                self.archived.entry(lo.to_owned()).or_insert(a);
            }
        }
        self.founder_archives = Some(Box::new(move |name: &str| {
            founder.file(&format!("archives/{name}")).ok().flatten()
        }));
        self
    }

    /// `frame` as gprofng prints it in a stack (`-leaks`, `-allocs`): `name + 0x0000001C`
    /// (the offset in the function, or a Java frame's bci, as 8 upper-case hex digits), a Java
    /// frame with its source line `name + 0x00000001, line 17 in "Main.java"`, a native
    /// method `name <Java native method>`.
    pub fn frame_text(&self, frame: &Frame) -> String {
        let name = self
            .function(frame.function)
            .map_or(UNKNOWN, |f| f.name.as_str());
        let java = matches!(
            frame.kind,
            FrameKind::Java | FrameKind::JavaInterpreted | FrameKind::JavaCompiled
        );
        if frame.kind == FrameKind::Pseudo {
            return name.to_owned();
        }
        if java && self.native_methods.contains(&frame.function) {
            return format!("{name} <Java native method>");
        }
        let mut text = format!("{name} + 0x{:08X}", frame.offset);
        if let Some(line) = frame.line {
            match self.file_name(frame) {
                Some(file) => text.push_str(&format!(", line {line} in \"{file}\"")),
                None => text.push_str(&format!(", line {line}")),
            }
        }
        if let Some(chain) = self.inlined_chains.get(&(frame.function, frame.offset)) {
            // gprofng pads the text to 40 characters, with at least one space.
            text.push(' ');
            while text.len() < 40 {
                text.push(' ');
            }
            text.push_str(chain);
        }
        text
    }

    /// Names native frames' source lines from the DWARF line tables of their load objects
    /// (the archived or found copies; [`crate::dwarf`]): [`Frame::line`] and [`Frame::file`]
    /// of native frames are then set where the tables cover the PC, and
    /// [`Symbolizer::frame_text`] prints them as gprofng does (`main + 0x000000CA, line 106
    /// in "lines.c"`; for code inlined at a call, the call's line and the chain of inlined
    /// calls gprofng appends, `main + 0x00000124, line 83 in "names.cc" <-- operator()
    /// names.cc:82 `). Objects whose tables cannot be read have no lines
    /// ([`Warnings::bad_line_tables`] counts them).
    #[cfg(feature = "dwarf")]
    pub fn with_native_lines(mut self) -> Self {
        self.native_lines = true;
        self
    }

    /// Gives native frames their lines from `native`: [`Symbolizer::with_native_lines`] for
    /// [`NativeLines::Dwarf`], nothing for [`NativeLines::Off`].
    pub(crate) fn with_lines(self, native: NativeLines) -> Self {
        match native {
            #[cfg(feature = "dwarf")]
            NativeLines::Dwarf => self.with_native_lines(),
            NativeLines::Off => self,
        }
    }

    /// The source file names frames refer to ([`Frame::file`]).
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The source file of `frame`, if known.
    pub fn file_name(&self, frame: &Frame) -> Option<&str> {
        self.files
            .get(usize::try_from(frame.file?).ok()?)
            .map(String::as_str)
    }

    fn intern_file(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.file_ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.files.len()).unwrap_or(u32::MAX);
        self.files.push(name.to_owned());
        self.file_ids.insert(name.to_owned(), id);
        id
    }

    /// The functions named so far.
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// Function `id`.
    pub fn function(&self, id: FunctionId) -> Option<&Function> {
        self.functions.get(id.0 as usize)
    }

    /// The frames of stack `id`, root first.
    pub fn frames(&self, id: StackId) -> &[Frame] {
        self.stacks
            .get(id.0 as usize)
            .and_then(|r| self.frames.get(r.start as usize..r.end as usize))
            .unwrap_or_default()
    }

    /// The frames of stack `id` in the order `order`.
    pub fn stack_frames(&self, id: StackId, order: Order) -> Frames<'_> {
        Frames {
            frames: self.frames(id).iter(),
            order,
        }
    }

    /// Number of distinct stacks.
    pub fn stack_count(&self) -> usize {
        self.stacks.len()
    }

    /// What did not agree so far.
    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }

    /// The function named `name`, interned.
    pub fn intern_function(&mut self, name: &str, load_object: Option<&str>) -> FunctionId {
        self.intern(Function {
            name: name.to_owned(),
            load_object: load_object.map(str::to_owned),
            signature: None,
        })
    }

    fn intern(&mut self, f: Function) -> FunctionId {
        if let Some(&id) = self.function_ids.get(&f) {
            return id;
        }
        let id = FunctionId(u32::try_from(self.functions.len()).unwrap_or(u32::MAX));
        self.functions.push(f.clone());
        self.function_ids.insert(f, id);
        id
    }

    fn pseudo(&mut self, name: &str) -> Frame {
        Frame {
            function: self.intern_function(name, None),
            offset: 0,
            line: None,
            file: None,
            kind: FrameKind::Pseudo,
        }
    }

    fn epoch(&self, rel: Timestamp) -> u32 {
        u32::try_from(self.map_times.partition_point(|&t| t <= rel)).unwrap_or(u32::MAX)
    }

    /// The named stack of a packet with `FRINFO` `frinfo` recorded at absolute time `tstamp`.
    /// Stacks are cached by (uid, map state): a packet whose stack was seen costs a lookup.
    #[inline]
    pub fn stack(&mut self, frinfo: u64, tstamp: Timestamp) -> StackId {
        let rel = tstamp.saturating_sub(self.run_start);
        let key = (frinfo, self.epoch(rel));
        if let Some(&id) = self.by_frinfo.get(&key) {
            return id;
        }
        let id = self.build(frinfo, rel);
        self.by_frinfo.insert(key, id);
        id
    }

    fn build(&mut self, frinfo: u64, rel: Timestamp) -> StackId {
        let stack = match self.exp.frameinfo().stack(frinfo) {
            Ok(Some(s)) => s,
            Ok(None) => {
                self.warnings.missing_stacks += 1;
                Stack::default()
            }
            Err(_) => {
                self.warnings.bad_stacks += 1;
                Stack::default()
            }
        };
        let mut frames = std::mem::take(&mut self.scratch);
        frames.clear();
        if self.java {
            self.java_frames(&stack, rel, &mut frames);
        } else {
            if stack.native_truncated {
                let t = self.pseudo(TRUNCATED_STACK);
                frames.push(t);
            } else if stack.native_unwind_failed {
                let t = self.pseudo(STACK_UNWIND_FAILED);
                frames.push(t);
            }
            for &pc in stack.native.iter().rev() {
                let f = self.native(pc, rel, FrameKind::Native);
                frames.push(f);
            }
            // gprofng skips a leaf PC in .plt (`CallStackP::add_stack`): the call has not
            // reached its target yet.
            if !stack.native.is_empty() && frames.last().is_some_and(|f| self.is_plt(f)) {
                frames.pop();
            }
        }
        let id = self.intern_stack(&frames);
        self.scratch = frames;
        id
    }

    /// Whether the experiment is a Java one (its stacks are named in gprofng's Java user view).
    pub(crate) fn is_java(&self) -> bool {
        self.java
    }

    /// Interns a stack given root first.
    pub fn intern_stack(&mut self, frames: &[Frame]) -> StackId {
        if let Some(&id) = self.stack_ids.get(frames) {
            return id;
        }
        let start = u32::try_from(self.frames.len()).unwrap_or(u32::MAX);
        self.frames.extend_from_slice(frames);
        let end = u32::try_from(self.frames.len()).unwrap_or(u32::MAX);
        let id = StackId(u32::try_from(self.stacks.len()).unwrap_or(u32::MAX));
        self.stacks.push(start..end);
        self.stack_ids.insert(frames.to_vec(), id);
        id
    }

    fn elf(&mut self, object: &str) -> Option<&Elf> {
        if !self.objects.contains_key(object) {
            let bytes = match self.archived.get(object) {
                Some(a) => self
                    .exp
                    .file(&format!("archives/{a}"))
                    .ok()
                    .flatten()
                    .or_else(|| self.founder_archives.as_ref().and_then(|f| f(a)))
                    .filter(|b| !b.is_empty()),
                None => None,
            };
            let bytes = bytes
                .or_else(|| self.load.as_ref().and_then(|l| l(object)))
                .or_else(|| self.exp.source().load_object(object));
            let elf = bytes.as_ref().and_then(|b| Elf::parse(b).ok());
            if elf.is_none() {
                self.warnings.unreadable_objects += 1;
            }
            #[cfg(feature = "dwarf")]
            if self.native_lines {
                let table = match (&bytes, &elf) {
                    (Some(b), Some(e)) => match crate::dwarf::LineTable::parse(b, e) {
                        Ok(t) => Some(t),
                        Err(err) => {
                            self.warnings.bad_line_tables += 1;
                            self.line_table_errors.push((object.to_owned(), err));
                            None
                        }
                    },
                    _ => None,
                };
                self.line_tables.insert(object.to_owned(), table);
            }
            self.objects.insert(object.to_owned(), elf);
        }
        self.objects.get(object)?.as_ref()
    }

    /// Where `pc` is at relative time `rel`, and the time it was looked up at. The collector
    /// logs the mappings present at start (and JIT code) a little after the first packets that
    /// run in them (their tstamps follow the first events); gprofng names those PCs all the
    /// same: a PC no mapping covers yet is looked up as of the first later mapping of it.
    fn resolve(&self, pc: u64, rel: Timestamp) -> Option<(crate::map::Resolved<'e>, Timestamp)> {
        match self.map.resolve(pc, rel) {
            Some(r) => Some((r, rel)),
            None => self.map.resolve_later(pc, rel),
        }
    }

    /// The source file and line of native `address` of `object` (its ELF address), when
    /// native lines were asked for and its line table has it.
    #[cfg(feature = "dwarf")]
    fn native_line(&self, object: &str, address: u64) -> Option<(String, u32)> {
        if !self.native_lines {
            return None;
        }
        let elf = self.objects.get(object)?.as_ref()?;
        let line = self.line_tables.get(object)?.as_ref()?.line(elf, address)?;
        Some((line.file.to_owned(), line.line))
    }

    #[cfg(not(feature = "dwarf"))]
    fn native_line(&self, _object: &str, _address: u64) -> Option<(String, u32)> {
        None
    }

    /// The chain of inlined calls gprofng appends to a frame at `address` of `object`.
    #[cfg(feature = "dwarf")]
    fn native_inlined_chain(&self, object: &str, address: u64) -> Option<String> {
        if !self.native_lines {
            return None;
        }
        let elf = self.objects.get(object)?.as_ref()?;
        self.line_tables
            .get(object)?
            .as_ref()?
            .inlined_chain(elf, address)
    }

    #[cfg(not(feature = "dwarf"))]
    fn native_inlined_chain(&self, _object: &str, _address: u64) -> Option<String> {
        None
    }

    /// The load objects whose DWARF line tables could not be read (by map.xml path), with
    /// the error (what and at which byte offset of the object): their frames have no lines.
    pub fn line_table_errors(&self) -> &[(String, crate::Error)] {
        &self.line_table_errors
    }

    /// Is `frame` in gprofng's `@plt` function of a load object?
    fn is_plt(&self, frame: &Frame) -> bool {
        self.function(frame.function)
            .is_some_and(|f| f.name == crate::elf::PLT_NAME && f.load_object.is_some())
    }

    /// Names native PC `pc` at relative time `rel`.
    fn native(&mut self, pc: u64, rel: Timestamp, kind: FrameKind) -> Frame {
        let Some((r, rel)) = self.resolve(pc, rel) else {
            self.warnings.unknown_pcs += 1;
            return Frame {
                kind: FrameKind::Pseudo,
                ..self.pseudo(UNKNOWN)
            };
        };
        if r.generated {
            let (name, offset) = (r.name.to_owned(), r.offset);
            return Frame {
                function: self.intern_function(&name, None),
                offset,
                line: None,
                file: None,
                kind,
            };
        }
        let object = r.name.to_owned();
        let file_offset = r.offset;
        let base = self.map.load_base(&object, rel);
        let ((name, offset), address) = {
            let elf = self.elf(&object);
            let address = match (elf, base) {
                (Some(elf), Some(base)) => elf
                    .load_address()
                    .map(|first| pc.wrapping_sub(base).wrapping_add(first)),
                (Some(elf), None) => elf.address_of_offset(file_offset),
                (None, _) => None,
            }
            .unwrap_or(file_offset);
            let named = match elf.and_then(|e| e.function(address).map(|f| (e, f))) {
                Some((e, f)) => (function_name(&e.name(f)).into_owned(), address - f.address),
                None if elf.is_none_or(|e| e.functions.is_empty()) => {
                    missing_object_name(r.segment_size, file_offset, &object)
                }
                None => static_name(elf, address, &object),
            };
            (named, address)
        };
        let (line, file) = match self.native_line(&object, address) {
            Some((file, line)) => (Some(line), Some(self.intern_file(&file))),
            None => (None, None),
        };
        let function = self.intern_function(&name, Some(&object));
        if let Some(chain) = self.native_inlined_chain(&object, address) {
            self.inlined_chains.insert((function, offset), chain);
        }
        Frame {
            function,
            offset,
            line,
            file,
            kind,
        }
    }

    fn java_method(&mut self, method_id: u64) -> FunctionId {
        let name = self.jclasses.method(method_id).map(|(c, m)| {
            (
                java_method_name(&crate::jclasses::class_name(&c.name), &m.name, &m.signature),
                m.signature.clone(),
            )
        });
        match name {
            Some((name, signature)) => self.intern(Function {
                name,
                load_object: None,
                signature: Some(signature),
            }),
            None => {
                self.warnings.unknown_methods += 1;
                self.intern_function(UNKNOWN, None)
            }
        }
    }

    /// How each Java frame of `stack` (leaf first) runs, read off its native stack: walking
    /// both from the leaf, a native frame in the `Interpreter` is the next Java frame,
    /// interpreted; a native frame in JIT code of method `m` is the next Java frame if that is
    /// `m`, compiled, and otherwise a frame inlined into `m` (compiled too, the native frame
    /// still to be matched). A native method takes its own native frame (the interpreter's
    /// native entry or its compiled wrapper) and stays `Java`, as do frames beyond the native
    /// stack. JIT code of a method not on the Java stack is passed over.
    fn java_kinds(&self, stack: &Stack, rel: Timestamp) -> Vec<FrameKind> {
        let mut modes = stack.native.iter().filter_map(|&pc| {
            let (r, at) = self.resolve(pc, rel)?;
            if let Some(m) = self.map.jit_method(pc, at) {
                // JIT code of a method the Java stack lacks (AsyncGetCallTrace started its
                // walk further out) matches no frame.
                return stack
                    .java
                    .iter()
                    .any(|jf| jf.method_id == m)
                    .then_some(Some(m));
            }
            (r.generated && r.name == "Interpreter").then_some(None)
        });
        let mut current = modes.next();
        let mut kinds = Vec::with_capacity(stack.java.len());
        for jf in &stack.java {
            let kind = match current {
                // A native method is entered through the interpreter's native entry or a
                // compiled native wrapper: either is its own native frame.
                _ if jf.lineno == JNI_MARKER => {
                    if matches!(current, Some(None)) || current == Some(Some(jf.method_id)) {
                        current = modes.next();
                    }
                    FrameKind::Java
                }
                Some(None) => {
                    current = modes.next();
                    FrameKind::JavaInterpreted
                }
                Some(Some(m)) => {
                    if m == jf.method_id {
                        current = modes.next();
                    }
                    FrameKind::JavaCompiled
                }
                None => FrameKind::Java,
            };
            kinds.push(kind);
        }
        kinds
    }

    /// The source line of bytecode index `bci` of Java method `method_id`, from its class's
    /// class file in the experiment: `jdynclasses/<internal name>.class`, else a copy
    /// `archives/<simple name>.class_…` (gprofng shows no line for classes it has no class file
    /// of, e.g. the JDK's own).
    fn java_line(&mut self, method_id: u64, bci: u32) -> Option<u32> {
        let (class, name, signature) = self.jclasses.method(method_id).map(|(c, m)| {
            let internal = c
                .name
                .strip_prefix('L')
                .and_then(|n| n.strip_suffix(';'))
                .unwrap_or(&c.name)
                .to_owned();
            (internal, m.name.clone(), m.signature.clone())
        })?;
        if !self.classes.contains_key(&class) {
            let file = self.class_file(&class);
            self.classes.insert(class.clone(), file);
        }
        self.classes
            .get(&class)?
            .as_ref()?
            .method(&name, &signature)?
            .line(bci)
    }

    fn class_file(&self, class: &str) -> Option<ClassFile> {
        let bytes = match self.exp.file(&format!("jdynclasses/{class}.class")) {
            Ok(Some(b)) => Some(b),
            _ => {
                let simple = class.rsplit('/').next().unwrap_or(class);
                let prefix = format!("{simple}.class_");
                let archived = self
                    .exp
                    .archives()
                    .into_iter()
                    .find(|a| a.starts_with(&prefix))?;
                self.exp
                    .file(&format!("archives/{archived}"))
                    .ok()
                    .flatten()
            }
        }?;
        ClassFile::parse(&bytes)
            .ok()
            .filter(|c| c.this_class == class)
    }

    /// gprofng's user view of a Java stack (see
    /// [`Stack::user_view_frames_jni`](crate::frameinfo::Stack::user_view_frames_jni) for the
    /// splice rule this mirrors frame by frame).
    fn java_frames(&mut self, stack: &Stack, rel: Timestamp, out: &mut Vec<Frame>) {
        if stack.java.is_empty() {
            let f = self.pseudo(JVM_SYSTEM);
            out.push(f);
            return;
        }
        if stack.java_error().is_some() {
            let f = self.pseudo(NO_JAVA_CALLSTACK);
            out.push(f);
            return;
        }
        if stack.java_truncated {
            let f = self.pseudo(TRUNCATED_STACK);
            out.push(f);
        }
        let kinds = self.java_kinds(stack, rel);
        let mut next = stack.native.len();
        for (depth, jf) in stack.java.iter().enumerate().rev() {
            let function = self.java_method(jf.method_id);
            let line = u32::try_from(jf.lineno)
                .ok()
                .and_then(|bci| self.java_line(jf.method_id, bci));
            if jf.lineno == JNI_MARKER {
                self.native_methods.insert(function);
            }
            let source_file = self
                .jclasses
                .method(jf.method_id)
                .map(|(class, _)| class.source_file.clone())
                .filter(|f| !f.is_empty());
            let file = source_file.map(|f| self.intern_file(&f));
            out.push(Frame {
                function,
                offset: u64::try_from(jf.lineno).unwrap_or(0),
                line,
                file,
                kind: kinds.get(depth).copied().unwrap_or(FrameKind::Java),
            });
            if jf.lineno != JNI_MARKER {
                continue;
            }
            let leaf = depth == 0;
            let method = self.jclasses.method_full_name(jf.method_id);
            let mut found = false;
            while let Some(i) = next.checked_sub(1) {
                let pc = stack.native.get(i).copied().unwrap_or_default();
                let frame = self.native(pc, rel, FrameKind::Jni);
                // The native leaf in .plt is skipped, as in native stacks.
                if i == 0 && self.is_plt(&frame) {
                    break;
                }
                let in_jvm = self.map.resolve(pc, rel).is_some_and(|r| r.in_jvm());
                if !found {
                    let fname = self
                        .function(frame.function)
                        .map(|f| f.name.clone())
                        .unwrap_or_default();
                    found = method.as_deref().is_some_and(|m| jni_match(m, &fname));
                }
                if found {
                    if in_jvm && !leaf {
                        break;
                    }
                    out.push(frame);
                }
                next = i;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Warnings, function_name};

    #[test]
    fn warnings_say_what_disagreed() {
        assert_eq!(Warnings::default().to_string(), "");
        assert!(Warnings::default().is_empty());
        let w = Warnings {
            unknown_pcs: 3,
            unreadable_objects: 1,
            ..Warnings::default()
        };
        assert!(!w.is_empty());
        assert_eq!(
            w.to_string(),
            "3 native PCs no mapping covers; 1 unreadable load objects"
        );
    }

    #[test]
    fn symbol_names_as_gprofng_shows_them() {
        // C names, GCC's parts and clones of C functions: as they are.
        for c in [
            "main",
            "main.cold",
            "foo.part.0",
            "foo.constprop.0",
            "foo.isra.0",
            "_init",
        ] {
            assert_eq!(function_name(c), c);
        }
        // Sun compilers' globalization prefix.
        assert_eq!(function_name("$XAqBaKx8Lm0gm.counter"), "counter");
        assert_eq!(function_name(".XAqBaKx8Lm0gm.counter"), "counter");
        #[cfg(feature = "demangle")]
        {
            assert_eq!(function_name("_Z3fooi.cold"), "foo(int) [clone .cold]");
            assert_eq!(
                function_name("_ZL9by_configPK6Config.constprop.0.isra.0"),
                "by_config(Config const*) [clone .constprop.0] [clone .isra.0]"
            );
            assert_eq!(
                function_name("_ZNK4geom3BoxIdE4growEi"),
                "geom::Box<double>::grow(int) const"
            );
            // binutils' non-verbose standard substitutions (checked with `c++filt -i`).
            assert_eq!(function_name("_ZNSi6ignoreEv"), "std::istream::ignore()");
            assert_eq!(
                function_name("_ZNSs4swapERSs"),
                "std::string::swap(std::string&)"
            );
            assert_eq!(
                function_name("_ZNSoC1ERSd"),
                "std::basic_ostream<char, std::char_traits<char> >::basic_ostream(std::iostream&)"
            );
            assert_eq!(
                function_name("_ZNSiD0Ev"),
                "std::basic_istream<char, std::char_traits<char> >::~basic_istream()"
            );
            assert_eq!(
                function_name("_ZNSolsEDn"),
                "std::ostream::operator<<(decltype(nullptr))"
            );
            // Not a mangled name after all: kept.
            assert_eq!(function_name("_Zfoo"), "_Zfoo");
        }
    }
}
