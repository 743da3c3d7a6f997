//! ELF load objects, read just far enough to name a PC the way gprofng does (System V ABI
//! "ELF Header", "Program Header", "Sections", "Symbol Table"; gprofng `Stabs::check_Symtab`,
//! `Stabs::readSymSec`, `Stabs::fixSymtabAlias`).
//!
//! An experiment records PCs and the load objects mapped at them (`map.xml`), but not their
//! symbols: those are in the load objects themselves (or their copies in `archives/`). The
//! caller hands the bytes of one to [`Elf::parse`], which reads the ELF header (32- or 64-bit,
//! either byte order), the program headers, the section headers and the function symbols:
//!
//! * the symbols come from `.symtab` when there is one (the first `SHT_SYMTAB` section), else
//!   from `.dynsym` (and Solaris' `.SUNW_ldynsym`; the first section of each type) — never
//!   both, like gprofng;
//! * only `STT_FUNC` symbols defined in a real section count (undefined and `SHN_ABS`/other
//!   reserved section indexes are skipped, as are symbols at address 0);
//! * symbols at the same address are aliases: the shortest name stands for all of them, with
//!   the largest of their sizes;
//! * a size of 0, or one running into the next symbol, is cut at the next symbol's address;
//!   what is still 0 long (the last symbol without a size) names nothing.
//!
//! Separate debug files made by `objcopy --only-keep-debug` parse too: their `.symtab` is
//! intact, and their program headers keep `p_vaddr`/`p_memsz` (only the file offsets and file
//! sizes are rewritten), which is what [`Elf::load_address`] needs.

mod headers;

pub use headers::{
    ELFCLASS32, ELFCLASS64, ELFDATA2LSB, ELFDATA2MSB, ELFMAG, ElfHeader, ProgramHeader,
    SectionHeader,
};

use crate::cursor::WordSize;
use crate::error::Result;
use headers::{entry_size, invalid, table};

/// `p_type` of a loadable segment.
pub const PT_LOAD: u32 = 1;
/// `sh_type` of the full symbol table.
pub const SHT_SYMTAB: u32 = 2;
/// `sh_type` of a section that occupies no file space.
pub const SHT_NOBITS: u32 = 8;
/// `sh_type` of the dynamic symbol table.
pub const SHT_DYNSYM: u32 = 11;
/// `sh_type` of Solaris' local dynamic symbols (`.SUNW_ldynsym`).
pub const SHT_SUNW_LDYNSYM: u32 = 0x6fff_fff3;
/// Symbol type of a function (`STT_FUNC`).
pub const STT_FUNC: u8 = 2;
/// `e_shstrndx` value saying the real index is in section 0's `sh_link`.
pub const SHN_XINDEX: u32 = 0xffff;
/// gprofng's name of the function covering the `.plt` section.
pub const PLT_NAME: &str = "@plt";
/// `e_phnum` value saying the real count is in section 0's `sh_info`.
pub const PN_XNUM: u16 = 0xffff;

/// A function as gprofng sees it: one address range named by a function symbol. Its name
/// (the shortest of the aliases at this address) is [`Elf::name`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FunctionSymbol {
    /// Start address (`st_value`).
    pub address: u64,
    /// Size after gprofng's fix-ups (never 0).
    pub size: u64,
    /// The whole `.plt` section, which gprofng makes one function named `@plt`
    /// (`Stabs::check_Symtab`; [`PLT_NAME`]): a leaf PC in it is skipped from stacks.
    pub plt: bool,
    /// The name's bytes in [`Elf`]'s copy of the string tables: names are kept once however
    /// many symbols share them (a hostile table can point every symbol at one long string).
    name: std::ops::Range<usize>,
}

/// Which table the functions came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SymbolSource {
    /// `SHT_SYMTAB` (`.symtab`).
    Symtab,
    /// `SHT_DYNSYM` (`.dynsym`, plus `.SUNW_ldynsym`): the object was stripped.
    Dynsym,
    /// Neither: no function names.
    None,
}

