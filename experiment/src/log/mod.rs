//! `log.xml`: the experiment header, settings, packet descriptors and the event log
//! (spec: "ログファイル (log.xml)"; format notes §4, gprofng `ExperimentHandler::startElement`).

use crate::cursor::{Endian, WordSize};
use crate::tags::TagMap;

/// A timestamp in nanoseconds as written in a log (`sec.nnnnnnnnn`): absolute `gethrtime()` for
/// the `run` event (and Java `jthread_*`/`gc_*` events), relative to the run start elsewhere.
pub type Timestamp = u64;

/// Parses gprofng's `sec.nnnnnnnnn` timestamps into nanoseconds (missing or junk ⇒ 0).
pub fn parse_tstamp(s: &str) -> Timestamp {
    let s = s.trim();
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    let sec = parse_u64(sec);
    let digits: String = frac
        .chars()
        .take_while(char::is_ascii_digit)
        .take(9)
        .collect();
    let mut ns = digits.parse::<u64>().unwrap_or(0);
    for _ in digits.len()..9 {
        ns = ns.saturating_mul(10);
    }
    sec.saturating_mul(1_000_000_000).saturating_add(ns)
}

/// Parses an integer with `strtoull` leniency: optional sign, `0x` hex, leading digits only;
/// anything else is 0.
pub fn parse_u64(s: &str) -> u64 {
    let s = s.trim();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or_default()),
        Some(b'+') => (false, s.get(1..).unwrap_or_default()),
        _ => (false, s),
    };
    let (radix, digits) = match s.get(..2) {
        Some("0x" | "0X") => (16, s.get(2..).unwrap_or_default()),
        _ => (10, s),
    };
    let mut v: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v.wrapping_mul(u64::from(radix)).wrapping_add(u64::from(d));
    }
    if neg { v.wrapping_neg() } else { v }
}

/// Signed form of [`parse_u64`].
pub fn parse_i64(s: &str) -> i64 {
    parse_u64(s) as i64
}

mod descriptors;
mod events;
mod header;
mod parse;

pub use descriptors::{
    FieldDescriptor, FieldType, HwCounter, PacketDescriptor, Profile, StateName,
};
pub use events::{CollectorMessage, EventKind, LogEvent, SampleEvent, Severity};
pub use header::{Cpu, Frequency, Process, Settings, System};

/// Everything read from `log.xml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Log {
    /// `<experiment version>` (e.g. `12.4`).
    pub version: String,
    /// `<collector>` text (e.g. `2.40.00`).
    pub collector: String,
    /// `<system>`.
    pub system: System,
    /// `<process>` elements.
    pub process: Process,
    /// The `<setting>` elements.
    pub settings: Settings,
    /// `<profile>` elements in order.
    pub profiles: Vec<Profile>,
    /// Every `<profpckt>` descriptor in order.
    pub packets: Vec<PacketDescriptor>,
    /// Every `<event>` in file order (not sorted by time).
    pub events: Vec<LogEvent>,
    /// Elements the reader does not know (gprofng warns and ignores them).
    pub unknown_elements: Vec<String>,
}

pub(crate) fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// An element's attributes while a model takes the ones it names; what is left over goes
/// to the model's `other` list.
pub(crate) struct Attrs(Vec<(String, String)>);

impl Attrs {
    pub(crate) fn new(attributes: Vec<(String, String)>) -> Self {
        Attrs(attributes)
    }

    /// Removes attribute `name` (its first occurrence) and returns its value.
    pub(crate) fn take(&mut self, name: &str) -> Option<String> {
        let i = self.0.iter().position(|(k, _)| k == name)?;
        Some(self.0.remove(i).1)
    }

    /// [`Attrs::take`] read as an integer with [`parse_u64`]'s leniency.
    pub(crate) fn take_u64(&mut self, name: &str) -> Option<u64> {
        self.take(name).map(|v| parse_u64(&v))
    }

    /// [`Attrs::take`] read as a signed integer.
    pub(crate) fn take_i64(&mut self, name: &str) -> Option<i64> {
        self.take(name).map(|v| parse_i64(&v))
    }

    /// The attributes no one took, as written, in order.
    pub(crate) fn other(self) -> Vec<(String, String)> {
        self.0
    }
}

