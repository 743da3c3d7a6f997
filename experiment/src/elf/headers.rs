//! The ELF header, program headers and section headers (System V ABI "ELF Header",
//! "Program Header", "Sections"), 32- or 64-bit, either byte order, extended numbering
//! resolved.

use crate::cursor::{Cursor, Endian, WordSize};
use crate::error::{Error, Result};

/// `\x7fELF`.
pub const ELFMAG: [u8; 4] = [0x7f, b'E', b'L', b'F'];
/// `EI_CLASS` value of 32-bit objects.
pub const ELFCLASS32: u8 = 1;
/// `EI_CLASS` value of 64-bit objects.
pub const ELFCLASS64: u8 = 2;
/// `EI_DATA` value of little-endian objects.
pub const ELFDATA2LSB: u8 = 1;
/// `EI_DATA` value of big-endian objects.
pub const ELFDATA2MSB: u8 = 2;

/// The ELF header (`Elf32_Ehdr`/`Elf64_Ehdr`) with extended numbering resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ElfHeader {
    /// `EI_CLASS`: 32- or 64-bit.
    pub class: WordSize,
    /// `EI_DATA`: byte order.
    pub endian: Endian,
    /// `e_type` (2 = executable, 3 = shared object).
    pub e_type: u16,
    /// `e_machine` (62 = x86-64, 183 = AArch64, 43 = SPARC V9).
    pub e_machine: u16,
    /// `e_phoff`: file offset of the program header table.
    pub e_phoff: u64,
    /// `e_shoff`: file offset of the section header table.
    pub e_shoff: u64,
    /// `e_phentsize`.
    pub e_phentsize: u16,
    /// Number of program headers (`e_phnum`, or section 0's `sh_info` when it is `PN_XNUM`).
    pub phnum: u32,
    /// `e_shentsize`.
    pub e_shentsize: u16,
    /// Number of section headers (`e_shnum`, or section 0's `sh_size` when it is 0).
    pub shnum: u64,
    /// Index of the section name table (`e_shstrndx`, or section 0's `sh_link` when it is
    /// `SHN_XINDEX`).
    pub shstrndx: u32,
}

/// A program header (`Elf32_Phdr`/`Elf64_Phdr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProgramHeader {
    /// `p_type` (1 = `PT_LOAD`).
    pub p_type: u32,
    /// `p_flags` (`PF_X` 1, `PF_W` 2, `PF_R` 4).
    pub p_flags: u32,
    /// `p_offset`: file offset of the segment.
    pub p_offset: u64,
    /// `p_vaddr`: its virtual address.
    pub p_vaddr: u64,
    /// `p_filesz`: bytes in the file.
    pub p_filesz: u64,
    /// `p_memsz`: bytes in memory.
    pub p_memsz: u64,
    /// `p_align`.
    pub p_align: u64,
}

/// A section header (`Elf32_Shdr`/`Elf64_Shdr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SectionHeader {
    /// `sh_name`: offset of the name in the section name table.
    pub sh_name: u32,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub sh_flags: u64,
    /// `sh_addr`.
    pub sh_addr: u64,
    /// `sh_offset`.
    pub sh_offset: u64,
    /// `sh_size`.
    pub sh_size: u64,
    /// `sh_link` (for a symbol table: its string table).
    pub sh_link: u32,
    /// `sh_info`.
    pub sh_info: u32,
    /// `sh_entsize` (for a symbol table: the size of one symbol).
    pub sh_entsize: u64,
}

pub(super) fn invalid(
    what: &'static str,
    offset: u64,
    expected: impl Into<String>,
    found: String,
) -> Error {
    Error::Invalid {
        what,
        offset,
        expected: expected.into(),
        found,
    }
}

/// `offset..offset + len` of `data` as a slice, or a truncation error naming `what`.
pub(super) fn table<'a>(
    data: &'a [u8],
    offset: u64,
    len: u64,
    what: &'static str,
) -> Result<&'a [u8]> {
    let start = usize::try_from(offset).ok();
    let end = offset
        .checked_add(len)
        .and_then(|e| usize::try_from(e).ok());
    match (start, end) {
        (Some(s), Some(e)) if e <= data.len() => Ok(data.get(s..e).unwrap_or_default()),
        _ => Err(Error::Truncated {
            what,
            offset,
            needed: len,
            available: (data.len() as u64).saturating_sub(offset),
        }),
    }
}

