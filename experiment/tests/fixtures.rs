//! Every reader on the real gprofng experiments in `tests/data/` (recorded by gprofng 2.40).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{FsSource, NATIVE_CASES, data};
use experiment::archives::{archive_name, crc64, load_object};
use experiment::descendants::Step;
use experiment::frameinfo::compute_uid;
use experiment::log::{EventKind, FieldType, Severity};
use experiment::map::MapEvent;
use experiment::packets::{HeapType, IoType, MicroState, TypedPacket};
use experiment::{Experiment, MemorySource};

fn open(case: &str) -> Experiment<FsSource> {
    Experiment::open(FsSource::new(data().join(case).join("test.1.er")).archives_only()).unwrap()
}

#[test]
fn log_xml_header_settings_descriptors_and_events() {
    let exp = open("clock_basic");
    let log = exp.log();
    assert_eq!(
        (log.version.as_str(), log.collector.as_str()),
        ("12.4", "2.40.00")
    );
    assert_eq!(log.system.hostname, "vm");
    assert_eq!(log.system.arch, "x86_64");
    assert_eq!(log.system.page_size, 4096);
    assert_eq!(log.system.npages, 6_171_021);
    assert_eq!(log.system.cpus.len(), 2);
    assert_eq!(log.system.cpus[1].clk, 2300);
    assert_eq!(log.process.pid, Some(23715));
    assert_eq!(log.process.ppid, Some(23714));
    assert_eq!(log.process.wsize, Some(64));
    assert_eq!(
        log.process.cwd.as_deref(),
        Some("/tmp/gprofng-corpus/clock_basic")
    );
    assert_eq!(log.process.command.as_deref(), Some("./prog 2400000000"));
    assert_eq!(log.settings.sample_period, Some(1));
    assert_eq!(log.settings.linetrace.as_deref(), Some("fork|exec|combo"));
    assert!(log.settings.other.is_empty(), "{:?}", log.settings.other);
    assert_eq!(log.run_start(), Some(2_385_996_055_481));
    assert!(log.has_exit());
    let p = log.profile("profile").unwrap();
    assert_eq!((p.ptimer, p.numstates), (Some(10007), Some(1)));
    assert!(p.other.is_empty(), "{:?}", p.other);
    let run = log
        .events
        .iter()
        .find(|e| e.kind == EventKind::Run)
        .unwrap();
    assert_eq!((run.time, run.tm_zone), (Some(1_795_303_371), Some(0)));
    assert!(log.events.iter().all(|e| e.other.is_empty()));
    let d = log.descriptor(8).unwrap();
    assert_eq!(d.file.as_deref(), Some("profile"));
    assert_eq!(d.uname.as_deref(), Some("Clock profiling data"));
    let names: Vec<_> = d
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.offset, f.field_type))
        .collect();
    assert_eq!(
        names,
        [
            ("LWPID", 8, FieldType::Int64),
            ("THRID", 16, FieldType::Int64),
            ("CPUID", 24, FieldType::Int32),
            ("TSTAMP", 28, FieldType::Int64),
            ("FRINFO", 36, FieldType::Int64),
            ("MSTATE", 44, FieldType::Int32),
            ("NTICK", 48, FieldType::Int32),
        ]
    );
    let samples = log.samples();
    assert_eq!(samples.len(), 6);
    assert_eq!(samples[0].label, "collector_open_experiment");
    assert_eq!(samples[5].label, "collector_close_experiment");
    assert_eq!(
        log.events
            .iter()
            .filter(|e| e.kind == EventKind::Run)
            .count(),
        2
    );
    let msgs = log.messages();
    assert_eq!(msgs[0].severity, Severity::Warning);
    assert_eq!((msgs[0].id, msgs[0].text.as_str()), (207, "10007 -> 0"));
    assert_eq!(msgs[1].severity, Severity::Comment);
    assert_eq!(msgs[1].id, 400);
    assert!(
        msgs[1]
            .text
            .starts_with("Archive command ` /usr/bin/gp-archive")
    );
}

