//! Native frames: a PC named through `map.xml` and the load object's ELF function symbols
//! (archived, found by the source, or supplied), with its DWARF source line where asked for
//! (gprofng `LoadObject::find_function`, format notes §5).

use super::frames::{Frame, FrameKind};
use super::names::{UNKNOWN, function_name, missing_object_name, static_name};
use super::symbolizer::Symbolizer;
use crate::elf::Elf;
use crate::log::Timestamp;
use crate::source::Source;

impl<'e, S: Source> Symbolizer<'e, S> {
    pub(super) fn elf(&mut self, object: &str) -> Option<&Elf> {
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
    pub(super) fn resolve(
        &self,
        pc: u64,
        rel: Timestamp,
    ) -> Option<(crate::map::Resolved<'e>, Timestamp)> {
        match self.map.resolve(pc, rel) {
            Some(r) => Some((r, rel)),
            None => self.map.resolve_later(pc, rel),
        }
    }

    /// The source file and line of native `address` of `object` (its ELF address), when
    /// native lines were asked for and its line table has it.
    #[cfg(feature = "dwarf")]
    pub(super) fn native_line(&self, object: &str, address: u64) -> Option<(String, u32)> {
        if !self.native_lines {
            return None;
        }
        let elf = self.objects.get(object)?.as_ref()?;
        let line = self.line_tables.get(object)?.as_ref()?.line(elf, address)?;
        Some((line.file.to_owned(), line.line))
    }

    #[cfg(not(feature = "dwarf"))]
    pub(super) fn native_line(&self, _object: &str, _address: u64) -> Option<(String, u32)> {
        None
    }

    /// The chain of inlined calls gprofng appends to a frame at `address` of `object`.
    #[cfg(feature = "dwarf")]
    pub(super) fn native_inlined_chain(&self, object: &str, address: u64) -> Option<String> {
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
    pub(super) fn native_inlined_chain(&self, _object: &str, _address: u64) -> Option<String> {
        None
    }

    /// Is `frame` in gprofng's `@plt` function of a load object?
    pub(super) fn is_plt(&self, frame: &Frame) -> bool {
        self.function(frame.function)
            .is_some_and(|f| f.name == crate::elf::PLT_NAME && f.load_object.is_some())
    }

    /// Names native PC `pc` at relative time `rel`.
    pub(super) fn native(&mut self, pc: u64, rel: Timestamp, kind: FrameKind) -> Frame {
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
}
