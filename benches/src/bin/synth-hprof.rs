//! `synth-hprof --objects N [--seed S] OUT.hprof`: writes a valid HPROF heap dump (JDK-style
//! `JAVA PROFILE 1.0.2`, 8-byte ids) of N objects of a realistic shape, deterministic by seed,
//! streaming: it holds a few classes' worth of state, never the heap.
//!
//! ```sh
//! cargo run --release -p benches --bin synth-hprof -- --objects 1000000 --seed 7 /tmp/synth.hprof
//! ```
//!
//! The shape (object indices `0..N`, each kind a function of its index and the seed):
//! - 16 `java.lang.Thread` objects, each a `ROOT_THREAD_OBJECT` with a `ROOT_JAVA_FRAME` on the
//!   general heap's first object;
//! - 5 caches (`com.synth.Cache` → `java.lang.Object[]`) held by static fields of
//!   `com.synth.Registry`, each the only way into a region of 12%, 8%, 5%, 3% and 2% of the
//!   objects: a handful of objects that dominate a large share of the heap;
//! - a linked chain of `com.synth.Link` objects, N/8 long up to 2,000,000 (at least 1,000,000
//!   deep from 8 M objects on), held by a `ROOT_JNI_GLOBAL`;
//! - the general heap: instances of 300 classes `com.synth.C0…C299` with 0–6 reference fields
//!   (some inheriting fields from a superclass), object arrays with heavy-tailed lengths,
//!   `java.lang.String`s with their `byte[]` values; each region is a tree of references
//!   (object r refers to r·4+1 … r·4+4, so the first quarter are instances with four or more
//!   reference fields or object arrays) plus random references inside the region, fifteen in
//!   sixteen to objects within 32,768 of the referrer (a compacted heap's locality);
//! - 5% unreachable garbage at the end, referring only to itself;
//! - every class is a `ROOT_STICKY_CLASS`.
#![allow(clippy::print_stderr)]

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use hprof::binary::write::Writer;
use hprof::binary::{
    BasicType, ClassDump, GcRoot, Header, Id, IdList, IdSize, InstanceDump, LoadClass,
    ObjectArrayDump, PrimitiveArrayDump, Record, SubRecord, Trace, Utf8, Version,
};
use hprof::binary::{ClassSerial, StackTraceSerial, ThreadSerial};

const USAGE: &str = "\
usage: synth-hprof --objects N [--seed S] OUT.hprof

Writes a valid HPROF heap dump (JAVA PROFILE 1.0.2, 8-byte ids) of N objects of a
realistic shape (threads, caches that dominate large shares, a deep linked chain,
300 classes with 0-6 reference fields, object arrays with heavy-tailed lengths,
strings, unreachable garbage), the same bytes for the same N and seed.

options:
  --objects N   how many objects (instances and arrays; classes come on top)
  --seed S      the seed (default 1)
  -h, --help    this text
  --version     the version

exit status: 0 written; 1 OUT could not be written (nothing is left behind);
2 bad arguments.
";

/// How far a near reference reaches, in objects either side.
const NEAR: u64 = 1 << 15;

/// Classes of the general heap.
const CLASSES: u64 = 300;
const THREADS: u64 = 16;
const CACHES: u64 = 5;
/// The caches' shares of the objects, in percent.
const SHARES: [u64; CACHES as usize] = [12, 8, 5, 3, 2];

// Class ids (fixed, small) and the first object id.
const OBJECT_CLASS: u64 = 0x100;
const STRING_CLASS: u64 = 0x110;
const THREAD_CLASS: u64 = 0x120;
const ARRAY_CLASS: u64 = 0x130;
const CACHE_CLASS: u64 = 0x140;
const LINK_CLASS: u64 = 0x150;
const REGISTRY_CLASS: u64 = 0x160;
const CLASS_CLASS: u64 = 0x170;
const BYTE_ARRAY_CLASS: u64 = 0x180;
const FIRST_C: u64 = 0x1000;
const OBJECT_BASE: u64 = 0x7_0000_0000;

fn object_id(i: u64) -> u64 {
    OBJECT_BASE + i * 16
}

fn c_class_id(k: u64) -> u64 {
    FIRST_C + k * 16
}

