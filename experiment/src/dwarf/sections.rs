//! The DWARF sections' bytes in the ELF file, by name.

use crate::elf::Elf;
use crate::error::{Error, Result};

/// `SHF_COMPRESSED`: the section's bytes are compressed (`Elf64_Chdr` first).
const SHF_COMPRESSED: u64 = 0x800;

/// The bytes of the section named `name` of `elf` (empty when there is none or it has no
/// file bytes).
pub(super) fn section<'d>(elf: &Elf, data: &'d [u8], name: &str) -> Result<(&'d [u8], u64)> {
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
