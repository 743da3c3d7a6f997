//! Report file names: `<prefix>_<image>_<yyyyMMdd_HHmmss>.<ext>`, the CSV symlinks without
//! image and time stamp, and the 21.3 `csv_` prefix (`points-to-analysis-reports.ja.txt`,
//! "レポート・ファイル"; `iprof-pointsto.md` §2.1 and §2.5).

use crate::call_tree::csv::CsvFile;

/// Which report a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum ReportKind {
    /// `call_tree_<image>_<ts>.txt`.
    CallTreeTxt,
    /// One file of a CSV call tree.
    CallTreeCsv(CsvFile),
    /// `used_methods_…txt`.
    UsedMethods,
    /// `used_classes_…txt`.
    UsedClasses,
    /// `used_packages_…txt`.
    UsedPackages,
    /// `object_tree_…txt`.
    ObjectTree,
    /// `analysis_heap_histogram_…txt`.
    HeapHistogram,
    /// `analysis_stats_…json`.
    AnalysisStats,
}

/// The `yyyyMMdd_HHmmss` time stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Timestamp {
    /// Year.
    pub year: u16,
    /// Month, 1–12.
    pub month: u8,
    /// Day, 1–31.
    pub day: u8,
    /// Hour, 0–23.
    pub hour: u8,
    /// Minute, 0–59.
    pub minute: u8,
    /// Second, 0–59 (60 for a leap second).
    pub second: u8,
}

impl Timestamp {
    fn parse(date: &str, time: &str) -> Option<Self> {
        if date.len() != 8
            || time.len() != 6
            || !date.bytes().chain(time.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let n = |s: &str, a: usize, b: usize| s.get(a..b).and_then(|x| x.parse::<u16>().ok());
        let stamp = Self {
            year: n(date, 0, 4)?,
            month: u8::try_from(n(date, 4, 6)?).ok()?,
            day: u8::try_from(n(date, 6, 8)?).ok()?,
            hour: u8::try_from(n(time, 0, 2)?).ok()?,
            minute: u8::try_from(n(time, 2, 4)?).ok()?,
            second: u8::try_from(n(time, 4, 6)?).ok()?,
        };
        let valid = (1..=12).contains(&stamp.month)
            && (1..=31).contains(&stamp.day)
            && stamp.hour < 24
            && stamp.minute < 60
            && stamp.second <= 60;
        valid.then_some(stamp)
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04}{:02}{:02}_{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// A parsed report file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReportFileName<'a> {
    /// The report.
    pub kind: ReportKind,
    /// The image name (`-H:Name`, may contain `_`); `None` for the CSV symlinks.
    pub image: Option<&'a str>,
    /// When the report was written; `None` for the CSV symlinks.
    pub timestamp: Option<Timestamp>,
    /// Whether the name has the 21.3 `csv_` prefix.
    pub csv_prefix: bool,
}

impl<'a> ReportFileName<'a> {
    /// Parses a file name (without directories).
    ///
    /// ```
    /// use pointsto::file_name::{ReportFileName, ReportKind};
    /// use pointsto::call_tree::csv::CsvFile;
    /// let name = ReportFileName::parse("call_tree_my_app_20240131_235959.txt").unwrap();
    /// assert_eq!((name.kind, name.image), (ReportKind::CallTreeTxt, Some("my_app")));
    /// assert_eq!(name.timestamp.unwrap().to_string(), "20240131_235959");
    /// let name = ReportFileName::parse("csv_call_tree_vm_app_20211020_101010.csv").unwrap();
    /// assert_eq!(name.kind, ReportKind::CallTreeCsv(CsvFile::Vm));
    /// assert!(name.csv_prefix);
    /// ```
    #[must_use]
    pub fn parse(name: &'a str) -> Option<Self> {
        let (stem, ext) = name.rsplit_once('.')?;
        let (csv_prefix, stem) = match stem.strip_prefix("csv_") {
            Some(rest) if ext == "csv" => (true, rest),
            _ => (false, stem),
        };
        let (kind, rest) = match ext {
            "csv" => {
                let (file, rest) = CsvFile::ALL
                    .iter()
                    .filter_map(|f| Some((*f, stem.strip_prefix(f.stem())?)))
                    .find(|(_, rest)| rest.is_empty() || rest.starts_with('_'))?;
                (ReportKind::CallTreeCsv(file), rest)
            }
            "txt" => {
                const TXT: [(&str, ReportKind); 6] = [
                    ("call_tree", ReportKind::CallTreeTxt),
                    ("used_methods", ReportKind::UsedMethods),
                    ("used_classes", ReportKind::UsedClasses),
                    ("used_packages", ReportKind::UsedPackages),
                    ("object_tree", ReportKind::ObjectTree),
                    ("analysis_heap_histogram", ReportKind::HeapHistogram),
                ];
                let (kind, rest) = TXT
                    .iter()
                    .find_map(|(p, k)| Some((*k, stem.strip_prefix(p)?.strip_prefix('_')?)))?;
                (kind, if rest.is_empty() { return None } else { rest })
            }
            "json" => (
                ReportKind::AnalysisStats,
                stem.strip_prefix("analysis_stats_")?,
            ),
            _ => return None,
        };
        let rest = rest.strip_prefix('_').unwrap_or(rest);
        if rest.is_empty() {
            // Only the CSV symlinks have no image and time stamp.
            return matches!(kind, ReportKind::CallTreeCsv(_)).then_some(Self {
                kind,
                image: None,
                timestamp: None,
                csv_prefix,
            });
        }
        let (head, time) = rest.rsplit_once('_')?;
        let (image, date) = head.rsplit_once('_')?;
        let timestamp = Timestamp::parse(date, time)?;
        if image.is_empty() {
            return None;
        }
        Some(Self {
            kind,
            image: Some(image),
            timestamp: Some(timestamp),
            csv_prefix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let n = ReportFileName::parse("call_tree_methods.csv").unwrap();
        assert_eq!(
            (n.kind, n.image),
            (ReportKind::CallTreeCsv(CsvFile::Methods), None)
        );
        let n = ReportFileName::parse("call_tree_virtual_methods_a_b_20220101_000000.csv").unwrap();
        assert_eq!(
            (n.kind, n.image),
            (
                ReportKind::CallTreeCsv(CsvFile::VirtualMethods),
                Some("a_b")
            )
        );
        let n = ReportFileName::parse("object_tree_app_20240101_120000.txt").unwrap();
        assert_eq!(n.kind, ReportKind::ObjectTree);
        assert!(ReportFileName::parse("call_tree_app_20241301_120000.txt").is_none());
        assert!(ReportFileName::parse("call_tree_.txt").is_none());
        assert!(ReportFileName::parse("call_tree_x.csv").is_none());
        assert!(ReportFileName::parse("noext").is_none());
    }
}
