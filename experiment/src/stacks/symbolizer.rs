//! The [`Symbolizer`]: names the stacks of one experiment and interns them (gprofng
//! `CallStack::add_stack`), through its native ([`super::native`]) and Java
//! ([`super::java`]) halves.

use super::frames::{Frame, FrameKind, Frames, Function, FunctionId, Order, StackId};
use super::names::{STACK_UNWIND_FAILED, TRUNCATED_STACK, UNKNOWN};
use crate::classfile::ClassFile;
use crate::elf::Elf;
use crate::experiment::Experiment;
use crate::frameinfo::Stack;
use crate::jclasses::JClasses;
use crate::log::Timestamp;
use crate::map::{MapEvent, MapIndex};
use crate::source::Source;
use bytes::Bytes;
use std::collections::HashMap;

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

/// Counts of inputs that did not agree; frames were still produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Warnings {
    /// Native PCs no mapping of map.xml covers (named `<Unknown>`).
    pub unknown_pcs: u64,
    /// Load objects whose ELF could not be had or read (their PCs are named
    /// `<static>@0x0 (<object>) --  no functions found` and the like, see
    /// [`missing_object_name`](super::missing_object_name)).
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
    pub(super) exp: &'e Experiment<S>,
    pub(super) map: MapIndex<'e>,
    /// Sorted times of the map events: two packets whose times fall between the same two
    /// events see the same mappings (the stack cache is keyed by this epoch).
    pub(super) map_times: Vec<Timestamp>,
    pub(super) run_start: Timestamp,
    pub(super) java: bool,
    pub(super) jclasses: JClasses,
    pub(super) archived: HashMap<String, String>,
    /// Reads `archives/NAME` of the founder, for a descendant (whose own directory has none).
    pub(super) founder_archives: Option<LoadFn<'e>>,
    pub(super) load: Option<LoadFn<'e>>,
    pub(super) objects: HashMap<String, Option<Elf>>,
    pub(super) functions: Vec<Function>,
    pub(super) function_ids: HashMap<Function, FunctionId>,
    pub(super) frames: Vec<Frame>,
    pub(super) stacks: Vec<std::ops::Range<u32>>,
    pub(super) stack_ids: HashMap<Vec<Frame>, StackId>,
    pub(super) by_frinfo: crate::hash::IntMap<(u64, u32), StackId>,
    pub(super) warnings: Warnings,
    pub(super) scratch: Vec<Frame>,
    /// Class files read so far, by internal class name (`None`: not in the experiment).
    pub(super) classes: HashMap<String, Option<ClassFile>>,
    /// Source file names, for [`Frame::file`].
    pub(super) files: Vec<String>,
    pub(super) file_ids: HashMap<String, u32>,
    /// Native frames get their lines from the load objects' DWARF line tables.
    #[cfg(feature = "dwarf")]
    pub(super) native_lines: bool,
    /// The line tables of the load objects read so far (`None`: none or unreadable).
    #[cfg(feature = "dwarf")]
    pub(super) line_tables: HashMap<String, Option<crate::dwarf::LineTable>>,
    /// Load objects whose line tables could not be read, with why.
    pub(super) line_table_errors: Vec<(String, crate::Error)>,
    /// The chain of inlined calls of native frames in inlined code (by function and offset),
    /// which [`Symbolizer::frame_text`] appends as gprofng does.
    pub(super) inlined_chains: HashMap<(FunctionId, u64), String>,
    /// Java methods seen as native methods (their frames print `<Java native method>`).
    pub(super) native_methods: std::collections::HashSet<FunctionId>,
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

    pub(super) fn intern_file(&mut self, name: &str) -> u32 {
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

    pub(super) fn intern(&mut self, f: Function) -> FunctionId {
        if let Some(&id) = self.function_ids.get(&f) {
            return id;
        }
        let id = FunctionId(u32::try_from(self.functions.len()).unwrap_or(u32::MAX));
        self.functions.push(f.clone());
        self.function_ids.insert(f, id);
        id
    }

    pub(super) fn pseudo(&mut self, name: &str) -> Frame {
        Frame {
            function: self.intern_function(name, None),
            offset: 0,
            line: None,
            file: None,
            kind: FrameKind::Pseudo,
        }
    }

    pub(super) fn epoch(&self, rel: Timestamp) -> u32 {
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

    pub(super) fn build(&mut self, frinfo: u64, rel: Timestamp) -> StackId {
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

    /// The load objects whose DWARF line tables could not be read (by map.xml path), with
    /// the error (what and at which byte offset of the object): their frames have no lines.
    pub fn line_table_errors(&self) -> &[(String, crate::Error)] {
        &self.line_table_errors
    }
}

#[cfg(test)]
mod tests {
    use super::Warnings;

    #[test]
    pub(super) fn warnings_say_what_disagreed() {
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
}
