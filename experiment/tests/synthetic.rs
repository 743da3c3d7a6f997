//! Paths the recorded fixtures never hit, on hand-built bytes: compressed and uid-linked stacks,
//! Java infos, big-endian (SPARC) and 32-bit experiments, unknown packet kinds, bad offsets.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use experiment::cursor::{Endian, WordSize};
use experiment::frameinfo::ExperimentKind;
use experiment::frameinfo::{
    COMPRESSED_INFO, FrameInfo, JAVA_INFO, STACK_INFO, TRUNC_STACK_MARKER, compute_uid,
};
use experiment::jclasses::JClasses;
use experiment::packets::{MicroState, TypedPacket, Value, sort_by_time};
use experiment::{Error, Experiment, MemorySource};

/// Writes integers in one byte order.
struct W {
    e: Endian,
    b: Vec<u8>,
}

impl W {
    fn new(e: Endian) -> Self {
        W { e, b: Vec::new() }
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.b.extend(if self.e == Endian::Little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        });
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.b.extend(if self.e == Endian::Little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        });
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.b.extend(if self.e == Endian::Little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        });
        self
    }
    fn word(&mut self, w: WordSize, v: u64) -> &mut Self {
        if w == WordSize::W32 {
            self.u32(v as u32)
        } else {
            self.u64(v)
        }
    }
}

/// A packet: tsize, type, then `body` (header included in tsize).
fn packet(e: Endian, kind: u16, body: &[u8]) -> Vec<u8> {
    let mut w = W::new(e);
    w.u16((body.len() + 4) as u16).u16(kind);
    w.b.extend(body);
    w.b
}

/// Frame info: `{hsize, kind, uid}` + words (+ LE link if compressed).
fn info(e: Endian, ws: WordSize, kind: u32, uid: u64, words: &[u64], link: Option<u64>) -> Vec<u8> {
    let mut p = W::new(e);
    for &v in words {
        p.word(ws, v);
    }
    if let Some(l) = link {
        p.b.extend(l.to_le_bytes());
    }
    let mut w = W::new(e);
    w.u32((16 + p.b.len()) as u32).u32(kind).u64(uid);
    w.b.extend(p.b);
    w.b
}

/// A frame packet with uid `uid` holding `infos`.
fn frame(e: Endian, uid: u64, infos: &[Vec<u8>]) -> Vec<u8> {
    let mut w = W::new(e);
    w.u32(16).u64(uid);
    for i in infos {
        w.b.extend(i);
    }
    packet(e, 11, &w.b)
}

/// Pads to a 64 KiB block with an EMPTY packet (the collector's block tail).
fn block(e: Endian, mut data: Vec<u8>) -> Vec<u8> {
    let rest = 65536 - data.len() % 65536;
    let mut w = W::new(e);
    w.u16(rest.min(65535) as u16).u16(0);
    data.extend(w.b);
    data.resize(data.len() + rest - 4, 0);
    data
}

#[test]
fn compressed_stacks_resolve_through_links_in_any_order() {
    let (e, ws) = (Endian::Little, WordSize::W64);
    let full = [0x1000u64, 0x2000, 0x3000, 0x4000];
    let suffix = &full[2..];
    let suffix_uid = compute_uid(suffix);
    let full_uid = compute_uid(&full);
    // Packet 1 (written first in the file) links forward to the suffix defined in packet 2.
    let p1 = frame(
        e,
        7,
        &[info(
            e,
            ws,
            STACK_INFO | COMPRESSED_INFO,
            full_uid,
            &full[..2],
            Some(suffix_uid),
        )],
    );
    let p2 = frame(e, 8, &[info(e, ws, STACK_INFO, suffix_uid, suffix, None)]);
    // Packet 3: the whole array already known: empty payload, its own uid is the reference.
    let p3 = frame(
        e,
        9,
        &[info(
            e,
            ws,
            STACK_INFO | COMPRESSED_INFO,
            suffix_uid,
            &[],
            None,
        )],
    );
    let data = block(e, [p1, p2, p3].concat());
    let fi = FrameInfo::parse(&data, e, ws);
    assert!(fi.problems().is_empty());
    assert_eq!(fi.frame_packet_count(), 3);
    assert_eq!(fi.stack(7).unwrap().unwrap().native, full);
    assert_eq!(fi.stack(8).unwrap().unwrap().native, suffix);
    assert_eq!(fi.stack(9).unwrap().unwrap().native, suffix);
    assert_eq!(fi.stack(10).unwrap(), None);
}

