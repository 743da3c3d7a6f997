//! `jdynclasses/`: the class files of dynamically generated Java classes the collector saved.

use super::Experiment;
use crate::source::Source;
use bytes::Bytes;

/// How deep [`Experiment::jdynclasses`] walks (package nesting; also stops directory loops a
/// source may have).
pub const JDYNCLASSES_DEPTH: usize = 64;

/// How many directory entries [`Experiment::jdynclasses`] looks at, at most.
pub const JDYNCLASSES_ENTRIES: usize = 1 << 16;

/// A dynamically generated Java class saved in `jdynclasses/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynClass {
    /// Path in the experiment (`jdynclasses/com/x/Gen.class`).
    pub path: String,
    /// Class name from the path (`com.x.Gen`).
    pub class_name: String,
    /// The class file.
    pub bytes: Bytes,
}

impl DynClass {
    /// True when the bytes start with the class-file magic `0xCAFEBABE`.
    pub fn is_class_file(&self) -> bool {
        self.bytes.starts_with(&[0xCA, 0xFE, 0xBA, 0xBE])
    }
}

impl<S: Source> Experiment<S> {
    /// `jdynclasses/`: the class files of dynamically generated Java classes the collector
    /// saved, one file per class under its package path (`jdynclasses/com/x/Gen.class`), in
    /// path order. Directories are walked at most [`JDYNCLASSES_DEPTH`] deep, and at most
    /// [`JDYNCLASSES_ENTRIES`] entries are looked at (a source with directory loops ends).
    pub fn jdynclasses(&self) -> Vec<DynClass> {
        let mut out = Vec::new();
        let mut budget = JDYNCLASSES_ENTRIES;
        // Breadth first: shallow classes are found before a deep (or looping) tree uses up the
        // budget.
        let mut dirs = std::collections::VecDeque::from([("jdynclasses".to_owned(), 0usize)]);
        while let Some((dir, depth)) = dirs.pop_front() {
            for name in self.source.list(&dir) {
                let Some(left) = budget.checked_sub(1) else {
                    dirs.clear();
                    break;
                };
                budget = left;
                let path = format!("{dir}/{name}");
                let class = name.strip_suffix(".class");
                // An unreadable class file is left out like a missing one (the directory
                // listing is best effort too).
                match class.and_then(|_| self.source.read(&path).ok().flatten()) {
                    Some(bytes) => {
                        let package = dir.strip_prefix("jdynclasses/").unwrap_or_default();
                        let class = class.unwrap_or_default();
                        let class_name = if package.is_empty() {
                            class.to_owned()
                        } else {
                            format!("{}.{class}", package.replace('/', "."))
                        };
                        out.push(DynClass {
                            path,
                            class_name,
                            bytes,
                        });
                    }
                    None if depth + 1 < JDYNCLASSES_DEPTH => dirs.push_back((path, depth + 1)),
                    None => {}
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}
