//! Native source lines: the DWARF line tables (`.debug_line`) of a load object, assigned to its ELF functions the way gprofng assigns them
//! (DWARF 5 §6.2 "Line Number Information"; gprofng `DwrLineRegs::get_lines`,
//! `DwrCU::srcline_Dwarf`, `Function::add_PC_info`, `Function::mapPCtoLine`). Feature `dwarf`.
//!
//! The line programs are run by [`gimli`]'s reader (a maintained, fuzzed DWARF reader); what
//! this module adds is gprofng's reading of the rows:
//! * every row but the end of a sequence counts, whatever its `is_stmt` flag; each line
//!   program's rows are ordered by address (keeping the program's order for one address),
//!   programs in file order;
//! * a row belongs to the ELF function whose address range holds it (rows outside every
//!   function, and rows of line 0, are dropped); of several rows at one address the last wins.
//!   (gprofng also drops a row whose function its unit does not describe; well-formed
//!   objects have none);
//! * a PC's line is that of the last row at or before it in its function: a PC before its
//!   function's first row has none (gprofng's `<Function: f, instructions without line
//!   numbers>`).
//!
//! Files are named as gprofng prints them: the last component of the row's file name
//! (`"mix.h"` for `include/mix.h`).
//!
//! gprofng 2.40 reads the line tables of DWARF 4 and older only (its `-lines` shows the
//! functions of a DWARF 5 program, GCC 12's default, without line numbers); this reader takes
//! every version gimli reads (2 to 5), as later gprofng releases do.
//!
//! Hostile input cannot make it panic, loop or allocate beyond what the sections hold: the
//! line programs are walked one after the other through `.debug_line` (each read once, the
//! work linear in the section), and gimli's errors become [`Error::Invalid`] with the file
//! offset of the line program they came from.

use crate::cursor::Endian;
use crate::elf::Elf;
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// `SHF_COMPRESSED`: the section's bytes are compressed (`Elf64_Chdr` first).
const SHF_COMPRESSED: u64 = 0x800;

/// A load object's source lines as gprofng assigns them to its functions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LineTable {
    /// Source file names as gprofng prints them (the file name's last component), each once.
    pub files: Vec<String>,
    /// One row per address that starts a line, sorted by address.
    pub rows: Vec<LineRow>,
}

/// The code from `address` to the next row's address (or its function's end) is line `line`
/// of file `files[file]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LineRow {
    /// Virtual address (as the ELF file's symbols give them).
    pub address: u64,
    /// Index in [`LineTable::files`].
    pub file: u32,
    /// 1-based source line.
    pub line: u32,
}

/// A source line of a PC: file name and line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLine<'t> {
    /// The file name as gprofng prints it.
    pub file: &'t str,
    /// 1-based line.
    pub line: u32,
}

type Reader<'d> = gimli::EndianSlice<'d, gimli::RunTimeEndian>;

/// The bytes of the section named `name` of `elf` (empty when there is none or it has no
/// file bytes).
fn section<'d>(elf: &Elf, data: &'d [u8], name: &str) -> Result<(&'d [u8], u64)> {
    for (idx, sh) in elf.section_headers.iter().enumerate() {
        if elf.section_name(data, idx) != Some(name.as_bytes()) {
            continue;
        }
        if sh.sh_type == crate::elf::SHT_NOBITS {
            return Ok((&[], sh.sh_offset));
        }
        if sh.sh_flags & SHF_COMPRESSED != 0 {
            return Err(Error::Invalid {
                what: "DWARF section",
                offset: sh.sh_offset,
                expected: format!("{name} uncompressed"),
                found: "SHF_COMPRESSED (not supported: decompress with `objcopy --decompress-debug-sections`)"
                    .into(),
            });
        }
        let start = usize::try_from(sh.sh_offset).ok();
        let end = sh
            .sh_offset
            .checked_add(sh.sh_size)
            .and_then(|e| usize::try_from(e).ok());
        return match (start, end) {
            (Some(s), Some(e)) if e <= data.len() => {
                Ok((data.get(s..e).unwrap_or_default(), sh.sh_offset))
            }
            _ => Err(Error::Truncated {
                what: "DWARF section",
                offset: sh.sh_offset,
                needed: sh.sh_size,
                available: (data.len() as u64).saturating_sub(sh.sh_offset),
            }),
        };
    }
    Ok((&[], 0))
}

/// The bytes of a file name of a line program header: inline, or in `.debug_str` or
/// `.debug_line_str` (the forms GCC and Clang write; others give no name).
fn file_name<'d>(
    value: gimli::AttributeValue<Reader<'d>>,
    debug_str: &gimli::DebugStr<Reader<'d>>,
    debug_line_str: &gimli::DebugLineStr<Reader<'d>>,
) -> Option<Reader<'d>> {
    match value {
        gimli::AttributeValue::String(s) => Some(s),
        gimli::AttributeValue::DebugStrRef(o) => debug_str.get_str(o).ok(),
        gimli::AttributeValue::DebugLineStrRef(o) => debug_line_str.get_str(o).ok(),
        _ => None,
    }
}

fn gimli_error(what: &'static str, offset: u64, e: gimli::Error) -> Error {
    Error::Invalid {
        what,
        offset,
        expected: "well-formed DWARF (versions 2 to 5)".into(),
        found: format!("what gimli rejects: {e}"),
    }
}

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
            offset = offset.saturating_add(length.max(1));
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
                let name = String::from_utf8_lossy(name.slice());
                let base = name.rsplit('/').next().unwrap_or(&name);
                let file = match file_ids.get(base) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(files.len()).unwrap_or(u32::MAX);
                        file_ids.insert(base.to_owned(), id);
                        files.push(base.to_owned());
                        id
                    }
                };
                program_rows.push((row.address(), file, line));
            }
            // gprofng orders each program's rows by address, keeping their order at one
            // address.
            program_rows.sort_by_key(|r| r.0);
            for &(address, file, line) in &program_rows {
                if elf.function(address).is_some_and(|f| !f.plt) {
                    lines.insert(address, (file, line));
                }
            }
        }
        Ok(LineTable {
            files,
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

    /// The source line of `address` in `elf` (the object this table was read from): the last
    /// row at or before it inside its function; `None` outside every function or before its
    /// function's first row.
    pub fn line(&self, elf: &Elf, address: u64) -> Option<SourceLine<'_>> {
        let function = elf.function(address)?;
        let i = self.rows.partition_point(|r| r.address <= address);
        let row = self.rows.get(i.checked_sub(1)?)?;
        if row.address < function.address {
            return None;
        }
        Some(SourceLine {
            file: self.files.get(row.file as usize)?,
            line: row.line,
        })
    }

    /// Whether the object had no line information.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}