/// An ELF load object's headers and function symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Elf {
    /// The ELF header.
    pub header: ElfHeader,
    /// Program headers in file order.
    pub program_headers: Vec<ProgramHeader>,
    /// Section headers in file order.
    pub section_headers: Vec<SectionHeader>,
    /// Where [`Elf::functions`] came from.
    pub symbol_source: SymbolSource,
    /// Functions sorted by address, not overlapping.
    pub functions: Vec<FunctionSymbol>,
    /// gprofng's `@plt` function over the `.plt` section, when the section names could be
    /// read (also in [`Elf::functions`] where no symbol overlaps it).
    pub plt: Option<FunctionSymbol>,
    /// The string tables the symbols were named from, one after the other.
    strings: Vec<u8>,
}

/// One `STT_FUNC` symbol before the alias and size fix-ups; `name` indexes `Elf::strings`.
struct RawSymbol {
    address: u64,
    size: u64,
    name: std::ops::Range<usize>,
}

impl Elf {
    /// Parses the headers and function symbols of the ELF object in `data`. Every table must
    /// lie inside `data`; errors give the offset of what could not be read.
    pub fn parse(data: &[u8]) -> Result<Elf> {
        let (mut header, e_phnum) = ElfHeader::parse(data)?;
        let class = header.class;

        // Section headers first: section 0 may hold the extended counts.
        let mut section_headers = Vec::new();
        if header.e_shoff != 0 {
            let entsize = entry_size(
                header.e_shentsize,
                SectionHeader::size(class),
                "ELF e_shentsize",
            )?;
            let first = table(data, header.e_shoff, entsize, "ELF section header 0")?;
            let s0 = SectionHeader::parse(&mut header.cursor(first, header.e_shoff))?;
            if header.shnum == 0 {
                header.shnum = s0.sh_size;
            }
            if e_phnum == PN_XNUM {
                header.phnum = s0.sh_info;
            }
            if header.shstrndx == SHN_XINDEX {
                header.shstrndx = s0.sh_link;
            }
            section_headers = header.entries(
                data,
                header.e_shoff,
                header.shnum,
                entsize,
                "ELF section header table",
                SectionHeader::parse,
            )?;
        }

        let mut program_headers = Vec::new();
        if header.phnum != 0 {
            let entsize = entry_size(
                header.e_phentsize,
                ProgramHeader::size(class),
                "ELF e_phentsize",
            )?;
            program_headers = header.entries(
                data,
                header.e_phoff,
                u64::from(header.phnum),
                entsize,
                "ELF program header table",
                ProgramHeader::parse,
            )?;
        }

        let mut elf = Elf {
            header,
            program_headers,
            section_headers,
            symbol_source: SymbolSource::None,
            functions: Vec::new(),
            plt: None,
            strings: Vec::new(),
        };
        elf.read_functions(data)?;
        elf.add_plt(data);
        Ok(elf)
    }

