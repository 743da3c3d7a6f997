//! Whether and why an experiment is partial: a collector that stopped before the program
//! ended, and files cut or damaged (log.xml, map.xml, jclasses, data.frameinfo, data files).

use super::Experiment;
use super::data::{DATA_FILE_NAMES, DataFile, STREAM_CHUNK};
use crate::error::{Error, Result};
use crate::packets::Packets;
use crate::source::Source;
use bytes::Bytes;

/// One reason an experiment is partial: data is missing from what was read (see
/// [`Experiment::partial`]). Displays as `FILE: why`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Partial {
    /// `log.xml` has no exit event (nor an exec): the collector stopped before the program
    /// ended — killed, or still running — so every data file ends there.
    NoExitEvent,
    /// A file of the experiment is cut short or damaged, so some of its records were lost;
    /// the error names the file (an [`Error::File`]) and where (byte offset or line:column).
    Damaged(Error),
}

impl Partial {
    /// The file of the experiment the reason is about (`log.xml`, `profile`, `_f1.er/map.xml`).
    pub fn file(&self) -> &str {
        match self {
            Partial::NoExitEvent => "log.xml",
            Partial::Damaged(Error::File { file, .. }) => file,
            Partial::Damaged(Error::Read { path, .. }) => path,
            Partial::Damaged(Error::Xml { file, .. }) => file,
            Partial::Damaged(_) => "",
        }
    }

    /// Why, without the file name.
    pub fn reason(&self) -> String {
        match self {
            Partial::NoExitEvent => "no exit event: the collector stopped before the program \
                ended (killed, or still running), and the data ends there"
                .to_owned(),
            Partial::Damaged(Error::File { source, .. }) => source.to_string(),
            Partial::Damaged(Error::Read { reason, .. }) => reason.clone(),
            Partial::Damaged(Error::Xml {
                line,
                column,
                expected,
                found,
                ..
            }) => format!("{line}:{column}: expected {expected}, found {found}"),
            Partial::Damaged(e) => e.to_string(),
        }
    }
}

impl std::fmt::Display for Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.file() {
            "" => f.write_str(&self.reason()),
            file => write!(f, "{file}: {}", self.reason()),
        }
    }
}

impl<S: Source> Experiment<S> {
    /// Where reading this experiment's data stopped short (part of [`Experiment::partial`], which
    /// also says whether the collector was killed and which other files are damaged), each as
    /// an error naming the file and the byte offset: data files (and `data.frameinfo`) that end inside a packet or with a
    /// 1–3 byte tail, bad frame-info packets, and data files holding bytes that log.xml
    /// describes no packets for (log.xml cut before its `<profpckt>` descriptors). Empty for
    /// an experiment read completely. What could be read is still served by the other
    /// methods; a caller reports these as "partial".
    pub fn truncations(&self) -> Result<Vec<Error>> {
        let mut out: Vec<Error> = self
            .frameinfo
            .problems()
            .iter()
            .map(|e| e.clone().in_file("data.frameinfo"))
            .collect();
        for name in self.log.data_files() {
            let mut cut = None;
            self.stream_packets(&name, |p| {
                if let Err(e) = p {
                    if cut.is_none() && e.is_truncated() {
                        cut = Some(e);
                    }
                }
            })?;
            out.extend(cut);
        }
        out.extend(self.undescribed_files());
        Ok(out)
    }

