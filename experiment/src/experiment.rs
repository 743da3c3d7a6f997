//! `Experiment::open`: an experiment directory read through a caller-supplied [`Source`]
//! (spec: "実験ディレクトリ"; format notes §1, gprofng `Experiment::open` order).

use crate::cursor::{Endian, WordSize};
use crate::error::{Error, Result};
use crate::frameinfo::{FrameInfo, Stack};
use crate::log::Log;
use crate::map::Map;
use crate::packets::{DataKind, Layout, Packet, Packets, RawPacket, TypedPacket};
use crate::source::{Source, SubSource};
use bytes::Bytes;

/// An opened experiment. Data files are read from the source when asked for.
#[derive(Debug, Clone)]
pub struct Experiment<S> {
    source: S,
    log: Log,
    warnings: Option<Log>,
    map: Map,
    frameinfo: FrameInfo,
    /// Damage seen while opening: log.xml or map.xml cut inside an element.
    damage: Vec<Error>,
    /// What a complete pass over each data file found (see [`Scans`]).
    scans: Scans,
}

/// The first bad packet and the first packet of an undescribed kind of a data file, as a
/// complete pass found them: [`Experiment::stream_packets`] keeps them, so that
/// [`Experiment::partial`] after a streamed read does not read the data files again.
type Scan = (Option<Error>, Option<Error>);

/// [`Scan`]s by data file name (a handful of files; behind a lock because streaming takes
/// `&self`).
#[derive(Debug, Default)]
struct Scans(std::sync::Mutex<Vec<(String, Scan)>>);

impl Scans {
    fn get(&self, name: &str) -> Option<Scan> {
        let scans = self.0.lock().ok()?;
        scans
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
    }

    fn put(&self, name: &str, scan: Scan) {
        if let Ok(mut scans) = self.0.lock() {
            if !scans.iter().any(|(n, _)| n == name) {
                scans.push((name.to_owned(), scan));
            }
        }
    }
}

