//! The data files (`profile`, `heaptrace`, …): read whole or streamed in chunks through
//! [`Source::read_at`], their packets decoded through log.xml's descriptors (format notes
//! §2–§3).

use super::Experiment;
use super::scans::Scan;
use crate::cursor::Endian;
use crate::error::{Error, Result};
use crate::log::Log;
use crate::packets::{DataKind, Layout, Packet, Packets, RawPacket, TypedPacket};
use crate::source::Source;
use bytes::Bytes;

/// The data files gprofng writes (format notes §1): checked by [`Experiment::truncations`]
/// for packets log.xml does not describe.
pub const DATA_FILE_NAMES: [&str; 8] = [
    "profile",
    "hwcounters",
    "synctrace",
    "heaptrace",
    "iotrace",
    "omptrace",
    "dataraces",
    "deadlocks",
];

/// The chunk size [`Experiment::stream_packets`] reads data files in (a multiple of the
/// collector's 16 KiB buffer chunks).
pub const STREAM_CHUNK: usize = 256 << 10;

impl<S: Source> Experiment<S> {
    /// The data file `name` (`profile`, `heaptrace`, …) with the descriptors log.xml gives for
    /// it; `Ok(None)` if the file does not exist.
    pub fn data(&self, name: &str) -> Result<Option<DataFile<'_>>> {
        Ok(self
            .source
            .read(name)?
            .map(|bytes| DataFile::new(name, bytes, &self.log)))
    }

    /// The data files log.xml describes that exist, in log order.
    pub fn data_files(&self) -> Result<Vec<DataFile<'_>>> {
        let mut out = Vec::new();
        for n in self.log.data_files() {
            out.extend(self.data(&n)?);
        }
        Ok(out)
    }

    /// Streams the packets of data file `name` (`profile`, `heaptrace`, …) in file order through
    /// `f`, each packet or error as [`DataFile::packets`] gives them, reading the file in
    /// chunks of [`STREAM_CHUNK`] bytes ([`Source::read_at`]) so that memory does not grow
    /// with the file. `Ok(false)` when the file does not exist.
    pub fn stream_packets(
        &self,
        name: &str,
        f: impl FnMut(Result<DataPacket<'_>>),
    ) -> Result<bool> {
        self.stream_packets_by(name, STREAM_CHUNK, f)
    }

    /// [`Experiment::stream_packets`] with chunks of `chunk` bytes (at least 64 KiB + 4, the
    /// largest packet, for the chunks to make progress; smaller ones are read as that).
    pub(super) fn stream_packets_by(
        &self,
        name: &str,
        chunk: usize,
        mut f: impl FnMut(Result<DataPacket<'_>>),
    ) -> Result<bool> {
        let chunk_len = chunk.max(1 << 16 | 4);
        let file = DataFile::new(name, Bytes::new(), &self.log);
        let mut offset = 0u64;
        let mut found = false;
        // What `partial` would find scanning the file: kept when the pass completes.
        let mut scan: Scan = (None, None);
        loop {
            let Some(chunk) = self.source.read_at(name, offset, chunk_len)? else {
                if found {
                    self.scans.put(name, scan);
                }
                return Ok(found);
            };
            found = true;
            // A source that gives more than asked gave the rest of the file.
            let at_end = chunk.len() != chunk_len;
            let mut packets = file.packets_in(&chunk, offset);
            let mut resume = None;
            for item in packets.by_ref() {
                match item {
                    // A packet the chunk cuts: read again from its start.
                    Err(e) if !at_end && e.is_truncated() => {
                        resume = e.offset();
                        break;
                    }
                    Err(e) => {
                        if scan.0.is_none() {
                            scan.0 = Some(e.clone());
                        }
                        f(Err(e));
                    }
                    item => f(item),
                }
            }
            if scan.1.is_none() {
                scan.1 = packets
                    .undescribed
                    .take()
                    .and_then(|p| file.undescribed_error(&p));
            }
            if at_end {
                self.scans.put(name, scan);
                return Ok(true);
            }
            let end = offset.saturating_add(chunk.len() as u64);
            let next = resume.unwrap_or_else(|| packets.next_offset().max(end));
            // Always forward (a packet is at most 64 KiB, a chunk 256 KiB).
            offset = if next > offset { next } else { end };
        }
    }
}

/// One data file with the layouts of its packet kinds.
#[derive(Debug, Clone)]
pub struct DataFile<'e> {
    name: String,
    bytes: Bytes,
    endian: Endian,
    pub(super) layouts: Vec<(u16, &'e crate::log::PacketDescriptor, Layout)>,
    /// Packet type (< 32) → index + 1 into `layouts` (0 = not described).
    small: [u8; 32],
}

impl<'e> DataFile<'e> {
    /// A data file from its bytes and the log describing it (without an [`Experiment`]).
    pub fn new(name: &str, bytes: Bytes, log: &'e Log) -> Self {
        let layouts = log
            .descriptors_for_file(name)
            .into_iter()
            .map(|d| (d.kind, d, Layout::new(d)))
            .collect::<Vec<_>>();
        let mut small = [0u8; 32];
        for (i, (k, _, _)) in layouts.iter().enumerate().rev() {
            if let (Some(slot), Ok(i)) = (small.get_mut(usize::from(*k)), u8::try_from(i + 1)) {
                *slot = i;
            }
        }
        DataFile {
            name: name.to_owned(),
            bytes,
            endian: log.endian(),
            layouts,
            small,
        }
    }

    /// File name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Raw bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The first packet of a kind log.xml describes no packets of for this file, as an error
    /// naming the file, the offset and the kind ([`DataFile::packets`] skips such packets);
    /// `None` when every packet is described. Packets of an undescribed kind mean a log.xml
    /// cut or damaged in its descriptors: the packets are lost.
    pub fn undescribed(&self) -> Option<Error> {
        let p = Packets::new(&self.bytes, self.endian)
            .map_while(Result::ok)
            .find(|p| !self.layouts.iter().any(|(k, _, _)| *k == p.kind))?;
        self.undescribed_error(&p)
    }

    pub(super) fn undescribed_error(&self, p: &RawPacket<'_>) -> Option<Error> {
        let described: Vec<String> = self.layouts.iter().map(|(k, _, _)| k.to_string()).collect();
        Some(Error::File {
            file: self.name.clone(),
            source: Box::new(Error::Invalid {
                what: "packet type",
                offset: p.offset + 2,
                expected: format!(
                    "a kind log.xml describes for this file ({})",
                    if described.is_empty() {
                        "none: log.xml describes no packets of it".to_owned()
                    } else {
                        described.join(", ")
                    }
                ),
                found: format!(
                    "kind {}: log.xml is damaged or cut in its descriptors, packets of this kind are skipped",
                    p.kind
                ),
            }),
        })
    }

    /// The packets of `chunk`, the part of this data file that starts at byte `base` (see
    /// [`Experiment::stream_packets`]); like [`DataFile::packets`].
    pub fn packets_in<'a>(&'a self, chunk: &'a [u8], base: u64) -> DataPackets<'a> {
        DataPackets {
            inner: Packets::at(chunk, self.endian, base),
            file: self,
            undescribed: None,
        }
    }

    /// The packets in file order (not time order). Packets of kinds log.xml does not describe
    /// are skipped, like gprofng does.
    pub fn packets(&self) -> DataPackets<'_> {
        DataPackets {
            inner: Packets::new(&self.bytes, self.endian),
            file: self,
            undescribed: None,
        }
    }
}

