//! `THREAD START` / `THREAD END` lines (hprof.md §2.2 "THREAD"; hprof_io.c
//! `io_write_thread_start`, `io_write_thread_end`; the JVMPI agent and Android's
//! `AsciiHprofWriter` print the same shape, Android with a decimal `obj`).

use super::cursor::Cursor;
use super::error::Error;
use crate::binary::types::ThreadSerial;

/// `THREAD START (obj=50000350, id = 200001, name="main", group="main")`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThreadStart<S> {
    /// The thread object's id (`%x`; Android prints it in decimal, which reads back as the
    /// same digits).
    pub obj: u64,
    /// Thread serial number, referenced by `TRACE … (thread=N)`, roots and monitor dumps.
    pub id: ThreadSerial,
    /// Thread name (empty when the agent had none).
    pub name: S,
    /// Thread group name.
    pub group: S,
}

/// `THREAD END (id = 200001)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThreadEnd {
    /// Thread serial number.
    pub id: ThreadSerial,
}

impl<'a> ThreadStart<&'a str> {
    /// Parses the line after `THREAD START `.
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        c.expect("(obj=")?;
        let obj = c.hex()?;
        c.expect(", id = ")?;
        let id = c.u32()?;
        c.expect(", name=\"")?;
        let rest = c.rest();
        let Some(i) = rest.find("\", group=\"") else {
            return Err(c.error("`<name>\", group=\"<group>\")`"));
        };
        let name = rest.get(..i).unwrap_or_default();
        let Some(group) = rest.get(i + 10..).and_then(|g| g.strip_suffix("\")")) else {
            return Err(c.error("`<name>\", group=\"<group>\")` at the end of the line"));
        };
        c.take_rest();
        Ok(ThreadStart {
            obj,
            id: ThreadSerial(id),
            name,
            group,
        })
    }
}

impl<S: AsRef<str>> ThreadStart<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(
            out,
            "THREAD START (obj={:x}, id = {}, name=\"{}\", group=\"{}\")",
            self.obj,
            self.id,
            self.name.as_ref(),
            self.group.as_ref()
        );
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> ThreadStart<String> {
        ThreadStart {
            obj: self.obj,
            id: self.id,
            name: self.name.as_ref().to_owned(),
            group: self.group.as_ref().to_owned(),
        }
    }
}

impl ThreadEnd {
    /// Parses the line after `THREAD END `.
    pub(crate) fn parse(c: &mut Cursor<'_>) -> Result<Self, Error> {
        c.expect("(id = ")?;
        let id = c.u32()?;
        c.expect(")")?;
        c.finish()?;
        Ok(ThreadEnd {
            id: ThreadSerial(id),
        })
    }

    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "THREAD END (id = {})", self.id);
    }
}
