//! `log.xml`'s header: `<experiment>`, `<collector>`, `<system>` (with its `<cpu>` and power
//! elements), `<process>` and `<setting>` (format notes §4).

use super::parse::{Ctx, Parser};
use super::{attr, parse_u64};
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
    /// `<powerm><frequency …/>` attributes, if any.
    pub power: Vec<Vec<(String, String)>>,
}

/// `<cpu id clk …>` inside `<system>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cpu {
    /// `id`.
    pub id: u64,
    /// `clk` in MHz.
    pub clk: u64,
    /// Every attribute as written (incl. `frequency_scaling`, `turbo_mode`).
    pub attributes: Vec<(String, String)>,
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
}

/// `<setting …>`: a collection parameter (`sample_period`, `linetrace`, `limit`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Setting {
    /// All attributes as written (normally one, e.g. `sample_period="1"`).
    pub attributes: Vec<(String, String)>,
}

/// Handles a header element; `None` when `name` is not one.
pub(super) fn start(
    p: &mut Parser<'_>,
    name: &str,
    attributes: Vec<(String, String)>,
    offset: usize,
) -> Result<Option<Ctx>> {
    let data = p.data;
    Ok(Some(match name {
        "experiment" => {
            p.saw_experiment = true;
            let v = attr(&attributes, "version").unwrap_or_default().to_owned();
            if parse_u64(v.split('.').next().unwrap_or_default()) < 12 {
                let (line, column) = crate::xml::line_column(data, offset);
                return Err(Error::ObsoleteVersion {
                    found: v,
                    line,
                    column,
                });
            }
            p.log.version = v;
            Ctx::Experiment
        }
        "collector" => Ctx::Collector,
        "system" => {
            let s = &mut p.log.system;
            for (k, v) in &attributes {
                match k.as_str() {
                    "hostname" => s.hostname.clone_from(v),
                    "arch" => s.arch.clone_from(v),
                    "os" => s.os.clone_from(v),
                    "pagesz" => s.page_size = parse_u64(v),
                    "npages" => s.npages = parse_u64(v),
                    _ => {}
                }
            }
            Ctx::System
        }
        "cpu" => {
            p.log.system.cpus.push(Cpu {
                id: attr(&attributes, "id").map(parse_u64).unwrap_or(0),
                clk: attr(&attributes, "clk").map(parse_u64).unwrap_or(0),
                attributes,
            });
            Ctx::Other
        }
        "frequency" => {
            p.log.system.power.push(attributes);
            Ctx::Other
        }
        "powerm" | "dataptr" => Ctx::Other,
        "process" => {
            let p = &mut p.log.process;
            for (k, v) in &attributes {
                match k.as_str() {
                    "pid" => p.pid = Some(parse_u64(v)),
                    "ppid" => p.ppid = Some(parse_u64(v)),
                    "pgrp" => p.pgrp = Some(parse_u64(v)),
                    "sid" => p.sid = Some(parse_u64(v)),
                    "cwd" => p.cwd = Some(v.clone()),
                    "wsize" => p.wsize = u32::try_from(parse_u64(v)).ok(),
                    "stackbase" => p.stackbase = Some(parse_u64(v)),
                    "pagesz" => p.page_size = Some(parse_u64(v)),
                    _ => {}
                }
            }
            Ctx::Process
        }
        "setting" => {
            p.log.settings.push(Setting { attributes });
            Ctx::Other
        }
        _ => return Ok(None),
    }))
}
