//! `data.frameinfo`: call stacks referenced by the data packets' `FRINFO` uid — frame packets
//! holding native (`STACK_INFO`) and Java (`JAVA_INFO`) infos, uid packets, and compressed
//! infos linked to earlier ones (spec: "コールスタック"; format notes §5, gprofng `add_uid`,
//! `resolve_frame_info`).
//!
//! The whole file is indexed first (frame packets are not ordered relative to the data packets,
//! and compressed links may point forward); stacks are resolved lazily with guards against
//! missing uids, cyclic links and infos that share a chain (a stack never outgrows the file).

use crate::cursor::{Cursor, Endian, WordSize};
use crate::error::{Error, Result};
use crate::jclasses::JClasses;
use crate::packets::{FRAME_PCKT, Packets, UID_PCKT};
use std::collections::HashMap;
use std::ops::Range;

/// Native call stack info (PCs, leaf first).
pub const STACK_INFO: u32 = 1;
/// Java call stack info (`{lineno/bci, method id}` pairs, leaf first).
pub const JAVA_INFO: u32 = 2;
/// OpenMP state info.
pub const OMP_INFO: u32 = 3;
/// MPI state info.
pub const MPI_INFO: u32 = 4;
/// OpenMP state + uid info.
pub const OMP2_INFO: u32 = 5;
/// Flag on an info's kind: its words end with a link to another info.
pub const COMPRESSED_INFO: u32 = 0x8000_0000;
/// `SP_LEAF_CHECK_MARKER` (-1).
pub const LEAF_CHECK_MARKER: u64 = u64::MAX;
/// `SP_TRUNC_STACK_MARKER` (-2): the stack was cut at the unwind limit.
pub const TRUNC_STACK_MARKER: u64 = u64::MAX - 1;
/// `SP_FAILED_UNWIND_MARKER` (-3).
pub const FAILED_UNWIND_MARKER: u64 = u64::MAX - 2;
/// The collector's uid hash multiplier (`compute_uid`).
pub const UID_MULTIPLIER: u64 = 801_425_552_975_190_205;

/// The uid the collector computes for a word array (hash from the root end): lets a reader check
/// an info's integrity and lets tests build compressed stacks.
pub fn compute_uid(words: &[u64]) -> u64 {
    words
        .iter()
        .rev()
        .fold(1u64, |u, &v| u.wrapping_add(v).wrapping_mul(UID_MULTIPLIER))
}

/// One info of a frame packet, or the content of a uid packet.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Info {
    /// Kind without the compressed flag (0 for a uid packet).
    pub kind: u32,
    /// `COMPRESSED_INFO` was set.
    pub compressed: bool,
    /// The info's uid (hash of its uncompressed words).
    pub uid: u64,
    /// Its own words (range into the word arena).
    words: Range<usize>,
    /// Uid of the info holding the rest of the words (compressed infos).
    pub link: Option<u64>,
    /// OpenMP/MPI state (OMP_INFO, OMP2_INFO, MPI_INFO).
    pub state: Option<u32>,
    /// Byte offset of the info in the file.
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct FramePacket {
    infos: Range<usize>,
}

/// A Java frame: method id and bci/line (`JVMPI_CallFrame`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JavaFrame {
    /// `jmethodID` (0 with a negative `lineno` = AsyncGetCallTrace error code).
    pub method_id: u64,
    /// bci (or line; -3 = native method).
    pub lineno: i32,
}

/// A resolved call stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stack {
    /// Native PCs, leaf first (truncation marker removed).
    pub native: Vec<u64>,
    /// The native stack ended with the truncation marker (`SP_TRUNC_STACK_MARKER`: cut at the
    /// collector's unwind limit; gprofng's `<Truncated-stack>`).
    pub native_truncated: bool,
    /// The native stack ended with the failed-unwind marker (`SP_FAILED_UNWIND_MARKER`: the
    /// collector could not unwind further; gprofng's `<Stack-unwind-failed>`).
    pub native_unwind_failed: bool,
    /// Java frames, leaf first (truncation marker removed).
    pub java: Vec<JavaFrame>,
    /// The Java stack ended with the truncation marker.
    pub java_truncated: bool,
    /// OpenMP state, if recorded.
    pub omp_state: Option<u32>,
    /// MPI state, if recorded.
    pub mpi_state: Option<u32>,
}