impl Log {
    /// Byte order of the data files (from `<system arch>`).
    pub fn endian(&self) -> Endian {
        Endian::from_arch(&self.system.arch)
    }

    /// Word size of the process (`wsize` 32 ⇒ 32-bit; absent ⇒ 64-bit like gprofng).
    pub fn word_size(&self) -> WordSize {
        if self.process.wsize == Some(32) {
            WordSize::W32
        } else {
            WordSize::W64
        }
    }

    /// Absolute start of the experiment (the first `run` event's tstamp), in ns.
    pub fn run_start(&self) -> Option<Timestamp> {
        self.events
            .iter()
            .find(|e| e.kind == EventKind::Run)
            .map(|e| e.tstamp)
    }

    /// True when an `exit` event was recorded.
    pub fn has_exit(&self) -> bool {
        self.events.iter().any(|e| e.kind == EventKind::Exit)
    }

    /// True when the process exec'ed another image (its log ends without `exit`).
    pub fn has_exec(&self) -> bool {
        self.events.iter().any(|e| e.kind == EventKind::ExecStart)
    }

    /// Latest relative timestamp of the log's events other than `run` (gprofng's
    /// "Experiment Ended"), in ns.
    pub fn end(&self) -> Timestamp {
        self.events
            .iter()
            .filter(|e| {
                !matches!(
                    e.kind,
                    EventKind::Run
                        | EventKind::JthreadStart
                        | EventKind::JthreadEnd
                        | EventKind::GcStart
                        | EventKind::GcEnd
                )
            })
            .map(|e| e.tstamp)
            .max()
            .unwrap_or(0)
    }

    /// True for a Java experiment (`<profile name="jprofile">`).
    pub fn is_java(&self) -> bool {
        self.profile("jprofile").is_some()
    }

    /// gprofng's thread numbering for this experiment: Java threads get their numbers from the
    /// `jthread_start` events (in log order, by `tid`) before any packet is read; the data
    /// packets' `THRID`s then take the next numbers in order of first appearance.
    pub fn thread_tags(&self) -> TagMap {
        let mut tags = TagMap::new();
        for e in self
            .events
            .iter()
            .filter(|e| e.kind == EventKind::JthreadStart)
        {
            if let Some(tid) = e.tid {
                tags.tag(tid);
            }
        }
        tags
    }

    /// The hardware counters (`<profile name="hwcounter">`), in order.
    pub fn hw_counters(&self) -> Vec<HwCounter> {
        self.profiles
            .iter()
            .filter(|p| p.name == "hwcounter")
            .filter_map(|p| {
                Some(HwCounter {
                    tag: p.tag.unwrap_or(0),
                    name: p.hwcname.clone()?,
                    int_name: p.int_name.clone().unwrap_or_default(),
                    interval: p.interval.unwrap_or(0),
                    cpuver: p.cpuver,
                    memop: p.memop.clone(),
                })
            })
            .collect()
    }

    /// The sample points in file order.
    pub fn samples(&self) -> Vec<SampleEvent> {
        self.events
            .iter()
            .filter(|e| e.kind == EventKind::Sample)
            .map(|e| SampleEvent {
                id: e.id.unwrap_or(0),
                label: e.label.clone().unwrap_or_default(),
                tstamp: e.tstamp,
            })
            .collect()
    }

    /// The collector's errors, warnings and comments in file order.
    pub fn messages(&self) -> Vec<CollectorMessage> {
        self.events
            .iter()
            .filter_map(|e| {
                let severity = match e.kind {
                    EventKind::Cerror => Severity::Error,
                    EventKind::Cwarn => Severity::Warning,
                    EventKind::Comment => Severity::Comment,
                    _ => return None,
                };
                Some(CollectorMessage {
                    severity,
                    id: e.id.unwrap_or(0),
                    errno: e.ec,
                    text: e.text.trim().to_owned(),
                })
            })
            .collect()
    }

    /// The packet descriptor for packet type `kind`.
    pub fn descriptor(&self, kind: u16) -> Option<&PacketDescriptor> {
        self.packets.iter().find(|d| d.kind == kind)
    }