#[test]
fn pause_resume_and_named_samples() {
    let exp = open("dynfunc_api");
    let kinds: Vec<_> = exp.log().events.iter().map(|e| e.kind.clone()).collect();
    assert!(kinds.contains(&EventKind::Pause) && kinds.contains(&EventKind::Resume));
    let pause = exp
        .log()
        .events
        .iter()
        .find(|e| e.kind == EventKind::Pause)
        .unwrap();
    assert_eq!(pause.name.as_deref(), Some("API"));
    assert_eq!(pause.tstamp, 709_928_674);
    let labels: Vec<_> = exp
        .samples()
        .unwrap()
        .into_iter()
        .map(|s| s.label)
        .collect();
    assert_eq!(
        labels,
        [
            "before-hot",
            "collector_pause(API)",
            "collector_resume",
            "after-resume",
            "collector_close_experiment"
        ]
    );
}

#[test]
fn descendant_events_and_lineage() {
    let exp = open("descendants");
    let log = exp.log();
    let starts: Vec<_> = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::DescStart)
        .map(|e| (e.variant.as_deref().unwrap(), e.lineage.as_deref().unwrap()))
        .collect();
    assert_eq!(
        starts[..3],
        [("fork", "_f1"), ("fork", "_f2"), ("vfork", "_f3")]
    );
    assert!(
        log.events
            .iter()
            .any(|e| e.kind == EventKind::ExecStart && e.variant.as_deref() == Some("posix_spawn"))
    );
    let names: Vec<_> = exp.descendants().into_iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "_f1.er",
            "_f2.er",
            "_f2_x1.er",
            "_f2_x1_f1.er",
            "_f3.er",
            "_f3_x1.er",
            "_x1.er",
            "_x1_f1.er"
        ]
    );
    let d = &exp.descendants()[3];
    assert_eq!(d.lineage, [Step::Fork(2), Step::Exec(1), Step::Fork(1)]);
    // Opened recursively: a fork child says `(fork)`, its ppid is the founder's pid.
    let child = exp.open_descendant("_f1.er").unwrap();
    assert_eq!(child.log().process.command.as_deref(), Some("(fork)"));
    assert_eq!(child.log().process.ppid, log.process.pid);
    let exec = exp.open_descendant("_x1.er").unwrap();
    assert_eq!(
        exec.log().process.command.as_deref(),
        Some("./prog exec-child")
    );
    // An exec'ed process's old experiment ends without `exit`: not incomplete.
    let f2 = exp.open_descendant("_f2.er").unwrap();
    assert!(f2.log().has_exec() || f2.log().has_exit());
    for d in exp.descendants() {
        let e = exp.open_descendant(&d.name).unwrap();
        assert!(e.frameinfo().problems().is_empty(), "{}", d.name);
        assert_eq!(e.log().version, "12.4");
    }
}

#[test]
fn typed_views_decode_every_kind() {
    let heap = open("heap");
    let file = heap.data("heaptrace").unwrap().unwrap();
    let mut types = std::collections::BTreeMap::new();
    for p in file.packets() {
        let TypedPacket::Heap(h) = p.unwrap().typed().unwrap() else {
            panic!("not heap")
        };
        *types.entry(format!("{:?}", h.htype)).or_insert(0) += 1;
        if h.htype == HeapType::Munmap {
            assert_eq!(h.size, 1 << 20);
        }
    }
    assert_eq!(types["Malloc"], 214);
    assert_eq!(types["Free"], 201);
    assert_eq!(types["Realloc"], 200);
    assert_eq!(types["Mmap"], 2);

    let io = open("iotrace");
    let mut names = Vec::new();
    for p in io.data("iotrace").unwrap().unwrap().packets() {
        let TypedPacket::Io(p) = p.unwrap().typed().unwrap() else {
            panic!("not io")
        };
        if p.io_type == IoType::Open || p.io_type == IoType::OpenError {
            names.extend(p.file_name.clone());
        }
    }
    assert!(names.contains(&"data.bin".to_owned()));
    assert!(names.contains(&"/nonexistent/x".to_owned()));

    let clock = open("clock_basic");
    for p in clock.data("profile").unwrap().unwrap().packets() {
        let TypedPacket::Clock(c) = p.unwrap().typed().unwrap() else {
            panic!("not clock")
        };
        assert_eq!((c.mstate, c.nticks), (MicroState::LinuxCpu, 1));
        let stack = clock.stack(c.common.frinfo).unwrap().unwrap();
        assert_eq!(stack.native.len(), 10);
        assert!(!stack.native_truncated);
    }

    let sync = open("sync_all");
    let mut total = 0;
    for p in sync.data("synctrace").unwrap().unwrap().packets() {
        let TypedPacket::Sync(s) = p.unwrap().typed().unwrap() else {
            panic!("not sync")
        };
        assert!(s.object != 0 && s.request <= s.common.tstamp);
        total += s.wait_ns();
    }
    assert_eq!(total, 531_618_074);
}