    /// The name of section `idx` from the section name table, if that table has bytes.
    pub fn section_name<'d>(&self, data: &'d [u8], idx: usize) -> Option<&'d [u8]> {
        let sh = self.section_headers.get(idx)?;
        let names = self.section_headers.get(self.header.shstrndx as usize)?;
        if names.sh_type == SHT_NOBITS {
            return None;
        }
        let table = table(data, names.sh_offset, names.sh_size, "ELF section names").ok()?;
        let rest = table.get(sh.sh_name as usize..)?;
        rest.split(|&b| b == 0).next()
    }

    /// gprofng's `@plt` function over the `.plt` section (when the section names can be read
    /// and no symbol lies inside it).
    fn add_plt(&mut self, data: &[u8]) {
        let Some((addr, size)) = (0..self.section_headers.len())
            .find(|&i| self.section_name(data, i) == Some(b".plt"))
            .and_then(|i| self.section_headers.get(i))
            .map(|s| (s.sh_addr, s.sh_size))
            .filter(|&(a, s)| a != 0 && s != 0)
        else {
            return;
        };
        let at = self.functions.partition_point(|f| f.address < addr);
        let clear_before = at
            .checked_sub(1)
            .and_then(|i| self.functions.get(i))
            .is_none_or(|f| f.address.saturating_add(f.size) <= addr);
        let clear_after = self
            .functions
            .get(at)
            .is_none_or(|f| f.address >= addr.saturating_add(size));
        let start = self.strings.len();
        self.strings.extend_from_slice(PLT_NAME.as_bytes());
        let plt = FunctionSymbol {
            address: addr,
            size,
            plt: true,
            name: start..self.strings.len(),
        };
        // gprofng keeps `@plt` beside the symbols (a size-0 `_init` stretched to the next
        // symbol may cover it): PCs in .plt are `@plt` either way, and where no symbol
        // overlaps it, it also bounds the holes around it.
        if clear_before && clear_after {
            self.functions.insert(at, plt.clone());
        }
        self.plt = Some(plt);
    }

    /// gprofng's `check_Symtab`: `.symtab` if there is one, else the dynamic symbols.
    fn read_functions(&mut self, data: &[u8]) -> Result<()> {
        // One table of each type, however many headers claim that type (every table read
        // would copy its string table and symbols again).
        let (source, tables) = match self.first_of_type(SHT_SYMTAB) {
            Some(symtab) => (SymbolSource::Symtab, vec![symtab]),
            None => {
                let dynsym: Vec<usize> = [SHT_SUNW_LDYNSYM, SHT_DYNSYM]
                    .into_iter()
                    .filter_map(|t| self.first_of_type(t))
                    .collect();
                if dynsym.is_empty() {
                    return Ok(());
                }
                (SymbolSource::Dynsym, dynsym)
            }
        };
        self.symbol_source = source;
        let mut raw = Vec::new();
        for idx in tables {
            self.read_symbols(data, idx, &mut raw)?;
        }
        self.functions = fix_aliases(raw);
        Ok(())
    }

    /// The index of the first section of type `sh_type`.
    fn first_of_type(&self, sh_type: u32) -> Option<usize> {
        self.section_headers
            .iter()
            .position(|s| s.sh_type == sh_type)
    }

    /// Reads the `STT_FUNC` symbols of symbol table section `idx` (gprofng `readSymSec`).
    fn read_symbols(&mut self, data: &[u8], idx: usize, out: &mut Vec<RawSymbol>) -> Result<()> {
        let Some(sh) = self.section_headers.get(idx).copied() else {
            return Ok(());
        };
        let shoff = self.header.e_shoff + idx as u64 * u64::from(self.header.e_shentsize);
        let symsize: u64 = match self.header.class {
            WordSize::W32 => 16,
            WordSize::W64 => 24,
        };
        if sh.sh_size == 0 {
            return Ok(());
        }
        if sh.sh_entsize < symsize {
            return Err(invalid(
                "ELF symbol table sh_entsize",
                shoff,
                format!("at least {symsize}"),
                sh.sh_entsize.to_string(),
            ));
        }
        let syms = table(data, sh.sh_offset, sh.sh_size, "ELF symbol table")?;
        let strtab = match self.section_headers.get(sh.sh_link as usize) {
            Some(s) if s.sh_type != SHT_NOBITS => {
                table(data, s.sh_offset, s.sh_size, "ELF string table")?
            }
            _ => {
                return Err(invalid(
                    "ELF symbol table sh_link",
                    shoff,
                    format!("a string table section (< {})", self.section_headers.len()),
                    sh.sh_link.to_string(),
                ));
            }
        };
        // One copy of the string table, and where its names end (found once, not per symbol).
        let strings_at = self.strings.len();
        self.strings.extend_from_slice(strtab);
        let nuls: Vec<usize> = strtab
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == 0)
            .map(|(i, _)| i)
            .collect();
        let entsize = usize::try_from(sh.sh_entsize).unwrap_or(usize::MAX);
        for (i, chunk) in syms.chunks_exact(entsize).enumerate() {
            let base = sh.sh_offset + (i as u64) * sh.sh_entsize;
            let mut c = self.header.cursor(chunk, base);
            let (st_name, st_value, st_size, st_info, st_shndx) = match self.header.class {
                WordSize::W64 => {
                    let name = c.u32("ELF st_name")?;
                    let info = c.u8("ELF st_info")?;
                    c.u8("ELF st_other")?;
                    let shndx = c.u16("ELF st_shndx")?;
                    (
                        name,
                        c.u64("ELF st_value")?,
                        c.u64("ELF st_size")?,
                        info,
                        shndx,
                    )
                }
                WordSize::W32 => {
                    let name = c.u32("ELF st_name")?;
                    let value = c.word("ELF st_value")?;
                    let size = c.word("ELF st_size")?;
                    let info = c.u8("ELF st_info")?;
                    c.u8("ELF st_other")?;
                    (name, value, size, info, c.u16("ELF st_shndx")?)
                }
            };
            // gprofng: a function whose section index names no section header (undefined,
            // SHN_ABS, SHN_COMMON, ...) is not a function of this object.
            if st_info & 0xf != STT_FUNC
                || st_shndx == 0
                || u64::from(st_shndx) >= self.header.shnum
                || st_value == 0
            {
                continue;
            }
            let start = st_name as usize;
            let name = if start <= strtab.len() {
                let end = nuls
                    .get(nuls.partition_point(|&nul| nul < start))
                    .copied()
                    .unwrap_or(strtab.len());
                strings_at + start..strings_at + end
            } else {
                // gprofng names such a symbol "no_name"; an empty name says as much.
                strings_at..strings_at
            };
            out.push(RawSymbol {
                address: st_value,
                size: st_size,
                name,
            });
        }
        Ok(())
    }

    /// Bytes of string tables kept for the names (each table once, however many symbols
    /// share its strings): what the names cost in memory.
    pub fn string_bytes(&self) -> usize {
        self.strings.len()
    }

    /// The name of `function` (one of [`Elf::functions`]), lossily decoded as UTF-8.
    pub fn name(&self, function: &FunctionSymbol) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.strings.get(function.name.clone()).unwrap_or_default())
    }

    /// The name of the function containing virtual address `address`.
    pub fn function_name(&self, address: u64) -> Option<std::borrow::Cow<'_, str>> {
        self.function(address).map(|f| self.name(f))
    }

    /// The function containing virtual address `address` (`@plt` for the `.plt` section).
    pub fn function(&self, address: u64) -> Option<&FunctionSymbol> {
        if let Some(p) = self
            .plt
            .as_ref()
            .filter(|p| address.wrapping_sub(p.address) < p.size)
        {
            return Some(p);
        }
        let i = self.functions.partition_point(|f| f.address <= address);
        let f = self.functions.get(i.checked_sub(1)?)?;
        (address - f.address < f.size).then_some(f)
    }

    /// The virtual address of file offset `offset`: through the `PT_LOAD` segment whose file
    /// bytes hold it. `None` when no such segment exists (also in a debug-only file, whose
    /// segments have no file bytes: use [`Elf::load_address`] and the load bias then).
    pub fn address_of_offset(&self, offset: u64) -> Option<u64> {
        self.program_headers
            .iter()
            .filter(|p| p.p_type == PT_LOAD && p.p_filesz > 0)
            .find(|p| offset >= p.p_offset && offset - p.p_offset < p.p_filesz)
            .map(|p| p.p_vaddr.wrapping_add(offset - p.p_offset))
    }

    /// The page-aligned virtual address of the first `PT_LOAD` segment: what the dynamic
    /// loader maps at the object's load bias, i.e. where file offset 0 of the object ends up.
    /// A run-time address `pc` in an object whose offset 0 was mapped at `base` is at
    /// `pc - base + load_address()` in the object.
    pub fn load_address(&self) -> Option<u64> {
        let p = self.program_headers.iter().find(|p| p.p_type == PT_LOAD)?;
        let align = if p.p_align.is_power_of_two() {
            p.p_align
        } else {
            1
        };
        Some(p.p_vaddr & !(align - 1))
    }
}

/// gprofng's `fixSymtabAlias`: one function per address (the shortest alias name, the first
/// in table order among equally short ones; the largest size), sizes cut at the next function,
/// zero-sized ones dropped.
fn fix_aliases(mut raw: Vec<RawSymbol>) -> Vec<FunctionSymbol> {
    // Stable: aliases keep their table order.
    raw.sort_by_key(|s| s.address);
    let mut out: Vec<FunctionSymbol> = Vec::new();
    let mut i = 0;
    while let Some(first) = raw.get(i) {
        let mut j = i;
        let mut best = first;
        let mut size = first.size;
        while let Some(s) = raw.get(j).filter(|s| s.address == first.address) {
            size = size.max(s.size);
            if s.name.len() < best.name.len() {
                best = s;
            }
            j += 1;
        }
        if let Some(next) = raw.get(j) {
            let gap = next.address - first.address;
            if size == 0 || gap < size {
                size = gap;
            }
        }
        if size != 0 {
            out.push(FunctionSymbol {
                address: first.address,
                size,
                plt: false,
                name: best.name.clone(),
            });
        }
        i = j;
    }
    out
}