#[test]
fn dangling_and_cyclic_links_are_errors() {
    let (e, ws) = (Endian::Little, WordSize::W64);
    let a = frame(
        e,
        1,
        &[info(
            e,
            ws,
            STACK_INFO | COMPRESSED_INFO,
            100,
            &[1],
            Some(200),
        )],
    );
    let b = frame(
        e,
        2,
        &[info(
            e,
            ws,
            STACK_INFO | COMPRESSED_INFO,
            200,
            &[2],
            Some(100),
        )],
    );
    let c = frame(
        e,
        3,
        &[info(
            e,
            ws,
            STACK_INFO | COMPRESSED_INFO,
            300,
            &[3],
            Some(999),
        )],
    );
    let d = frame(
        e,
        4,
        &[info(e, ws, STACK_INFO | COMPRESSED_INFO, 400, &[], None)],
    );
    let fi = FrameInfo::parse(&[a, b, c, d].concat(), e, ws);
    assert!(matches!(fi.stack(1), Err(Error::Stack { found, .. }) if found == "a cycle"));
    assert!(matches!(fi.stack(3), Err(Error::Stack { uid: 999, .. })));
    assert!(matches!(fi.stack(4), Err(Error::Stack { uid: 400, .. })));
    // Review regression: the error says where the failing info is (packet c starts at 96,
    // after a and b of 48 bytes each; its info follows the 16-byte packet header).
    let err = fi.stack(3).unwrap_err().to_string();
    assert!(err.contains("byte offset 112"), "{err}");
}

