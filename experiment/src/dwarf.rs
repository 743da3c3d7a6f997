//! Native source lines: the DWARF line tables (`.debug_line`, through the units of
//! `.debug_info`) of a load object, assigned to its ELF functions the way gprofng assigns them
//! (DWARF 5 §6.2 "Line Number Information"; gprofng `DwrLineRegs::get_lines`,
//! `DwrCU::srcline_Dwarf`, `Function::add_PC_info`, `Function::mapPCtoLine`). Feature `dwarf`.
//!
//! The line programs are run by [`gimli`]'s reader (a maintained, fuzzed DWARF reader); what
//! this module adds is gprofng's reading of the rows:
//! * every row but the end of a sequence counts, whatever its `is_stmt` flag; each unit's rows
//!   are ordered by address (keeping the program's order for one address), units in file
//!   order;
//! * a row belongs to the ELF function whose address range holds it (rows outside every
//!   function, and rows of line 0, are dropped); of several rows at one address the last wins;
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
//! Hostile input cannot make it panic, loop or allocate beyond what the sections hold: gimli
//! returns errors, which become [`Error::Invalid`] with the file offset of the unit or line
//! program they came from; each line program is run once however many units share it.

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
    /// empty when it has no `.debug_line` or no `.debug_info`. Errors name the file offset of
    /// the unit or line program gimli could not read.
    pub fn parse(data: &[u8], elf: &Elf) -> Result<LineTable> {
        let endian = match elf.header.endian {
            Endian::Little => gimli::RunTimeEndian::Little,
            Endian::Big => gimli::RunTimeEndian::Big,
        };
        let mut offsets: BTreeMap<&'static str, u64> = BTreeMap::new();
        let mut load = |id: gimli::SectionId| -> Result<Reader<'_>> {
            let (bytes, offset) = section(elf, data, id.name())?;
            offsets.insert(id.name(), offset);
            Ok(gimli::EndianSlice::new(bytes, endian))
        };
        let dwarf = gimli::Dwarf::load(&mut load)?;
        let info_at = offsets.get(".debug_info").copied().unwrap_or(0);
        let line_at = offsets.get(".debug_line").copied().unwrap_or(0);

        let mut files: Vec<String> = Vec::new();
        let mut file_ids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        // Address → (file, line): later rows at an address replace earlier ones.
        let mut lines: BTreeMap<u64, (u32, u32)> = BTreeMap::new();
        let mut programs_seen = std::collections::HashSet::new();
        let mut units = dwarf.units();
        let mut next_unit = 0u64;
        let mut unit_rows: Vec<(u64, u32, u32)> = Vec::new();
        loop {
            let header = match units.next() {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(e) => return Err(gimli_error("DWARF unit header", info_at + next_unit, e)),
            };
            let unit_offset = header
                .offset()
                .as_debug_info_offset()
                .map_or(next_unit, |o| o.0 as u64);
            next_unit = unit_offset.saturating_add(header.length_including_self() as u64);
            let unit = dwarf
                .unit(header)
                .map_err(|e| gimli_error("DWARF unit", info_at + unit_offset, e))?;
            let Some(program) = unit.line_program.clone() else {
                continue;
            };
            let program_offset = program.header().offset().0 as u64;
            if !programs_seen.insert(program_offset) {
                continue;
            }
            let at = line_at + program_offset;
            let mut rows = program.rows();
            unit_rows.clear();
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
                let Some(entry) = row.file(header) else {
                    continue;
                };
                let name = dwarf
                    .attr_string(&unit, entry.path_name())
                    .map_err(|e| gimli_error("DWARF line program file name", at, e))?;
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
                unit_rows.push((row.address(), file, line));
            }
            // gprofng orders each unit's rows by address, keeping their order at one address.
            unit_rows.sort_by_key(|r| r.0);
            for &(address, file, line) in &unit_rows {
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