/// splitmix64: a fast, well-mixed hash of `(seed, x)`.
fn mix(seed: u64, x: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(x)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One region of object indices `start..end`.
#[derive(Clone, Copy)]
struct Region {
    start: u64,
    end: u64,
}

impl Region {
    fn len(self) -> u64 {
        self.end - self.start
    }
    /// The tree child `c` (0..4) of relative index `r`, if in the region.
    fn child(self, r: u64, c: u64) -> Option<u64> {
        let rel = r.checked_mul(4)?.checked_add(1 + c)?;
        (rel < self.len()).then_some(self.start + rel)
    }
    /// A pseudo-random object of the region.
    fn random(self, h: u64) -> u64 {
        self.start + h % self.len().max(1)
    }
    /// A pseudo-random object of the region near object `i`: fifteen times in sixteen within
    /// [`NEAR`] objects of it, else anywhere in the region. Real heaps are like that: a
    /// compacting collector keeps objects in allocation order (or copies a referent next to
    /// its referrer), so most references go to neighbours.
    fn random_near(self, i: u64, h: u64) -> u64 {
        if h % 16 == 0 || self.len() <= 2 * NEAR {
            return self.random(h >> 4);
        }
        let lo = i
            .saturating_sub(NEAR)
            .clamp(self.start, self.end - 2 * NEAR);
        lo + (h >> 4) % (2 * NEAR)
    }
}

/// Where every kind of object lives.
struct Plan {
    n: u64,
    seed: u64,
    threads: Region,
    holders: Region,
    arrays: Region,
    caches: [Region; CACHES as usize],
    chain: Region,
    general: Region,
    garbage: Region,
}

impl Plan {
    fn new(n: u64, seed: u64) -> Plan {
        let fixed = THREADS + 2 * CACHES;
        let rest = n.saturating_sub(fixed);
        let threads = Region {
            start: 0,
            end: THREADS.min(n),
        };
        let holders = Region {
            start: threads.end,
            end: (threads.end + CACHES).min(n),
        };
        let arrays = Region {
            start: holders.end,
            end: (holders.end + CACHES).min(n),
        };
        let mut at = arrays.end;
        let mut caches = [Region { start: at, end: at }; CACHES as usize];
        for (c, share) in caches.iter_mut().zip(SHARES) {
            let len = rest * share / 100;
            *c = Region {
                start: at,
                end: at + len,
            };
            at += len;
        }
        let chain_len = (rest / 8).min(2_000_000);
        let chain = Region {
            start: at,
            end: at + chain_len,
        };
        at += chain_len;
        let garbage_len = rest / 20;
        let general = Region {
            start: at,
            end: n.saturating_sub(garbage_len).max(at),
        };
        let garbage = Region {
            start: general.end,
            end: n.max(general.end),
        };
        Plan {
            n,
            seed,
            threads,
            holders,
            arrays,
            caches,
            chain,
            general,
            garbage,
        }
    }

    /// The region of a tree object at index `i` (a cache region, the general heap or the
    /// garbage).
    fn tree_region(&self, i: u64) -> Region {
        self.caches
            .iter()
            .copied()
            .chain([self.general, self.garbage])
            .find(|r| (r.start..r.end).contains(&i))
            .unwrap_or(self.general)
    }
}

/// What one tree object is.
enum Kind {
    /// An instance of class `C{k}`.
    Instance(u64),
    /// An object array of `len` elements.
    Array(u64),
    /// A `java.lang.String` (its value is the next object).
    Str,
    /// The `byte[]` of the string before it.
    Bytes(u64),
}

/// Class `C{k}`: its own reference fields, its superclass (`None`: `java.lang.Object`).
fn c_refs(k: u64) -> u64 {
    // 0–6 reference fields, most classes having few (2.0 on average).
    const REFS: [u64; 10] = [0, 0, 1, 1, 1, 2, 2, 3, 4, 6];
    REFS.get((k % 10) as usize).copied().unwrap_or(0)
}

fn c_super(k: u64) -> Option<u64> {
    // A fifth of the classes extend C0 or C5 (inherited fields, one level deep).
    (k >= 10 && k % 5 == 0).then_some(k % 10)
}

/// Every reference field of an instance of `C{k}`, its own first, then its superclasses'.
fn c_all_refs(k: u64) -> u64 {
    let mut total = 0;
    let mut class = Some(k);
    while let Some(c) = class {
        total += c_refs(c);
        class = c_super(c);
    }
    total
}

fn c_depth(k: u64) -> u64 {
    let mut depth = 0;
    let mut class = c_super(k);
    while let Some(c) = class {
        depth += 1;
        class = c_super(c);
    }
    depth
}

fn kind(plan: &Plan, region: Region, i: u64) -> Kind {
    // The first quarter of a region are the tree's inner objects: each holds its four
    // children, so every object of the region is reachable from its root.
    if (i - region.start) < region.len().div_ceil(4) {
        let h = mix(plan.seed ^ 0x1AAE, i);
        return if h % 10 < 3 {
            Kind::Array(4 + (h >> 8) % 13)
        } else {
            // A class with at least four reference fields: C8, C9, C18, C19, …
            Kind::Instance(10 * ((h >> 8) % (CLASSES / 10)) + 8 + (h >> 20) % 2)
        };
    }
    // Objects come in pairs so that a string's byte[] is always the object after it.
    let pair = (i - region.start) / 2;
    let h = mix(plan.seed, region.start.wrapping_add(pair));
    let second = (i - region.start) % 2 == 1;
    match h % 100 {
        0..=11 if second && i > region.start => Kind::Bytes(4 + (h >> 8) % 37),
        0..=11 if i + 1 < region.end => Kind::Str,
        12..=19 => {
            // Heavy-tailed lengths: mostly short, now and then thousands.
            let u = ((h >> 16) % 1_000_000) as f64 / 1_000_000.0;
            let len = (1.0 / (1.0 - u).powf(0.6)) as u64;
            Kind::Array(len.min(20_000))
        }
        _ => Kind::Instance(mix(plan.seed ^ 0xC1A5, i) % CLASSES),
    }
}

struct Out<W: Write> {
    w: Writer<W>,
    ids: Vec<u8>,
}

impl<W: Write> Out<W> {
    fn sub(&mut self, s: &SubRecord<'_>) -> io::Result<()> {
        self.w.write_sub_record(s)
    }

    fn instance(&mut self, i: u64, class_id: u64, refs: &[u64], tail: &[u8]) -> io::Result<()> {
        self.ids.clear();
        for &r in refs {
            self.ids.extend_from_slice(&r.to_be_bytes());
        }
        self.ids.extend_from_slice(tail);
        let data = std::mem::take(&mut self.ids);
        let r = self.sub(&SubRecord::InstanceDump(InstanceDump {
            object_id: Id(object_id(i)),
            stack_trace_serial: StackTraceSerial(1),
            class_id: Id(class_id),
            data: &data,
        }));
        self.ids = data;
        r
    }

    fn array(&mut self, i: u64, elements: impl Iterator<Item = u64>) -> io::Result<()> {
        self.ids.clear();
        for e in elements {
            self.ids.extend_from_slice(&e.to_be_bytes());
        }
        let data = std::mem::take(&mut self.ids);
        let r = self.sub(&SubRecord::ObjectArrayDump(ObjectArrayDump {
            array_id: Id(object_id(i)),
            stack_trace_serial: StackTraceSerial(1),
            array_class_id: Id(ARRAY_CLASS),
            elements: IdList::new(&data, IdSize::Eight),
        }));
        self.ids = data;
        r
    }
}

/// The names: strings ids are `0x10_0000 + k`.
struct Names {
    list: Vec<String>,
}

impl Names {
    fn id(&mut self, s: &str) -> u64 {
        let k = match self.list.iter().position(|x| x == s) {
            Some(k) => k,
            None => {
                self.list.push(s.to_owned());
                self.list.len() - 1
            }
        };
        0x10_0000 + k as u64
    }
}

fn field_bytes(names: &mut Names, fields: &[(&str, BasicType)]) -> Vec<u8> {
    let mut out = Vec::new();
    for &(name, t) in fields {
        out.extend_from_slice(&names.id(name).to_be_bytes());
        out.push(t.code());
    }
    out
}

fn class_dump<'a>(
    class_id: u64,
    super_id: u64,
    instance_size: u32,
    fields: &'a [u8],
    statics: &'a [u8],
    static_count: u16,
) -> SubRecord<'a> {
    SubRecord::ClassDump(ClassDump {
        class_id: Id(class_id),
        stack_trace_serial: StackTraceSerial(1),
        super_class_id: Id(super_id),
        class_loader_id: Id::NULL,
        signers_id: Id::NULL,
        protection_domain_id: Id::NULL,
        reserved1: Id::NULL,
        reserved2: Id::NULL,
        instance_size,
        constant_pool_len: 0,
        constant_pool: &[],
        static_fields_len: static_count,
        static_fields: statics,
        instance_fields_len: u16::try_from(fields.len() / 9).unwrap_or(u16::MAX),
        instance_fields: fields,
        id_size: IdSize::Eight,
    })
}

