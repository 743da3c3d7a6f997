//! The line programs of `.debug_line` (DWARF 5 §6.2), read one after the other: every row
//! but the end of a sequence, ordered as gprofng orders them, kept when an ELF function holds
//! it; and the file names of each program, for the inlined calls' call sites.

use std::collections::BTreeMap;

use super::files::{file_name, intern};
use super::inlined::inlined_calls;
use super::sections::section;
use super::sort::sort_like_gprofng;
use super::{LineRow, LineTable, Reader, gimli_error};
use crate::cursor::Endian;
use crate::elf::Elf;
use crate::error::Result;

impl LineTable {
    /// The line table of the ELF object in `data` (whose headers and functions are `elf`):
    /// empty when it has no `.debug_line`. Errors name the file offset of the line program
    /// gimli could not read.
    pub fn parse(data: &[u8], elf: &Elf) -> Result<LineTable> {
        let endian = match elf.header.endian {
            Endian::Little => gimli::RunTimeEndian::Little,
            Endian::Big => gimli::RunTimeEndian::Big,
        };
        let (line_bytes, line_at) = section(elf, data, ".debug_line")?;
        let (str_bytes, _) = section(elf, data, ".debug_str")?;
        let (line_str_bytes, _) = section(elf, data, ".debug_line_str")?;
        let debug_line = gimli::DebugLine::from(Reader::new(line_bytes, endian));
        let debug_str = gimli::DebugStr::from(Reader::new(str_bytes, endian));
        let debug_line_str = gimli::DebugLineStr::from(Reader::new(line_str_bytes, endian));
        // DWARF 2–4 line program headers do not give the address size: the ELF class does.
        let address_size = match elf.header.class {
            crate::cursor::WordSize::W32 => 4,
            crate::cursor::WordSize::W64 => 8,
        };

        let mut files: Vec<String> = Vec::new();
        let mut file_ids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        // Address → (file, line): later rows at an address replace earlier ones.
        let mut lines: BTreeMap<u64, (u32, u32)> = BTreeMap::new();
        let mut program_rows: Vec<(u64, u32, u32)> = Vec::new();
        // Per line program (by offset), the file name of each file index (for call sites).
        let mut program_files: std::collections::HashMap<usize, Vec<Option<Vec<u8>>>> =
            std::collections::HashMap::new();
        // The line programs one after the other (gprofng reaches them through the units of
        // .debug_info, which list them in the same order): each is read once, and every
        // header moves the offset forward, so the walk ends.
        let mut offset = 0usize;
        while offset < line_bytes.len() {
            let at = line_at + offset as u64;
            let program = debug_line
                .program(gimli::DebugLineOffset(offset), address_size, None, None)
                .map_err(|e| gimli_error("DWARF line program header", at, e))?;
            let header = program.header();
            let length = header
                .unit_length()
                .saturating_add(usize::from(header.encoding().format.initial_length_size()));
            let program_offset = offset;
            offset = offset.saturating_add(length.max(1));
            // Index 0 too: DWARF 5 counts files from 0, earlier versions from 1.
            let count = header.file_names().len().saturating_add(1);
            let names: Vec<Option<Vec<u8>>> = (0..count as u64)
                .map(|i| {
                    let entry = header.file(i)?;
                    let name = file_name(entry.path_name(), &debug_str, &debug_line_str)?;
                    Some(name.slice().to_vec())
                })
                .collect();
            program_files.insert(program_offset, names);
            let mut rows = program.rows();
            program_rows.clear();
            while let Some((header, row)) = rows
                .next_row()
                .map_err(|e| gimli_error("DWARF line program", at, e))?
            {
                if row.end_sequence() {
                    continue;
                }
                let Some(line) = row.line().and_then(|l| u32::try_from(l.get()).ok()) else {
                    continue;
                };
                // A row whose file has no name is skipped (as gprofng does).
                let Some(name) = row
                    .file(header)
                    .and_then(|f| file_name(f.path_name(), &debug_str, &debug_line_str))
                else {
                    continue;
                };
                let file = intern(&mut files, &mut file_ids, name.slice());
                program_rows.push((row.address(), file, line));
            }
            // gprofng orders each program's rows by address with its own quicksort, which
            // decides which of several rows at one address comes last (and wins).
            sort_like_gprofng(&mut program_rows);
            for &(address, file, line) in &program_rows {
                if elf.function(address).is_some_and(|f| !f.plt) {
                    lines.insert(address, (file, line));
                }
            }
        }
        let mut inlined_functions = Vec::new();
        let inlined = inlined_calls(
            data,
            elf,
            endian,
            &program_files,
            (&mut files, &mut file_ids),
            &mut inlined_functions,
        )?;
        Ok(LineTable {
            files,
            inlined,
            inlined_functions,
            rows: lines
                .into_iter()
                .map(|(address, (file, line))| LineRow {
                    address,
                    file,
                    line,
                })
                .collect(),
        })
    }
}