impl Stack {
    /// Frames as gprofng counts them: Java frames when there is a Java stack, else native.
    pub fn frames(&self) -> usize {
        if self.java.is_empty() {
            self.native.len()
        } else {
            self.java.len()
        }
    }

    /// The AsyncGetCallTrace error code when the Java stack is a single frame with method id 0.
    pub fn java_error(&self) -> Option<i32> {
        match self.java.as_slice() {
            [f] if f.method_id == 0 => Some(f.lineno),
            _ => None,
        }
    }

    /// Frames of gprofng's user view without naming any native frame: in a Java experiment
    /// `<JVM-System>`/`<no Java callstack recorded>` count 1, else the Java frames (plus the
    /// `<Truncated-stack>` frame); native experiments count native frames. Exact unless a
    /// `<Java native method>` frame is implemented by a `Java_…` JNI function — see
    /// [`Stack::user_view_frames_jni`], which names the native frames to find those.
    pub fn user_view_frames(&self, kind: ExperimentKind) -> usize {
        self.user_view_frames_jni(kind, &JClasses::default(), |_| NativeFrame::default())
    }

    /// Frames of gprofng's user view (what `-dheap`/`-dprofile` print as `frames =`), with the
    /// native frames gprofng splices under `<Java native method>` frames. `native` names a
    /// native PC of this stack: [`Map::resolve`](crate::map::Map::resolve) it at the packet's
    /// time, then [`Map::native_frame`](crate::map::Map::native_frame) with the load object's
    /// [`Elf`](crate::elf::Elf) symbols (from `archives/` or the recorded path). `jclasses`
    /// names the Java methods. Only stacks with a native-method frame call `native`.
    ///
    /// gprofng's rule (`CallStackP::add_stack_java` in CallStack.cc, `JMethod::jni_match` in
    /// JMethod.cc): the user stack is built root first. A truncated Java stack starts with
    /// `<Truncated-stack>`. Each Java frame is added; when its bci is −3 (a native method),
    /// the native stack is scanned from the root towards the leaf, continuing where the
    /// previous scan stopped: frames are skipped until one whose function [`jni_match`]es the
    /// method; from it on, native frames are added — all of them down to the native leaf when
    /// the native method is the Java leaf, else up to (not including) the first frame in the
    /// JVM (`libjvm.so`, [`Resolved::in_jvm`](crate::map::Resolved::in_jvm)), where the scan
    /// stops and the next Java frames follow. A native method implemented inside the JVM
    /// (`Unsafe.allocateMemory0` → `Unsafe_AllocateMemory0`) never matches, so nothing is
    /// spliced; its scan still uses up the native stack for deeper native methods.
    pub fn user_view_frames_jni<N>(
        &self,
        kind: ExperimentKind,
        jclasses: &JClasses,
        mut native: N,
    ) -> usize
    where
        N: FnMut(u64) -> NativeFrame,
    {
        if kind == ExperimentKind::Native {
            return self.native.len();
        }
        if self.java.is_empty() || self.java_error().is_some() {
            return 1;
        }
        let mut frames = self.java.len() + usize::from(self.java_truncated);
        // `self.native` is leaf first: the scan walks it from the end (the root) down.
        let mut next = self.native.len();
        // A stack may repeat a native method many times, and each scan after a stop starts at
        // the frame it stopped at: names are built once per method, native frames named once,
        // and a method matched once against the frame the scans stopped at.
        let mut methods: HashMap<u64, Option<String>> = HashMap::new();
        let mut named: Option<(usize, NativeFrame)> = None;
        let mut matched: HashMap<(u64, usize), bool> = HashMap::new();
        for (depth, f) in self.java.iter().enumerate().rev() {
            if f.lineno != JNI_MARKER {
                continue;
            }
            let leaf = depth == 0;
            let mut found = false;
            while let Some(i) = next.checked_sub(1) {
                let nf = match named.take() {
                    Some((at, nf)) if at == i => nf,
                    _ => native(self.native.get(i).copied().unwrap_or_default()),
                };
                if !found {
                    let method = methods
                        .entry(f.method_id)
                        .or_insert_with(|| jclasses.method_full_name(f.method_id));
                    found = *matched.entry((f.method_id, i)).or_insert_with(|| {
                        match (method.as_deref(), nf.function.as_deref()) {
                            (Some(m), Some(func)) => jni_match(m, func),
                            _ => false,
                        }
                    });
                }
                if found {
                    if nf.in_jvm && !leaf {
                        named = Some((i, nf));
                        break;
                    }
                    frames += 1;
                }
                next = i;
            }
        }
        frames
    }
}

