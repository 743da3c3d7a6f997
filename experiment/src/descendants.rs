//! Descendant experiments (`_f1.er`, `_x1.er`, `_f2_x1_f1.er`, clones `_C<N>`, MPI `M_r…`):
//! discovery in gprofng's order and lineage parsing (spec: "子孫プロセスの実験"; format notes §10,
//! gprofng `get_descendants_names`, `dir_name_cmp`).

use crate::source::Source;
use std::cmp::Ordering;

/// One step of a lineage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Step {
    /// `_f<N>`: N-th fork (or vfork) of the parent.
    Fork(u32),
    /// `_x<N>`: N-th exec of the parent.
    Exec(u32),
    /// `_C<N>`: N-th clone of the parent.
    Clone(u32),
}

/// Parses a descendant name (`_f2_x1_f1.er`, with or without `.er`) into its steps;
/// `None` if it is not a lineage of fork/exec/clone steps.
pub fn parse_lineage(name: &str) -> Option<Vec<Step>> {
    let name = name.strip_suffix(".er").unwrap_or(name);
    let rest = name.strip_prefix('_')?;
    let mut steps = Vec::new();
    for part in rest.split('_') {
        let mut chars = part.chars();
        let tag = chars.next()?;
        let n: u32 = chars.as_str().parse().ok()?;
        steps.push(match tag {
            'f' => Step::Fork(n),
            'x' => Step::Exec(n),
            'C' => Step::Clone(n),
            _ => return None,
        });
    }
    Some(steps)
}

/// gprofng's `dir_name_cmp`: runs of digits compare as numbers, other bytes as bytes.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        if x.is_ascii_digit() && y.is_ascii_digit() {
            let si = i;
            while a.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let sj = j;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            let da = trim_zeros(a.get(si..i).unwrap_or_default());
            let db = trim_zeros(b.get(sj..j).unwrap_or_default());
            let o = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
            if o != Ordering::Equal {
                return o;
            }
        } else {
            if x != y {
                return x.cmp(&y);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i.min(a.len())).cmp(&(b.len() - j.min(b.len())))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    d.get(n..).unwrap_or_default()
}

/// A descendant experiment found in the founder's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Descendant {
    /// Directory name (`_f2_x1.er`).
    pub name: String,
    /// Its lineage (empty for MPI `M_r…` names).
    pub lineage: Vec<Step>,
    /// False when its `data.frameinfo` is empty or missing: gprofng leaves such experiments
    /// out of its experiment list (no profile data).
    pub has_data: bool,
}

/// The descendants in directory `dir` of `source` (`""` = the experiment itself), in gprofng's
/// order (natural sort), including the ones without data (see [`Descendant::has_data`]).
pub fn list<S: Source>(source: &S) -> Vec<Descendant> {
    let mut names: Vec<String> = source
        .list("")
        .into_iter()
        .filter(|n| (n.starts_with('_') && n.ends_with(".er")) || n.starts_with("M_r"))
        .collect();
    names.sort_by(|a, b| natural_cmp(a, b));
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let has_data = source
                .read(&format!("{name}/data.frameinfo"))
                .ok()
                .flatten()
                .is_some_and(|b| !b.is_empty());
            let lineage = parse_lineage(&name).unwrap_or_default();
            Descendant {
                name,
                lineage,
                has_data,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lineage() {
        assert_eq!(
            parse_lineage("_f2_x1_f1.er"),
            Some(vec![Step::Fork(2), Step::Exec(1), Step::Fork(1)])
        );
        assert_eq!(parse_lineage("_C12"), Some(vec![Step::Clone(12)]));
        assert_eq!(parse_lineage("_q1.er"), None);
        assert_eq!(parse_lineage("M_r1.er"), None);
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["_f10.er", "_f2_x1.er", "_f2.er", "_x1.er", "_f1.er"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["_f1.er", "_f2.er", "_f2_x1.er", "_f10.er", "_x1.er"]);
    }
}