/// One class dump to write: id, internal name, superclass, encoded instance fields, instance
/// size, encoded static fields and their count.
type ClassSpec = (u64, String, u64, Vec<u8>, u32, Vec<u8>, u16);

fn write_dump<W: Write>(out: W, plan: &Plan, progress: &mut dyn FnMut(u64)) -> io::Result<W> {
    let header = Header {
        version: Version::V1_0_2,
        id_size: IdSize::Eight,
        timestamp_ms: 0,
    };
    let mut w = Writer::new(out, &header)?;
    let mut names = Names { list: Vec::new() };
    // Class dumps first, with their names.
    let mut classes: Vec<ClassSpec> = Vec::new();
    classes.push((
        OBJECT_CLASS,
        "java/lang/Object".into(),
        0,
        Vec::new(),
        0,
        Vec::new(),
        0,
    ));
    let f = field_bytes(
        &mut names,
        &[("value", BasicType::Object), ("coder", BasicType::Byte)],
    );
    classes.push((
        STRING_CLASS,
        "java/lang/String".into(),
        OBJECT_CLASS,
        f,
        9,
        Vec::new(),
        0,
    ));
    let f = field_bytes(
        &mut names,
        &[("target", BasicType::Object), ("tid", BasicType::Long)],
    );
    classes.push((
        THREAD_CLASS,
        "java/lang/Thread".into(),
        OBJECT_CLASS,
        f,
        16,
        Vec::new(),
        0,
    ));
    classes.push((
        ARRAY_CLASS,
        "[Ljava/lang/Object;".into(),
        OBJECT_CLASS,
        Vec::new(),
        0,
        Vec::new(),
        0,
    ));
    let f = field_bytes(
        &mut names,
        &[("table", BasicType::Object), ("size", BasicType::Int)],
    );
    classes.push((
        CACHE_CLASS,
        "com/synth/Cache".into(),
        OBJECT_CLASS,
        f,
        12,
        Vec::new(),
        0,
    ));
    let f = field_bytes(
        &mut names,
        &[("next", BasicType::Object), ("value", BasicType::Long)],
    );
    classes.push((
        LINK_CLASS,
        "com/synth/Link".into(),
        OBJECT_CLASS,
        f,
        16,
        Vec::new(),
        0,
    ));
    let mut statics = Vec::new();
    for c in 0..CACHES {
        statics.extend_from_slice(&names.id(&format!("CACHE{c}")).to_be_bytes());
        statics.push(BasicType::Object.code());
        let holder = plan.holders.start + c;
        let id = if holder < plan.holders.end {
            object_id(holder)
        } else {
            0
        };
        statics.extend_from_slice(&id.to_be_bytes());
    }
    classes.push((
        REGISTRY_CLASS,
        "com/synth/Registry".into(),
        OBJECT_CLASS,
        Vec::new(),
        0,
        statics,
        CACHES as u16,
    ));
    // What readers look up by name: the class of class objects, and of the strings' bytes.
    classes.push((
        CLASS_CLASS,
        "java/lang/Class".into(),
        OBJECT_CLASS,
        Vec::new(),
        96,
        Vec::new(),
        0,
    ));
    classes.push((
        BYTE_ARRAY_CLASS,
        "[B".into(),
        OBJECT_CLASS,
        Vec::new(),
        16,
        Vec::new(),
        0,
    ));
    for k in 0..CLASSES {
        let mut fields: Vec<(String, BasicType)> = (0..c_refs(k))
            .map(|j| (format!("ref{j}"), BasicType::Object))
            .collect();
        fields.push((format!("n{k}"), BasicType::Int));
        let pairs: Vec<(&str, BasicType)> = fields.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let f = field_bytes(&mut names, &pairs);
        let size = u32::try_from(c_all_refs(k) * 8 + 4 * (c_depth(k) + 1)).unwrap_or(u32::MAX);
        let sup = c_super(k).map_or(OBJECT_CLASS, c_class_id);
        classes.push((
            c_class_id(k),
            format!("com/synth/C{k}"),
            sup,
            f,
            size,
            Vec::new(),
            0,
        ));
    }
    for (id, name, ..) in &classes {
        names.id(name);
        let _ = id;
    }
    for (k, s) in names.list.iter().enumerate() {
        w.write_record(
            0,
            &Record::Utf8(Utf8 {
                id: Id(0x10_0000 + k as u64),
                bytes: s.as_bytes(),
            }),
        )?;
    }
    for (serial, (id, name, ..)) in classes.iter().enumerate() {
        let name_id = names.id(name);
        w.write_record(
            0,
            &Record::LoadClass(LoadClass {
                class_serial: ClassSerial(serial as u32 + 1),
                class_id: Id(*id),
                stack_trace_serial: StackTraceSerial(1),
                name_id: Id(name_id),
            }),
        )?;
    }
    w.write_record(
        0,
        &Record::Trace(Trace {
            stack_trace_serial: StackTraceSerial(1),
            thread_serial: ThreadSerial(0),
            frame_ids: IdList::new(&[], IdSize::Eight),
        }),
    )?;
    for (id, _, sup, fields, size, statics, nstatics) in &classes {
        w.write_sub_record(&class_dump(*id, *sup, *size, fields, statics, *nstatics))?;
    }
    let mut out = Out { w, ids: Vec::new() };
    // The objects, in index order.
    for i in 0..plan.n {
        if i % (1 << 20) == 0 {
            progress(i);
        }
        write_object(&mut out, plan, i)?;
    }
    // The roots.
    for k in 0..(classes.len() as u64) {
        let id = classes.get(k as usize).map_or(0, |c| c.0);
        out.sub(&SubRecord::Root(GcRoot::StickyClass { object_id: Id(id) }))?;
    }
    for t in plan.threads.start..plan.threads.end {
        let serial = (t - plan.threads.start) as u32 + 1;
        out.sub(&SubRecord::Root(GcRoot::ThreadObject {
            object_id: Id(object_id(t)),
            thread_serial: ThreadSerial(serial),
            stack_trace_serial: StackTraceSerial(1),
        }))?;
        if plan.general.len() > 0 {
            out.sub(&SubRecord::Root(GcRoot::JavaFrame {
                object_id: Id(object_id(plan.general.random(mix(plan.seed, t) >> 1))),
                thread_serial: ThreadSerial(serial),
                frame_number: -1,
            }))?;
        }
    }
    if plan.general.len() > 0 {
        out.sub(&SubRecord::Root(GcRoot::JavaFrame {
            object_id: Id(object_id(plan.general.start)),
            thread_serial: ThreadSerial(1),
            frame_number: -1,
        }))?;
    }
    if plan.chain.len() > 0 {
        out.sub(&SubRecord::Root(GcRoot::JniGlobal {
            object_id: Id(object_id(plan.chain.start)),
            jni_global_ref_id: Id(0x1),
        }))?;
    }
    out.w.end_heap_dump()?;
    out.w.finish()
}