#[test]
fn every_frame_info_hashes_to_its_uid() {
    let mut infos = 0;
    for case in NATIVE_CASES {
        let exp = open(case);
        let fi = exp.frameinfo();
        assert!(fi.problems().is_empty(), "{case}: {:?}", fi.problems());
        for info in fi.infos() {
            assert!(!info.compressed);
            assert_eq!(compute_uid(fi.own_words(info)), info.uid, "{case}");
            infos += 1;
        }
    }
    assert!(infos > 30, "{infos}");
}

#[test]
fn pcs_resolve_to_load_objects() {
    let exp = open("clock_basic");
    let file = exp.data("profile").unwrap().unwrap();
    let p = file.packets().next().unwrap().unwrap();
    let c = *p.typed().unwrap().common();
    let stack = exp.stack(c.frinfo).unwrap().unwrap();
    let rel = c.tstamp - exp.log().run_start().unwrap();
    // gprofng: root frame `<static>@0x271c1 (<libc.so.6>) + 0x87`, leaf in prog's `leaf_sqrt_loop`.
    let root = exp
        .map()
        .resolve(*stack.native.last().unwrap(), rel)
        .unwrap();
    assert_eq!(root.name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    assert_eq!(root.offset, 0x271c1 + 0x87);
    let leaf = exp.map().resolve(stack.native[0], rel).unwrap();
    assert_eq!(leaf.name, "/tmp/gprofng-corpus/clock_basic/prog");
    assert!(exp.map().resolve(0x10, rel).is_none());
}

#[test]
fn dynamic_functions_from_map_and_dyntext() {
    let exp = open("dynfunc_api");
    let funcs = exp.dyntext().unwrap();
    let alpha = exp
        .map()
        .events
        .iter()
        .find_map(|e| match e {
            MapEvent::Function {
                name, vaddr, size, ..
            } if name == "jit_alpha" => Some((*vaddr, *size)),
            _ => None,
        })
        .unwrap();
    assert_eq!(alpha.1, 100);
    let f = funcs.iter().find(|f| f.vaddr == alpha.0).unwrap();
    assert_eq!(f.source_file.as_deref(), Some("jit_source.txt"));
    assert_eq!(f.lines, [(0, 10), (16, 11), (48, 12)]);
    assert!(f.code.len() >= 100 && f.code[..100].iter().all(|&b| b == 0x90));
    assert!(
        exp.map()
            .events
            .iter()
            .any(|e| matches!(e, MapEvent::Unmap { vaddr, .. } if *vaddr == alpha.0 + 256))
    );
    // A PC inside jit_beta resolves to it while mapped, not after its unmap.
    let beta = alpha.0 + 256;
    assert_eq!(
        exp.map().resolve(beta + 4, 300_000).unwrap().name,
        "jit_beta"
    );
    assert!(
        exp.map()
            .resolve(beta + 4, 779_300_000)
            .is_none_or(|r| r.name != "jit_beta")
    );
    // Every process has the vDSO in dyntext.
    for case in NATIVE_CASES {
        assert!(!open(case).dyntext().unwrap().is_empty(), "{case}");
    }
}

#[test]
fn overview_samples() {
    let exp = open("clock_basic");
    let recs = exp.overview().unwrap();
    assert_eq!(recs.len(), 6);
    assert!(recs.windows(2).all(|w| w[0].tstamp < w[1].tstamp));
    assert_eq!(recs[0].lwpid, 23715);
    let samples = exp.samples().unwrap();
    assert_eq!(samples.len(), 5);
    assert_eq!(samples[0].label, "periodic");
    let cpu: u64 = samples.iter().map(|s| s.user_ns + s.system_ns).sum();
    assert!(cpu > 2_000_000_000, "{cpu}");
}

#[test]
fn archive_names_map_back_to_load_objects() {
    assert_eq!(crc64(b""), 0);
    assert_eq!(
        archive_name("/usr/lib/x86_64-linux-gnu/libc.so.6"),
        "libc.so.6_dnWuQRcLhw9"
    );
    assert!(
        archive_name("/usr/lib/x86_64-linux-gnu/gprofng/libgp-collector.so")
            .ends_with("_1doggXvug9f")
    );
    for case in NATIVE_CASES {
        let exp = open(case);
        let archives = exp.archives();
        assert_eq!(archives.len(), 1, "{case}");
        let obj = load_object(exp.map(), &archives[0]).unwrap();
        assert_eq!(obj, format!("/tmp/gprofng-corpus/{case}/prog"));
        // archive.log names the same copy.
        let log = String::from_utf8(exp.file("archive.log").unwrap().unwrap().to_vec()).unwrap();
        let copies = experiment::archives::parse_log(&log);
        if case == "descendants" {
            // Its founder's log lists no copies (the descendants' logs do).
            assert!(copies.is_empty());
            continue;
        }
        assert!(
            copies
                .iter()
                .any(|c| c.archive.ends_with("/libc.so.6_dnWuQRcLhw9")),
            "{case}"
        );
        let copy = copies.iter().find(|c| c.source == obj).unwrap();
        assert!(
            copy.archive
                .ends_with(&format!("/archives/{}", archives[0])),
            "{copy:?}"
        );
    }
}

#[test]
fn empty_experiment_and_missing_files() {
    let exp = open("tiny");
    assert_eq!(exp.data("profile").unwrap().unwrap().packets().count(), 0);
    assert!(exp.data("heaptrace").unwrap().is_none());
    assert!(exp.frameinfo().infos().is_empty());
    assert!(!exp.incomplete());
    let e = Experiment::open(MemorySource::new().with("map.xml", "")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "missing required file `log.xml`: expected it in the experiment directory, found nothing"
    );
}

#[test]
fn killed_target_is_incomplete() {
    // The heap experiment without its exit event and with its data file cut mid-packet.
    let dir = data().join("heap/test.1.er");
    let log = std::fs::read(dir.join("log.xml")).unwrap();
    let text = String::from_utf8_lossy(&log).replace("<event kind=\"exit\"", "<event kind=\"x\"");
    let heap = std::fs::read(dir.join("heaptrace")).unwrap();
    let src = MemorySource::new()
        .with("log.xml", text.into_bytes())
        .with("heaptrace", heap[..1000].to_vec());
    let exp = Experiment::open(src).unwrap();
    assert!(exp.incomplete());
    let file = exp.data("heaptrace").unwrap().unwrap();
    let got: Vec<_> = file.packets().collect();
    assert!(got[..got.len() - 1].iter().all(Result::is_ok));
    let last = got.last().unwrap().as_ref().unwrap_err();
    assert!(last.is_truncated(), "{last}");
    assert_eq!(last.file(), Some("heaptrace"));
    assert!(
        last.to_string()
            .starts_with("heaptrace: packet: expected 80 bytes at byte offset 960"),
        "{last}"
    );
}

#[test]
fn java_dynamic_classes_are_listed_with_their_class_files() {
    let exp = open("java_heap");
    let classes = exp.jdynclasses();
    let names: Vec<(&str, &str, usize)> = classes
        .iter()
        .map(|c| (c.path.as_str(), c.class_name.as_str(), c.bytes.len()))
        .collect();
    assert_eq!(
        names,
        [
            ("jdynclasses/Main.class", "Main", 2604),
            (
                "jdynclasses/com/sun/forte/st/collector/CollectorAPI.class",
                "com.sun.forte.st.collector.CollectorAPI",
                633
            ),
        ]
    );
    assert!(classes.iter().all(experiment::DynClass::is_class_file));
    assert_eq!(exp.ifreq().unwrap(), None);
}

#[test]
fn java_frames_resolve_through_jclasses() {
    let exp = open("java_heap");
    assert!(exp.log().is_java());
    let jc = exp.jclasses().unwrap().unwrap();
    assert!(jc.classes.len() > 400);
    assert!(
        jc.classes
            .iter()
            .any(|c| c.name == "LMain;" && c.source_file == "Main.java")
    );
    let fi = exp.frameinfo();
    assert!(fi.problems().is_empty(), "{:?}", fi.problems());
    assert!(
        fi.infos().iter().any(|i| i.compressed),
        "the Java fixture has compressed infos"
    );
    let (mut frames, mut named) = (0, 0);
    let file = exp.data("heaptrace").unwrap().unwrap();
    for p in file.packets() {
        let c = *p.unwrap().typed().unwrap().common();
        let stack = exp.stack(c.frinfo).unwrap().unwrap();
        if stack.java_error().is_some() {
            continue;
        }
        for f in &stack.java {
            frames += 1;
            if let Some((class, m)) = jc.method(f.method_id) {
                named += 1;
                assert!(class.name.starts_with('L') && !m.name.is_empty());
            }
        }
    }
    assert!(frames > 1000);
    assert_eq!(named, frames, "every Java frame's method id is in jclasses");
    // Main.main is there with its JVM signature.
    let main = jc
        .classes
        .iter()
        .filter(|c| c.name == "LMain;")
        .flat_map(|c| &c.methods)
        .find(|m| m.name == "main")
        .unwrap();
    assert_eq!(main.signature, "([Ljava/lang/String;)V");
}

/// Every attribute of every real log.xml is one the model names: nothing lands in an `other`
/// list, and the Java, sync and descendant logs' attributes are where they belong.
#[test]
fn every_log_attribute_of_the_real_logs_is_typed() {
    let mut logs = 0;
    for entry in walkdir(&data()) {
        if entry.file_name().is_some_and(|n| n == "log.xml") {
            let bytes = std::fs::read(&entry).unwrap();
            let log = experiment::log::Log::parse(&bytes).unwrap();
            let where_ = entry.display();
            assert!(log.system.other.is_empty(), "{where_}: {:?}", log.system);
            assert!(log.process.other.is_empty(), "{where_}: {:?}", log.process);
            assert!(
                log.settings.other.is_empty(),
                "{where_}: {:?}",
                log.settings
            );
            for c in &log.system.cpus {
                assert!(c.other.is_empty() && c.clk > 0, "{where_}: {c:?}");
            }
            for p in &log.profiles {
                assert!(p.other.is_empty(), "{where_}: {p:?}");
            }
            for e in &log.events {
                assert!(e.other.is_empty(), "{where_}: {e:?}");
            }
            logs += 1;
        }
    }
    assert!(logs >= 16, "{logs} logs");

    let java = open("java_heap");
    let log = java.log();
    let jprofile = log.profile("jprofile").unwrap();
    assert_eq!(jprofile.api.as_deref(), Some("JVMTI 1.0"));
    assert!(jprofile.jversion.as_deref().unwrap().starts_with("17."));
    assert_eq!(log.settings.search_path.len(), 2, "{:?}", log.settings);
    let thread = log
        .events
        .iter()
        .find(|e| e.kind == EventKind::JthreadStart)
        .unwrap();
    assert!(thread.name.is_some() && thread.grpname.is_some() && thread.prntname.is_some());
    assert!(thread.tid.unwrap() > 0 && thread.jthr.unwrap() > 0 && thread.jenv.unwrap() > 0);

    let sync = open("sync_all");
    let p = sync.log().profile("synctrace").unwrap();
    assert_eq!((p.threshold, p.scope), (Some(0), Some(3)));

    let desc = open("descendants");
    let started = desc
        .log()
        .events
        .iter()
        .find(|e| e.kind == EventKind::DescStarted)
        .unwrap();
    assert!(started.msg.as_deref().unwrap().starts_with("pid="));
    assert_eq!(started.follow, Some(1));
}

fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}
