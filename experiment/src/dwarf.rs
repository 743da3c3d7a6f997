//! Native source lines: the DWARF line tables (`.debug_line`) of a load object and the code
//! inlined into its functions (`DW_TAG_inlined_subroutine` in `.debug_info`), assigned to its
//! ELF functions the way gprofng assigns them (DWARF 5 §6.2 "Line Number Information", §3.3.8
//! "Inlinable and Inlined Subroutines"; gprofng `DwrLineRegs::get_lines`,
//! `DwrCU::map_dwarf_lines`, `Function::add_PC_info`, `DbeInstr::mapPCtoLine`). Feature
//! `dwarf`.
//!
//! The DWARF is read by [`gimli`] (a maintained, fuzzed DWARF reader); what this module adds
//! is gprofng's reading of it:
//! * every row of a line program but the end of a sequence counts, whatever its `is_stmt`
//!   flag; each program's rows are ordered by address with gprofng's own quicksort (which
//!   decides the order of rows sharing an address), programs in file order;
//! * a row belongs to the ELF function whose address range holds it (rows outside every
//!   function, and rows of line 0, are dropped); of several rows at one address the last
//!   (in that order) wins; gprofng also drops a row whose function its unit does not
//!   describe, which well-formed objects do not have;
//! * a PC in code inlined into its function (the first outermost inlined range holding it, of
//!   a unit GCC made: producer `GNU …`) is on the line of the call (`DW_AT_call_file`,
//!   `DW_AT_call_line`); otherwise it is on the line of the last row at or before it in its
//!   function, and a PC before its function's first row has none (gprofng's `<Function: f,
//!   instructions without line numbers>`).
//!
//! Files are named as gprofng prints them: the last component of the file name (`"mix.h"` for
//! `include/mix.h`).
//!
//! Differences from gprofng 2.40: it reads the line tables of DWARF 4 and older only (its
//! `-lines` shows the functions of a DWARF 5 program, GCC 12's default, without line numbers),
//! while this reader takes every version gimli reads (2 to 5), as later gprofng releases do;
//! it shows a C++ constructor or destructor that GCC emits once under two symbols (`C1`/`C2`)
//! without lines, which this reader gives. A frame in inlined code reads as gprofng prints it,
//! with the chain of inlined calls ([`LineTable::inlined_chain`], `<-- operator()
//! names.cc:82`); gprofng's `alternate source context` (a line in a file other than its
//! function's) is not told apart.
//!
//! Hostile input cannot make it panic, loop or allocate beyond what the sections hold: the
//! line programs are walked one after the other through `.debug_line` (each read once, the
//! work linear in the section), each unit's entries once (its abbreviations read once per
//! table offset; a crafted file whose units point into one another's tables can make that
//! part quadratic in `.debug_abbrev`'s size, never endless), the inlined ranges kept are at
//! most the sections' bytes, and gimli's errors
//! become [`Error::Invalid`] with the file offset of the line program or unit they came from.
//! Compressed sections (`SHF_COMPRESSED`) and DWARF in separate files (`.gnu_debuglink`) are
//! not read.

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
    /// Per function (by its start address), the code inlined into it
    /// (`DW_TAG_inlined_subroutine` of GCC-made units), as gprofng lists it: in the units'
    /// order, each address range of each inlined call once, with its nesting level.
    pub inlined: BTreeMap<u64, Vec<InlinedCall>>,
    /// Names of inlined functions (the `DW_AT_name` of an inlined call's abstract origin),
    /// for [`InlinedCall::function`].
    pub inlined_functions: Vec<String>,
}

/// One address range of code inlined into a function, and the call it was inlined at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InlinedCall {
    /// First address of the range.
    pub low: u64,
    /// First address past the range.
    pub high: u64,
    /// 0 for code inlined into the function itself, 1 for code inlined into that, …
    pub level: u32,
    /// The call's file (`DW_AT_call_file`), an index in [`LineTable::files`].
    pub file: Option<u32>,
    /// The call's line (`DW_AT_call_line`).
    pub line: u32,
    /// The inlined function's name, an index in [`LineTable::inlined_functions`].
    pub function: Option<u32>,
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

