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
            // gprofng orders each program's rows by address with its own quicksort, which
            // decides which of several rows at one address comes last (and wins).
            sort_like_gprofng(&mut program_rows);
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