fn write_object<W: Write>(out: &mut Out<W>, plan: &Plan, i: u64) -> io::Result<()> {
    let seed = plan.seed;
    if i < plan.threads.end {
        let target = if plan.general.len() > 0 {
            object_id(plan.general.random(mix(seed, i)))
        } else {
            0
        };
        return out.instance(i, THREAD_CLASS, &[target], &i.to_be_bytes());
    }
    if i < plan.holders.end {
        let c = i - plan.holders.start;
        let array = plan.arrays.start + c;
        let id = if array < plan.arrays.end {
            object_id(array)
        } else {
            0
        };
        return out.instance(i, CACHE_CLASS, &[id], &7i32.to_be_bytes());
    }
    if i < plan.arrays.end {
        let c = (i - plan.arrays.start) as usize;
        let region = plan.caches.get(c).copied().unwrap_or(plan.general);
        // The region's tree root and a few of its first objects.
        let len = region.len().min(16);
        return out.array(i, (region.start..region.start + len).map(object_id));
    }
    if (plan.chain.start..plan.chain.end).contains(&i) {
        let next = if i + 1 < plan.chain.end {
            object_id(i + 1)
        } else {
            0
        };
        return out.instance(i, LINK_CLASS, &[next], &(i as i64).to_be_bytes());
    }
    let region = plan.tree_region(i);
    let r = i - region.start;
    let h = mix(seed ^ 0x5EED, i);
    match kind(plan, region, i) {
        Kind::Str => out.instance(i, STRING_CLASS, &[object_id(i + 1)], &[0]),
        Kind::Bytes(len) => {
            let data: Vec<u8> = (0..len)
                .map(|k| b'a' + ((h >> (k % 56)) % 26) as u8)
                .collect();
            out.sub(&SubRecord::PrimitiveArrayDump(PrimitiveArrayDump {
                array_id: Id(object_id(i)),
                stack_trace_serial: StackTraceSerial(1),
                element_type: BasicType::Byte,
                data: &data,
            }))
        }
        Kind::Array(len) => {
            let children = (0..4).filter_map(|c| region.child(r, c));
            let randoms = (0..len).map(|k| region.random_near(i, mix(h, k)));
            out.array(
                i,
                children
                    .chain(randoms)
                    .take(len.max(4) as usize)
                    .map(object_id),
            )
        }
        Kind::Instance(k) => {
            // INSTANCE_DUMP order: the class's own fields, then its superclass's, and so on.
            let mut data = Vec::with_capacity(8 * c_all_refs(k) as usize + 8);
            let (mut j, mut class) = (0, Some(k));
            while let Some(c) = class {
                for _ in 0..c_refs(c) {
                    let t = if j < 4 { region.child(r, j) } else { None };
                    let id = match t {
                        Some(t) => object_id(t),
                        // A few null fields, as real heaps have.
                        None if mix(h, j) % 8 == 0 => 0,
                        None => object_id(region.random_near(i, mix(h, j))),
                    };
                    data.extend_from_slice(&id.to_be_bytes());
                    j += 1;
                }
                data.extend_from_slice(&(c as i32).to_be_bytes());
                class = c_super(c);
            }
            out.instance(i, c_class_id(k), &[], &data)
        }
    }
}