#[test]
fn infos_sharing_a_chain_cannot_multiply_a_stack() {
    // Review regression: one 1000-word info and a frame packet whose 100 infos all link to
    // it resolved to 100 000 words (a 64 KiB packet of 2 700 such infos over a 1 MiB file:
    // gigabytes). A stack can hold at most the words the file has.
    let (e, ws) = (Endian::Little, WordSize::W64);
    let words: Vec<u64> = (1..=1000).collect();
    let chain_uid = compute_uid(&words);
    let chain = frame(e, 1, &[info(e, ws, STACK_INFO, chain_uid, &words, None)]);
    let links: Vec<Vec<u8>> = (0..100)
        .map(|i| {
            info(
                e,
                ws,
                STACK_INFO | COMPRESSED_INFO,
                1000 + i,
                &[],
                Some(chain_uid),
            )
        })
        .collect();
    let bomb = frame(e, 2, &links);
    let fi = FrameInfo::parse(&[chain, bomb].concat(), e, ws);
    assert!(fi.problems().is_empty(), "{:?}", fi.problems());
    assert_eq!(fi.stack(1).unwrap().unwrap().native, words);
    match fi.stack(2) {
        Err(Error::Stack { uid: 2, .. }) => {}
        Ok(s) => panic!(
            "resolved {} words from 1000",
            s.map_or(0, |s| s.native.len())
        ),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn uid_packets_are_link_targets() {
    let (e, ws) = (Endian::Little, WordSize::W64);
    let tail = [0xAAu64, 0xBB];
    let tail_uid = compute_uid(&tail);
    let mut u = W::new(e);
    u.u32(0).u64(tail_uid);
    for v in tail {
        u.u64(v);
    }
    let uid_packet = packet(e, 17, &u.b);
    let f = frame(
        e,
        5,
        &[info(
            e,
            ws,
            STACK_INFO | COMPRESSED_INFO,
            0,
            &[0x11],
            Some(tail_uid),
        )],
    );
    let fi = FrameInfo::parse(&[f, uid_packet].concat(), e, ws);
    assert_eq!(fi.uid_packet_count(), 1);
    assert_eq!(fi.stack(5).unwrap().unwrap().native, [0x11, 0xAA, 0xBB]);
}

#[test]
fn java_infos_with_truncation_and_error_frames() {
    let (e, ws) = (Endian::Little, WordSize::W64);
    // {lineno in the low 4 bytes (garbage above), method id}, leaf first, then the marker.
    let words = [
        0xDEAD_0000_0000_0007u64,
        0x7f00_0000_1000,
        12,
        0x7f00_0000_2000,
        0,
        TRUNC_STACK_MARKER,
    ];
    let java = info(e, ws, JAVA_INFO, compute_uid(&words), &words, None);
    let native = info(
        e,
        ws,
        STACK_INFO,
        1,
        &[0x5000, 0x6000, TRUNC_STACK_MARKER],
        None,
    );
    let err = info(e, ws, JAVA_INFO, 2, &[(-5i32) as u32 as u64, 0], None);
    let fi = FrameInfo::parse(
        &[frame(e, 1, &[java, native]), frame(e, 2, &[err])].concat(),
        e,
        ws,
    );
    let s = fi.stack(1).unwrap().unwrap();
    assert_eq!(s.java.len(), 2);
    assert_eq!(
        (s.java[0].lineno, s.java[0].method_id),
        (7, 0x7f00_0000_1000)
    );
    assert!(s.java_truncated && s.native_truncated);
    assert_eq!(s.native, [0x5000, 0x6000]);
    // Two Java frames under gprofng's `<Truncated-stack>` frame (`CallStackP::add_stack_java`
    // adds it when `resolve_frame_info` found the marker: `jtruncated`).
    assert_eq!(s.user_view_frames(ExperimentKind::Java), 3);
    let s = fi.stack(2).unwrap().unwrap();
    assert_eq!(s.java_error(), Some(-5));
    assert_eq!(s.user_view_frames(ExperimentKind::Java), 1);
}

#[test]
fn frame_info_overruns_are_reported_not_fatal() {
    let (e, ws) = (Endian::Little, WordSize::W64);
    let mut bad = info(e, ws, STACK_INFO, 9, &[1, 2], None);
    bad[0] = 200; // hsize past the packet
    let short = info(e, ws, STACK_INFO | COMPRESSED_INFO, 3, &[], None);
    let mut short = short;
    short.extend([1, 2, 3, 4]); // 4-byte compressed payload: no room for the link
    short[0] = 20;
    let fi = FrameInfo::parse(
        &[frame(e, 1, &[bad]), frame(e, 2, &[short])].concat(),
        e,
        ws,
    );
    assert_eq!(fi.problems().len(), 2);
    assert!(fi.stack(1).unwrap().unwrap().native.is_empty());
}

#[test]
fn frame_info_hsize_near_u32_max_is_a_problem_at_its_offset() {
    // `pos + hsize` would overflow a 32-bit `usize`: still a problem at the info's offset.
    let (e, ws) = (Endian::Little, WordSize::W64);
    let good = info(e, ws, STACK_INFO, 5, &[7], None);
    let mut huge = info(e, ws, STACK_INFO, 9, &[1, 2], None);
    huge[..4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let fi = FrameInfo::parse(&frame(e, 1, &[good.clone(), huge]), e, ws);
    // The frame packet's header (hsize 16, packet header included), then the good info.
    let offset = (16 + good.len()) as u64;
    assert_eq!(
        fi.problems(),
        [Error::Invalid {
            what: "frame info hsize",
            offset,
            expected: "16 ..= 32 (rest of the packet)".into(),
            found: "4294967280".into(),
        }]
    );
    assert_eq!(fi.stack(1).unwrap().unwrap().native, [7]);
}

/// log.xml of a SPARC (big-endian) 32-bit process with clock and a custom packet kind.
const SPARC_LOG: &str = r#"<experiment version="12.3"><collector>12.3</collector></experiment>
<system hostname="t5" arch="sun4v" os="SunOS 5.11" pagesz="8192"/>
<process wsize="32"></process><process pid="42"></process>
<event kind="run" tstamp="10.000000000"/>
<profile name="profile" ptimer="10000" numstates="10">
  <profdata fname="profile"/>
  <profpckt kind="8" uname="Clock profiling data">
    <field name="LWPID" offset="4" type="INT32"/>
    <field name="THRID" offset="8" type="INT32"/>
    <field name="CPUID" offset="12" type="INT32"/>
    <field name="TSTAMP" offset="16" type="INT64"/>
    <field name="FRINFO" offset="24" type="INT64"/>
    <field name="MSTATE" offset="32" type="INT32"/>
    <field name="NTICK" offset="36" type="INT32"/>
  </profpckt>
</profile>
<profile name="newtrace">
  <profdata fname="newtrace"/>
  <profpckt kind="21" uname="Some future kind">
    <field name="TSTAMP" offset="8" type="UINT64"/>
    <field name="WIDGETS" offset="16" type="UINT32"/>
    <field name="RATIO" offset="20" type="DOUBLE"/>
    <field name="LABEL" offset="28" type="STRING"/>
    <field name="BEYOND" offset="400" type="INT64"/>
  </profpckt>
</profile>
<event kind="exit" tstamp="2.5"/>"#;

fn sparc_experiment() -> MemorySource {
    let (e, ws) = (Endian::Big, WordSize::W32);
    let mut profile = Vec::new();
    for (i, ts) in [
        (1u32, 10_300_000_000u64),
        (2, 10_100_000_000),
        (1, 10_200_000_000),
    ] {
        let mut w = W::new(e);
        w.u32(i).u32(i).u32(3).u64(ts).u64(77).u32(10).u32(2);
        profile.extend(packet(e, 8, &w.b));
    }
    let mut w = W::new(e);
    w.u32(0).u64(10_400_000_000).u32(5).u64(0.5f64.to_bits());
    w.b.extend(b"hello\0\0\0");
    let newtrace = packet(e, 21, &w.b);
    let stack = info(e, ws, STACK_INFO, 1, &[0x10010, 0x10020, 0xFFFF_FFFE], None);
    let mut ovw = Vec::new();
    for t in [10u64, 11] {
        let mut w = W::new(e);
        w.u32(42).u32(1);
        for k in 0..20 {
            w.word(ws, if k == 0 { t } else { 0 }).word(ws, 0);
        }
        for _ in 0..22 {
            w.word(ws, 1);
        }
        ovw.extend(w.b);
    }
    MemorySource::new()
        .with("log.xml", SPARC_LOG)
        .with("profile", block(e, profile))
        .with("newtrace", block(e, newtrace))
        .with("data.frameinfo", block(e, frame(e, 77, &[stack])))
        .with("overview", ovw)
}

#[test]
fn big_endian_32_bit_experiment() {
    let exp = Experiment::open(sparc_experiment()).unwrap();
    assert_eq!(
        (exp.endian(), exp.word_size()),
        (Endian::Big, WordSize::W32)
    );
    let file = exp.data("profile").unwrap().unwrap();
    let mut packets: Vec<TypedPacket> = file
        .packets()
        .map(|p| p.unwrap().typed().unwrap())
        .collect();
    assert_eq!(packets.len(), 3);
    sort_by_time(&mut packets);
    let ts: Vec<u64> = packets.iter().map(|p| p.common().tstamp).collect();
    assert_eq!(ts, [10_100_000_000, 10_200_000_000, 10_300_000_000]);
    let TypedPacket::Clock(c) = &packets[0] else {
        panic!()
    };
    assert_eq!((c.common.thr_id, c.common.cpu_id, c.nticks), (2, 3, 2));
    assert_eq!(c.mstate.name(), "LINUX_CPU");
    // 32-bit truncation marker 0xFFFFFFFE is widened and removed.
    let s = exp.stack(77).unwrap().unwrap();
    assert_eq!(s.native, [0x10010, 0x10020]);
    assert!(s.native_truncated);
    // 32-bit overview records are 256 bytes.
    let recs = exp.overview().unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!((recs[1].tstamp, recs[1].minf), (11_000_000_000, 1));
}

#[test]
fn unknown_kinds_decode_to_named_fields() {
    let exp = Experiment::open(sparc_experiment()).unwrap();
    let file = exp.data("newtrace").unwrap().unwrap();
    let p = file.packets().next().unwrap().unwrap();
    assert_eq!(p.packet.get("WIDGETS").unwrap(), Some(Value::UInt(5)));
    assert_eq!(p.packet.get("RATIO").unwrap(), Some(Value::Double(0.5)));
    assert_eq!(
        p.packet.get("LABEL").unwrap(),
        Some(Value::Str("hello".into()))
    );
    assert_eq!(p.packet.get("NOPE").unwrap(), None);
    // A descriptor pointing past the packet is an error that names the field, not a panic.
    let err = p.packet.get("BEYOND").unwrap_err();
    assert!(err.to_string().contains("BEYOND"), "{err}");
    assert!(p.packet.record().is_err());
    // The typed view checks the whole descriptor against the packet once.
    assert!(matches!(
        p.typed(),
        Err(Error::Invalid { what: "packet", .. })
    ));
}

#[test]
fn jclasses_classes_methods_locations() {
    let e = Endian::Little;
    let strings = |a: &str, b: &str| {
        let mut v = Vec::new();
        for s in [a, b] {
            let mut x = s.as_bytes().to_vec();
            x.resize((s.len() + 4) & !3, 0);
            v.extend(x);
        }
        v
    };
    let mut w = W::new(e);
    w.u32(0).u64(0x10).u64(5);
    w.b.extend(strings("LMain;", "Main.java"));
    let class = packet(e, 0x0A03, &w.b);
    let mut w = W::new(e);
    w.u32(0).u64(0x10).u64(0x7f01);
    w.b.extend(strings("main", "([Ljava/lang/String;)V"));
    let method = packet(e, 0x0B03, &w.b);
    let mut w = W::new(e);
    w.u32(0).u64(0x10);
    w.b.extend(strings("LMain;", "file:/tmp/Main.class"));
    let loc = packet(e, 0x0E03, &w.b);
    let jc = JClasses::parse(&block(e, [class, method, loc].concat()), e).unwrap();
    assert_eq!(jc.classes[0].name, "LMain;");
    assert_eq!(jc.classes[0].source_file, "Main.java");
    let (c, m) = jc.method(0x7f01).unwrap();
    assert_eq!(
        (c.name.as_str(), m.name.as_str(), m.signature.as_str()),
        ("LMain;", "main", "([Ljava/lang/String;)V")
    );
    assert_eq!(jc.locations[0].location, "file:/tmp/Main.class");
    let exp = Experiment::open(
        MemorySource::new()
            .with("log.xml", SPARC_LOG)
            .with("JAVA_CLASSES", block(e, packet(e, 0x0A03, &[0; 4]))),
    );
    assert!(exp.unwrap().jclasses().is_err());
}

#[test]
fn jclasses_string_padding_counts_bytes_not_decoded_chars() {
    // Review regression: `ARCH_STRLEN` pads by the string's bytes; a class name that is not
    // UTF-8 (Latin-1 `é`) decodes to a longer `String`, which moved the next string.
    let e = Endian::Little;
    let mut w = W::new(e);
    w.u32(0).u64(0x10).u64(5);
    w.b.extend(b"LCaf\xe9;\0\0"); // 6 bytes + NUL, padded to 8
    w.b.extend(b"Caf.java\0\0\0\0"); // 8 bytes + NUL, padded to 12
    let class = packet(e, 0x0A03, &w.b);
    let jc = JClasses::parse(&block(e, class), e).unwrap();
    assert_eq!(jc.classes[0].name, "LCaf\u{FFFD};");
    assert_eq!(jc.classes[0].source_file, "Caf.java");
}

#[test]
fn log_xml_leniency() {
    let log = experiment::log::Log::parse(
        b"\0\0<?xml version=\"1.0\"?>\n<experiment version=\"12.4\">\n<collector>2.40</collector>\n</experiment>\0\0\n\
          <event kind=\"cerror\" id=\"9\" ec=\"22\">itimer &lt;could&gt; not%20%be set</event>\
          <event kind=\"comment\" id=\"1\" text=\"a%3c%b\"/>\0\0\0 garbage \n<event kind=\"sample\" tstamp=\"1.5\" id=\"1\" lab",
    )
    .unwrap();
    let m = log.messages();
    assert_eq!(m[0].text, "itimer <could> not be set");
    assert_eq!(m[0].errno, Some(22));
    assert_eq!(m[1].text, "a<b");
    // The element cut by the end of the file is dropped.
    assert!(log.samples().is_empty());
}

#[test]
fn notes_labels_and_collect_time_warnings() {
    let src = MemorySource::new()
        .with(
            "log.xml",
            "<experiment version=\"12.4\"/><event kind=\"exit\"/>",
        )
        .with("notes", "first note\nsecond note\n")
        .with(
            "labels.xml",
            "<id name=\"phase1\" cmd=\"start\" time=\"3\"/>\0\0",
        )
        .with(
            "warnings.xml",
            "<event kind=\"cwarn\" id=\"210\">vfork</event><event kind=\"cerror\" id=\"9\"/>",
        );
    let exp = Experiment::open(src).unwrap();
    assert_eq!(exp.notes().unwrap(), ["first note", "second note"]);
    let labels = exp.labels().unwrap();
    assert_eq!(labels[0].name, "phase1");
    assert_eq!(labels[0].cmd.as_deref(), Some("start"));
    assert_eq!(labels[0].time.as_deref(), Some("3"));
    let w = exp.collect_warnings().unwrap().messages();
    assert_eq!((w[0].id, w[0].text.as_str(), w[1].id), (210, "vfork", 9));
    let s = experiment::summary::Summary::of(&exp).unwrap();
    assert_eq!((s.warnings.len(), s.errors.len()), (1, 1));
    assert!(!s.incomplete);
}

/// An old (Sun Studio 12) clock packet: `PROF_PCKT` (kind 1) with one profile-interval counter
/// per Solaris microstate instead of `MSTATE`/`NTICK` (spec: "時間ベースのプロファイリング").
#[test]
fn sun_studio_12_clock_packets_count_every_microstate() {
    let states = [
        "UCPU", "SCPU", "TRAP", "TFLT", "DFLT", "KFLT", "ULCK", "TSLP", "WCPU", "TSTP",
    ];
    let fields: String = states
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                r#"<field name="{name}" offset="{}" type="INT32"/>"#,
                32 + 4 * i
            )
        })
        .collect();
    let log = format!(
        r#"<experiment version="12.1"/><system arch="sun4v" os="SunOS 5.10"/><process wsize="32"/>
<profile name="profile" ptimer="10000" numstates="10"><profdata fname="profile"/>
<profpckt kind="1" uname="Clock profiling data">
<field name="LWPID" offset="4" type="INT32"/><field name="THRID" offset="8" type="INT32"/>
<field name="CPUID" offset="12" type="INT32"/><field name="TSTAMP" offset="16" type="INT64"/>
<field name="FRINFO" offset="24" type="INT64"/>{fields}</profpckt></profile>"#
    );
    let e = Endian::Big;
    let mut w = W::new(e);
    w.u32(1).u32(2).u32(0).u64(5_000).u64(0);
    for n in [3u32, 1, 0, 0, 0, 0, 0, 7, 0, 0] {
        w.u32(n);
    }
    let src = MemorySource::new()
        .with("log.xml", log)
        .with("profile", block(e, packet(e, 1, &w.b)));
    let exp = Experiment::open(src).unwrap();
    let file = exp.data("profile").unwrap().unwrap();
    let p = file.packets().next().unwrap().unwrap();
    let TypedPacket::Clock(c) = p.typed().unwrap() else {
        panic!("not a clock packet")
    };
    assert_eq!((c.common.thr_id, c.common.tstamp), (2, 5_000));
    assert_eq!(c.microstates, Some([3, 1, 0, 0, 0, 0, 0, 7, 0, 0]));
    assert_eq!(c.nticks, 11);
    assert_eq!(
        c.ticks().collect::<Vec<_>>(),
        [
            (MicroState::User, 3),
            (MicroState::System, 1),
            (MicroState::Sleep, 7)
        ]
    );
    // Fields stay readable by name too.
    assert_eq!(p.packet.get("TSLP").unwrap(), Some(Value::Int(7)));
}