    /// Whether and why the experiment is partial: every reason data is missing from what the
    /// other methods serve, in file order; empty when the experiment was read completely.
    ///
    /// The reasons: the collector stopped before the program ended ([`Partial::NoExitEvent`]:
    /// killed, or still running); and damage ([`Partial::Damaged`]) — `log.xml` or `map.xml`
    /// cut inside an element (the events after it lost: native names), `jclasses` cut or bad
    /// (Java method names lost), a data file or `data.frameinfo` cut mid-packet or holding a
    /// packet that cannot be read (the packets after it lost), packets of kinds log.xml does
    /// not describe for their file (log.xml cut or damaged before its descriptors: those
    /// packets skipped), an empty or missing `data.frameinfo` though packets reference
    /// stacks (every stack empty), a data file that cannot be read.
    ///
    /// ```
    /// use experiment::{Experiment, MemorySource, Partial};
    ///
    /// // A log.xml whose collector was killed: no exit event.
    /// let log = br#"<experiment version="12.4"></experiment><event kind="run" tstamp="1.0"/>"#;
    /// let exp = Experiment::open(MemorySource::new().with("log.xml", &log[..]))?;
    /// let partial = exp.partial();
    /// assert_eq!(partial, [Partial::NoExitEvent]);
    /// assert!(partial[0].to_string().starts_with("log.xml: no exit event"));
    /// assert!(exp.incomplete());
    /// # Ok::<(), experiment::Error>(())
    /// ```
    pub fn partial(&self) -> Vec<Partial> {
        let mut out = Vec::new();
        if !self.log.has_exit() && !self.log.has_exec() {
            out.push(Partial::NoExitEvent);
        }
        for e in &self.damage {
            let file = match e {
                Error::Xml { file, .. } => file.clone(),
                _ => String::new(),
            };
            out.push(Partial::Damaged(e.clone().in_file(&file)));
        }
        if self.log.is_java() {
            if let Ok(Some(b)) = self.source.read("jclasses") {
                if let (_, Some(e)) = crate::jclasses::JClasses::parse_salvaging(&b, self.endian())
                {
                    out.push(Partial::Damaged(e.in_file("jclasses")));
                }
            }
        }
        out.extend(
            self.frameinfo
                .problems()
                .iter()
                .map(|e| Partial::Damaged(e.clone().in_file("data.frameinfo"))),
        );
        let mut stack_referenced = false;
        for name in self.log.data_files() {
            match self
                .scans
                .get(&name)
                .map_or_else(|| self.scan_data_file(&name), Ok)
            {
                Ok((error, undescribed)) => {
                    out.extend(error.map(Partial::Damaged));
                    out.extend(undescribed.map(Partial::Damaged));
                }
                Err(e) => out.push(Partial::Damaged(e)),
            }
            // Whether packets reference stacks: their first packets tell.
            if self.frameinfo.is_empty() && !stack_referenced {
                if let Ok(Some(chunk)) = self.source.read_at(&name, 0, STREAM_CHUNK) {
                    stack_referenced = DataFile::new(&name, chunk, &self.log)
                        .packets()
                        .filter_map(Result::ok)
                        .filter_map(|p| p.typed().ok())
                        .take(64)
                        .any(|t| t.common().frinfo != 0);
                }
            }
        }
        if stack_referenced && self.frameinfo.is_empty() {
            out.push(Partial::Damaged(Error::File {
                file: "data.frameinfo".into(),
                source: Box::new(Error::Invalid {
                    what: "frame info",
                    offset: 0,
                    expected: "the stacks the data packets reference (FRINFO)".into(),
                    found: "no frame packets (the file is empty or missing): every stack is lost"
                        .into(),
                }),
            }));
        }
        out.extend(self.undescribed_files().into_iter().map(Partial::Damaged));
        out
    }

    /// One pass over data file `name`, in chunks: its first bad packet (an error naming the
    /// file and the offset) and its first packet of a kind log.xml does not describe for it
    /// (see [`DataFile::undescribed`]).
    pub(super) fn scan_data_file(&self, name: &str) -> Result<(Option<Error>, Option<Error>)> {
        let file = DataFile::new(name, Bytes::new(), &self.log);
        let (mut error, mut undescribed) = (None, None);
        let mut offset = 0u64;
        loop {
            let Some(chunk) = self.source.read_at(name, offset, STREAM_CHUNK)? else {
                return Ok((error, undescribed));
            };
            // A source that gives more than asked gave the rest of the file.
            let at_end = chunk.len() != STREAM_CHUNK;
            let mut packets = Packets::at(&chunk, self.endian(), offset);
            let mut resume = None;
            for p in packets.by_ref() {
                match p {
                    Ok(p) => {
                        if undescribed.is_none()
                            && !file.layouts.iter().any(|(k, _, _)| *k == p.kind)
                        {
                            undescribed = file.undescribed_error(&p);
                        }
                    }
                    Err(e) if !at_end && e.is_truncated() => {
                        resume = e.offset();
                        break;
                    }
                    Err(e) => {
                        error.get_or_insert(e.in_file(name));
                    }
                }
            }
            if at_end || (error.is_some() && undescribed.is_some()) {
                return Ok((error, undescribed));
            }
            let end = offset.saturating_add(chunk.len() as u64);
            let next = resume.unwrap_or_else(|| packets.next_offset().max(end));
            offset = if next > offset { next } else { end };
        }
    }

    /// Data files holding packets although log.xml describes no packets for them (log.xml cut
    /// before its `<profpckt>` descriptors).
    pub(super) fn undescribed_files(&self) -> Vec<Error> {
        let mut out = Vec::new();
        let described = self.log.data_files();
        for name in DATA_FILE_NAMES {
            if described.iter().any(|d| d == name) {
                continue;
            }
            // Its first packet is enough to tell.
            if let Ok(Some(b)) = self.source.read_at(name, 0, STREAM_CHUNK) {
                if let Some(at) = crate::packets::Packets::new(&b, self.endian())
                    .filter_map(Result::ok)
                    .map(|p| p.offset)
                    .next()
                {
                    out.push(Error::File {
                        file: name.to_owned(),
                        source: Box::new(Error::Invalid {
                            what: "data file",
                            offset: at,
                            expected: "a `<profdata>` descriptor for it in log.xml".into(),
                            found: format!(
                                "packets ({} bytes) that log.xml does not describe: log.xml cut before its packet descriptors",
                                b.len()
                            ),
                        }),
                    });
                }
            }
        }
        out
    }
}
