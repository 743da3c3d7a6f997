//! What a complete pass over each data file found, kept so that [`Experiment::partial`]
//! after a streamed read does not read the data files again.
//!
//! [`Experiment::partial`]: super::Experiment::partial

use crate::error::Error;

/// The first bad packet and the first packet of an undescribed kind of a data file, as a
/// complete pass found them: [`Experiment::stream_packets`] keeps them, so that
/// [`Experiment::partial`] after a streamed read does not read the data files again.
pub(super) type Scan = (Option<Error>, Option<Error>);

/// [`Scan`]s by data file name (a handful of files; behind a lock because streaming takes
/// `&self`).
#[derive(Debug, Default)]
pub(super) struct Scans(pub(super) std::sync::Mutex<Vec<(String, Scan)>>);

impl Scans {
    pub(super) fn get(&self, name: &str) -> Option<Scan> {
        let scans = self.0.lock().ok()?;
        scans
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
    }

    pub(super) fn put(&self, name: &str, scan: Scan) {
        if let Ok(mut scans) = self.0.lock() {
            if !scans.iter().any(|(n, _)| n == name) {
                scans.push((name.to_owned(), scan));
            }
        }
    }
}

impl Clone for Scans {
    fn clone(&self) -> Self {
        Scans(std::sync::Mutex::new(
            self.0.lock().map(|s| s.clone()).unwrap_or_default(),
        ))
    }
}