/// Which user view a stack is counted in: gprofng shows native stacks in native experiments,
/// and Java stacks (with pseudo-frames and JNI splices) in Java experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ExperimentKind {
    /// A native experiment: the native frames.
    Native,
    /// A Java experiment (`-j on`): Java frames, `<JVM-System>`, JNI splices.
    Java,
}

impl ExperimentKind {
    /// The kind of the experiment `log` describes.
    pub fn of(log: &crate::log::Log) -> Self {
        if log.is_java() {
            ExperimentKind::Java
        } else {
            ExperimentKind::Native
        }
    }
}

/// The bci of a Java frame that is a native method (`JNI_MARKER`, shown as
/// `<Java native method>`).
pub const JNI_MARKER: i32 = -3;

/// What [`Stack::user_view_frames_jni`] needs to know about a native PC.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NativeFrame {
    /// Name of the function containing the PC (`None` when unknown: no symbols, no mapping).
    pub function: Option<String>,
    /// The PC is in the JVM's own load object (`libjvm.so`).
    pub in_jvm: bool,
}

/// gprofng's `JMethod::jni_match`: does native function `function` implement the Java method
/// whose full name is `method` (`pkg.Class.method`, anything from `(` or a space on is
/// ignored)? The function name must start with `Java_`; then each `.` of the method name must
/// be `_`, each `_` must be `_1`, every other byte must be itself. It is a prefix match: the
/// function name may go on (`__<signature>` of overloaded methods, or anything else). Other
/// JNI escapes (`_0xxxx` for non-ASCII and `$`, `_2`, `_3`) are not decoded, so such methods
/// never match, exactly like gprofng.
pub fn jni_match(method: &str, function: &str) -> bool {
    let Some(mut f) = function.strip_prefix("Java_").map(str::bytes) else {
        return false;
    };
    for m in method.bytes().take_while(|&b| b != b'(' && b != b' ') {
        let ok = match m {
            b'.' => f.next() == Some(b'_'),
            b'_' => f.next() == Some(b'_') && f.next() == Some(b'1'),
            _ => f.next() == Some(m),
        };
        if !ok {
            return false;
        }
    }
    true
}

/// The indexed `data.frameinfo` file.
#[derive(Debug, Clone, Default)]
pub struct FrameInfo {
    word: WordSize,
    words: Vec<u64>,
    infos: Vec<Info>,
    packets: Vec<FramePacket>,
    by_packet_uid: HashMap<u64, usize>,
    by_info_uid: HashMap<u64, usize>,
    problems: Vec<Error>,
    frame_packets: usize,
    uid_packets: usize,
}

