//! DWARF line tables (`experiment::dwarf`, feature `dwarf`) of real programs, and hostile
//! ones: every byte of the DWARF sections of a real program damaged, and the file cut
//! anywhere, gives a table or an error with an offset inside the file — never a panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::data;
use experiment::dwarf::LineTable;
use experiment::elf::Elf;
use experiment::{Error, Experiment};

/// The archived program of `case` (its `archives/prog_*`).
fn program(case: &str) -> Vec<u8> {
    let dir = data().join(case).join("test.1.er/archives");
    let path = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("prog_")
        })
        .unwrap();
    std::fs::read(path).unwrap()
}

fn address_of(elf: &Elf, data: &[u8], name: &str) -> u64 {
    elf.functions
        .iter()
        .find(|f| elf.name(f) == name)
        .unwrap_or_else(|| panic!("{name} in {}", data.len()))
        .address
}

#[test]
fn dwarf4_program_lines() {
    let bytes = program("dwarf4_lines");
    let elf = Elf::parse(&bytes).unwrap();
    let table = LineTable::parse(&bytes, &elf).unwrap();
    // The header `mix` comes from (its rows come first: it is defined first) and lines.c;
    // the system headers have no rows.
    assert_eq!(table.files, ["mix.h", "lines.c"]);
    // A function's first row is its opening line (extra-src/lines.c, include/mix.h).
    for (name, file, line) in [
        ("main", "lines.c", 105),
        ("allocate", "lines.c", 93),
        ("mix", "mix.h", 3),
        ("square", "lines.c", 10),
    ] {
        let at = address_of(&elf, &bytes, name);
        let l = table.line(&elf, at).unwrap();
        assert_eq!((l.file, l.line), (file, line), "{name}");
    }
    // Rows are sorted, one per address, each inside a function.
    assert!(table.rows.windows(2).all(|w| w[0].address < w[1].address));
    assert!(table.rows.iter().all(|r| elf.function(r.address).is_some()));
    // Outside every function: no line.
    assert!(table.line(&elf, 0).is_none());
}

#[test]
fn dwarf5_program_lines() {
    // GCC 12's default DWARF 5 (which gprofng 2.40 does not read).
    let bytes = program("clock_basic");
    let elf = Elf::parse(&bytes).unwrap();
    let table = LineTable::parse(&bytes, &elf).unwrap();
    // At -O1, `atol` is inlined from stdlib.h into main: its rows keep stdlib.h's lines.
    assert_eq!(table.files, ["clock.c", "stdlib.h"]);
    // The first rows of `leaf_sqrt_loop` and `main` (`readelf --debug-dump=decodedline`):
    // the one-line function's line 7, main's opening brace on line 14.
    let at = address_of(&elf, &bytes, "leaf_sqrt_loop");
    assert_eq!(table.line(&elf, at).unwrap().line, 7);
    let main = address_of(&elf, &bytes, "main");
    assert_eq!(table.line(&elf, main).unwrap().line, 14);
    assert_eq!(table.line(&elf, main + 9).unwrap().line, 15);
}

#[test]
fn code_inlined_at_a_call_is_on_the_calls_line() {
    // names.cc at -O2 (dwarf4_cxx): `auto lambda = [](int k) { return malloc(k * 2); };` on
    // line 82 is inlined into main at `keep = lambda(50);` on line 83, in two ranges
    // (`readelf --debug-dump=info,Ranges`). The line table says 82 there; gprofng says 83.
    let bytes = program("dwarf4_cxx");
    let elf = Elf::parse(&bytes).unwrap();
    let table = LineTable::parse(&bytes, &elf).unwrap();
    let main = address_of(&elf, &bytes, "main");
    let calls = &table.inlined[&main];
    let lambda: Vec<_> = calls.iter().filter(|c| c.line == 83).collect();
    assert_eq!(lambda.len(), 2, "{calls:x?}");
    for c in &lambda {
        assert_eq!(c.level, 0);
        assert_eq!(table.files[c.file.unwrap() as usize], "names.cc");
        for pc in [c.low, c.high - 1] {
            assert_eq!(table.line(&elf, pc).unwrap().line, 83, "{pc:#x}");
        }
        // The rows there say 82 (the lambda's own line).
        let row = table
            .rows
            .iter()
            .rev()
            .find(|r| r.address <= c.low)
            .unwrap();
        assert_eq!(row.line, 82);
    }
    // gprofng's chain for a frame there: the inlined function and the line table's line.
    assert_eq!(
        table.inlined_chain(&elf, lambda[0].low).as_deref(),
        Some("<-- operator() names.cc:82 ")
    );
    assert_eq!(table.inlined_chain(&elf, main), None);
    // Every inlined range lies in the function it is listed under.
    for (f, calls) in &table.inlined {
        for c in calls {
            assert_eq!(elf.function(c.low).unwrap().address, *f);
        }
    }
}

