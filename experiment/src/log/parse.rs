//! The `log.xml` reader: one pass over the XML events, each element handed to the module of
//! the log section it belongs to ([`super::header`], [`super::descriptors`], [`super::events`]).

use super::{Log, descriptors, events, header};
use crate::error::{Error, Result};
use crate::xml::{XmlEvent, XmlReader};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
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
pub(super) struct Parser<'d> {
    pub(super) data: &'d [u8],
    pub(super) file: &'d str,
    pub(super) log: Log,
    pub(super) saw_experiment: bool,
    /// Index into `profiles` of the open `<profile>` (or of an implicit HWC profile).
    pub(super) profile: Option<usize>,
    /// Indices into `packets` of the descriptors without a data file yet, by profile name
    /// (the next `<profdata>` of that profile gives them its file).
    pub(super) unfiled: HashMap<String, Vec<usize>>,
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
                    let ctx = match header::start(&mut p, &name, attributes.clone(), offset)? {
                        Some(ctx) => ctx,
                        None => match descriptors::start(
                            &mut p,
                            &name,
                            parent,
                            attributes.clone(),
                            offset,
                        )? {
                            Some(ctx) => ctx,
                            None if name == "event" => events::start(&mut p, attributes),
                            None => {
                                p.log.unknown_elements.push(name.clone());
                                Ctx::Other
                            }
                        },
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