impl FrameInfo {
    /// Indexes `data` (block-structured like the data files). Bad packets are recorded in
    /// [`FrameInfo::problems`] and skipped; nothing here fails.
    pub fn parse(data: &[u8], endian: Endian, word: WordSize) -> FrameInfo {
        let mut fi = FrameInfo {
            word,
            ..FrameInfo::default()
        };
        for p in Packets::new(data, endian) {
            let p = match p {
                Ok(p) => p,
                Err(e) => {
                    fi.problems.push(e);
                    continue;
                }
            };
            let r = match p.kind {
                FRAME_PCKT => fi.frame_packet(p.bytes, p.offset, endian),
                UID_PCKT => fi.uid_packet(p.bytes, p.offset, endian),
                _ => Ok(()),
            };
            if let Err(e) = r {
                fi.problems.push(e);
            }
        }
        fi
    }

    fn frame_packet(&mut self, b: &[u8], base: u64, e: Endian) -> Result<()> {
        let mut c = Cursor::new(b, base, e, self.word);
        c.skip(4, "frame packet header")?;
        let hsize = c.u32("frame packet hsize")? as usize;
        let uid = c.u64("frame packet uid")?;
        if hsize < 16 || hsize > b.len() {
            return Err(Error::Invalid {
                what: "frame packet hsize",
                offset: base + 4,
                expected: format!("16 ..= tsize {}", b.len()),
                found: hsize.to_string(),
            });
        }
        self.frame_packets += 1;
        let first = self.infos.len();
        let mut pos = hsize;
        while pos + 16 <= b.len() {
            let mut c = Cursor::new(
                b.get(pos..).unwrap_or_default(),
                base + pos as u64,
                e,
                self.word,
            );
            let ihsize = c.u32("info hsize")? as usize;
            let kind = c.u32("info kind")?;
            let iuid = c.u64("info uid")?;
            // `pos + ihsize` can overflow `usize` on 32-bit targets: an overflow is as much
            // out of the packet as any other end past it.
            let end = pos.checked_add(ihsize).filter(|&end| end <= b.len());
            let Some(end) = end.filter(|_| ihsize >= 16) else {
                if ihsize != 0 {
                    self.problems.push(Error::Invalid {
                        what: "frame info hsize",
                        offset: base + pos as u64,
                        expected: format!("16 ..= {} (rest of the packet)", b.len() - pos),
                        found: ihsize.to_string(),
                    });
                }
                break;
            };
            let payload = b.get(pos + 16..end).unwrap_or_default();
            self.add_info(kind, iuid, payload, base + pos as u64, e)?;
            pos = end;
        }
        let idx = self.packets.len();
        self.packets.push(FramePacket {
            infos: first..self.infos.len(),
        });
        self.by_packet_uid.entry(uid).or_insert(idx);
        Ok(())
    }

    fn add_info(
        &mut self,
        kind: u32,
        uid: u64,
        payload: &[u8],
        offset: u64,
        e: Endian,
    ) -> Result<()> {
        let compressed = kind & COMPRESSED_INFO != 0;
        let base_kind = kind & !COMPRESSED_INFO;
        let mut c = Cursor::new(payload, offset + 16, e, self.word);
        let (state, words, link) = match base_kind {
            OMP_INFO | MPI_INFO | OMP2_INFO => (Some(c.u32("info state")?), 0..0, None),
            _ => {
                let mut data_len = payload.len();
                let mut link = None;
                if compressed && !payload.is_empty() {
                    if payload.len() < 8 {
                        return Err(Error::Invalid {
                            what: "compressed info",
                            offset,
                            expected: "a payload of at least 8 bytes (the link uid)".into(),
                            found: format!("{} bytes", payload.len()),
                        });
                    }
                    data_len -= 8;
                    let mut lc =
                        Cursor::new(payload.get(data_len..).unwrap_or_default(), 0, e, self.word);
                    link = Some(lc.u64_le("link uid")?);
                }
                let start = self.words.len();
                let n = data_len / self.word.bytes();
                for _ in 0..n {
                    self.words.push(c.word("stack word")?);
                }
                (None, start..self.words.len(), link)
            }
        };
        let idx = self.infos.len();
        let self_reference = compressed && link.is_none();
        self.infos.push(Info {
            kind: base_kind,
            compressed,
            uid,
            words,
            link,
            state,
            offset,
        });
        if !self_reference && uid != 0 {
            self.by_info_uid.entry(uid).or_insert(idx);
        }
        Ok(())
    }

