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
//!
//! | file | what it does |
//! |---|---|
//! | `mod.rs` | the [`LineTable`] model and its lookups (a PC's line, its inlined calls) |
//! | `sections.rs` | the DWARF sections' bytes in the ELF file |
//! | `line_program.rs` | [`LineTable::parse`]: the line programs of `.debug_line` |
//! | `files.rs` | source file names as gprofng prints them, each given an id once |
//! | `inlined.rs` | the inlined calls of `.debug_info`'s units |
//! | `sort.rs` | gprofng's quicksort, which orders rows sharing an address |

mod files;
mod inlined;
mod line_program;
mod sections;
mod sort;

use crate::elf::Elf;
use crate::error::Error;
use std::collections::BTreeMap;

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

pub(crate) type Reader<'d> = gimli::EndianSlice<'d, gimli::RunTimeEndian>;

pub(crate) fn gimli_error(what: &'static str, offset: u64, e: gimli::Error) -> Error {
    Error::Invalid {
        what,
        offset,
        expected: "well-formed DWARF (versions 2 to 5)".into(),
        found: format!("what gimli rejects: {e}"),
    }
}

impl LineTable {
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
