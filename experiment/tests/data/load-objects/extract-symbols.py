#!/usr/bin/env python3
"""Writes a symbols-only copy of an ELF64 little-endian load object: the ELF header, the
program headers (p_vaddr/p_memsz intact, no file bytes), every section header (allocated ones
turned into SHT_NOBITS) and the bytes of the symbol table gprofng reads (.symtab if present,
else .dynsym) with its string table and .shstrtab. Addresses, sizes and section indexes of the
symbols are unchanged, so a PC names the same function as in the original.

usage: extract-symbols.py ORIGINAL OUTPUT
"""
import struct, sys

src = open(sys.argv[1], 'rb').read()
assert src[:4] == b'\x7fELF' and src[4] == 2 and src[5] == 1, 'ELF64 LE only'
(e_type, e_machine, e_version, e_entry, e_phoff, e_shoff, e_flags, e_ehsize,
 e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) = struct.unpack_from('<HHIQQQIHHHHHH', src, 16)
shdrs = [list(struct.unpack_from('<IIQQQQIIQQ', src, e_shoff + i * e_shentsize)) for i in range(e_shnum)]
SYMTAB, DYNSYM, NOBITS = 2, 11, 8
table = next((i for i, s in enumerate(shdrs) if s[1] == SYMTAB), None)
if table is None:
    table = next(i for i, s in enumerate(shdrs) if s[1] == DYNSYM)
keep = {table, shdrs[table][6], e_shstrndx}
out = bytearray(64)
phoff = len(out)
for i in range(e_phnum):
    ph = list(struct.unpack_from('<IIQQQQQQ', src, e_phoff + i * e_phentsize))
    ph[2] = 0  # p_offset
    ph[5] = 0  # p_filesz
    out += struct.pack('<IIQQQQQQ', *ph)
for i, s in enumerate(shdrs):
    if i in keep:
        while len(out) % 8:
            out.append(0)
        data = src[s[4]:s[4] + s[5]]
        s[4] = len(out)
        out += data
    elif s[1] != 0:
        s[1] = NOBITS
        s[4] = 0
while len(out) % 8:
    out.append(0)
shoff = len(out)
for s in shdrs:
    out += struct.pack('<IIQQQQIIQQ', *s)
out[0:64] = src[0:16] + struct.pack('<HHIQQQIHHHHHH', e_type, e_machine, e_version, e_entry,
                                    phoff, shoff, e_flags, 64, 56, e_phnum, 64, e_shnum, e_shstrndx)
open(sys.argv[2], 'wb').write(out)
