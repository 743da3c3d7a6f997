//! `elf::Elf::parse` on hand-built ELF objects: all four layouts (32/64-bit, either byte
//! order), symbol-table choice, alias and size fix-ups, and every way a table can lie outside
//! the file (errors, never allocations sized by a header).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use experiment::Error;
use experiment::cursor::{Endian, WordSize};
use experiment::elf::*;

/// A minimal ELF with one symbol table: `syms` are (name, value, size, info, shndx).
fn build(class: WordSize, endian: Endian, syms: &[(&str, u64, u64, u8, u16)]) -> Vec<u8> {
    let w64 = class == WordSize::W64;
    let put16 = |v: &mut Vec<u8>, x: u16| match endian {
        Endian::Little => v.extend_from_slice(&x.to_le_bytes()),
        Endian::Big => v.extend_from_slice(&x.to_be_bytes()),
    };
    let put32 = |v: &mut Vec<u8>, x: u32| match endian {
        Endian::Little => v.extend_from_slice(&x.to_le_bytes()),
        Endian::Big => v.extend_from_slice(&x.to_be_bytes()),
    };
    let putw = |v: &mut Vec<u8>, x: u64| {
        if w64 {
            match endian {
                Endian::Little => v.extend_from_slice(&x.to_le_bytes()),
                Endian::Big => v.extend_from_slice(&x.to_be_bytes()),
            }
        } else {
            put32(v, x as u32);
        }
    };
    // strtab
    let mut strtab = vec![0u8];
    let mut names = Vec::new();
    for s in syms {
        names.push(strtab.len() as u32);
        strtab.extend_from_slice(s.0.as_bytes());
        strtab.push(0);
    }
    // symtab
    let mut symtab = vec![0u8; if w64 { 24 } else { 16 }];
    for (s, &n) in syms.iter().zip(&names) {
        if w64 {
            put32(&mut symtab, n);
            symtab.push(s.3);
            symtab.push(0);
            put16(&mut symtab, s.4);
            putw(&mut symtab, s.1);
            putw(&mut symtab, s.2);
        } else {
            put32(&mut symtab, n);
            putw(&mut symtab, s.1);
            putw(&mut symtab, s.2);
            symtab.push(s.3);
            symtab.push(0);
            put16(&mut symtab, s.4);
        }
    }
    let ehsize = if w64 { 64 } else { 52 };
    let phentsize = if w64 { 56 } else { 32 };
    let shentsize = if w64 { 64 } else { 40 };
    let phoff = ehsize as u64;
    let symoff = phoff + phentsize as u64;
    let stroff = symoff + symtab.len() as u64;
    let shoff = stroff + strtab.len() as u64;
    let mut v = Vec::new();
    v.extend_from_slice(&ELFMAG);
    v.push(if w64 { ELFCLASS64 } else { ELFCLASS32 });
    v.push(if endian == Endian::Little { 1 } else { 2 });
    v.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    put16(&mut v, 3);
    put16(&mut v, 62);
    put32(&mut v, 1);
    putw(&mut v, 0);
    putw(&mut v, phoff);
    putw(&mut v, shoff);
    put32(&mut v, 0);
    put16(&mut v, ehsize);
    put16(&mut v, phentsize);
    put16(&mut v, 1);
    put16(&mut v, shentsize);
    put16(&mut v, 4);
    put16(&mut v, 0);
    // one PT_LOAD: file 0..0x100 at vaddr 0x1000
    put32(&mut v, PT_LOAD);
    if w64 {
        put32(&mut v, 5);
    }
    putw(&mut v, 0);
    putw(&mut v, 0x1000);
    putw(&mut v, 0x1000);
    putw(&mut v, 0x100);
    putw(&mut v, 0x100);
    if !w64 {
        put32(&mut v, 5);
    }
    putw(&mut v, 0x1000);
    v.extend_from_slice(&symtab);
    v.extend_from_slice(&strtab);
    // sections: null, .text, .symtab, .strtab
    let sh = |v: &mut Vec<u8>, ty: u32, off: u64, size: u64, link: u32, ent: u64| {
        put32(v, 0);
        put32(v, ty);
        putw(v, 0);
        putw(v, 0);
        putw(v, off);
        putw(v, size);
        put32(v, link);
        put32(v, 0);
        putw(v, 8);
        putw(v, ent);
    };
    sh(&mut v, 0, 0, 0, 0, 0);
    sh(&mut v, 1, 0, 0x100, 0, 0);
    let ent = if w64 { 24 } else { 16 };
    sh(&mut v, SHT_SYMTAB, symoff, symtab.len() as u64, 3, ent);
    sh(&mut v, 3, stroff, strtab.len() as u64, 0, 0);
    v
}

