//! Validation against schema v1.0.0/v1.1.0 and the format document's rules, as a report
//! (not a parse failure: real files break the schema, e.g. stubbed metadata
//! `{"id":-1,"name":""}` with every context id dangling, or types-only files).

use std::collections::{BTreeMap, HashSet};

use crate::model::{Profile, Section};
use crate::names::Names;
use crate::profiles::check_arity;

/// The versions this crate knows the layout of.
pub const KNOWN_VERSIONS: [&str; 4] = ["0.2.0", "0.4.0", "1.0.0", "1.1.0"];

/// One problem found by [`Profile::validate`].
///
/// `index` fields are positions in the file's arrays (0-based), `section` the profile array.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(
        tag = "kind",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )
)]
#[non_exhaustive]
pub enum Issue {
    /// `version` is not `major.minor.patch`, or not a version this crate knows.
    UnknownVersion {
        /// The version string.
        version: String,
    },
    /// Two `types` entries share an id.
    DuplicateTypeId {
        /// The id.
        id: i64,
        /// Index of the second entry.
        index: usize,
    },
    /// Two `types` entries share a name (types are identified by name).
    DuplicateTypeName {
        /// The name.
        name: String,
        /// Index of the second entry.
        index: usize,
    },
    /// Two `methods` entries share an id.
    DuplicateMethodId {
        /// The id.
        id: i64,
        /// Index of the second entry.
        index: usize,
    },
    /// A type or method with an empty name (stubbed metadata).
    EmptyName {
        /// `types` or `methods`.
        table: Table,
        /// Index of the entry.
        index: usize,
    },
    /// A type or method with a negative id (stubbed metadata uses -1).
    NegativeId {
        /// `types` or `methods`.
        table: Table,
        /// The id.
        id: i64,
        /// Index of the entry.
        index: usize,
    },
    /// A signature with fewer than two type ids (declaring type and return type).
    ShortSignature {
        /// The method's id.
        method_id: i64,
        /// The signature's length.
        len: usize,
    },
    /// A signature type id that names no type.
    SignatureTypeMissing {
        /// The method's id.
        method_id: i64,
        /// The missing type id.
        type_id: i64,
    },
    /// A context frame whose method id names no method.
    DanglingMethodId {
        /// The section of the entry.
        section: Section,
        /// Index of the entry.
        index: usize,
        /// The missing method id.
        method_id: u32,
    },
    /// A record type id (receiver, monitor or instanceof type) that names no type.
    DanglingTypeId {
        /// The section of the entry.
        section: Section,
        /// Index of the entry.
        index: usize,
        /// The missing type id.
        type_id: i64,
    },
    /// A call-count context whose innermost frame is not at bci 0.
    CallCountBciNotZero {
        /// Index of the entry.
        index: usize,
        /// The innermost bci.
        bci: i32,
    },
    /// A monitor profile whose context is not the dummy `0:0`.
    MonitorContextNotRoot {
        /// Index of the entry.
        index: usize,
    },
    /// More than one monitor profile entry (the format has exactly one).
    MultipleMonitorProfiles {
        /// How many there are.
        count: usize,
    },
    /// A negative count.
    NegativeCount {
        /// The section of the entry.
        section: Section,
        /// Index of the entry.
        index: usize,
        /// The count.
        count: i64,
    },
    /// Records whose length does not fit the section (1; multiple of 3; multiple of 2).
    WrongArity {
        /// The section of the entry.
        section: Section,
        /// Index of the entry.
        index: usize,
        /// The records' length.
        len: usize,
    },
    /// The same record key twice in one entry: the `(target bci, branch index)` of a
    /// conditional record, or the type id of a virtual invoke, monitor or instanceof record.
    ///
    /// Conditional records with a negative (sentinel) target bci are exempt: real files
    /// repeat triplets such as `-5, 0, 0`, and reuse their branch index for a real target.
    DuplicateRecordKey {
        /// The section of the entry.
        section: Section,
        /// Index of the entry.
        index: usize,
        /// The repeated branch index (conditional) or type id.
        key: i64,
    },
    /// The same context twice in one section.
    DuplicateContext {
        /// The section.
        section: Section,
        /// Index of the second entry.
        index: usize,
    },
}

/// `types` or `methods`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub enum Table {
    /// The `types` array.
    Types,
    /// The `methods` array.
    Methods,
}

/// The kind of an [`Issue`], without its details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
#[allow(missing_docs)] // each names the Issue variant of the same name
#[non_exhaustive]
pub enum IssueKind {
    UnknownVersion,
    DuplicateTypeId,
    DuplicateTypeName,
    DuplicateMethodId,
    EmptyName,
    NegativeId,
    ShortSignature,
    SignatureTypeMissing,
    DanglingMethodId,
    DanglingTypeId,
    CallCountBciNotZero,
    MonitorContextNotRoot,
    MultipleMonitorProfiles,
    NegativeCount,
    WrongArity,
    DuplicateRecordKey,
    DuplicateContext,
}

