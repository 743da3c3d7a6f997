//! `log.xml`'s header: `<experiment>`, `<collector>`, `<system>` (with its `<cpu>` and power
//! elements), `<process>` and `<setting>` (format notes §4).

use super::{Attrs, attr, parse_u64};
use crate::error::{Error, Result};

/// `<system>`: the recording host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct System {
    /// `hostname`.
    pub hostname: String,
    /// `arch` (`x86_64`, `aarch64`, `sun4v`, …): decides the byte order.
    pub arch: String,
    /// `os`.
    pub os: String,
    /// `pagesz`.
    pub page_size: u64,
    /// `npages` (physical memory in pages).
    pub npages: u64,
    /// `<cpu>` children.
    pub cpus: Vec<Cpu>,
    /// `<powerm><frequency …/>` elements, if any.
    pub power: Vec<Frequency>,
    /// `<system>` attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
}

/// `<frequency …>` inside `<powerm>`: a CPU frequency the collector saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frequency {
    /// `clk` in MHz.
    pub clk: Option<u64>,
    /// Attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
}

/// `<cpu id clk …>` inside `<system>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cpu {
    /// `id`.
    pub id: u64,
    /// `clk` in MHz.
    pub clk: u64,
    /// `frequency_scaling`, as written, if recorded.
    pub frequency_scaling: Option<String>,
    /// `turbo_mode`, as written, if recorded.
    pub turbo_mode: Option<String>,
    /// Attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
}

/// The `<process …>` elements: one attribute each, plus the command line as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Process {
    /// `pid`.
    pub pid: Option<u64>,
    /// `ppid`.
    pub ppid: Option<u64>,
    /// `pgrp`.
    pub pgrp: Option<u64>,
    /// `sid`.
    pub sid: Option<u64>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `wsize` (32 or 64).
    pub wsize: Option<u32>,
    /// `stackbase`.
    pub stackbase: Option<u64>,
    /// `pagesz`.
    pub page_size: Option<u64>,
    /// The target command line (`(fork)` for fork children).
    pub command: Option<String>,
    /// `<process>` attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
}

/// The `<setting …>` elements: the collection parameters, one attribute per element
/// (format notes §4; `collect`'s options in parentheses).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Settings {
    /// `sample_period`: seconds between periodic samples (`-S`).
    pub sample_period: Option<u64>,
    /// `sample_signal`: the signal that records a sample (`-l`), as written.
    pub sample_signal: Option<String>,
    /// `pause_signal`: the signal that pauses and resumes collection (`-y`), as written.
    pub pause_signal: Option<String>,
    /// `limit`: the experiment size limit in MB (`-L`).
    pub limit: Option<u64>,
    /// `linetrace`: which descendants are followed (`-F`), e.g. `fork|exec|combo`.
    pub linetrace: Option<String>,
    /// `search_path` entries in order (Java source paths).
    pub search_path: Vec<String>,
    /// `collenv` entries in order (environment settings of the collector).
    pub collenv: Vec<String>,
    /// `blksz`: the data files' block size in bytes.
    pub blksz: Option<u64>,
    /// `stackbase`, as written.
    pub stackbase: Option<String>,
    /// `hwc_default`: present when the default hardware counters were chosen; as written.
    pub hwc_default: Option<String>,
    /// `noidle`, as written.
    pub noidle: Option<String>,
    /// `faketime`, as written.
    pub faketime: Option<String>,
    /// `delay_start` (`-t`), as written.
    pub delay_start: Option<String>,
    /// `terminate` (`-t`), as written.
    pub terminate: Option<String>,
    /// Settings not named above (name, value), in order.
    pub other: Vec<(String, String)>,
}

impl Settings {
    /// Records one `<setting>` element's attributes.
    pub(super) fn add(&mut self, attributes: Vec<(String, String)>) {
        for (name, value) in attributes {
            match name.as_str() {
                "sample_period" => self.sample_period = Some(parse_u64(&value)),
                "sample_signal" => self.sample_signal = Some(value),
                "pause_signal" => self.pause_signal = Some(value),
                "limit" => self.limit = Some(parse_u64(&value)),
                "linetrace" => self.linetrace = Some(value),
                "search_path" => self.search_path.push(value),
                "collenv" => self.collenv.push(value),
                "blksz" => self.blksz = Some(parse_u64(&value)),
                "stackbase" => self.stackbase = Some(value),
                "hwc_default" => self.hwc_default = Some(value),
                "noidle" => self.noidle = Some(value),
                "faketime" => self.faketime = Some(value),
                "delay_start" => self.delay_start = Some(value),
                "terminate" => self.terminate = Some(value),
                _ => self.other.push((name, value)),
            }
        }
    }
}