impl ElfHeader {
    /// Reads the ELF header at the start of `data` (without extended numbering).
    pub(super) fn parse(data: &[u8]) -> Result<(ElfHeader, u16)> {
        let mut c = Cursor::new(data, 0, Endian::Little, WordSize::W64);
        let ident = c.bytes(16, "ELF e_ident")?;
        if ident.get(..4) != Some(&ELFMAG[..]) {
            return Err(invalid(
                "ELF magic",
                0,
                "7f 45 4c 46 (\\x7fELF)",
                format!("{:02x?}", ident.get(..4).unwrap_or_default()),
            ));
        }
        let class = match ident.get(4).copied() {
            Some(ELFCLASS32) => WordSize::W32,
            Some(ELFCLASS64) => WordSize::W64,
            other => {
                return Err(invalid(
                    "ELF EI_CLASS",
                    4,
                    "1 (32-bit) or 2 (64-bit)",
                    format!("{other:?}"),
                ));
            }
        };
        let endian = match ident.get(5).copied() {
            Some(ELFDATA2LSB) => Endian::Little,
            Some(ELFDATA2MSB) => Endian::Big,
            other => {
                return Err(invalid(
                    "ELF EI_DATA",
                    5,
                    "1 (little-endian) or 2 (big-endian)",
                    format!("{other:?}"),
                ));
            }
        };
        let mut c = Cursor::new(data, 0, endian, class);
        c.seek(16, "ELF header")?;
        let e_type = c.u16("ELF e_type")?;
        let e_machine = c.u16("ELF e_machine")?;
        c.skip(4, "ELF e_version")?;
        c.word("ELF e_entry")?;
        let e_phoff = c.word("ELF e_phoff")?;
        let e_shoff = c.word("ELF e_shoff")?;
        c.skip(4 + 2, "ELF e_flags, e_ehsize")?;
        let e_phentsize = c.u16("ELF e_phentsize")?;
        let e_phnum = c.u16("ELF e_phnum")?;
        let e_shentsize = c.u16("ELF e_shentsize")?;
        let e_shnum = c.u16("ELF e_shnum")?;
        let e_shstrndx = c.u16("ELF e_shstrndx")?;
        let h = ElfHeader {
            class,
            endian,
            e_type,
            e_machine,
            e_phoff,
            e_shoff,
            e_phentsize,
            phnum: u32::from(e_phnum),
            e_shentsize,
            shnum: u64::from(e_shnum),
            shstrndx: u32::from(e_shstrndx),
        };
        Ok((h, e_phnum))
    }

    pub(super) fn cursor<'a>(&self, data: &'a [u8], base: u64) -> Cursor<'a> {
        Cursor::new(data, base, self.endian, self.class)
    }

    /// The `count` entries of `entsize` bytes of the header table `what` at `offset`, each
    /// read by `parse`. The whole table must lie inside `data` before anything is read.
    pub(super) fn entries<T>(
        &self,
        data: &[u8],
        offset: u64,
        count: u64,
        entsize: u64,
        what: &'static str,
        parse: fn(&mut Cursor<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let t = table(data, offset, count.saturating_mul(entsize), what)?;
        let mut out = Vec::new();
        // `entsize` comes from `entry_size`, never 0; `max` keeps `chunks_exact` from panicking.
        for (i, chunk) in t.chunks_exact(entsize.max(1) as usize).enumerate() {
            out.push(parse(&mut self.cursor(chunk, offset + i as u64 * entsize))?);
        }
        Ok(out)
    }
}

/// A header table's entry size `entsize` (the header field `what`), if it holds at least the
/// `min` bytes of one entry of this class.
pub(super) fn entry_size(entsize: u16, min: u64, what: &'static str) -> Result<u64> {
    if u64::from(entsize) < min {
        return Err(invalid(
            what,
            0,
            format!("at least {min}"),
            entsize.to_string(),
        ));
    }
    Ok(u64::from(entsize))
}

impl SectionHeader {
    pub(super) fn size(class: WordSize) -> u64 {
        match class {
            WordSize::W32 => 40,
            WordSize::W64 => 64,
        }
    }

    pub(super) fn parse(c: &mut Cursor<'_>) -> Result<SectionHeader> {
        Ok(SectionHeader {
            sh_name: c.u32("ELF sh_name")?,
            sh_type: c.u32("ELF sh_type")?,
            sh_flags: c.word("ELF sh_flags")?,
            sh_addr: c.word("ELF sh_addr")?,
            sh_offset: c.word("ELF sh_offset")?,
            sh_size: c.word("ELF sh_size")?,
            sh_link: c.u32("ELF sh_link")?,
            sh_info: c.u32("ELF sh_info")?,
            sh_entsize: {
                c.word("ELF sh_addralign")?;
                c.word("ELF sh_entsize")?
            },
        })
    }
}

impl ProgramHeader {
    pub(super) fn size(class: WordSize) -> u64 {
        match class {
            WordSize::W32 => 32,
            WordSize::W64 => 56,
        }
    }

    pub(super) fn parse(c: &mut Cursor<'_>) -> Result<ProgramHeader> {
        let p_type = c.u32("ELF p_type")?;
        Ok(match c.word_size() {
            WordSize::W64 => {
                let p_flags = c.u32("ELF p_flags")?;
                let p_offset = c.u64("ELF p_offset")?;
                let p_vaddr = c.u64("ELF p_vaddr")?;
                c.u64("ELF p_paddr")?;
                ProgramHeader {
                    p_type,
                    p_flags,
                    p_offset,
                    p_vaddr,
                    p_filesz: c.u64("ELF p_filesz")?,
                    p_memsz: c.u64("ELF p_memsz")?,
                    p_align: c.u64("ELF p_align")?,
                }
            }
            WordSize::W32 => {
                let p_offset = c.word("ELF p_offset")?;
                let p_vaddr = c.word("ELF p_vaddr")?;
                c.word("ELF p_paddr")?;
                let p_filesz = c.word("ELF p_filesz")?;
                let p_memsz = c.word("ELF p_memsz")?;
                ProgramHeader {
                    p_type,
                    p_flags: c.u32("ELF p_flags")?,
                    p_offset,
                    p_vaddr,
                    p_filesz,
                    p_memsz,
                    p_align: c.word("ELF p_align")?,
                }
            }
        })
    }
}