/// `ifreq` comes back verbatim; a source whose directories nest forever (a symlink loop, say)
/// stops `jdynclasses` at its depth limit instead of recursing without end.
#[test]
fn ifreq_text_and_endless_jdynclasses_directories() {
    let src = experiment::FnSource::new(
        |path: &str| match path {
            "log.xml" => Ok(Some(bytes::Bytes::from_static(
                b"<experiment version=\"12.4\"/>",
            ))),
            "ifreq" => Ok(Some(bytes::Bytes::from_static(
                b"Instruction frequency data\n  1 add\n",
            ))),
            p if p.ends_with(".class") => Ok(Some(bytes::Bytes::from_static(b"\xCA\xFE\xBA\xBE"))),
            _ => Ok(None),
        },
        |dir: &str| {
            if dir.starts_with("jdynclasses") {
                // Two subdirectories at every level: 2^64 paths without the entry budget.
                vec![
                    "again".to_owned(),
                    "Gen.class".to_owned(),
                    "more".to_owned(),
                ]
            } else {
                Vec::new()
            }
        },
    );
    let exp = Experiment::open(src).unwrap();
    assert_eq!(
        exp.ifreq().unwrap().as_deref(),
        Some("Instruction frequency data\n  1 add\n")
    );
    let classes = exp.jdynclasses();
    assert!(classes.len() <= experiment::JDYNCLASSES_ENTRIES);
    assert!(classes.len() >= experiment::JDYNCLASSES_DEPTH);
    assert_eq!(classes[0].class_name, "Gen");
    assert!(classes.iter().any(|c| c.class_name == "again.again.Gen"));
}