#[test]
fn objects_without_dwarf_have_no_lines() {
    // A symbols-only extract (no .debug_* sections).
    let bytes = std::fs::read(data().join("load-objects/libc.so.6")).unwrap();
    let elf = Elf::parse(&bytes).unwrap();
    let table = LineTable::parse(&bytes, &elf).unwrap();
    assert!(table.is_empty());
}

/// The error's offset lies inside the file (or the error is a truncation at its end).
fn check_error(e: &Error, len: usize, what: &str) {
    let text = e.to_string();
    assert!(text.contains("byte offset"), "{what}: {text}");
    let offset = e.offset().unwrap();
    assert!(offset <= len as u64, "{what}: {text}");
}

#[test]
fn damaged_dwarf_never_panics() {
    // (case, values written, every how many bytes): every byte of the small programs, every
    // third of the C++ one, to keep the debug-build test short.
    for (case, values, step) in [
        ("dwarf4_lines", &[0x00, 0xff][..], 1),
        ("clock_basic", &[0x80][..], 1),
        ("dwarf4_cxx", &[0xff][..], 3),
    ] {
        let bytes = program(case);
        let elf = Elf::parse(&bytes).unwrap();
        let debug: Vec<(u64, u64)> = (0..elf.section_headers.len())
            .filter(|&i| {
                elf.section_name(&bytes, i)
                    .is_some_and(|n| n.starts_with(b".debug_"))
            })
            .map(|i| {
                let sh = &elf.section_headers[i];
                (sh.sh_offset, sh.sh_size)
            })
            .collect();
        assert!(debug.len() >= 5, "{case}");
        let (mut ok, mut errors) = (0, 0);
        for &(start, size) in &debug {
            for at in (start..start + size).step_by(step) {
                for &value in values {
                    let mut damaged = bytes.clone();
                    let b = &mut damaged[at as usize];
                    if *b == value {
                        continue;
                    }
                    *b = value;
                    match LineTable::parse(&damaged, &elf) {
                        Ok(t) => {
                            ok += 1;
                            assert!(t.rows.iter().all(|r| (r.file as usize) < t.files.len()));
                        }
                        Err(e) => {
                            errors += 1;
                            check_error(&e, damaged.len(), &format!("{case} byte {at}"));
                        }
                    }
                }
            }
        }
        // Both happen: the sweep reaches the readers' checks.
        assert!(ok > 100 && errors > 100, "{case}: {ok} ok, {errors} errors");
    }
}

#[test]
fn cut_programs_never_panic() {
    let bytes = program("dwarf4_lines");
    let elf = Elf::parse(&bytes).unwrap();
    // The section headers come last: a cut file keeps them only in this test, where `elf` is
    // the whole file's (sections then point past the end).
    for len in (0..bytes.len()).step_by(7) {
        let cut = &bytes[..len];
        if let Err(e) = LineTable::parse(cut, &elf) {
            assert!(e.is_truncated() || e.offset().is_some(), "{len}: {e}");
        }
    }
}

#[test]
fn a_symbolizer_with_native_lines_names_frames_lines() {
    let exp = experiment::fs::open(data().join("dwarf4_lines/test.1.er")).unwrap();
    let mut symbols = experiment::stacks::Symbolizer::new(&exp).with_native_lines();
    let data = exp.data("profile").unwrap().unwrap();
    let mut texts = Vec::new();
    for p in data.packets() {
        let p = p.unwrap();
        let c = *p.typed().unwrap().common();
        let id = symbols.stack(c.frinfo, c.tstamp);
        let frames: Vec<_> = symbols.frames(id).to_vec();
        texts.extend(frames.iter().map(|f| symbols.frame_text(f)));
    }
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("main + 0x") && t.ends_with(", line 109 in \"lines.c\"")),
        "{texts:?}"
    );
    assert!(symbols.warnings().bad_line_tables == 0);
    let _: &Experiment<_> = &exp;
}