/// A header element, as read: what it says, for the log reader to keep.
#[derive(Debug)]
pub(super) enum Header {
    /// `<experiment version>`, of a version this reader reads.
    Experiment {
        /// `version`.
        version: String,
    },
    /// `<collector>`: its text follows as character data.
    Collector,
    /// `<system …>`'s attributes, for [`System::add`].
    System(Vec<(String, String)>),
    /// `<cpu …>`.
    Cpu(Cpu),
    /// `<frequency …>`.
    Frequency(Frequency),
    /// `<process …>`'s attributes, for [`Process::add`]; the command line follows as
    /// character data.
    Process(Vec<(String, String)>),
    /// `<setting …>`'s attributes, for [`Settings::add`].
    Setting(Vec<(String, String)>),
    /// `<powerm>` or `<dataptr>`: containers, nothing to keep.
    Other,
}

impl System {
    /// Records one `<system>` element's attributes.
    pub(super) fn add(&mut self, attributes: Vec<(String, String)>) {
        for (k, v) in attributes {
            match k.as_str() {
                "hostname" => self.hostname = v,
                "arch" => self.arch = v,
                "os" => self.os = v,
                "pagesz" => self.page_size = parse_u64(&v),
                "npages" => self.npages = parse_u64(&v),
                _ => self.other.push((k, v)),
            }
        }
    }
}

impl Process {
    /// Records one `<process>` element's attributes.
    pub(super) fn add(&mut self, attributes: Vec<(String, String)>) {
        for (k, v) in attributes {
            match k.as_str() {
                "pid" => self.pid = Some(parse_u64(&v)),
                "ppid" => self.ppid = Some(parse_u64(&v)),
                "pgrp" => self.pgrp = Some(parse_u64(&v)),
                "sid" => self.sid = Some(parse_u64(&v)),
                "cwd" => self.cwd = Some(v),
                "wsize" => self.wsize = u32::try_from(parse_u64(&v)).ok(),
                "stackbase" => self.stackbase = Some(parse_u64(&v)),
                "pagesz" => self.page_size = Some(parse_u64(&v)),
                _ => self.other.push((k, v)),
            }
        }
    }
}

/// Reads a header element; `None` when `name` is not one. `data` and `offset` place an error
/// (an `<experiment>` of a version older than 12).
pub(super) fn read(
    name: &str,
    attributes: Vec<(String, String)>,
    data: &[u8],
    offset: usize,
) -> Result<Option<Header>> {
    Ok(Some(match name {
        "experiment" => {
            let version = attr(&attributes, "version").unwrap_or_default().to_owned();
            if parse_u64(version.split('.').next().unwrap_or_default()) < 12 {
                let (line, column) = crate::xml::line_column(data, offset);
                return Err(Error::ObsoleteVersion {
                    found: version,
                    line,
                    column,
                });
            }
            Header::Experiment { version }
        }
        "collector" => Header::Collector,
        "system" => Header::System(attributes),
        "cpu" => {
            let mut a = Attrs::new(attributes);
            Header::Cpu(Cpu {
                id: a.take_u64("id").unwrap_or(0),
                clk: a.take_u64("clk").unwrap_or(0),
                frequency_scaling: a.take("frequency_scaling"),
                turbo_mode: a.take("turbo_mode"),
                other: a.other(),
            })
        }
        "frequency" => {
            let mut a = Attrs::new(attributes);
            Header::Frequency(Frequency {
                clk: a.take_u64("clk"),
                other: a.other(),
            })
        }
        "powerm" | "dataptr" => Header::Other,
        "process" => Header::Process(attributes),
        "setting" => Header::Setting(attributes),
        _ => return Ok(None),
    }))
}