struct Args {
    objects: u64,
    seed: u64,
    out: String,
}

fn parse_args() -> Result<Option<Args>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let (mut objects, mut seed, mut out) = (None, 1, None);
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => {
                benches::print_quiet(USAGE);
                return Ok(None);
            }
            Long("version") => {
                benches::print_quiet(&format!("synth-hprof {}\n", env!("CARGO_PKG_VERSION")));
                return Ok(None);
            }
            Long("objects") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                objects = Some(
                    v.to_str()
                        .and_then(|s| s.replace('_', "").parse().ok())
                        .ok_or_else(|| format!("--objects needs a number, found {v:?}"))?,
                );
            }
            Long("seed") => {
                let v = parser.value().map_err(|e| e.to_string())?;
                seed = v
                    .to_str()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| format!("--seed needs a number, found {v:?}"))?;
            }
            Value(v) if out.is_none() => {
                out = Some(
                    v.into_string()
                        .map_err(|v| format!("bad file name {v:?}"))?,
                );
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    let objects = objects.ok_or("missing --objects N")?;
    let out = out.ok_or("missing OUT.hprof")?;
    Ok(Some(Args { objects, seed, out }))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprint!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let plan = Plan::new(args.objects, args.seed);
    let tmp = format!("{}.part", args.out);
    let bar = io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(args.objects);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} objects {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let written = File::create(&tmp).and_then(|f| {
        let w = write_dump(BufWriter::with_capacity(8 << 20, f), &plan, &mut |i| {
            if let Some(b) = &bar {
                b.set_position(i);
            }
        })?;
        w.into_inner()
            .map_err(io::IntoInnerError::into_error)?
            .sync_all()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    // Written under a temporary name and renamed once whole: no half-written dump is left.
    match written.and_then(|()| std::fs::rename(&tmp, &args.out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            eprintln!("error: {}: {e}", args.out);
            ExitCode::from(1)
        }
    }
}