/// Iterator over the packets of a [`DataFile`].
#[derive(Debug, Clone)]
pub struct DataPackets<'a> {
    inner: Packets<'a>,
    file: &'a DataFile<'a>,
    /// The first packet skipped for a kind log.xml does not describe.
    undescribed: Option<RawPacket<'a>>,
}

/// A data packet with its descriptor and layout.
#[derive(Debug, Clone, Copy)]
pub struct DataPacket<'a> {
    /// The packet with its descriptor: any field by name.
    pub packet: Packet<'a>,
    /// The layout for typed reads.
    pub layout: &'a Layout,
}

impl DataPacket<'_> {
    /// The raw packet.
    pub fn raw(&self) -> &RawPacket<'_> {
        &self.packet.raw
    }

    /// The data kind.
    pub fn kind(&self) -> DataKind {
        DataKind::from_packet_type(self.packet.raw.kind)
    }

    /// The typed view.
    #[inline]
    pub fn typed(&self) -> Result<TypedPacket> {
        TypedPacket::decode(&self.packet.raw, self.layout, self.packet.endian)
    }
}

impl<'a> Iterator for DataPackets<'a> {
    type Item = Result<DataPacket<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let raw = match self.inner.next()? {
                Ok(r) => r,
                Err(e) => return Some(Err(e.in_file(&self.file.name))),
            };
            let found = match self.file.small.get(usize::from(raw.kind)) {
                Some(&i) => usize::from(i)
                    .checked_sub(1)
                    .and_then(|i| self.file.layouts.get(i)),
                None => self.file.layouts.iter().find(|(k, _, _)| *k == raw.kind),
            };
            if let Some((_, d, layout)) = found {
                return Some(Ok(DataPacket {
                    packet: Packet {
                        raw,
                        descriptor: d,
                        endian: self.file.endian,
                    },
                    layout,
                }));
            }
            if self.undescribed.is_none() {
                self.undescribed = Some(raw);
            }
        }
    }
}