/// The id of file `name` (its last component) in `files`, added if new.
fn intern(
    files: &mut Vec<String>,
    ids: &mut std::collections::HashMap<String, u32>,
    name: &[u8],
) -> u32 {
    let name = String::from_utf8_lossy(name);
    let base = name.rsplit('/').next().unwrap_or(&name);
    match ids.get(base) {
        Some(&id) => id,
        None => {
            let id = u32::try_from(files.len()).unwrap_or(u32::MAX);
            ids.insert(base.to_owned(), id);
            files.push(base.to_owned());
            id
        }
    }
}

/// The code inlined into each function, read from the units of `.debug_info` as gprofng
/// reads it (`DwrCU::parse_inlined_subroutine`, `DwrCU::map_dwarf_lines`): only units whose
/// producer starts with `GNU`; every `DW_TAG_inlined_subroutine` with its address ranges
/// (`DW_AT_low_pc`/`DW_AT_high_pc` or `DW_AT_ranges`, ranges starting at 0 or ending before
/// they start left out), nested ones one level deeper; the ranges given to the function
/// holding their start, a function's list restarting when another function's ranges came in
/// between. The work is linear in the sections (each unit's abbreviations are read once per
/// table offset) and the ranges kept are bounded by the sections' sizes.
fn inlined_calls(
    data: &[u8],
    elf: &Elf,
    endian: gimli::RunTimeEndian,
    program_files: &std::collections::HashMap<usize, Vec<Option<Vec<u8>>>>,
    (file_names, file_ids): (
        &mut Vec<String>,
        &mut std::collections::HashMap<String, u32>,
    ),
    function_names: &mut Vec<String>,
) -> Result<BTreeMap<u64, Vec<InlinedCall>>> {
    let mut function_ids: std::collections::HashMap<Vec<u8>, u32> =
        std::collections::HashMap::new();
    let (info_bytes, info_at) = section(elf, data, ".debug_info")?;
    let (abbrev_bytes, _) = section(elf, data, ".debug_abbrev")?;
    let (str_bytes, _) = section(elf, data, ".debug_str")?;
    let (line_str_bytes, _) = section(elf, data, ".debug_line_str")?;
    let (ranges_bytes, _) = section(elf, data, ".debug_ranges")?;
    let (rnglists_bytes, _) = section(elf, data, ".debug_rnglists")?;
    let debug_info = gimli::DebugInfo::from(Reader::new(info_bytes, endian));
    let debug_abbrev = gimli::DebugAbbrev::from(Reader::new(abbrev_bytes, endian));
    let debug_str = gimli::DebugStr::from(Reader::new(str_bytes, endian));
    let debug_line_str = gimli::DebugLineStr::from(Reader::new(line_str_bytes, endian));
    let range_lists = gimli::RangeLists::new(
        gimli::DebugRanges::from(Reader::new(ranges_bytes, endian)),
        gimli::DebugRngLists::from(Reader::new(rnglists_bytes, endian)),
    );
    let debug_addr = gimli::DebugAddr::from(Reader::new(&[], endian));
    // Every range kept takes at least one byte of these sections.
    let budget = info_bytes
        .len()
        .saturating_add(ranges_bytes.len())
        .saturating_add(rnglists_bytes.len());
    let mut kept = 0usize;

    let mut out: BTreeMap<u64, Vec<InlinedCall>> = BTreeMap::new();
    let mut abbreviations: std::collections::HashMap<usize, gimli::Abbreviations> =
        std::collections::HashMap::new();
    let mut units = debug_info.units();
    let mut next_unit = 0u64;
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
        let at = info_at + unit_offset;
        let abbrev_offset = header.debug_abbrev_offset();
        let abbrevs = match abbreviations.entry(abbrev_offset.0) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                // The error is placed at the unit whose header points at the table.
                let table =
                    debug_abbrev
                        .abbreviations(abbrev_offset)
                        .map_err(|err| Error::Invalid {
                            what: "DWARF unit's abbreviations",
                            offset: at,
                            expected: format!(
                                "a table at .debug_abbrev offset {} gimli can read",
                                abbrev_offset.0
                            ),
                            found: err.to_string(),
                        })?;
                e.insert(table)
            }
        };
        let encoding = header.encoding();
        let mut cursor = header.entries(abbrevs);
        let die_error = |e| gimli_error("DWARF debugging information entry", at, e);
        let Some((_, root)) = cursor.next_dfs().map_err(die_error)? else {
            continue;
        };
        let producer = root
            .attr_value(gimli::DW_AT_producer)
            .map_err(die_error)?
            .and_then(|v| file_name(v, &debug_str, &debug_line_str));
        if !producer.is_some_and(|p| p.slice().starts_with(b"GNU")) {
            continue;
        }
        let files = match root.attr_value(gimli::DW_AT_stmt_list).map_err(die_error)? {
            Some(gimli::AttributeValue::DebugLineRef(o)) => program_files.get(&o.0),
            _ => None,
        };
        let base = match root.attr_value(gimli::DW_AT_low_pc).map_err(die_error)? {
            Some(gimli::AttributeValue::Addr(a)) => a,
            _ => 0,
        };
        // (depth, level) of the inlined subroutines enclosing the current entry.
        let mut open: Vec<(isize, u32)> = Vec::new();
        let mut depth = 0isize;
        // The function whose list the last ranges went to.
        let mut current: Option<u64> = None;
        while let Some((delta, entry)) = cursor.next_dfs().map_err(die_error)? {
            depth = depth.saturating_add(delta);
            while open.last().is_some_and(|&(d, _)| d >= depth) {
                open.pop();
            }
            if entry.tag() != gimli::DW_TAG_inlined_subroutine {
                continue;
            }
            let level = open.last().map_or(0, |&(_, l)| l.saturating_add(1));
            let value = |name| entry.attr_value(name).map_err(die_error);
            let file = match value(gimli::DW_AT_call_file)? {
                Some(gimli::AttributeValue::FileIndex(i)) => Some(i),
                Some(v) => v.udata_value(),
                None => None,
            }
            .and_then(|i| files?.get(usize::try_from(i).ok()?)?.as_deref())
            .map(|name| intern(file_names, file_ids, name));
            // The name of the abstract origin (in this unit), as gprofng reads it.
            let function = match value(gimli::DW_AT_abstract_origin)? {
                Some(gimli::AttributeValue::UnitRef(o)) => {
                    let mut origin = header.entries_at_offset(abbrevs, o).map_err(die_error)?;
                    origin.next_entry().map_err(die_error)?;
                    match origin.current() {
                        Some(e) => e
                            .attr_value(gimli::DW_AT_name)
                            .map_err(die_error)?
                            .and_then(|v| file_name(v, &debug_str, &debug_line_str)),
                        None => None,
                    }
                }
                _ => None,
            }
            .map(|name| {
                let name = name.slice().to_vec();
                match function_ids.get(&name) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(function_names.len()).unwrap_or(u32::MAX);
                        function_names.push(String::from_utf8_lossy(&name).into_owned());
                        function_ids.insert(name, id);
                        id
                    }
                }
            });
            let line = value(gimli::DW_AT_call_line)?
                .and_then(|v| v.udata_value())
                .and_then(|l| u32::try_from(l).ok())
                .unwrap_or(0);
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            match value(gimli::DW_AT_ranges)? {
                Some(gimli::AttributeValue::RangeListsRef(o)) => {
                    let offset = gimli::RangeListsOffset(o.0);
                    let mut list = range_lists
                        .ranges(offset, encoding, base, &debug_addr, gimli::DebugAddrBase(0))
                        .map_err(die_error)?;
                    while let Some(r) = list.next().map_err(die_error)? {
                        ranges.push((r.begin, r.end));
                        kept = kept.saturating_add(1);
                        if kept > budget {
                            return Err(Error::Invalid {
                                what: "DWARF inlined subroutine ranges",
                                offset: at,
                                expected: format!("at most {budget} ranges (the sections' bytes)"),
                                found: "more".into(),
                            });
                        }
                    }
                }
                Some(_) => {}
                None => {
                    let low = match value(gimli::DW_AT_low_pc)? {
                        Some(gimli::AttributeValue::Addr(a)) => Some(a),
                        _ => None,
                    };
                    let high = match (low, value(gimli::DW_AT_high_pc)?) {
                        (_, Some(gimli::AttributeValue::Addr(h))) => Some(h),
                        (Some(l), Some(v)) => v.udata_value().map(|n| l.saturating_add(n)),
                        _ => None,
                    };
                    if let (Some(l), Some(h)) = (low, high) {
                        ranges.push((l, h));
                        kept = kept.saturating_add(1);
                    }
                }
            }
            let mut any = false;
            for (low, high) in ranges {
                if low == 0 || low > high {
                    continue;
                }
                any = true;
                let Some(holder) = elf.function(low).filter(|f| !f.plt) else {
                    continue;
                };
                let list = out.entry(holder.address).or_default();
                if current != Some(holder.address) {
                    current = Some(holder.address);
                    list.clear();
                }
                list.push(InlinedCall {
                    low,
                    high,
                    level,
                    file,
                    line,
                    function,
                });
            }
            if any {
                open.push((depth, level));
            }
        }
    }
    Ok(out)
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

    /// The source line of `address` in `elf` (the object this table was read from): the last
    /// row at or before it inside its function; `None` outside every function or before its
    /// function's first row.
    pub fn line(&self, elf: &Elf, address: u64) -> Option<SourceLine<'_>> {
        let function = elf.function(address)?;
        if let Some((calls, at)) = self.inlined_at(function.address, address) {
            let call = calls.get(at)?;
            if let Some(file) = call.file.and_then(|f| self.files.get(f as usize)) {
                return Some(SourceLine {
                    file,
                    line: call.line,
                });
            }
        }
        self.row_line(function.address, address)
    }

    /// The inlined calls of the function starting at `function` and the index of the one
    /// `address` is in (gprofng `DbeInstr::mapPCtoLine`): the first outermost inlined range
    /// holding it, looking no further than the first one starting after it.
    fn inlined_at(&self, function: u64, address: u64) -> Option<(&[InlinedCall], usize)> {
        let calls = self.inlined.get(&function)?;
        for (at, call) in calls.iter().enumerate() {
            if call.level != 0 {
                continue;
            }
            if address < call.low {
                return None;
            }
            if address < call.high {
                return Some((calls, at));
            }
        }
        None
    }

    /// The chain of inlined calls gprofng appends to a frame at `address` in inlined code
    /// (`DbeInstr::add_inlined_info`), without the spaces before it: each call holding the
    /// address, outermost first, as `function file:line <-- ` of the next, then the innermost
    /// function and the line table's own line: `<-- operator() names.cc:82 ` (trailing space
    /// included). `None` outside inlined code.
    pub fn inlined_chain(&self, elf: &Elf, address: u64) -> Option<String> {
        let function = elf.function(address)?;
        let (calls, first) = self.inlined_at(function.address, address)?;
        let name = |c: &InlinedCall| -> Option<&str> {
            c.function
                .and_then(|f| self.inlined_functions.get(f as usize))
                .map(String::as_str)
        };
        let file = |c: &InlinedCall| -> &str {
            c.file
                .and_then(|f| self.files.get(f as usize))
                .map_or("(unknown)", String::as_str)
        };
        let mut text = String::from("<-- ");
        let mut last: Option<&InlinedCall> = None;
        for (i, call) in calls.iter().enumerate().skip(first) {
            if call.level == 0 && i > first {
                break;
            }
            if !(call.low <= address && address < call.high) {
                continue;
            }
            if let Some(previous) = last {
                if let Some(n) = name(previous) {
                    text.push_str(n);
                    text.push(' ');
                }
                text.push_str(&format!("{}:{} <-- ", file(call), call.line));
            }
            last = Some(call);
        }
        if let Some(n) = last.and_then(name) {
            text.push_str(n);
            text.push(' ');
        }
        let own = self.row_line(function.address, address);
        let (f, l) = own.map_or(("(unknown)", 0), |s| (s.file, s.line));
        text.push_str(&format!("{f}:{l} "));
        Some(text)
    }

    /// The line of the last row at or before `address` inside the function starting at
    /// `function`.
    fn row_line(&self, function: u64, address: u64) -> Option<SourceLine<'_>> {
        let i = self.rows.partition_point(|r| r.address <= address);
        let row = self.rows.get(i.checked_sub(1)?)?;
        if row.address < function {
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

/// The address of row `i` of `rows` (0 past the end, which the sort never asks for).
fn key(rows: &[(u64, u32, u32)], i: usize) -> u64 {
    rows.get(i).map_or(0, |r| r.0)
}

/// Sorts `rows` by address exactly as gprofng's `Vector::sort` does (its own quicksort in
/// `vec.h`, not the C library's), so that rows sharing an address end in gprofng's order:
/// slices under 6 rows by insertion (a row moves before the rows strictly above it); larger
/// ones take the median of the first, middle and last rows as pivot (moved into the middle
/// slot by gprofng's three-way exchange), partition around it from both ends with the pivot
/// slot following the exchanges, then sort the smaller side recursively and loop on the
/// larger (so the depth stays logarithmic).
fn sort_like_gprofng(rows: &mut [(u64, u32, u32)]) {
    let mut v = rows;
    loop {
        let n = v.len();
        if n < 6 {
            for i in 1..n {
                let t = key(v, i);
                let mut q = i;
                while q > 0 && key(v, q - 1) > t {
                    q -= 1;
                }
                if let Some(s) = v.get_mut(q..=i) {
                    s.rotate_right(1);
                }
            }
            return;
        }
        let (first, last) = (0, n - 1);
        let mut mid = n / 2;
        // The median of three into the middle slot, the others ordered around it.
        let (mut a1, a2, a3);
        if key(v, first) > key(v, mid) {
            if key(v, mid) > key(v, last) {
                a1 = first;
                a2 = last;
                a3 = last;
            } else if key(v, first) > key(v, last) {
                a1 = first;
                a2 = mid;
                a3 = last;
            } else {
                a1 = first;
                a2 = mid;
                a3 = mid;
            }
        } else if key(v, mid) > key(v, last) {
            a1 = mid;
            a3 = last;
            a2 = if key(v, first) > key(v, last) {
                first
            } else {
                a3
            };
        } else {
            a1 = first;
            a2 = first;
            a3 = first;
        }
        if a1 != a2 {
            // first ← second ← third ← first (the exchange gprofng makes).
            if let (Some(&t1), Some(&t2), Some(&t3)) = (v.get(a1), v.get(a2), v.get(a3)) {
                let mut put = |at: usize, r: (u64, u32, u32)| {
                    if let Some(x) = v.get_mut(at) {
                        *x = r;
                    }
                };
                put(a1, t2);
                if a2 != a3 {
                    put(a2, t3);
                }
                put(a3, t1);
            }
        }
        a1 = 1;
        let mut i = a1;
        let mut j = last - 1;
        loop {
            while i < mid && key(v, i) <= key(v, mid) {
                i += 1;
            }
            while j > mid && key(v, mid) <= key(v, j) {
                j -= 1;
            }
            if i == j {
                break;
            }
            v.swap(i, j);
            if i == mid {
                mid = j;
                i += 1;
            } else if j == mid {
                mid = i;
                j -= 1;
            } else {
                i += 1;
                j -= 1;
            }
        }
        let taken = std::mem::take(&mut v);
        let (left, rest) = taken.split_at_mut(mid);
        let right = rest.get_mut(1..).unwrap_or_default();
        if left.len() <= right.len() {
            sort_like_gprofng(left);
            v = right;
        } else {
            sort_like_gprofng(right);
            v = left;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort_like_gprofng;

    #[test]
    fn gprofngs_sort_sorts_and_orders_ties_its_way() {
        // Sorted by address whatever the input; ties keep gprofng's order, not the input's.
        let mut seed = 0x2545_f491_u64;
        for n in 0..200 {
            let mut rows: Vec<(u64, u32, u32)> = (0..n)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 7, i, 0)
                })
                .collect();
            let mut want = rows.clone();
            want.sort_by_key(|r| r.0);
            sort_like_gprofng(&mut rows);
            let keys: Vec<u64> = rows.iter().map(|r| r.0).collect();
            let want_keys: Vec<u64> = want.iter().map(|r| r.0).collect();
            assert_eq!(keys, want_keys, "{n}");
            let mut ids: Vec<u32> = rows.iter().map(|r| r.1).collect();
            ids.sort_unstable();
            assert_eq!(ids, (0..n).collect::<Vec<u32>>(), "a permutation");
        }
        // Under 6 rows: insertion, which keeps ties in order.
        let mut rows = vec![(5, 0, 0), (3, 1, 0), (5, 2, 0), (3, 3, 0)];
        sort_like_gprofng(&mut rows);
        assert_eq!(rows, [(3, 1, 0), (3, 3, 0), (5, 0, 0), (5, 2, 0)]);
        // Six rows at one address: the median-of-three exchange moves the middle row last
        // when first = middle = last … none of them compare greater, so nothing moves.
        let mut rows: Vec<(u64, u32, u32)> = (0..6).map(|i| (1, i, 0)).collect();
        sort_like_gprofng(&mut rows);
        assert_eq!(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5]
        );
    }
}
