//! Benchmarks for `hprof` (binary side): decoding, incremental decoding, the class histogram
//! (ours vs the `jvm-hprof` crate, side by side in one run) and encoding.
//!
//! By default they run on the dumps bundled in `hprof/tests/data/binary/`. Set
//! `HPROF_BENCH_FILE=/path/large.hprof` to run the histogram comparison on a big dump
//! (`benches/hprof-peers.sh` generates them with HeapGen and prints the ratios).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::panic,
    clippy::semicolon_if_nothing_returned
)]

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use hprof::binary::histogram::Histogram;
use hprof::binary::incremental::Decoder;
use hprof::binary::write::Writer;
use hprof::binary::{Record, Records};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = benches::repo_root().join("hprof/tests/data/binary");
    [
        "heapgen_jdk17.hprof",
        "haha_sun_jdk5_64bit.hprof",
        "ahat_test-dump-base_art-host-2025.hprof",
    ]
    .iter()
    .map(|n| (n.to_string(), std::fs::read(dir.join(n)).unwrap()))
    .collect()
}

fn peer_file() -> PathBuf {
    std::env::var_os("HPROF_BENCH_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| benches::repo_root().join("hprof/tests/data/binary/heapgen_jdk17.hprof"))
}

/// Our histogram over a file, read through a 4 MiB buffer (the histogram example's path for a
/// file it cannot map), two heap-dump records at a time.
fn ours_stream(path: &PathBuf) -> u64 {
    let mut file = std::fs::File::open(path).unwrap();
    let mut buf = vec![0u8; 4 << 20];
    let mut filled = 0;
    let mut decoder = Decoder::new().input_len(file.metadata().unwrap().len());
    let mut hist = Histogram::new();
    loop {
        let n = file.read(&mut buf[filled..]).unwrap();
        filled += n;
        let (consumed, needed) = decoder.decode_forked(&buf[..filled], &mut hist).unwrap();
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        if n == 0 {
            decoder.finish(&buf[..filled]).unwrap();
            return hist.total_instances();
        }
        if filled + needed > buf.len() {
            buf.resize(filled + needed, 0);
        }
    }
}

/// The peer's id hasher: the same folded multiply as hprof's internal one (seeded per map),
/// so the comparison measures decoding, not hashing.
#[derive(Clone, Copy)]
struct IdState(u64);

impl Default for IdState {
    fn default() -> Self {
        use std::hash::BuildHasher;
        IdState(std::collections::hash_map::RandomState::new().hash_one(0x1d5_u64))
    }
}

impl std::hash::BuildHasher for IdState {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(self.0, 0)
    }
}

struct IdHasher(u64, u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.1
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.1.rotate_left(8) ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        let full = u128::from(n ^ self.0) * u128::from(0x9E37_79B9_7F4A_7C15 ^ self.1);
        self.1 = (full as u64) ^ ((full >> 64) as u64);
    }
}

/// Per-thread state of the `jvm-hprof` histogram: instances and bytes by class id, primitive
/// arrays by type, and the name records (borrowed), as a histogram needs them.
#[derive(Default)]
struct PeerState<'a> {
    classes: HashMap<u64, (u64, u64), IdState>,
    prims: [(u64, u64); 12],
    utf8: HashMap<u64, &'a [u8], IdState>,
    load_classes: HashMap<u64, u64, IdState>,
}