    fn uid_packet(&mut self, b: &[u8], base: u64, e: Endian) -> Result<()> {
        let mut c = Cursor::new(b, base, e, self.word);
        c.skip(4, "uid packet header")?;
        let flags = c.u32("uid packet flags")?;
        let uid = c.u64("uid packet uid")?;
        self.uid_packets += 1;
        let payload = c.rest();
        let kind = flags & COMPRESSED_INFO;
        self.add_info(kind, uid, payload, base, e)
    }

    /// Frame packets read.
    pub fn frame_packet_count(&self) -> usize {
        self.frame_packets
    }

    /// Uid packets read.
    pub fn uid_packet_count(&self) -> usize {
        self.uid_packets
    }

    /// Every info in file order.
    pub fn infos(&self) -> &[Info] {
        &self.infos
    }

    /// The own words of `info` (without the link).
    pub fn own_words(&self, info: &Info) -> &[u64] {
        self.words.get(info.words.clone()).unwrap_or_default()
    }

    /// True when there is no frame packet (the file is empty or missing).
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Bad packets and infos skipped while indexing.
    pub fn problems(&self) -> &[Error] {
        &self.problems
    }

    /// True when a frame packet with uid `frinfo` exists.
    pub fn contains(&self, frinfo: u64) -> bool {
        self.by_packet_uid.contains_key(&frinfo)
    }

