//! The experiment directory on the file system: the [`Source`] the examples and the tests use
//! (the crate itself does no I/O).

use bytes::Bytes;
use experiment::Source;
use std::path::PathBuf;

/// An experiment directory on the file system.
pub(crate) struct FsSource(pub(crate) PathBuf);

impl Source for FsSource {
    fn read(&self, path: &str) -> Option<Bytes> {
        let path = self.0.join(path);
        // Only regular files: a device or FIFO (or a link to one) in a crafted experiment
        // directory would never end.
        if !std::fs::metadata(&path).ok()?.is_file() {
            return None;
        }
        std::fs::read(path).ok().map(Bytes::from)
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