#[test]
fn hardware_counter_profiles_and_packets() {
    let log = r#"<experiment version="12.4"/><system arch="x86_64"/>
<profile name="hwcounter" cpuver="2" hwcname="cycles" int_name="cpu-cycles" interval="1000003" tag="0" memop="0"/>
<profile name="hwcounter" cpuver="2" hwcname="insts" int_name="instructions" interval="2000003" tag="1" memop="0"/>
<profile name="hwcounter"><profdata fname="hwcounters"/><profpckt kind="3" uname="HW counter profiling data">
<field name="TSTAMP" offset="32" type="INT64"/><field name="FRINFO" offset="40" type="INT64"/>
<field name="HWCTAG" offset="48" type="UINT32"/><field name="HWCINT" offset="56" type="UINT64"/></profpckt></profile>"#;
    let mut w = W::new(Endian::Little);
    w.u32(0)
        .u64(1)
        .u64(2)
        .u32(0)
        .u32(0)
        .u64(99)
        .u64(0)
        .u32(1)
        .u32(0)
        .u64(2_000_003);
    let src = MemorySource::new().with("log.xml", log).with(
        "hwcounters",
        block(Endian::Little, packet(Endian::Little, 3, &w.b)),
    );
    let exp = Experiment::open(src).unwrap();
    let counters = exp.log().hw_counters();
    assert_eq!(counters.len(), 2);
    assert_eq!(
        (
            counters[1].tag,
            counters[1].name.as_str(),
            counters[1].interval
        ),
        (1, "insts", 2_000_003)
    );
    let file = exp.data("hwcounters").unwrap().unwrap();
    let p = file.packets().next().unwrap().unwrap();
    let TypedPacket::Hwc(h) = p.typed().unwrap() else {
        panic!()
    };
    assert_eq!((h.common.tstamp, h.tag, h.interval), (99, 1, 2_000_003));
    assert!(exp.incomplete(), "no exit event");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A chain of compressed infos (each keeping a prefix and linking to the info holding the
        /// rest, written in any order) resolves to the original stack, in both byte orders and
        /// word sizes.
        #[test]
        fn compressed_chains_resolve_to_the_original(
            words in prop::collection::vec(1u64..0xFFFF_0000, 1..40),
            cuts in prop::collection::vec(0usize..40, 0..4),
            big in any::<bool>(),
            narrow in any::<bool>(),
            reverse in any::<bool>(),
        ) {
            let e = if big { Endian::Big } else { Endian::Little };
            let ws = if narrow { WordSize::W32 } else { WordSize::W64 };
            let words: Vec<u64> = words.iter().map(|w| if narrow { w & 0xFFFF_FFF0 } else { *w }).collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % words.len()).filter(|&c| c > 0).collect();
            cuts.sort_unstable();
            cuts.dedup();
            // Suffix infos: words[c..] for every cut, each linking to the next suffix.
            let mut bounds = vec![0];
            bounds.extend(&cuts);
            let mut packets = Vec::new();
            for (i, &start) in bounds.iter().enumerate() {
                let end = bounds.get(i + 1).copied();
                let uid = compute_uid(&words[start..]);
                let inf = match end {
                    Some(end) => info(e, ws, STACK_INFO | COMPRESSED_INFO, uid, &words[start..end], Some(compute_uid(&words[end..]))),
                    None => info(e, ws, STACK_INFO, uid, &words[start..], None),
                };
                packets.push(frame(e, 1000 + i as u64, &[inf]));
            }
            if reverse {
                packets.reverse();
            }
            let fi = FrameInfo::parse(&packets.concat(), e, ws);
            prop_assert!(fi.problems().is_empty());
            prop_assert_eq!(fi.stack(1000).unwrap().unwrap().native, words);
        }

        /// Arbitrary bytes never make a reader panic or loop.
        #[test]
        fn readers_never_panic(data in prop::collection::vec(any::<u8>(), 0..2048)) {
            let _ = experiment::log::Log::parse(&data);
            let _ = experiment::map::Map::parse(&data);
            for e in [Endian::Little, Endian::Big] {
                prop_assert!(experiment::packets::Packets::new(&data, e).count() <= data.len() / 4 + 1);
                for ws in [WordSize::W32, WordSize::W64] {
                    let fi = FrameInfo::parse(&data, e, ws);
                    for i in fi.infos() {
                        let _ = fi.stack(i.uid);
                    }
                    let _ = experiment::overview::parse(&data, e, ws);
                }
                let _ = experiment::dyntext::functions(&data, e);
                let _ = JClasses::parse(&data, e);
            }
        }
    }
}