impl IssueKind {
    /// Every kind, in declaration order.
    pub const ALL: [IssueKind; 17] = [
        IssueKind::UnknownVersion,
        IssueKind::DuplicateTypeId,
        IssueKind::DuplicateTypeName,
        IssueKind::DuplicateMethodId,
        IssueKind::EmptyName,
        IssueKind::NegativeId,
        IssueKind::ShortSignature,
        IssueKind::SignatureTypeMissing,
        IssueKind::DanglingMethodId,
        IssueKind::DanglingTypeId,
        IssueKind::CallCountBciNotZero,
        IssueKind::MonitorContextNotRoot,
        IssueKind::MultipleMonitorProfiles,
        IssueKind::NegativeCount,
        IssueKind::WrongArity,
        IssueKind::DuplicateRecordKey,
        IssueKind::DuplicateContext,
    ];

    /// The kind's name in camelCase (`danglingMethodId`), as used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            IssueKind::UnknownVersion => "unknownVersion",
            IssueKind::DuplicateTypeId => "duplicateTypeId",
            IssueKind::DuplicateTypeName => "duplicateTypeName",
            IssueKind::DuplicateMethodId => "duplicateMethodId",
            IssueKind::EmptyName => "emptyName",
            IssueKind::NegativeId => "negativeId",
            IssueKind::ShortSignature => "shortSignature",
            IssueKind::SignatureTypeMissing => "signatureTypeMissing",
            IssueKind::DanglingMethodId => "danglingMethodId",
            IssueKind::DanglingTypeId => "danglingTypeId",
            IssueKind::CallCountBciNotZero => "callCountBciNotZero",
            IssueKind::MonitorContextNotRoot => "monitorContextNotRoot",
            IssueKind::MultipleMonitorProfiles => "multipleMonitorProfiles",
            IssueKind::NegativeCount => "negativeCount",
            IssueKind::WrongArity => "wrongArity",
            IssueKind::DuplicateRecordKey => "duplicateRecordKey",
            IssueKind::DuplicateContext => "duplicateContext",
        }
    }
}

impl Issue {
    /// The issue's kind.
    pub fn kind(&self) -> IssueKind {
        match self {
            Issue::UnknownVersion { .. } => IssueKind::UnknownVersion,
            Issue::DuplicateTypeId { .. } => IssueKind::DuplicateTypeId,
            Issue::DuplicateTypeName { .. } => IssueKind::DuplicateTypeName,
            Issue::DuplicateMethodId { .. } => IssueKind::DuplicateMethodId,
            Issue::EmptyName { .. } => IssueKind::EmptyName,
            Issue::NegativeId { .. } => IssueKind::NegativeId,
            Issue::ShortSignature { .. } => IssueKind::ShortSignature,
            Issue::SignatureTypeMissing { .. } => IssueKind::SignatureTypeMissing,
            Issue::DanglingMethodId { .. } => IssueKind::DanglingMethodId,
            Issue::DanglingTypeId { .. } => IssueKind::DanglingTypeId,
            Issue::CallCountBciNotZero { .. } => IssueKind::CallCountBciNotZero,
            Issue::MonitorContextNotRoot { .. } => IssueKind::MonitorContextNotRoot,
            Issue::MultipleMonitorProfiles { .. } => IssueKind::MultipleMonitorProfiles,
            Issue::NegativeCount { .. } => IssueKind::NegativeCount,
            Issue::WrongArity { .. } => IssueKind::WrongArity,
            Issue::DuplicateRecordKey { .. } => IssueKind::DuplicateRecordKey,
            Issue::DuplicateContext { .. } => IssueKind::DuplicateContext,
        }
    }
}

/// The result of [`Profile::validate`]: every issue, in file order per check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Report {
    /// The issues found.
    pub issues: Vec<Issue>,
}

impl Report {
    /// True when nothing was found.
    pub fn is_clean(&self) -> bool {
        self.issues.is_empty()
    }

    /// How many issues of each kind found (names: [`IssueKind::name`]).
    pub fn counts(&self) -> BTreeMap<IssueKind, usize> {
        let mut counts = BTreeMap::new();
        for issue in &self.issues {
            *counts.entry(issue.kind()).or_insert(0) += 1;
        }
        counts
    }

    /// How many issues of every kind, zeros included.
    pub fn all_counts(&self) -> BTreeMap<IssueKind, usize> {
        let mut counts: BTreeMap<IssueKind, usize> =
            IssueKind::ALL.iter().map(|&k| (k, 0)).collect();
        counts.extend(self.counts());
        counts
    }

