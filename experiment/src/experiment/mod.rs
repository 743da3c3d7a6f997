//! `Experiment::open`: an experiment directory read through a caller-supplied [`Source`]
//! (spec: "実験ディレクトリ"; format notes §1, gprofng `Experiment::open` order).

mod data;
mod jdynclasses;
mod partial;
mod scans;

pub use data::{DATA_FILE_NAMES, DataFile, DataPacket, DataPackets, STREAM_CHUNK};
pub use jdynclasses::{DynClass, JDYNCLASSES_DEPTH, JDYNCLASSES_ENTRIES};
pub use partial::Partial;

use crate::cursor::{Endian, WordSize};
use crate::error::{Error, Result};
use crate::frameinfo::{FrameInfo, Stack};
use crate::log::Log;
use crate::map::Map;
use crate::source::{Source, SubSource};
use bytes::Bytes;

use scans::Scans;

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

    /// The experiment of descendant `name` (e.g. `_f1.er`), read from its subdirectory.
    pub fn open_descendant(&self, name: &str) -> Result<Experiment<SubSource<&S>>> {
        Experiment::open(SubSource::new(&self.source, name))
    }
}
