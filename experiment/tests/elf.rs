//! The ELF symbol reader on a real load object: `libjava.so` of the JDK that recorded
//! `java_heap`, as the symbols-only extract in the fixture's `archives/` (see
//! tests/data/README.md), and the PCs of the fixture's stacks named through it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{FsSource, data};
use experiment::Experiment;
use experiment::elf::{Elf, SymbolSource};
use experiment::frameinfo::ExperimentKind;
use experiment::frameinfo::{NativeFrame, Stack};
use experiment::map::Map;
use std::collections::BTreeSet;

const LIBJAVA: &str = "/usr/lib/jvm/java-17-openjdk-amd64/lib/libjava.so";
const ARCHIVE: &str = "libjava.so_t24J-IULzC3";

fn extract() -> Elf {
    let path = data().join("java_heap/test.1.er/archives").join(ARCHIVE);
    Elf::parse(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn extract_has_the_symtab_and_the_load_segments() {
    let elf = extract();
    assert_eq!(elf.symbol_source, SymbolSource::Symtab);
    // `readelf -s`: 353 distinct addresses of defined FUNC symbols; the last one, `_fini`, has
    // size 0 and no next symbol to grow to, so (as in gprofng) it names nothing.
    assert_eq!(elf.functions.len(), 352);
    assert!(elf.functions.iter().all(|f| elf.name(f) != "_fini"));
    // Size-0 symbols grow to the next one: `frame_dummy` (0xcd10) up to the next function.
    let fd = elf.function(0xcd10).unwrap();
    assert_eq!(elf.name(fd), "frame_dummy");
    assert!(fd.size > 0);
    // `readelf -s`: 610: 000000000000d920 151 FUNC GLOBAL DEFAULT 12 Java_…_findBootstrapClass
    let f = elf.function(0xd920 + 150).unwrap();
    assert_eq!(
        (elf.name(f).as_ref(), f.address, f.size),
        ("Java_java_lang_ClassLoader_findBootstrapClass", 0xd920, 151)
    );
    assert_eq!(elf.load_address(), Some(0));
    // `objcopy --only-keep-debug` keeps p_vaddr/p_memsz but empties the segments' file bytes.
    assert_eq!(elf.program_headers.len(), 9);
    assert_eq!(elf.address_of_offset(0xd920), None);
    let functions = &elf.functions;
    assert!(
        functions
            .windows(2)
            .all(|w| w[0].address + w[0].size <= w[1].address)
    );
}

/// (PC, relative time, offset in libjava.so) of every libjava.so frame in java_heap's stacks.
fn libjava_pcs(exp: &Experiment<FsSource>) -> Vec<(u64, u64, u64)> {
    let start = exp.log().run_start().unwrap();
    let mut out = Vec::new();
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            let c = *p.unwrap().typed().unwrap().common();
            let Some(stack) = exp.stack(c.frinfo).unwrap() else {
                continue;
            };
            let rel = c.tstamp - start;
            for pc in stack.native {
                if let Some(r) = exp.map().resolve(pc, rel) {
                    if r.name == LIBJAVA {
                        out.push((pc, rel, r.offset));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn stack_pcs_name_the_jni_functions_through_the_load_bias() {
    let exp = Experiment::open(FsSource::new(data().join("java_heap/test.1.er")).archives_only())
        .unwrap();
    let elf = extract();
    let pcs = libjava_pcs(&exp);
    assert!(pcs.len() > 100, "{}", pcs.len());
    let mut names = BTreeSet::new();
    for &(pc, rel, _) in &pcs {
        let base = exp.map().load_base(LIBJAVA, rel).unwrap();
        assert_eq!(base, 0x7F67_5FA6_4000);
        let f = elf
            .function(pc - base + elf.load_address().unwrap())
            .unwrap_or_else(|| panic!("{pc:#x} unnamed"));
        names.insert(elf.name(f).into_owned());
    }
    for jni in [
        "Java_java_lang_ClassLoader_findBootstrapClass",
        "Java_jdk_internal_loader_NativeLibraries_load",
        "Java_jdk_internal_loader_NativeLibraries_findBuiltinLib",
        "Java_java_io_UnixFileSystem_canonicalize0",
        "Java_java_io_UnixFileSystem_getBooleanAttributes0",
    ] {
        assert!(names.contains(jni), "{jni} not in {names:?}");
    }
}

#[test]
#[ignore = "needs the very libjava.so that was recorded (Debian openjdk-17 17.0.15+6-1~deb12u1, 185 176 bytes) at its recorded path; run with --ignored where it exists"]
fn offsets_and_load_bias_agree_on_the_original_library() {
    let original = std::fs::read(LIBJAVA).expect("the recorded libjava.so");
    assert_eq!(original.len(), 185_176, "not the recorded libjava.so");
    let full = Elf::parse(&original).unwrap();
    let extract = extract();
    assert_eq!(full.functions, extract.functions);
    let exp = Experiment::open(FsSource::new(data().join("java_heap/test.1.er")).archives_only())
        .unwrap();
    for (pc, rel, offset) in libjava_pcs(&exp) {
        let base = exp.map().load_base(LIBJAVA, rel).unwrap();
        assert_eq!(full.address_of_offset(offset), Some(pc - base), "{pc:#x}");
    }
}

/// Names native PCs at time `rel`, with `elf` as the symbols of load object `object` only.
fn namer<'m>(
    map: &'m Map,
    rel: u64,
    object: &'m str,
    elf: &'m Elf,
) -> impl Fn(u64) -> NativeFrame + 'm {
    move |pc| {
        let r = map.resolve(pc, rel).unwrap();
        let e = (r.name == object).then_some(elf);
        map.native_frame(pc, rel, &r, e)
    }
}

/// The first (leaf-most) native frame of `stack` that `name` gives a function name.
fn first_named(stack: &Stack, name: &impl Fn(u64) -> NativeFrame) -> usize {
    stack
        .native
        .iter()
        .position(|&pc| name(pc).function.is_some())
        .unwrap()
}

/// The call stack of the heap packet with timestamp `tstamp`, and its time since the run start.
fn heap_packet<S: experiment::Source>(exp: &Experiment<S>, tstamp: u64) -> (Stack, u64) {
    let start = exp.log().run_start().unwrap();
    let file = exp.data("heaptrace").unwrap().unwrap();
    let p = file
        .packets()
        .map(|p| p.unwrap())
        .find(|p| p.typed().unwrap().common().tstamp == tstamp)
        .unwrap();
    let c = *p.typed().unwrap().common();
    (exp.stack(c.frinfo).unwrap().unwrap(), c.tstamp - start)
}

#[test]
fn native_frames_of_a_find_bootstrap_class_malloc() {
    // dheap.txt packet 109: … findBootstrapClass <Java native method>,
    // Java_java_lang_ClassLoader_findBootstrapClass, JVM_FindClassFromBootLoader, … malloc.
    let exp = Experiment::open(FsSource::new(data().join("java_heap/test.1.er")).archives_only())
        .unwrap();
    let elf = extract();
    let jclasses = exp.jclasses().unwrap().unwrap();
    let (stack, rel) = heap_packet(&exp, 4_668_517_296_408);
    let map = exp.map();
    let name = namer(map, rel, LIBJAVA, &elf);
    let jni = first_named(&stack, &name);
    let f = name(stack.native[jni]);
    assert_eq!(
        f.function.as_deref(),
        Some("Java_java_lang_ClassLoader_findBootstrapClass")
    );
    assert!(!f.in_jvm);
    // Its callee, JVM_FindClassFromBootLoader: in libjvm.so, not named without its ELF.
    let callee = name(stack.native[jni - 1]);
    assert_eq!((callee.function, callee.in_jvm), (None, true));
    // The leaf method is native; 11 Java frames + the 8 native ones from the JNI function.
    assert_eq!(stack.java[0].lineno, -3);
    assert_eq!(jni + 1, 8);
    assert_eq!(
        stack.user_view_frames_jni(ExperimentKind::Java, &jclasses, &name),
        19
    );
    assert_eq!(stack.user_view_frames(ExperimentKind::Java), 11);
    // The interpreter frames above it are generated code, named by map.xml.
    let root_side = name(stack.native[jni + 1]);
    assert!(root_side.function.is_some() && !root_side.in_jvm);
}

const COLLECTOR: &str = "/tmp/gprofng-java/install-patched/lib/gprofng/libgp-collector.so";

/// The symbols-only extract of the *rebuilt* patched collector (see tests/data/README.md).
fn collector_extract() -> Elf {
    let path = data().join("java_heap/test.1.er/archives/libgp-collector.so_FYUEi_SMay1");
    Elf::parse(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn collector_extract_has_the_functions_gprofng_named() {
    let elf = collector_extract();
    assert_eq!(elf.symbol_source, SymbolSource::Symtab);
    assert_eq!(elf.load_address(), Some(0));
    // `function + offset` as gprofng printed them for PCs in the recorded library (heap's
    // dheap.txt and cpu's dprofile-machine.txt), at the PC's offset in the rebuild.
    for (pc, name, offset) in [
        (
            0x635b5,
            "Java_com_sun_forte_st_collector_CollectorAPI__1sample",
            0x35,
        ),
        (0x482ee, "collector_root", 0x14e),
        (0x4c6fe, "__collector_int_func_load", 0x20e),
        (0x61a06, "jvmti_DynamicCodeGenerated", 0x16),
        (0x62040, "jvmti_ClassPrepare", 0x150),
        (0x61db4, "record_jmethod", 0xf4),
        (0x68aa0, "__collector_strlcpy", 0),
    ] {
        let f = elf.function(pc).unwrap_or_else(|| panic!("{pc:#x}"));
        assert_eq!((elf.name(f).as_ref(), pc - f.address), (name, offset));
    }
}

#[test]
fn collector_sample_packet_splices_its_jni_frames() {
    // dheap.txt packet 106: Main.main, CollectorAPI.sample, CollectorAPI._sample <Java native
    // method>, Java_…CollectorAPI__1sample + 0x35, jni_GetStringUTFChars, AllocateHeap,
    // os::malloc, malloc (8 frames).
    let exp = Experiment::open(FsSource::new(data().join("java_heap/test.1.er")).archives_only())
        .unwrap();
    let elf = collector_extract();
    let jclasses = exp.jclasses().unwrap().unwrap();
    let (stack, rel) = heap_packet(&exp, 4_668_515_807_563);
    let map = exp.map();
    let base = map.load_base(COLLECTOR, rel).unwrap();
    assert_eq!(base, 0x7F67_5FCE_0000);
    let name = namer(map, rel, COLLECTOR, &elf);
    let jni = first_named(&stack, &name);
    let f = name(stack.native[jni]);
    assert_eq!(
        f.function.as_deref(),
        Some("Java_com_sun_forte_st_collector_CollectorAPI__1sample")
    );
    assert_eq!(stack.native[jni] - base, 0x635b5);
    assert_eq!(stack.java[0].lineno, -3);
    assert_eq!(jni + 1, 5);
    assert_eq!(
        stack.user_view_frames_jni(ExperimentKind::Java, &jclasses, &name),
        8
    );
    assert_eq!(stack.user_view_frames(ExperimentKind::Java), 3);
}
