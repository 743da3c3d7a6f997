//! The file header line `JAVA PROFILE 1.0.1, created <ctime>`, the opaque prelude (the JDK's
//! `jvm.hprof.txt` text) and the `--------` separator (hprof.md §2.1; hprof_io.c
//! `io_write_file_header`).

use super::cursor::Cursor;
use super::error::Error;

/// The separator line that ends the prelude.
pub const SEPARATOR: &str = "--------";

/// `JAVA PROFILE 1.0.1, created Mon Feb 04 08:11:54 2002`: the first line of a report.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FileHeader<S> {
    /// The format name and version, `JAVA PROFILE 1.0.1` in every known file.
    pub format: S,
    /// The creation time as printed by C `ctime()`, without its newline (see [`Ctime`]).
    pub created: S,
}

impl<'a> FileHeader<&'a str> {
    pub(crate) fn parse(c: &mut Cursor<'a>) -> Result<Self, Error> {
        let rest = c.rest();
        match rest.find(", created ") {
            Some(i) if rest.starts_with("JAVA PROFILE ") => {
                let format = rest.get(..i).unwrap_or_default();
                let created = rest.get(i + ", created ".len()..).unwrap_or_default();
                c.take_rest();
                Ok(FileHeader { format, created })
            }
            _ => Err(c.error("`JAVA PROFILE <version>, created <date>`")),
        }
    }
}

impl<S: AsRef<str>> FileHeader<S> {
    /// Writes the line (without line ending).
    pub fn write_to(&self, out: &mut String) {
        out.push_str(self.format.as_ref());
        out.push_str(", created ");
        out.push_str(self.created.as_ref());
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> FileHeader<String> {
        FileHeader {
            format: self.format.as_ref().to_owned(),
            created: self.created.as_ref().to_owned(),
        }
    }

    /// The creation time, split into its fields.
    pub fn created_time(&self) -> Option<Ctime> {
        Ctime::parse(self.created.as_ref())
    }
}

/// A date as printed by C `ctime()` (`Www Mmm dd hh:mm:ss yyyy`), split into fields.
///
/// The day is space-padded by glibc (`Feb  6`) and zero-padded by the Windows CRT (`Jan 05`);
/// reports keep the original text, this is only a reading aid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ctime {
    /// Day of the week, 0 = Sunday.
    pub weekday: u8,
    /// Month, 1 = January.
    pub month: u8,
    /// Day of the month.
    pub day: u8,
    /// Hour (0-23).
    pub hour: u8,
    /// Minute.
    pub minute: u8,
    /// Second.
    pub second: u8,
    /// Year.
    pub year: u32,
}

impl Ctime {
    /// Parses `Www Mmm dd hh:mm:ss yyyy`; `None` if the text has another shape.
    pub fn parse(text: &str) -> Option<Ctime> {
        const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let mut words = text.split_ascii_whitespace();
        let w = words.next()?;
        let weekday = DAYS.iter().position(|d| *d == w)?;
        let m = words.next()?;
        let month = MONTHS.iter().position(|d| *d == m)?;
        let day: u8 = words.next()?.parse().ok()?;
        let mut hms = words.next()?.split(':');
        let hour: u8 = hms.next()?.parse().ok()?;
        let minute: u8 = hms.next()?.parse().ok()?;
        let second: u8 = hms.next()?.parse().ok()?;
        let year: u32 = words.next()?.parse().ok()?;
        if hms.next().is_some() || words.next().is_some() || !(1..=31).contains(&day) {
            return None;
        }
        Some(Ctime {
            weekday: u8::try_from(weekday).ok()?,
            month: u8::try_from(month + 1).ok()?,
            day,
            hour,
            minute,
            second,
            year,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_dialects() {
        let glibc = Ctime::parse("Tue Feb  6 10:54:46 2007").unwrap();
        let windows = Ctime::parse("Tue Feb 06 10:54:46 2007").unwrap();
        assert_eq!(glibc, windows);
        assert_eq!(
            (glibc.weekday, glibc.month, glibc.day, glibc.year),
            (2, 2, 6, 2007)
        );
        assert!(Ctime::parse("Tue Feb 06 10:54 2007").is_none());
    }
}
