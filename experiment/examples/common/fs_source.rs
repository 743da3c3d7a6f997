//! The experiment directory on the file system: the [`Source`] the examples and the tests use
//! (the crate itself does no I/O).

use experiment::bytes::Bytes;
use experiment::{Error, Source};
use std::path::PathBuf;

/// An experiment directory on the file system.
pub(crate) struct FsSource(pub(crate) PathBuf);

impl Source for FsSource {
    fn read(&self, path: &str) -> experiment::Result<Option<Bytes>> {
        let full = self.0.join(path);
        let unreadable = |e: std::io::Error| Error::Read {
            path: path.to_owned(),
            reason: e.to_string(),
        };
        let meta = match std::fs::metadata(&full) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unreadable(e)),
        };
        // Only regular files: a device or FIFO (or a link to one) in a crafted experiment
        // directory would never end.
        if !meta.is_file() {
            return Err(Error::Read {
                path: path.to_owned(),
                reason: "not a regular file".into(),
            });
        }
        std::fs::read(full)
            .map(|b| Some(Bytes::from(b)))
            .map_err(unreadable)
    }
    fn list(&self, dir: &str) -> Vec<String> {
        std::fs::read_dir(self.0.join(dir))
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}