    /// The descriptors of the packets stored in data file `file`.
    pub fn descriptors_for_file(&self, file: &str) -> Vec<&PacketDescriptor> {
        self.packets
            .iter()
            .filter(|d| d.file.as_deref() == Some(file))
            .collect()
    }

    /// The data files the log describes (`profile`, `heaptrace`, …), in order, without duplicates.
    pub fn data_files(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for f in self.profiles.iter().flat_map(|p| p.data_files.iter()) {
            if !v.contains(f) {
                v.push(f.clone());
            }
        }
        v
    }

    /// The profile named `name`.
    pub fn profile(&self, name: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn numbers_and_timestamps() {
        assert_eq!(parse_tstamp("2385.996055481"), 2_385_996_055_481);
        assert_eq!(parse_tstamp("1.5"), 1_500_000_000);
        assert_eq!(parse_tstamp("junk"), 0);
        assert_eq!(parse_u64("0x000055E736B11000"), 0x55E7_36B1_1000);
        assert_eq!(parse_u64("+0x00001000"), 0x1000);
        assert_eq!(parse_i64("-0x10"), -16);
        assert_eq!(parse_u64("12abc"), 12);
    }

    #[test]
    fn old_version_is_rejected() {
        let e = Log::parse(b"<experiment version=\"11.0\">").unwrap_err();
        assert_eq!(
            e,
            Error::ObsoleteVersion {
                found: "11.0".into(),
                line: 1,
                column: 1,
            }
        );
        let e = Log::parse(b"<?xml version=\"1.0\"?>\n  <experiment version=\"9\">").unwrap_err();
        assert_eq!(
            e,
            Error::ObsoleteVersion {
                found: "9".into(),
                line: 2,
                column: 3,
            }
        );
        assert_eq!(
            e.to_string(),
            "log.xml:2:3: expected experiment version 12 or later, found `9`"
        );
    }

    #[test]
    fn twenty_thousand_profdata_after_twenty_thousand_packets() {
        // Each <profdata> used to scan every descriptor (quadratic: minutes for this size).
        let n = 20_000;
        let mut xml = String::from("<experiment version=\"12.4\"/><profile name=\"a\">");
        for k in 0..n {
            xml.push_str(&format!("<profpckt kind=\"{k}\"/>"));
        }
        for i in 0..n {
            xml.push_str(&format!("<profdata fname=\"d{i}\"/>"));
        }
        xml.push_str("<profpckt kind=\"1\"/></profile><profile name=\"b\"><profpckt kind=\"2\"/>");
        xml.push_str("</profile><profile name=\"a\"><profdata fname=\"late\"/></profile>");
        let log = Log::parse(xml.as_bytes()).unwrap();
        assert_eq!(log.packets.len(), n + 2);
        assert_eq!(log.profiles[0].data_files.len(), n);
        // The first <profdata> of the profile names the file of the packets before it ...
        assert!(
            log.packets[..n]
                .iter()
                .all(|d| d.file.as_deref() == Some("d0"))
        );
        // ... a packet after it takes the profile's last file ...
        assert_eq!(
            log.packets[n].file.as_deref(),
            Some(&*format!("d{}", n - 1))
        );
        // ... and a profile without <profdata> leaves its packets without one.
        assert_eq!(log.packets[n + 1].profile, "b");
        assert_eq!(log.packets[n + 1].file, None);
    }

    #[test]
    fn old_hwc_profdata_without_profile() {
        let log = Log::parse(
            b"<experiment version=\"12.1\"></experiment><profdata fname=\"hwcounters\"/>\
              <profpckt kind=\"3\"><field name=\"HWCTAG\" offset=\"48\" type=\"UINT32\"/></profpckt>",
        )
        .unwrap();
        assert_eq!(log.profiles[0].name, "hwcounter");
        assert_eq!(log.packets[0].file.as_deref(), Some("hwcounters"));
        assert_eq!(log.packets[0].fields[0].field_type, FieldType::Uint32);
    }

    #[test]
    fn field_outside_profpckt_is_an_error() {
        let e = Log::parse(b"<experiment version=\"12.4\"/>\n<field name=\"X\"/>").unwrap_err();
        assert!(
            matches!(
                e,
                Error::Xml {
                    line: 2,
                    column: 1,
                    ..
                }
            ),
            "{e}"
        );
    }
}
