//! The experiment directory on the file system: the crate's own directory source (feature
//! `fs`), which the examples and the tests use.

pub(crate) use experiment::fs::DirSource as FsSource;