    /// The full words of info `idx`: its own words followed by those of its link chain.
    /// `budget` is what the stack being resolved may still take (it is charged): one chain
    /// visits each info once, but several infos of a packet may link to the same long chain.
    fn resolve(&self, idx: usize, frinfo: u64, budget: &mut usize) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        let mut cur = idx;
        let mut visited = std::collections::HashSet::new();
        visited.insert(idx);
        while let Some(info) = self.infos.get(cur) {
            let own = self.own_words(info);
            *budget = budget.checked_sub(own.len()).ok_or_else(|| Error::Stack {
                uid: frinfo,
                offset: info.offset,
                expected: "a stack no longer than all the words of the file",
                found: format!(
                    "infos linking to the same chain, past {} words",
                    self.words.len()
                ),
            })?;
            out.extend_from_slice(own);
            if !info.compressed {
                break;
            }
            let next_uid = info.link.unwrap_or(info.uid);
            let Some(&next) = self.by_info_uid.get(&next_uid) else {
                return Err(Error::Stack {
                    uid: next_uid,
                    offset: info.offset,
                    expected: "a frame info with this uid",
                    found: "none".into(),
                });
            };
            if !visited.insert(next) {
                return Err(Error::Stack {
                    uid: next_uid,
                    offset: info.offset,
                    expected: "a link chain without cycles",
                    found: "a cycle".into(),
                });
            }
            cur = next;
        }
        Ok(out)
    }

    fn widen(&self, v: u64) -> u64 {
        if self.word == WordSize::W32 && (0xFFFF_FFFD..=0xFFFF_FFFF).contains(&v) {
            v | 0xFFFF_FFFF_0000_0000
        } else {
            v
        }
    }

    /// The stack of a data packet's `FRINFO`: `Ok(None)` when no frame packet has that uid
    /// (gprofng: "frameinfo packets are missing"), an error when a compressed link is dangling or
    /// cyclic, or when the packet's infos resolve to more words than the file holds.
    pub fn stack(&self, frinfo: u64) -> Result<Option<Stack>> {
        let Some(&pidx) = self.by_packet_uid.get(&frinfo) else {
            return Ok(None);
        };
        let Some(packet) = self.packets.get(pidx) else {
            return Ok(None);
        };
        let mut stack = Stack::default();
        // Every word of a well-formed stack is a distinct word of the file.
        let mut budget = self.words.len();
        for idx in packet.infos.clone() {
            let Some(info) = self.infos.get(idx) else {
                continue;
            };
            match info.kind {
                STACK_INFO => {
                    let mut words: Vec<u64> = self
                        .resolve(idx, frinfo, &mut budget)?
                        .into_iter()
                        .map(|v| self.widen(v))
                        .collect();
                    match words.last() {
                        Some(&TRUNC_STACK_MARKER) => {
                            words.pop();
                            stack.native_truncated = true;
                        }
                        Some(&FAILED_UNWIND_MARKER) => {
                            words.pop();
                            stack.native_unwind_failed = true;
                        }
                        _ => {}
                    }
                    stack.native.extend(words);
                }
                JAVA_INFO => {
                    let words = self.resolve(idx, frinfo, &mut budget)?;
                    let mut frames: Vec<JavaFrame> = words
                        .chunks_exact(2)
                        .map(|w| match w {
                            [a, b] => JavaFrame {
                                lineno: *a as u32 as i32,
                                method_id: self.widen(*b),
                            },
                            _ => JavaFrame {
                                lineno: 0,
                                method_id: 0,
                            },
                        })
                        .collect();
                    if frames
                        .last()
                        .is_some_and(|f| f.method_id == TRUNC_STACK_MARKER)
                    {
                        frames.pop();
                        stack.java_truncated = true;
                    }
                    stack.java.extend(frames);
                }
                OMP_INFO | OMP2_INFO => stack.omp_state = info.state,
                MPI_INFO => stack.mpi_state = info.state,
                _ => {}
            }
        }
        Ok(Some(stack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jni_match_is_gprofngs_prefix_rule() {
        let m = "java.lang.ClassLoader.findBootstrapClass";
        assert!(jni_match(
            m,
            "Java_java_lang_ClassLoader_findBootstrapClass"
        ));
        // Overloads carry `__<signature>`; gprofng accepts anything after the method name.
        assert!(jni_match(
            m,
            "Java_java_lang_ClassLoader_findBootstrapClass__Ljava"
        ));
        assert!(jni_match(
            m,
            "Java_java_lang_ClassLoader_findBootstrapClassOrNull"
        ));
        // `_` is `_1`; arguments after `(` are ignored.
        assert!(jni_match(
            "com.sun.forte.st.collector.CollectorAPI._sample(java.lang.String)",
            "Java_com_sun_forte_st_collector_CollectorAPI__1sample"
        ));
        assert!(!jni_match(
            "com.sun.forte.st.collector.CollectorAPI._sample",
            "Java_com_sun_forte_st_collector_CollectorAPI__sample"
        ));
        // Only `Java_` functions; `$` would be `_00024` in JNI but gprofng compares it as is.
        assert!(!jni_match(
            "jdk.internal.misc.Unsafe.allocateMemory0",
            "Unsafe_AllocateMemory0"
        ));
        assert!(!jni_match("a.B$C.d", "Java_a_B_00024C_d"));
        assert!(jni_match("a.B$C.d", "Java_a_B$C_d"));
        // The function name ending early is a mismatch, not an overrun.
        assert!(!jni_match("a.b.c", "Java_a_b"));
        assert!(!jni_match("a._", "Java_a__"));
    }

    /// Method ids 1..4 of class `a.A`: `run`, `nat` (native, `Java_a_A_nat`), `back`,
    /// `intrinsic` (native, implemented in the JVM).
    fn jclasses() -> JClasses {
        let methods = [(1, "run"), (2, "nat"), (3, "back"), (4, "intrinsic")]
            .into_iter()
            .map(|(id, name)| crate::jclasses::JavaMethod {
                method_id: id,
                name: name.into(),
                signature: "()V".into(),
            })
            .collect();
        let mut j = JClasses::default();
        j.push_class(crate::jclasses::JavaClass {
            class_id: 1,
            tstamp: 0,
            name: "La/A;".into(),
            source_file: "A.java".into(),
            methods,
        });
        j
    }

    fn frame(method_id: u64, lineno: i32) -> JavaFrame {
        JavaFrame { method_id, lineno }
    }

    /// Native PCs name themselves: 0x1xx `Java_a_A_nat`, 0x2xx in libjvm, 0x3xx libc.
    fn name(pc: u64) -> NativeFrame {
        let (function, in_jvm) = match pc >> 8 {
            1 => ("Java_a_A_nat", false),
            2 => ("JVM_Something", true),
            3 => ("malloc", false),
            _ => ("Interpreter", false),
        };
        NativeFrame {
            function: Some(function.into()),
            in_jvm,
        }
    }

    #[test]
    fn leaf_native_method_takes_the_whole_native_tail() {
        let j = jclasses();
        // Leaf first: malloc, JVM, JNI function, interpreter, interpreter.
        let stack = Stack {
            native: vec![0x300, 0x200, 0x100, 0x400, 0x401],
            java: vec![frame(2, JNI_MARKER), frame(1, 5)],
            ..Stack::default()
        };
        assert_eq!(
            stack.user_view_frames_jni(ExperimentKind::Java, &j, name),
            2 + 3
        );
        assert_eq!(stack.user_view_frames(ExperimentKind::Java), 2);
        assert_eq!(
            stack.user_view_frames_jni(ExperimentKind::Native, &j, name),
            5
        );
        // A native method implemented in the JVM (no `Java_` function): nothing spliced.
        let intrinsic = Stack {
            java: vec![frame(4, JNI_MARKER), frame(1, 5)],
            ..stack.clone()
        };
        assert_eq!(
            intrinsic.user_view_frames_jni(ExperimentKind::Java, &j, name),
            2
        );
        // Truncated Java stacks get `<Truncated-stack>`.
        let truncated = Stack {
            java_truncated: true,
            ..stack
        };
        assert_eq!(
            truncated.user_view_frames_jni(ExperimentKind::Java, &j, name),
            2 + 3 + 1
        );
    }

    #[test]
    fn inner_native_method_stops_at_the_jvm() {
        let j = jclasses();
        // run → nat (native, calls back into Java through the JVM) → back → nat (leaf).
        let stack = Stack {
            native: vec![0x300, 0x101, 0x201, 0x402, 0x200, 0x301, 0x100, 0x400],
            java: vec![
                frame(2, JNI_MARKER),
                frame(3, 7),
                frame(2, JNI_MARKER),
                frame(1, 5),
            ],
            ..Stack::default()
        };
        // Inner nat: 0x100, 0x301 then stop at 0x200. Leaf nat: from 0x200 on, the next
        // `Java_` is 0x101: 0x101, 0x300.
        assert_eq!(
            stack.user_view_frames_jni(ExperimentKind::Java, &j, name),
            4 + 2 + 2
        );
        // An unknown method never matches, and its scan uses up the whole native stack.
        let unknown = Stack {
            java: vec![
                frame(2, JNI_MARKER),
                frame(3, 7),
                frame(99, JNI_MARKER),
                frame(1, 5),
            ],
            ..stack
        };
        assert_eq!(
            unknown.user_view_frames_jni(ExperimentKind::Java, &j, name),
            4
        );
    }

    #[test]
    fn jvm_system_and_agct_errors_are_one_frame() {
        let j = jclasses();
        let system = Stack {
            native: vec![0x100, 0x200],
            ..Stack::default()
        };
        assert_eq!(
            system.user_view_frames_jni(ExperimentKind::Java, &j, name),
            1
        );
        let error = Stack {
            java: vec![frame(0, -2)],
            ..system
        };
        assert_eq!(
            error.user_view_frames_jni(ExperimentKind::Java, &j, name),
            1
        );
    }
}