/// A clock experiment over the archived program of `cxx_names` (mapped at 0x5555_0000_0000):
/// one packet per stack of `stacks` (native PCs leaf first, markers included).
fn native_stacks_experiment(stacks: &[&[u64]]) -> MemorySource {
    let e = Endian::Little;
    let log = br#"<experiment version="12.4"><collector>2.40.00</collector></experiment>
<system hostname="vm" arch="x86_64" pagesz="4096"/>
<process wsize="64"></process>
<event kind="run" tstamp="100.000000000"/>
<profile name="profile" ptimer="10007">
  <profdata fname="profile"/>
  <profpckt kind="8" uname="Clock profiling data">
    <field name="THRID" offset="16" type="INT64"/>
    <field name="TSTAMP" offset="28" type="INT64"/>
    <field name="FRINFO" offset="36" type="INT64"/>
    <field name="NTICK" offset="48" type="INT32"/>
  </profpckt>
</profile>
<event kind="exit" tstamp="1.000000000"/>"#;
    let map = br#"<event kind="map" object="segment" tstamp="0.000000001" vaddr="0x0000555500000000" size="12288" pagesz="4096" foffset="+0x00000000" modes="0x005" chksum="0" name="/x/prog"/>
"#;
    let (mut profile, mut frames) = (Vec::new(), Vec::new());
    for (i, pcs) in stacks.iter().enumerate() {
        let uid = 100 + i as u64;
        let mut p = vec![0u8; 56];
        p[0..4].copy_from_slice(&[56, 0, 8, 0]);
        p[28..36].copy_from_slice(&(100_500_000_000u64 + i as u64).to_le_bytes());
        p[36..44].copy_from_slice(&uid.to_le_bytes());
        p[48..52].copy_from_slice(&1u32.to_le_bytes());
        profile.extend(p);
        frames.extend(frame(
            e,
            uid,
            &[info(e, WordSize::W64, STACK_INFO, uid, pcs, None)],
        ));
    }
    MemorySource::new()
        .with("log.xml", &log[..])
        .with("map.xml", &map[..])
        .with("profile", block(e, profile))
        .with("data.frameinfo", block(e, frames))
}