    /// How many issues of `kind`.
    pub fn count(&self, kind: IssueKind) -> usize {
        self.issues.iter().filter(|i| i.kind() == kind).count()
    }
}

/// True for `digits.digits.digits`.
fn is_semver(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

impl Profile<'_> {
    /// Checks the profile against the schema and the format document's rules.
    pub fn validate(&self) -> Report {
        let mut issues = Vec::new();
        if !is_semver(&self.version) || !KNOWN_VERSIONS.contains(&&*self.version) {
            issues.push(Issue::UnknownVersion {
                version: self.version.to_string(),
            });
        }
        let names = Names::new(self);

        let mut ids = HashSet::new();
        let mut type_names = HashSet::new();
        for (index, t) in self.types.iter().enumerate() {
            if !ids.insert(t.id) {
                issues.push(Issue::DuplicateTypeId { id: t.id, index });
            }
            if t.name.is_empty() {
                issues.push(Issue::EmptyName {
                    table: Table::Types,
                    index,
                });
            } else if !type_names.insert(&*t.name) {
                issues.push(Issue::DuplicateTypeName {
                    name: t.name.to_string(),
                    index,
                });
            }
            if t.id < 0 {
                issues.push(Issue::NegativeId {
                    table: Table::Types,
                    id: t.id,
                    index,
                });
            }
        }
        let mut ids = HashSet::new();
        for (index, m) in self.methods.iter().enumerate() {
            if !ids.insert(m.id) {
                issues.push(Issue::DuplicateMethodId { id: m.id, index });
            }
            if m.name.is_empty() {
                issues.push(Issue::EmptyName {
                    table: Table::Methods,
                    index,
                });
            }
            if m.id < 0 {
                issues.push(Issue::NegativeId {
                    table: Table::Methods,
                    id: m.id,
                    index,
                });
            }
            if m.signature.len() < 2 {
                issues.push(Issue::ShortSignature {
                    method_id: m.id,
                    len: m.signature.len(),
                });
            }
            for &type_id in &m.signature {
                if names.type_name(type_id).is_none() {
                    issues.push(Issue::SignatureTypeMissing {
                        method_id: m.id,
                        type_id,
                    });
                }
            }
        }

        for section in Section::ALL {
            let entries = self.entries(section);
            if section == Section::Monitor && entries.len() > 1 {
                issues.push(Issue::MultipleMonitorProfiles {
                    count: entries.len(),
                });
            }
            let mut seen = HashSet::with_capacity(entries.len());
            let mut record_keys = HashSet::new();
            for (index, e) in entries.iter().enumerate() {
                if !seen.insert(&e.ctx) {
                    issues.push(Issue::DuplicateContext { section, index });
                }
                if section == Section::Monitor {
                    if !e.ctx.frames().eq([callctx::Frame::new(0, 0)]) {
                        issues.push(Issue::MonitorContextNotRoot { index });
                    }
                } else {
                    for frame in e.ctx.frames() {
                        if names.method_entry(i64::from(frame.method)).is_none() {
                            issues.push(Issue::DanglingMethodId {
                                section,
                                index,
                                method_id: frame.method,
                            });
                        }
                    }
                }
                if section == Section::CallCount {
                    if let Some(inner) = e.ctx.innermost().filter(|f| f.bci != 0) {
                        issues.push(Issue::CallCountBciNotZero {
                            index,
                            bci: inner.bci,
                        });
                    }
                }
                if check_arity(section, &e.records).is_err() {
                    issues.push(Issue::WrongArity {
                        section,
                        index,
                        len: e.records.len(),
                    });
                }
                let arity = section.arity();
                record_keys.clear();
                for record in e.records.chunks(arity) {
                    // (target bci, branch index), but not for the sentinel target bcis:
                    // real files repeat `-5, i, 0` triplets. Type id for pairs.
                    let key = match *record {
                        [target, branch, _] if target >= 0 => Some((target, branch)),
                        [type_id, _] => Some((0, type_id)),
                        _ => None,
                    };
                    if let Some((_, key)) = key.filter(|k| !record_keys.insert(*k)) {
                        issues.push(Issue::DuplicateRecordKey {
                            section,
                            index,
                            key,
                        });
                    }
                    // The count is the last integer of a complete record.
                    if record.len() == arity {
                        if let Some(&count) = record.last().filter(|&&c| c < 0) {
                            issues.push(Issue::NegativeCount {
                                section,
                                index,
                                count,
                            });
                        }
                        if arity == 2 {
                            if let Some(&type_id) =
                                record.first().filter(|&&t| names.type_name(t).is_none())
                            {
                                issues.push(Issue::DanglingTypeId {
                                    section,
                                    index,
                                    type_id,
                                });
                            }
                        }
                    }
                }
            }
        }
        Report { issues }
    }
}
