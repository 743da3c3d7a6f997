//! `data.frameinfo`: call stacks referenced by the data packets' `FRINFO` uid — frame packets
//! holding native (`STACK_INFO`) and Java (`JAVA_INFO`) infos, uid packets, and compressed
//! infos linked to earlier ones (spec: "コールスタック"; format notes §5, gprofng `add_uid`,
//! `resolve_frame_info`).
//!
//! The whole file is indexed first (frame packets are not ordered relative to the data packets,
//! and compressed links may point forward); stacks are resolved lazily with guards against
//! missing uids, cyclic links and infos that share a chain (a stack never outgrows the file).

mod stack;

pub use stack::{ExperimentKind, JNI_MARKER, JavaFrame, NativeFrame, Stack, jni_match};

use crate::cursor::{Cursor, Endian, WordSize};
use crate::error::{Error, Result};
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