#[test]
fn plt_leaves_are_skipped_and_failed_unwinds_marked() {
    use experiment::frameinfo::FAILED_UNWIND_MARKER;
    use experiment::stacks::{Order, Symbolizer};
    let prog = std::fs::read_dir(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/cxx_names/test.1.er/archives"),
    )
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
    let prog = experiment::bytes::Bytes::from(std::fs::read(prog).unwrap());
    // .plt is 0x1020..0x1080 and main starts at 0x1090 in that program.
    let base = 0x5555_0000_0000u64;
    let (plt, main) = (base + 0x1030, base + 0x10a0);
    let stacks: [&[u64]; 4] = [
        &[plt, main],
        &[main, plt],
        &[main, FAILED_UNWIND_MARKER],
        &[plt, plt, main],
    ];
    let exp = Experiment::open(native_stacks_experiment(&stacks)).unwrap();
    let mut symbols = Symbolizer::new(&exp).with_load_objects(move |_| Some(prog.clone()));
    let mut got = Vec::new();
    for file in exp.data_files().unwrap() {
        for p in file.packets() {
            let t = p.unwrap().typed().unwrap();
            let id = symbols.stack(t.common().frinfo, t.common().tstamp);
            let names: Vec<String> = symbols
                .stack_frames(id, Order::LeafFirst)
                .map(|f| symbols.function(f.function).unwrap().name.clone())
                .collect();
            got.push(names);
        }
    }
    assert_eq!(
        got,
        [
            vec!["main"],
            vec!["main", "@plt"],
            vec!["main", "<Stack-unwind-failed>"],
            vec!["@plt", "main"],
        ]
    );
    assert_eq!(symbols.warnings().unreadable_objects, 0);
}

