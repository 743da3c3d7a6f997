//! DWARF line tables (`experiment::dwarf`) as the symbolizer reads them for native source
//! lines: a real `-gdwarf-4` program (the `dwarf4_lines` fixture's archived copy) whose DWARF
//! sections' bytes are replaced by the input — or the input itself when it is an ELF file —
//! never makes the reader panic; it gives an error with a byte offset or a table whose rows
//! are sorted, inside functions and name known files.
#![no_main]
use experiment::dwarf::LineTable;
use experiment::elf::Elf;
use libfuzzer_sys::fuzz_target;

const TEMPLATE: &[u8] = include_bytes!(
    "../../experiment/tests/data/dwarf4_lines/test.1.er/archives/prog_XUsQJ-o9bb7"
);

fn check(data: &[u8], elf: &Elf) {
    match LineTable::parse(data, elf) {
        Ok(table) => {
            assert!(table.rows.windows(2).all(|w| w[0].address < w[1].address));
            for r in &table.rows {
                assert!((r.file as usize) < table.files.len());
                assert!(elf.function(r.address).is_some());
                assert!(table.line(elf, r.address).is_some());
                if let Some(chain) = table.inlined_chain(elf, r.address) {
                    assert!(chain.starts_with("<-- ") && chain.ends_with(' '));
                }
            }
            for (f, calls) in table.inlined.iter().take(64) {
                for c in calls.iter().take(64) {
                    assert!(elf.function(c.low).is_some_and(|g| g.address == *f));
                    let _ = table.line(elf, c.low);
                    let _ = table.inlined_chain(elf, c.low);
                }
            }
        }
        Err(e) => assert!(e.offset().is_some(), "{e}"),
    }
}

fuzz_target!(|input: &[u8]| {
    if input.starts_with(b"\x7fELF") {
        if let Ok(elf) = Elf::parse(input) {
            check(input, &elf);
        }
        return;
    }
    let Ok(elf) = Elf::parse(TEMPLATE) else {
        return;
    };
    // The DWARF sections lie one after the other from `.debug_aranges` on.
    let Some(start) = (0..elf.section_headers.len())
        .filter(|&i| elf.section_name(TEMPLATE, i).is_some_and(|n| n.starts_with(b".debug_")))
        .map(|i| elf.section_headers[i].sh_offset as usize)
        .min()
    else {
        return;
    };
    let mut data = TEMPLATE.to_vec();
    for (d, s) in data[start..].iter_mut().zip(input) {
        *d = *s;
    }
    check(&data, &elf);
});
