//! `labels.xml`: the user labels of an experiment (gprofng's `UserLabel.cc`), one
//! `<id name cmd comment relative hostname time tstamp lbl_ts>` element per label (format notes,
//! the experiment's files).

use crate::error::Result;
use crate::log::Attrs;
use crate::xml::{XmlEvent, XmlReader};

/// One user label: a named point or range of the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UserLabel {
    /// `name`.
    pub name: String,
    /// `cmd`: how the label was given (e.g. `start`, `stop`), as written.
    pub cmd: Option<String>,
    /// `comment`.
    pub comment: Option<String>,
    /// `relative`, as written.
    pub relative: Option<String>,
    /// `hostname`.
    pub hostname: Option<String>,
    /// `time`, as written.
    pub time: Option<String>,
    /// `tstamp`, as written.
    pub tstamp: Option<String>,
    /// `lbl_ts`, as written.
    pub lbl_ts: Option<String>,
    /// Attributes not named above, as written, in order.
    pub other: Vec<(String, String)>,
}

impl UserLabel {
    fn from_attributes(attributes: Vec<(String, String)>) -> Self {
        let mut a = Attrs::new(attributes);
        UserLabel {
            name: a.take("name").unwrap_or_default(),
            cmd: a.take("cmd"),
            comment: a.take("comment"),
            relative: a.take("relative"),
            hostname: a.take("hostname"),
            time: a.take("time"),
            tstamp: a.take("tstamp"),
            lbl_ts: a.take("lbl_ts"),
            other: a.other(),
        }
    }
}

/// Parses `labels.xml`: its `<id>` elements in order (other elements are ignored).
pub fn parse(data: &[u8]) -> Result<Vec<UserLabel>> {
    let mut r = XmlReader::new(data, "labels.xml");
    let mut out = Vec::new();
    while let Some(ev) = r.next_event()? {
        if let XmlEvent::Start {
            name, attributes, ..
        } = ev
        {
            if name == "id" {
                out.push(UserLabel::from_attributes(attributes));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_attributes_become_fields_and_the_rest_is_kept() {
        let labels =
            parse(b"<id name=\"phase1\" cmd=\"start\" time=\"3\" extra=\"x\"/>\0<id name=\"b\"/>")
                .unwrap();
        assert_eq!(labels.len(), 2);
        assert_eq!(labels[0].name, "phase1");
        assert_eq!(labels[0].cmd.as_deref(), Some("start"));
        assert_eq!(labels[0].time.as_deref(), Some("3"));
        assert_eq!(labels[0].other, [("extra".to_owned(), "x".to_owned())]);
        assert_eq!(labels[1].cmd, None);
    }
}
