//! The `log.xml` reader: one pass over the XML events. Each element is read by the module of
//! the log section it belongs to ([`super::header`], [`super::descriptors`],
//! [`super::events`]), which returns what it says; this reader keeps it in the [`Log`], with
//! the state that ties elements together (the open elements, the open `<profile>`, the packet
//! descriptors still without a data file).

use super::descriptors::{self, Descriptor};
use super::header::{self, Header};
use super::{Log, Profile, events};
use crate::error::{Error, Result};
use crate::xml::{XmlEvent, XmlReader};
use std::collections::HashMap;

/// What an open element is, as far as the elements inside it and its text care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Experiment,
    Collector,
    System,
    Process,
    Profile,
    Packet,
    Field,
    Event,
    Other,
}

/// The reader's state while it walks a log.
struct Parser<'d> {
    data: &'d [u8],
    file: &'d str,
    log: Log,
    saw_experiment: bool,
    /// Index into `profiles` of the open `<profile>` (or of an implicit HWC profile).
    profile: Option<usize>,
    /// Indices into `packets` of the descriptors without a data file yet, by profile name
    /// (the next `<profdata>` of that profile gives them its file).
    unfiled: HashMap<String, Vec<usize>>,
}

impl Log {
    /// Parses `log.xml` (or `warnings.xml`, which uses the same elements).
    pub fn parse(data: &[u8]) -> Result<Log> {
        Self::parse_named(data, "log.xml")
    }

    /// Parses with `file` naming the input in errors.
    pub fn parse_named(data: &[u8], file: &str) -> Result<Log> {
        let mut p = Parser {
            data,
            file,
            log: Log::default(),
            saw_experiment: false,
            profile: None,
            unfiled: HashMap::new(),
        };
        let mut reader = XmlReader::new(data, file);
        let mut stack: Vec<Ctx> = Vec::new();
        while let Some(ev) = reader.next_event()? {
            match ev {
                XmlEvent::Start {
                    name,
                    attributes,
                    empty,
                    offset,
                } => {
                    let parent = stack.last().copied();
                    let ctx =
                        if let Some(h) = header::read(&name, attributes.clone(), data, offset)? {
                            p.header(h)
                        } else if let Some(d) = descriptors::read(&name, attributes.clone()) {
                            p.descriptor(d, parent, offset)?
                        } else if name == "event" {
                            p.log.events.push(events::read(attributes));
                            Ctx::Event
                        } else {
                            p.log.unknown_elements.push(name.clone());
                            Ctx::Other
                        };
                    if !empty {
                        stack.push(ctx);
                    }
                }
                XmlEvent::End { name } => {
                    if let Some(Ctx::Profile) = stack.pop() {
                        p.profile = None;
                    }
                    let _ = name;
                }
                XmlEvent::Text(text) => match stack.last() {
                    Some(Ctx::Collector) => p.log.collector.push_str(text.trim()),
                    Some(Ctx::Process) => {
                        let t = text.trim();
                        if !t.is_empty() {
                            p.log.process.command = Some(t.to_owned());
                        }
                    }
                    Some(Ctx::Event) => {
                        if let Some(e) = p.log.events.last_mut() {
                            e.text.push_str(&text);
                        }
                    }
                    _ => {}
                },
            }
        }
        if !p.saw_experiment && file == "log.xml" {
            return Err(Error::Xml {
                file: file.to_owned(),
                line: 1,
                column: 1,
                expected: "an `<experiment version=…>` element".into(),
                found: "none".into(),
            });
        }
        Ok(p.log)
    }
}

impl Parser<'_> {
    /// Keeps a header element.
    fn header(&mut self, h: Header) -> Ctx {
        let log = &mut self.log;
        match h {
            Header::Experiment { version } => {
                self.saw_experiment = true;
                log.version = version;
                Ctx::Experiment
            }
            Header::Collector => Ctx::Collector,
            Header::System(attributes) => {
                log.system.add(attributes);
                Ctx::System
            }
            Header::Cpu(cpu) => {
                log.system.cpus.push(cpu);
                Ctx::Other
            }
            Header::Frequency(f) => {
                log.system.power.push(f);
                Ctx::Other
            }
            Header::Process(attributes) => {
                log.process.add(attributes);
                Ctx::Process
            }
            Header::Setting(attributes) => {
                log.settings.add(attributes);
                Ctx::Other
            }
            Header::Other => Ctx::Other,
        }
    }

    /// Keeps a descriptor element in the profile (and packet descriptor) it belongs to;
    /// `parent` is the element it stands in.
    fn descriptor(&mut self, d: Descriptor, parent: Option<Ctx>, offset: usize) -> Result<Ctx> {
        Ok(match d {
            Descriptor::Profile(profile) => {
                self.log.profiles.push(*profile);
                self.profile = Some(self.log.profiles.len() - 1);
                Ctx::Profile
            }
            Descriptor::DataFile(fname) => {
                let idx = self.profile_for(parent);
                let log = &mut self.log;
                if let Some(p) = log.profiles.get_mut(idx) {
                    p.data_files.push(fname.clone());
                }
                let pname = log
                    .profiles
                    .get(idx)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                for i in self.unfiled.remove(&pname).unwrap_or_default() {
                    if let Some(d) = log.packets.get_mut(i) {
                        d.file = Some(fname.clone());
                    }
                }
                Ctx::Other
            }
            Descriptor::Packet(mut packet) => {
                let idx = self.profile_for(parent);
                let log = &mut self.log;
                let (pname, file) = match log.profiles.get_mut(idx) {
                    Some(p) => {
                        p.packet_kinds.push(packet.kind);
                        (p.name.clone(), p.data_files.last().cloned())
                    }
                    None => (String::new(), None),
                };
                if file.is_none() {
                    self.unfiled
                        .entry(pname.clone())
                        .or_default()
                        .push(log.packets.len());
                }
                packet.profile = pname;
                packet.file = file;
                log.packets.push(packet);
                Ctx::Packet
            }
            Descriptor::Field(field) => {
                let Some(d) = self
                    .log
                    .packets
                    .last_mut()
                    .filter(|_| parent == Some(Ctx::Packet))
                else {
                    let (line, column) = crate::xml::line_column(self.data, offset);
                    return Err(Error::Xml {
                        file: self.file.to_owned(),
                        line,
                        column,
                        expected: "`<field>` inside `<profpckt>`".into(),
                        found: "`<field>` outside any packet descriptor".into(),
                    });
                };
                d.fields.push(field);
                Ctx::Field
            }
            Descriptor::State(state) => {
                if parent == Some(Ctx::Field) {
                    if let Some(f) = self
                        .log
                        .packets
                        .last_mut()
                        .and_then(|d| d.fields.last_mut())
                    {
                        f.states.push(state);
                    }
                }
                Ctx::Other
            }
        })
    }

    /// The profile a `profdata`/`profpckt` belongs to: the open `<profile>`, or (old HWC
    /// logs) an implicit `hwcounter` profile.
    fn profile_for(&mut self, parent: Option<Ctx>) -> usize {
        if let (Some(Ctx::Profile), Some(i)) = (parent, self.profile) {
            return i;
        }
        if let Some(i) = self.profile {
            return i;
        }
        self.log.profiles.push(Profile {
            name: "hwcounter".into(),
            ..Profile::default()
        });
        let i = self.log.profiles.len() - 1;
        self.profile = Some(i);
        i
    }
}