impl<'a> PeerState<'a> {
    /// One top-level record: names, or every sub-record of a heap dump.
    fn add(&mut self, r: &jvm_hprof::Record<'a>) {
        use jvm_hprof::RecordTag;
        use jvm_hprof::heap_dump::SubRecord;
        match r.tag() {
            RecordTag::Utf8 => {
                let u = r.as_utf_8().unwrap().unwrap();
                self.utf8.insert(u.name_id().id(), u.text());
            }
            RecordTag::LoadClass => {
                let l = r.as_load_class().unwrap().unwrap();
                self.load_classes
                    .insert(l.class_obj_id().id(), l.class_name_id().id());
            }
            RecordTag::HeapDump | RecordTag::HeapDumpSegment => {
                let seg = r.as_heap_dump_segment().unwrap().unwrap();
                for s in seg.sub_records() {
                    match s.unwrap() {
                        SubRecord::Instance(i) => {
                            let e = self.classes.entry(i.class_obj_id().id()).or_default();
                            e.0 += 1;
                            e.1 += i.fields().len() as u64;
                        }
                        SubRecord::ObjectArray(a) => {
                            let e = self.classes.entry(a.array_class_obj_id().id()).or_default();
                            e.0 += 1;
                        }
                        SubRecord::PrimitiveArray(p) => {
                            self.prims[p.primitive_type() as usize].0 += 1;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn merge(mut self, other: PeerState<'a>) -> PeerState<'a> {
        for (id, (n, b)) in other.classes {
            let e = self.classes.entry(id).or_default();
            e.0 += n;
            e.1 += b;
        }
        for (a, b) in self.prims.iter_mut().zip(other.prims) {
            a.0 += b.0;
            a.1 += b.1;
        }
        self.utf8.extend(other.utf8);
        self.load_classes.extend(other.load_classes);
        self
    }

    fn total(&self) -> u64 {
        self.classes.values().map(|v| v.0).sum::<u64>()
            + self.prims.iter().map(|v| v.0).sum::<u64>()
    }
}

/// A class histogram with the `jvm-hprof` crate over the same bytes: every record, every
/// heap-dump sub-record; instances and object arrays by class id, primitive arrays by type.
/// With a pool, records go through rayon's `par_bridge` (the crate's own recommended
/// parallel pattern: one state per record, reduced), on the pool's threads.
fn jvm_hprof_histogram(data: &[u8], pool: Option<&rayon::ThreadPool>) -> u64 {
    use rayon::iter::{ParallelBridge, ParallelIterator};
    let hprof = jvm_hprof::parse_hprof(data).unwrap();
    match pool {
        None => {
            let mut state = PeerState::default();
            for r in hprof.records_iter() {
                state.add(&r.unwrap());
            }
            state.total()
        }
        Some(pool) => pool.install(|| {
            hprof
                .records_iter()
                .map(|r| r.unwrap())
                .par_bridge()
                .map(|r| {
                    let mut state = PeerState::default();
                    state.add(&r);
                    state
                })
                .reduce(PeerState::default, PeerState::merge)
                .total()
        }),
    }
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The minimal honest histogram scan, the "close to the limit" reference of
/// `shared/formats/perf-hprof.md` (not a product: it trusts its input and panics on bad
/// bytes): top-level record headers, every heap-dump sub-record sized by its tag, a
/// per-class-id counter (open addressing) of instances and bytes, primitive arrays by type.
/// Returns the number of objects.
fn minimal_scan(data: &[u8]) -> u64 {
    let nul = data.iter().position(|&b| b == 0).unwrap();
    let id_size = u32::from_be_bytes(data[nul + 1..nul + 5].try_into().unwrap());
    let mut scan = MinimalScan::default();
    let mut p = nul + 13;
    while p < data.len() {
        let tag = data[p];
        let len = u32::from_be_bytes(data[p + 5..p + 9].try_into().unwrap()) as usize;
        let body = &data[p + 9..p + 9 + len];
        if tag == 0x0C || tag == 0x1C {
            match id_size {
                4 => scan.heap_dump::<4>(body),
                8 => scan.heap_dump::<8>(body),
                n => panic!("id size {n}"),
            }
        }
        p += 9 + len;
    }
    scan.total()
}

struct MinimalScan {
    /// `(class id, instances, bytes)`; `instances == 0` is an empty slot.
    slots: Vec<(u64, u64, u64)>,
    used: usize,
    prims: [(u64, u64); 12],
}

impl Default for MinimalScan {
    fn default() -> Self {
        MinimalScan {
            slots: vec![(0, 0, 0); 1024],
            used: 0,
            prims: [(0, 0); 12],
        }
    }
}

/// Element size of a basic type code (2 = object: the id size).
#[inline(always)]
fn type_size<const N: usize>(t: u8) -> usize {
    match t {
        2 => N,
        4 | 8 => 1,
        5 | 9 => 2,
        6 | 10 => 4,
        7 | 11 => 8,
        t => panic!("basic type {t}"),
    }
}

impl MinimalScan {
    #[inline(always)]
    fn count(&mut self, id: u64, bytes: u64) {
        let mask = self.slots.len() - 1;
        let mut i = (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        loop {
            let s = &mut self.slots[i];
            if s.0 == id && s.1 != 0 {
                s.1 += 1;
                s.2 += bytes;
                return;
            }
            if s.1 == 0 {
                *s = (id, 1, bytes);
                self.used += 1;
                if self.used * 2 > self.slots.len() {
                    self.grow();
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let bigger = vec![(0, 0, 0); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.1 != 0) {
            let mut i = (s.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
            while self.slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    #[inline(always)]
    fn heap_dump<const N: usize>(&mut self, b: &[u8]) {
        let u4 = |p: usize| u32::from_be_bytes(b[p..p + 4].try_into().unwrap()) as usize;
        let u2 = |p: usize| u16::from_be_bytes(b[p..p + 2].try_into().unwrap()) as usize;
        let id = |p: usize| {
            if N == 8 {
                u64::from_be_bytes(b[p..p + 8].try_into().unwrap())
            } else {
                u64::from(u32::from_be_bytes(b[p..p + 4].try_into().unwrap()))
            }
        };
        let mut p = 0;
        while p < b.len() {
            let tag = b[p];
            p += 1;
            p += match tag {
                // INSTANCE_DUMP: id, u4 serial, class id, u4 length, field bytes
                0x21 => {
                    let len = u4(p + N + 4 + N);
                    self.count(id(p + N + 4), len as u64);
                    2 * N + 8 + len
                }
                // OBJ_ARRAY_DUMP: id, u4 serial, u4 count, class id, count ids
                0x22 => {
                    let bytes = u4(p + N + 4) * N;
                    self.count(id(p + N + 8), bytes as u64);
                    2 * N + 8 + bytes
                }
                // PRIM_ARRAY_DUMP: id, u4 serial, u4 count, u1 type, count elements
                0x23 | 0xC3 => {
                    let t = b[p + N + 8];
                    let bytes = u4(p + N + 4) * type_size::<N>(t);
                    let e = &mut self.prims[t as usize];
                    e.0 += 1;
                    e.1 += bytes as u64;
                    N + 9 + if tag == 0x23 { bytes } else { 0 }
                }
                // CLASS_DUMP: 7 ids + 2 u4, constant pool, statics, instance fields
                0x20 => {
                    let mut q = p + 7 * N + 8;
                    let cp = u2(q);
                    q += 2;
                    for _ in 0..cp {
                        q += 3 + type_size::<N>(b[q + 2]);
                    }
                    let statics = u2(q);
                    q += 2;
                    for _ in 0..statics {
                        q += N + 1 + type_size::<N>(b[q + N]);
                    }
                    let fields = u2(q);
                    q += 2 + fields * (N + 1);
                    q - p
                }
                0xFF | 0x05 | 0x07 | 0x89 | 0x8A | 0x8B | 0x8D | 0x8E | 0x90 => N,
                0x01 => 2 * N,
                0x02 | 0x03 | 0x08 | 0x8C => N + 8,
                0x04 | 0x06 | 0xFE => N + 4,
                t => panic!("sub-record tag 0x{t:02x}"),
            };
        }
        assert_eq!(p, b.len(), "sub-record past the end of its heap dump");
    }

    fn total(&self) -> u64 {
        self.slots.iter().map(|s| s.1).sum::<u64>() + self.prims.iter().map(|s| s.0).sum::<u64>()
    }
}

fn histogram_vs_peer(c: &mut Criterion) {
    let path = peer_file();
    let data = std::fs::read(&path).unwrap();
    let pool = rayon_pool(2);
    // Same answer from everyone before timing anything.
    let expected = Histogram::parse(&data).unwrap().total_instances();
    assert_eq!(jvm_hprof_histogram(&data, None), expected);
    assert_eq!(jvm_hprof_histogram(&data, Some(&pool)), expected);
    assert_eq!(minimal_scan(&data), expected);
    assert_eq!(
        Histogram::parse_parallel(&data, 2)
            .unwrap()
            .total_instances(),
        expected
    );
    assert_eq!(ours_stream(&path), expected);

    let mut g = c.benchmark_group("hprof_histogram");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("ours_1t_memory", |b| {
        b.iter(|| Histogram::parse(&data).unwrap().total_instances())
    });
    g.bench_function("minimal_scan_1t_memory", |b| b.iter(|| minimal_scan(&data)));
    g.bench_function("ours_1t_stream_4MiB", |b| b.iter(|| ours_stream(&path)));
    g.bench_function("jvm-hprof_1t_memory", |b| {
        b.iter(|| jvm_hprof_histogram(&data, None))
    });
    g.bench_function("ours_2t_memory", |b| {
        b.iter(|| {
            Histogram::parse_parallel(&data, 2)
                .unwrap()
                .total_instances()
        })
    });
    g.bench_function("jvm-hprof_2t_memory_par_bridge", |b| {
        b.iter(|| jvm_hprof_histogram(&data, Some(&pool)))
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("hprof_decode");
    for (name, data) in fixtures() {
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("records_and_sub_records", &name),
            &data,
            |b, data| {
                b.iter(|| {
                    let (_, records) = Records::parse(data).unwrap();
                    let mut n = 0usize;
                    for r in records {
                        if let (_, Record::HeapDump(d) | Record::HeapDumpSegment(d)) = r.unwrap() {
                            for s in d.sub_records() {
                                s.unwrap();
                                n += 1;
                            }
                        }
                    }
                    n
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("incremental_64KiB_chunks", &name),
            &data,
            |b, data| {
                b.iter(|| {
                    let mut d = Decoder::new();
                    let mut buf = Vec::with_capacity(1 << 17);
                    let mut n = 0usize;
                    for chunk in data.chunks(64 << 10) {
                        buf.extend_from_slice(chunk);
                        let (consumed, _) = d.decode_all(&buf, |_| n += 1).unwrap();
                        buf.drain(..consumed);
                    }
                    n
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("encode_every_sub_record", &name),
            &data,
            |b, data| {
                b.iter(|| {
                    let (header, records) = Records::parse(data).unwrap();
                    let mut w = Writer::new(Vec::with_capacity(data.len()), &header).unwrap();
                    for r in records {
                        match r.unwrap() {
                            (h, Record::HeapDump(d) | Record::HeapDumpSegment(d)) => {
                                w.start_heap_dump_record(h.tag, h.time).unwrap();
                                for s in d.sub_records() {
                                    w.write_sub_record(&s.unwrap()).unwrap();
                                }
                                w.close_heap_dump_record().unwrap();
                            }
                            (h, other) => w.write_record(h.time, &other).unwrap(),
                        }
                    }
                    w.finish().unwrap().len()
                })
            },
        );
    }
    g.finish();
}

/// Process CPU time (user + system, all threads) in seconds, from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name.
    (ticks(11) + ticks(12)) / 100.0
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `HPROF_PEERS=1`: paired runs of our histogram, jvm-hprof's (1 thread, and 2 threads with
/// rayon `par_bridge`) and the minimal scan on `HPROF_BENCH_FILE`, all over the same bytes in
/// memory (plus ours streamed from the file). Each round runs every contender once, in
/// alternating order (forward, then backward); it prints the median wall and CPU seconds and,
/// for each target ratio, the median of the per-round ratios. Wall time on a shared 2-core
/// machine is noisy: the per-round ratios are the figures to quote.
fn peers() {
    let path = peer_file();
    let data = std::fs::read(&path).unwrap();
    let pool = rayon_pool(2);
    let mb = data.len() as f64 / 1e6;
    let expected = Histogram::parse(&data).unwrap().total_instances();
    let pairs: usize = std::env::var("HPROF_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    type Run<'a> = (&'a str, Box<dyn Fn() -> u64 + 'a>);
    let runs: Vec<Run<'_>> = vec![
        ("ours_1t_stream_4MiB", Box::new(|| ours_stream(&path))),
        (
            "ours_1t_memory",
            Box::new(|| Histogram::parse(&data).unwrap().total_instances()),
        ),
        (
            "jvm-hprof_1t_memory",
            Box::new(|| jvm_hprof_histogram(&data, None)),
        ),
        ("minimal_scan_1t_memory", Box::new(|| minimal_scan(&data))),
        (
            "ours_2t_memory",
            Box::new(|| {
                Histogram::parse_parallel(&data, 2)
                    .unwrap()
                    .total_instances()
            }),
        ),
        (
            "jvm-hprof_2t_par_bridge",
            Box::new(|| jvm_hprof_histogram(&data, Some(&pool))),
        ),
    ];
    // Warm-up (uncounted), and everyone agrees.
    for (name, f) in &runs {
        assert_eq!(f(), expected, "{name}");
    }
    let mut wall = vec![Vec::new(); runs.len()];
    let mut cpu = vec![Vec::new(); runs.len()];
    for round in 0..pairs {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..runs.len()).collect()
        } else {
            (0..runs.len()).rev().collect()
        };
        for i in order {
            let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
            assert_eq!((runs[i].1)(), expected);
            wall[i].push(t0.elapsed().as_secs_f64());
            cpu[i].push(cpu_seconds() - c0);
        }
    }
    println!(
        "file {} ({:.0} MB, {} objects), {} rounds",
        path.display(),
        mb,
        expected,
        pairs
    );
    println!(
        "{:<26} {:>8} {:>8} {:>8} {:>8} {:>10}",
        "run", "wall s", "min", "max", "CPU s", "MB/s wall"
    );
    for (i, (name, _)) in runs.iter().enumerate() {
        let mut w = wall[i].clone();
        let lo = w.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = w.iter().copied().fold(0.0, f64::max);
        let (w, c) = (median(&mut w), median(&mut cpu[i].clone()));
        println!(
            "{name:<26} {w:>8.3} {lo:>8.3} {hi:>8.3} {c:>8.3} {:>10.0}",
            mb / w
        );
    }
    // Median over rounds of (b's time / a's time): "a is this many times faster than b"
    // (CPU time ticks at 10 ms: on small files a CPU ratio can be 0/0, printed as NaN).
    let ratio = |t: &[Vec<f64>], a: usize, b: usize| {
        let mut r: Vec<f64> = t[a].iter().zip(&t[b]).map(|(x, y)| y / x).collect();
        median(&mut r)
    };
    println!("paired ratios (median of per-round ratios; wall, CPU):");
    for (a, b, what) in [
        (1, 2, "(a) jvm-hprof 1t / ours 1t      (target >= 2.5)"),
        (
            1,
            3,
            "(a) minimal scan 1t / ours 1t   (target >= 1/1.3 = 0.77)",
        ),
        (4, 5, "(b) jvm-hprof 2t / ours 2t      (target >= 2)"),
        (0, 2, "    jvm-hprof 1t / ours stream 1t"),
        (0, 3, "    minimal scan 1t / ours stream 1t"),
    ] {
        println!(
            "{what}: {:.2}x wall, {:.2}x CPU",
            ratio(&wall, a, b),
            ratio(&cpu, a, b)
        );
    }
}

criterion_group!(benches, histogram_vs_peer, decode);

fn main() {
    if std::env::var_os("HPROF_PEERS").is_some() {
        peers();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