/// Review regression: 5,000 symbols all naming one 200 KB string once made 5,000 copies of
/// it (1 GB from a 320 KB file); names are now ranges into one copy of the string table.
#[test]
fn shared_long_names_are_kept_once() {
    let long = "x".repeat(200_000);
    let mut syms: Vec<(&str, u64, u64, u8, u16)> = vec![(long.as_str(), 0x1000, 1, 0x12, 1)];
    syms.extend((1..5_000u64).map(|i| ("", 0x1000 + i, 1, 0x12, 1)));
    let mut data = build(WordSize::W64, Endian::Little, &syms);
    // Point every symbol's st_name at the long name (strtab offset 1).
    for k in 1..=syms.len() {
        let at = 64 + 56 + 24 * k;
        data[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
    }
    let elf = Elf::parse(&data).unwrap();
    assert_eq!(elf.functions.len(), 5_000);
    for f in [
        elf.functions.first().unwrap(),
        elf.functions.last().unwrap(),
    ] {
        assert_eq!(elf.name(f).len(), 200_000);
    }
    assert!(elf.string_bytes() <= data.len(), "{}", elf.string_bytes());
}

/// Review regression: every `SHT_DYNSYM` section header was read, so 2,000 headers (128 KB)
/// naming one 100 KB string table copied it 2,000 times (200 MB from a 230 KB file) and
/// read its symbols as often. Like gprofng, one `.dynsym` and one `.SUNW_ldynsym` are read.
#[test]
fn many_dynsym_headers_read_one_table() {
    let long = "y".repeat(100_000);
    let syms = [(long.as_str(), 0x1000u64, 1u64, 0x12u8, 1u16)];
    let mut data = build(WordSize::W64, Endian::Little, &syms);
    let shoff = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
    let mut headers = data[shoff..shoff + 4 * 64].to_vec();
    headers[2 * 64 + 4..2 * 64 + 8].copy_from_slice(&SHT_DYNSYM.to_le_bytes());
    let dynsym = headers[2 * 64..3 * 64].to_vec();
    for _ in 0..2_000 {
        headers.extend_from_slice(&dynsym);
    }
    let new_shoff = data.len() as u64;
    data.extend_from_slice(&headers);
    data[40..48].copy_from_slice(&new_shoff.to_le_bytes());
    data[60..62].copy_from_slice(&((headers.len() / 64) as u16).to_le_bytes());
    let elf = Elf::parse(&data).unwrap();
    assert_eq!(elf.symbol_source, SymbolSource::Dynsym);
    assert_eq!(elf.functions.len(), 1);
    assert_eq!(elf.name(&elf.functions[0]).len(), 100_000);
    assert!(elf.string_bytes() <= data.len(), "{}", elf.string_bytes());
}

const SYMS: &[(&str, u64, u64, u8, u16)] = &[
    ("Java_a_B_c", 0x1010, 0x10, 0x12, 1),
    ("alias_long_name", 0x1020, 0x8, 0x12, 1),
    ("al", 0x1020, 0x20, 0x12, 1),
    ("zero_sized", 0x1040, 0, 0x02, 1),
    ("overlong", 0x1050, 0x1000, 0x12, 1),
    ("last_no_size", 0x1060, 0, 0x12, 1),
    ("data_object", 0x1070, 4, 0x11, 1),
    ("undefined", 0x1080, 4, 0x12, 0),
    ("absolute", 0x1090, 4, 0x12, 0xfff1),
];

fn check(elf: &Elf) {
    let names: Vec<_> = elf
        .functions
        .iter()
        .map(|f| (elf.name(f).into_owned(), f.address, f.size))
        .collect();
    assert_eq!(
        names,
        [
            ("Java_a_B_c".to_owned(), 0x1010, 0x10),
            ("al".to_owned(), 0x1020, 0x20),
            ("zero_sized".to_owned(), 0x1040, 0x10),
            ("overlong".to_owned(), 0x1050, 0x10),
        ]
    );
    assert_eq!(elf.function_name(0x101f).unwrap(), "Java_a_B_c");
    assert_eq!(elf.function_name(0x1030).unwrap(), "al");
    assert!(elf.function(0x100f).is_none());
    assert!(elf.function(0x1060).is_none());
    assert_eq!(elf.address_of_offset(0x20), Some(0x1020));
    assert_eq!(elf.address_of_offset(0x100), None);
    assert_eq!(elf.load_address(), Some(0x1000));
    assert_eq!(elf.symbol_source, SymbolSource::Symtab);
}

#[test]
fn all_four_layouts() {
    for class in [WordSize::W32, WordSize::W64] {
        for endian in [Endian::Little, Endian::Big] {
            let data = build(class, endian, SYMS);
            let elf = Elf::parse(&data).unwrap();
            assert_eq!((elf.header.class, elf.header.endian), (class, endian));
            check(&elf);
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    for class in [WordSize::W32, WordSize::W64] {
        let data = build(class, Endian::Big, SYMS);
        for n in 0..data.len() {
            assert!(Elf::parse(&data[..n]).is_err(), "{class:?} cut at {n}");
        }
    }
}

#[test]
fn bad_magic_class_and_data() {
    let data = build(WordSize::W64, Endian::Little, SYMS);
    for (at, v, what) in [
        (0, 0u8, "ELF magic"),
        (4, 3, "ELF EI_CLASS"),
        (5, 0, "ELF EI_DATA"),
    ] {
        let mut d = data.clone();
        d[at] = v;
        match Elf::parse(&d) {
            Err(Error::Invalid {
                what: w, offset, ..
            }) => {
                assert_eq!((w, offset), (what, at as u64));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn huge_counts_and_offsets_are_errors_not_allocations() {
    let data = build(WordSize::W64, Endian::Little, SYMS);
    // e_phnum = 0xfffe, e_shnum = 0xffff, e_shoff and e_phoff near u64::MAX.
    for (at, bytes) in [
        (56usize, vec![0xfe, 0xff]),
        (60, vec![0xff, 0xff]),
        (32, vec![0xff; 8]),
        (40, vec![0xf0; 8]),
    ] {
        let mut d = data.clone();
        d[at..at + bytes.len()].copy_from_slice(&bytes);
        let e = Elf::parse(&d).unwrap_err();
        assert!(matches!(e, Error::Truncated { .. }), "{at}: {e}");
    }
    // A symbol table whose sh_size runs past the end of the file.
    let shoff = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
    let mut d = data.clone();
    let size_at = shoff + 2 * 64 + 32;
    d[size_at..size_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        Elf::parse(&d),
        Err(Error::Truncated {
            what: "ELF symbol table",
            ..
        })
    ));
    // sh_entsize 0 and a dangling sh_link.
    let mut d = data.clone();
    let ent_at = shoff + 2 * 64 + 56;
    d[ent_at..ent_at + 8].copy_from_slice(&0u64.to_le_bytes());
    assert!(matches!(Elf::parse(&d), Err(Error::Invalid { .. })));
    let mut d = data;
    let link_at = shoff + 2 * 64 + 40;
    d[link_at..link_at + 4].copy_from_slice(&99u32.to_le_bytes());
    assert!(matches!(Elf::parse(&d), Err(Error::Invalid { .. })));
}

#[test]
fn extended_section_count_in_section_zero() {
    let mut data = build(WordSize::W64, Endian::Little, SYMS);
    let shoff = u64::from_le_bytes(data[40..48].try_into().unwrap()) as usize;
    data[60..62].copy_from_slice(&0u16.to_le_bytes());
    data[shoff + 32..shoff + 40].copy_from_slice(&4u64.to_le_bytes());
    let elf = Elf::parse(&data).unwrap();
    assert_eq!(elf.header.shnum, 4);
    check(&elf);
}

#[test]
fn dynsym_only_when_there_is_no_symtab() {
    let mut data = build(WordSize::W32, Endian::Little, SYMS);
    let shoff = u32::from_le_bytes(data[32..36].try_into().unwrap()) as usize;
    let ty_at = shoff + 2 * 40 + 4;
    data[ty_at..ty_at + 4].copy_from_slice(&SHT_DYNSYM.to_le_bytes());
    let elf = Elf::parse(&data).unwrap();
    assert_eq!(elf.symbol_source, SymbolSource::Dynsym);
    assert_eq!(elf.functions.len(), 4);
    // Neither table: no names, no error.
    data[ty_at..ty_at + 4].copy_from_slice(&1u32.to_le_bytes());
    let elf = Elf::parse(&data).unwrap();
    assert_eq!(elf.symbol_source, SymbolSource::None);
    assert!(elf.functions.is_empty());
}