impl DataPackets<'_> {
    /// The offset in the file of the next packet to be read.
    pub fn next_offset(&self) -> u64 {
        self.inner.next_offset()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::source::MemorySource;

    fn fixture(case: &str) -> MemorySource {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(case)
            .join("test.1.er");
        let mut src = MemorySource::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let name = p.file_name().unwrap().to_str().unwrap().to_owned();
                src.insert(name, std::fs::read(&p).unwrap());
            }
        }
        src
    }

    /// (offset, kind) of every packet and the text of every error, whole-file and streamed.
    fn walk(exp: &Experiment<MemorySource>, name: &str, chunk: Option<usize>) -> Vec<String> {
        let mut out = Vec::new();
        let mut take = |p: Result<DataPacket<'_>>| match p {
            Ok(p) => out.push(format!("{} {}", p.raw().offset, p.raw().kind)),
            Err(e) => out.push(e.to_string()),
        };
        match chunk {
            Some(c) => {
                exp.stream_packets_by(name, c, &mut take).unwrap();
            }
            None => exp
                .data(name)
                .unwrap()
                .unwrap()
                .packets()
                .for_each(&mut take),
        }
        out
    }

    /// A source whose `read_at` ignores the range and gives the whole file.
    struct Careless(MemorySource);

    impl Source for Careless {
        fn read(&self, path: &str) -> Result<Option<Bytes>> {
            self.0.read(path)
        }
        fn list(&self, dir: &str) -> Vec<String> {
            self.0.list(dir)
        }
        fn read_at(&self, path: &str, _: u64, _: usize) -> Result<Option<Bytes>> {
            self.0.read(path)
        }
    }

    #[test]
    fn partial_after_streaming_reuses_the_pass_and_says_the_same() {
        // A heaptrace cut mid-packet and a profile holding a packet of a kind its descriptors
        // do not give (clock's kind 8 rewritten to 9): the damage `partial` reports is the
        // same whether it scans the files itself or reuses a streamed pass.
        let mut src = fixture("cxx_names");
        let heap = src.read("heaptrace").unwrap().unwrap();
        src.insert("heaptrace", heap.slice(..heap.len() / 2 + 1));
        let profile = src.read("profile").unwrap().unwrap();
        let mut bytes = profile.to_vec();
        let at = Packets::new(&bytes, Endian::Little)
            .next()
            .unwrap()
            .unwrap()
            .offset as usize;
        bytes[at + 2] = 9;
        src.insert("profile", bytes);
        let fresh = Experiment::open(src.clone()).unwrap().partial();
        assert!(fresh.len() >= 2, "{fresh:?}");
        let exp = Experiment::open(src).unwrap();
        for f in exp.log().data_files() {
            exp.stream_packets(&f, |_| {}).unwrap();
        }
        assert_eq!(exp.scans.0.lock().unwrap().len(), 2);
        assert_eq!(exp.partial(), fresh);
    }

    #[test]
    fn a_source_giving_more_than_asked_ends_the_stream() {
        let exp = Experiment::open(Careless(fixture("many_threads"))).unwrap();
        let mut n = 0;
        exp.stream_packets_by("heaptrace", 1 << 17, |_| n += 1)
            .unwrap();
        let whole = exp.data("heaptrace").unwrap().unwrap().packets().count();
        assert_eq!(n, whole);
    }

    #[test]
    fn streaming_in_chunks_gives_the_whole_files_packets_and_errors() {
        for (case, file, cut) in [
            ("many_threads", "heaptrace", None),
            ("heap", "heaptrace", Some(40_001)),
            ("cxx_names", "profile", Some(6_002)),
        ] {
            let mut src = fixture(case);
            if let Some(len) = cut {
                let b = src.read(file).unwrap().unwrap();
                src.insert(file, b.slice(..len));
            }
            let exp = Experiment::open(src).unwrap();
            let whole = walk(&exp, file, None);
            assert!(whole.len() > 10, "{case}");
            for chunk in [(1 << 16) + 4, 70_000, 100_003, 1 << 18, STREAM_CHUNK] {
                assert_eq!(
                    walk(&exp, file, Some(chunk)),
                    whole,
                    "{case} {file} by {chunk}"
                );
            }
        }
    }
}