#[test]
fn hardware_counter_metrics_in_the_function_profile() {
    use experiment::profile::{FunctionTable, StackProfile};
    use experiment::stacks::Symbolizer;
    let log = r#"<experiment version="12.4"/><system arch="x86_64"/>
<event kind="run" tstamp="0.000000001"/>
<profile name="hwcounter" cpuver="2" hwcname="cycles" int_name="cpu-cycles" interval="1000003" tag="0" memop="0"/>
<profile name="hwcounter" cpuver="2" hwcname="insts" int_name="instructions" interval="2000003" tag="1" memop="0"/>
<profile name="hwcounter"><profdata fname="hwcounters"/><profpckt kind="3" uname="HW counter profiling data">
<field name="TSTAMP" offset="32" type="INT64"/><field name="FRINFO" offset="40" type="INT64"/>
<field name="HWCTAG" offset="48" type="UINT32"/><field name="HWCINT" offset="56" type="UINT64"/></profpckt></profile>"#;
    let e = Endian::Little;
    let mut packets = Vec::new();
    for (tag, interval) in [
        (0u32, 1_000_003u64),
        (1, 2_000_003),
        (1, 2_000_003),
        (0, 1_000_003),
    ] {
        let mut w = W::new(e);
        w.u32(0)
            .u64(1)
            .u64(2)
            .u32(0)
            .u32(0)
            .u64(99)
            .u64(7)
            .u32(tag)
            .u32(0)
            .u64(interval);
        packets.extend(packet(e, 3, &w.b));
    }
    // One stack: a PC no mapping covers (`<Unknown>`).
    let stack = info(e, WordSize::W64, STACK_INFO, 7, &[0x1234], None);
    let src = MemorySource::new()
        .with("log.xml", log)
        .with("hwcounters", block(e, packets))
        .with("data.frameinfo", block(e, frame(e, 7, &[stack])));
    let exp = Experiment::open(src).unwrap();
    let profile = StackProfile::collect(&exp, Symbolizer::new(&exp), None).unwrap();
    let insts = profile.metric("insts").unwrap();
    assert_eq!(profile.total(insts), 4_000_006);
    let table = profile.function_table();
    let columns = table.default_columns();
    let keys: Vec<String> = columns.iter().map(|c| table.key(*c)).collect();
    assert_eq!(keys, ["e.cycles", "i.cycles", "e.insts", "i.insts"]);
    let rows = table.rows(&columns, FunctionTable::sort_column(&columns));
    assert_eq!(rows[0].name, "<Total>");
    assert_eq!(rows[0].values, [2_000_006, 2_000_006, 4_000_006, 4_000_006]);
    assert_eq!(rows[1].name, "<Unknown>");
    assert_eq!(rows[1].values, [2_000_006, 2_000_006, 4_000_006, 4_000_006]);
    assert_eq!(profile.folded(insts), [("<Unknown>".to_owned(), 4_000_006)]);
}