impl Clone for Scans {
    fn clone(&self) -> Self {
        Scans(std::sync::Mutex::new(
            self.0.lock().map(|s| s.clone()).unwrap_or_default(),
        ))
    }
}

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
    /// Opens the experiment `source` serves: reads `warnings.xml` (optional), `log.xml`
    /// (required), `map.xml` and `data.frameinfo` (optional). Other files are read on demand.
    pub fn open(source: S) -> Result<Self> {
        let warnings = match source.read("warnings.xml")? {
            Some(b) => {
                Some(Log::parse_named(&b, "warnings.xml").map_err(|e| e.in_file("warnings.xml"))?)
            }
            None => None,
        };
        let log_bytes = source.read("log.xml")?.ok_or_else(|| Error::MissingFile {
            name: "log.xml".into(),
        })?;
        if log_bytes.iter().all(|&b| b == 0 || b.is_ascii_whitespace()) {
            return Err(Error::File {
                file: "log.xml".into(),
                source: Box::new(Error::Invalid {
                    what: "log.xml",
                    offset: 0,
                    expected: "an <experiment> element".into(),
                    found: format!("{} bytes of nothing (NULs or white space)", log_bytes.len()),
                }),
            });
        }
        let log = Log::parse(&log_bytes).map_err(|e| e.in_file("log.xml"))?;
        let mut damage: Vec<Error> = crate::xml::find_cut(&log_bytes, "log.xml")
            .into_iter()
            .collect();
        let map = match source.read("map.xml")? {
            Some(b) => {
                let map = Map::parse(&b).map_err(|e| e.in_file("map.xml"))?;
                damage.extend(crate::xml::find_cut(&b, "map.xml"));
                map
            }
            None => Map::default(),
        };
        let frameinfo = match source.read("data.frameinfo")? {
            Some(b) => FrameInfo::parse(&b, log.endian(), log.word_size()),
            None => FrameInfo::default(),
        };
        Ok(Experiment {
            source,
            log,
            warnings,
            map,
            frameinfo,
            damage,
            scans: Scans::default(),
        })
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// `log.xml`.
    pub fn log(&self) -> &Log {
        &self.log
    }

    /// `warnings.xml`, if present.
    pub fn collect_warnings(&self) -> Option<&Log> {
        self.warnings.as_ref()
    }

    /// `map.xml` (empty if absent).
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// `data.frameinfo` (empty if absent).
    pub fn frameinfo(&self) -> &FrameInfo {
        &self.frameinfo
    }

    /// Byte order.
    pub fn endian(&self) -> Endian {
        self.log.endian()
    }

    /// Word size.
    pub fn word_size(&self) -> WordSize {
        self.log.word_size()
    }

    /// Raw bytes of any file of the experiment (`Ok(None)` if it does not exist).
    pub fn file(&self, path: &str) -> Result<Option<Bytes>> {
        self.source.read(path)
    }

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
    fn stream_packets_by(
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
    fn scan_data_file(&self, name: &str) -> Result<(Option<Error>, Option<Error>)> {
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
    fn undescribed_files(&self) -> Vec<Error> {
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

    /// The resolved stack of a packet's `FRINFO` (see [`FrameInfo::stack`]).
    pub fn stack(&self, frinfo: u64) -> Result<Option<Stack>> {
        self.frameinfo.stack(frinfo)
    }

    /// True when the experiment is partial: [`Experiment::partial`] gives a reason.
    pub fn incomplete(&self) -> bool {
        !self.partial().is_empty()
    }

    /// The `overview` records (empty if absent).
    pub fn overview(&self) -> Result<Vec<crate::overview::PrUsage>> {
        match self.source.read("overview")? {
            Some(b) => crate::overview::parse(&b, self.endian(), self.word_size())
                .map_err(|e| e.in_file("overview")),
            None => Ok(Vec::new()),
        }
    }

    /// The samples: overview records paired and labelled by log.xml's sample events.
    pub fn samples(&self) -> Result<Vec<crate::overview::Sample>> {
        Ok(crate::overview::samples(
            &self.overview()?,
            &self.log.samples(),
        ))
    }

    /// The dynamic functions of `dyntext` (empty if absent).
    pub fn dyntext(&self) -> Result<Vec<crate::dyntext::DynFunction>> {
        match self.source.read("dyntext")? {
            Some(b) => {
                crate::dyntext::functions(&b, self.endian()).map_err(|e| e.in_file("dyntext"))
            }
            None => Ok(Vec::new()),
        }
    }

    /// Java classes and methods from `jclasses` (or the Oracle-era `JAVA_CLASSES`), if present.
    pub fn jclasses(&self) -> Result<Option<crate::jclasses::JClasses>> {
        let (name, bytes) = match self.source.read("jclasses")? {
            Some(b) => ("jclasses", b),
            None => match self.source.read("JAVA_CLASSES")? {
                Some(b) => ("JAVA_CLASSES", b),
                None => return Ok(None),
            },
        };
        crate::jclasses::JClasses::parse(&bytes, self.endian())
            .map(Some)
            .map_err(|e| e.in_file(name))
    }

    /// Names in `archives/` (sorted).
    pub fn archives(&self) -> Vec<String> {
        crate::archives::list(&self.source)
    }

    /// `labels.xml` user labels, in order (none when the file is absent).
    pub fn labels(&self) -> Result<Vec<crate::labels::UserLabel>> {
        let Some(b) = self.source.read("labels.xml")? else {
            return Ok(Vec::new());
        };
        crate::labels::parse(&b).map_err(|e| e.in_file("labels.xml"))
    }

    /// Descendant experiments in gprofng's order (see [`crate::descendants::list`]).
    ///
    /// The tiny experiment the crate carries (`src/demo/`) forked once: its child's
    /// experiment is `_f1.er`, with its own packets and the founder's archives.
    ///
    /// ```
    /// use experiment::{Experiment, MemorySource, descendants::Step, profile::StackProfile};
    /// use experiment::stacks::Symbolizer;
    /// # let source = MemorySource::new()
    /// #     .with("log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/log.xml"))[..])
    /// #     .with("map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/map.xml"))[..])
    /// #     .with("data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/data.frameinfo"))[..])
    /// #     .with("profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/profile"))[..])
    /// #     .with("archives/demo_4xbbvtFYDL2", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/archives/demo_4xbbvtFYDL2"))[..])
    /// #     .with("_f1.er/log.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/log.xml"))[..])
    /// #     .with("_f1.er/map.xml", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/map.xml"))[..])
    /// #     .with("_f1.er/data.frameinfo", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/data.frameinfo"))[..])
    /// #     .with("_f1.er/profile", &include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/demo/_f1.er/profile"))[..]);
    /// let exp = Experiment::open(source)?;
    /// let children = exp.descendants();
    /// assert_eq!(children.len(), 1);
    /// assert_eq!((children[0].name.as_str(), children[0].lineage.as_slice()), ("_f1.er", &[Step::Fork(1)][..]));
    /// let child = exp.open_descendant(&children[0].name)?;
    /// assert_eq!(child.log().process.command.as_deref(), Some("(fork)"));
    /// // Its stacks are named from the founder's archives/.
    /// let symbols = Symbolizer::new(&child).with_founder_archives(&exp);
    /// let profile = StackProfile::collect(&child, symbols, None)?;
    /// let hot = profile.function_table().function_list().rows[1].name.clone();
    /// assert_eq!(hot, "other");
    /// # Ok::<(), experiment::Error>(())
    /// ```
    pub fn descendants(&self) -> Vec<crate::descendants::Descendant> {
        crate::descendants::list(&self.source)
    }

    /// Notes (`notes` file: one note per line).
    pub fn notes(&self) -> Result<Vec<String>> {
        Ok(self
            .source
            .read("notes")?
            .map(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// `ifreq`: the instruction-frequency report of a count experiment, as text (gprofng shows
    /// its lines verbatim); `None` when there is none.
    pub fn ifreq(&self) -> Result<Option<String>> {
        Ok(self
            .source
            .read("ifreq")?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// `jdynclasses/`: the class files of dynamically generated Java classes the collector
    /// saved, one file per class under its package path (`jdynclasses/com/x/Gen.class`), in
    /// path order. Directories are walked at most [`JDYNCLASSES_DEPTH`] deep, and at most
    /// [`JDYNCLASSES_ENTRIES`] entries are looked at (a source with directory loops ends).
    pub fn jdynclasses(&self) -> Vec<DynClass> {
        let mut out = Vec::new();
        let mut budget = JDYNCLASSES_ENTRIES;
        // Breadth first: shallow classes are found before a deep (or looping) tree uses up the
        // budget.
        let mut dirs = std::collections::VecDeque::from([("jdynclasses".to_owned(), 0usize)]);
        while let Some((dir, depth)) = dirs.pop_front() {
            for name in self.source.list(&dir) {
                let Some(left) = budget.checked_sub(1) else {
                    dirs.clear();
                    break;
                };
                budget = left;
                let path = format!("{dir}/{name}");
                let class = name.strip_suffix(".class");
                // An unreadable class file is left out like a missing one (the directory
                // listing is best effort too).
                match class.and_then(|_| self.source.read(&path).ok().flatten()) {
                    Some(bytes) => {
                        let package = dir.strip_prefix("jdynclasses/").unwrap_or_default();
                        let class = class.unwrap_or_default();
                        let class_name = if package.is_empty() {
                            class.to_owned()
                        } else {
                            format!("{}.{class}", package.replace('/', "."))
                        };
                        out.push(DynClass {
                            path,
                            class_name,
                            bytes,
                        });
                    }
                    None if depth + 1 < JDYNCLASSES_DEPTH => dirs.push_back((path, depth + 1)),
                    None => {}
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    /// The experiment of descendant `name` (e.g. `_f1.er`), read from its subdirectory.
    pub fn open_descendant(&self, name: &str) -> Result<Experiment<SubSource<&S>>> {
        Experiment::open(SubSource::new(&self.source, name))
    }
}

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

/// How deep [`Experiment::jdynclasses`] walks (package nesting; also stops directory loops a
/// source may have).
pub const JDYNCLASSES_DEPTH: usize = 64;

/// How many directory entries [`Experiment::jdynclasses`] looks at, at most.
pub const JDYNCLASSES_ENTRIES: usize = 1 << 16;

/// A dynamically generated Java class saved in `jdynclasses/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynClass {
    /// Path in the experiment (`jdynclasses/com/x/Gen.class`).
    pub path: String,
    /// Class name from the path (`com.x.Gen`).
    pub class_name: String,
    /// The class file.
    pub bytes: Bytes,
}

impl DynClass {
    /// True when the bytes start with the class-file magic `0xCAFEBABE`.
    pub fn is_class_file(&self) -> bool {
        self.bytes.starts_with(&[0xCA, 0xFE, 0xBA, 0xBE])
    }
}

/// One data file with the layouts of its packet kinds.
#[derive(Debug, Clone)]
pub struct DataFile<'e> {
    name: String,
    bytes: Bytes,
    endian: Endian,
    layouts: Vec<(u16, &'e crate::log::PacketDescriptor, Layout)>,
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

    fn undescribed_error(&self, p: &RawPacket<'_>) -> Option<Error> {
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
