//! The call graph model that both call tree formats read into: methods by id, invokes
//! (caller, BCIs, declared target, resolved callees), entry points
//! (`points-to-analysis-reports.ja.txt`, "コール・ツリー"; `iprof-pointsto.md` §2.3 and §2.5).

use crate::call_tree::ids::IdMap;
use crate::call_tree::txt::BciList;
use crate::cursor::TextStyle;

/// How an invoke dispatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum InvokeKind {
    /// `directly calls` (CSV `IsDirect` true).
    Direct,
    /// `virtually calls`, resolved by `is overridden by` (CSV `IsDirect` false).
    Virtual,
    /// `interfacially calls`, resolved by `is implemented by` (TXT ≤ 20.0).
    Interface,
}

/// The method an invoke names in the bytecode.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DeclaredTarget {
    /// A method with an id (direct calls; CSV target and virtual-method rows).
    Method(u64),
    /// A TXT `virtually calls`/`interfacially calls` target, which has no id: its string.
    Signature(String),
}

/// A resolved callee of an invoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Callee {
    /// The callee's id.
    pub method: u64,
    /// Whether the TXT report expands the callee here (`id=`) rather than referring to it
    /// (`id-ref=`); always false for CSV reports.
    pub expanded_here: bool,
}

/// The resolved callees of an invoke; one callee (every direct call) is stored inline.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Callees {
    first: Option<Callee>,
    rest: Vec<Callee>,
}

impl Callees {
    /// No callees.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// One callee.
    #[must_use]
    pub fn one(callee: Callee) -> Self {
        Self {
            first: Some(callee),
            rest: Vec::new(),
        }
    }

    /// Appends a callee.
    pub fn push(&mut self, callee: Callee) {
        if self.first.is_none() {
            self.first = Some(callee);
        } else {
            self.rest.push(callee);
        }
    }

    /// How many callees.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// The `n`-th callee.
    #[must_use]
    pub fn get(&self, n: usize) -> Option<&Callee> {
        match n {
            0 => self.first.as_ref(),
            n => self.rest.get(n - 1),
        }
    }

    /// The callees in report order.
    pub fn iter(&self) -> impl Iterator<Item = &Callee> + '_ {
        self.first.iter().chain(self.rest.iter())
    }
}

impl<'a> IntoIterator for &'a Callees {
    type Item = &'a Callee;
    type IntoIter = std::iter::Chain<std::option::Iter<'a, Callee>, std::slice::Iter<'a, Callee>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.iter().chain(self.rest.iter())
    }
}

impl FromIterator<Callee> for Callees {
    fn from_iter<I: IntoIterator<Item = Callee>>(iter: I) -> Self {
        let mut callees = Self::new();
        for callee in iter {
            callees.push(callee);
        }
        callees
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Callees {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Callees {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        Ok(
            <Vec<Callee> as serde::Deserialize>::deserialize(deserializer)?
                .into_iter()
                .collect(),
        )
    }
}

/// One invoke in a method.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Invoke {
    /// The CSV invoke id (`call_tree_invokes` `Id`); `None` for TXT and legacy CSV reports.
    pub id: Option<u64>,
    /// The calling method.
    pub caller: u64,
    /// The invoke's BCIs, innermost first; `None` when the report gives none.
    pub bci: Option<BciList>,
    /// Direct, virtual or interface.
    pub kind: InvokeKind,
    /// The method the invoke names.
    pub target: DeclaredTarget,
    /// The methods the analysis resolved it to, in report order.
    pub callees: Callees,
}

/// Columns only the CSV reports have.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CsvMethodInfo {
    /// `Display`: abbreviated holder plus name (`j.l.S.length`).
    pub display: String,
    /// `Flags` (`p`, `P`, `d`, `s`, `f`, `S`, `b`, `v`, `n`, `a`, `y`); `None` before 22.1.
    pub flags: Option<String>,
    /// `IsEntryPoint` (24.1+).
    pub is_entry_point: Option<bool>,
    /// Whether the row came from the legacy `call_tree_virtual_methods` file.
    pub is_virtual: bool,
}

/// A method of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Method {
    /// The report's id (`id=`, CSV `Id`); ids differ between builds.
    pub id: u64,
    /// The method string `[<loader>:]Holder.name(params):ret` as the TXT report prints it
    /// (CSV rows are turned into the same shape, without loader).
    pub signature: String,
    /// This method's invokes: a range of [`CallGraph::invokes`], in report order.
    pub invokes: std::ops::Range<usize>,
    /// CSV-only columns.
    pub csv: Option<CsvMethodInfo>,
}

impl Method {
    /// The parsed signature; `None` for strings of another shape.
    #[must_use]
    pub fn parsed_signature(&self) -> Option<crate::signature::MethodSignature<'_>> {
        crate::signature::MethodSignature::parse(&self.signature)
    }
}

/// A call tree root.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EntryPoint {
    /// The method's id.
    pub method: u64,
    /// The parsing reason (TXT 24.1+), continuation lines joined with `\n`.
    pub reason: Option<String>,
    /// Whether the entry line (or its last continuation line) ends with the trailing space.
    pub trailing_space: bool,
}

/// Which trailing spaces a TXT report's line kinds carry (the printers: entries, direct calls
/// and overrides do, virtual calls do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TrailingSpaces {
    /// `directly calls` lines.
    pub direct: bool,
    /// `virtually calls` / `interfacially calls` lines.
    pub virtual_call: bool,
    /// `is overridden by` / `is implemented by` lines.
    pub override_line: bool,
}

impl Default for TrailingSpaces {
    fn default() -> Self {
        Self {
            direct: true,
            virtual_call: false,
            override_line: true,
        }
    }
}

/// What a TXT writer needs beyond the graph to re-emit a report byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TxtLayout {
    /// Line endings, tree characters, trailing empty lines.
    pub style: TextStyle,
    /// Trailing spaces per line kind.
    pub trailing_spaces: TrailingSpaces,
}

/// A points-to call graph.
///
/// Memory is proportional to methods and invokes, not to the report's size: the tree's
/// repeated subtrees are `id-ref=` lines, stored as one [`Callee`] each.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CallGraph {
    /// Methods by id, in order of definition.
    pub methods: IdMap<Method>,
    /// The roots, in report order.
    pub entry_points: Vec<EntryPoint>,
    /// Every invoke, grouped by caller (callers in definition order, each caller's invokes in
    /// report order); [`Method::invokes`] is each caller's range.
    pub invokes: Vec<Invoke>,
    /// Legacy CSV (21.3–24.0) only: the implementations of each virtual-method node
    /// (`call_tree_override_by_edges`). Every invoke whose declared target is such a node
    /// shares its list and has empty [`Invoke::callees`]; use [`CallGraph::callees`], which
    /// looks here, rather than copying one list per call site.
    pub shared_overrides: IdMap<Vec<u64>>,
    /// TXT layout details (`None` for graphs read from CSV).
    pub txt: Option<TxtLayout>,
}

/// One invoke edge: caller, BCIs, callee, dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvokeEdge<'g> {
    /// The caller's id.
    pub caller: u64,
    /// The invoke's BCIs.
    pub bci: Option<&'g BciList>,
    /// The callee's id.
    pub callee: u64,
    /// Direct, virtual or interface.
    pub kind: InvokeKind,
}

impl CallGraph {
    /// The method with `id`.
    #[must_use]
    pub fn method(&self, id: u64) -> Option<&Method> {
        self.methods.get(&id)
    }

    /// The invokes of method `id`, in report order.
    pub fn invokes_of(&self, id: u64) -> impl Iterator<Item = &Invoke> + '_ {
        let range = self.methods.get(&id).map_or(0..0, |m| m.invokes.clone());
        self.invokes.get(range).unwrap_or_default().iter()
    }

    /// Groups `invokes` by caller (`callers[i]` = index in `methods` of invoke `i`'s caller,
    /// or `usize::MAX` for none) and sets each method's range: a stable counting sort.
    pub(crate) fn group_invokes(&mut self, callers: &[usize]) {
        let methods = self.methods.len();
        let mut starts = vec![0usize; methods + 1];
        for &caller in callers {
            if let Some(count) = starts.get_mut(caller.min(methods)) {
                *count += 1;
            }
        }
        let mut total = 0;
        for count in &mut starts {
            let n = *count;
            *count = total;
            total += n;
        }
        for (index, (_, method)) in self.methods.iter_mut().enumerate() {
            let start = starts.get(index).copied().unwrap_or(total);
            let end = starts.get(index + 1).copied().unwrap_or(total);
            method.invokes = start..end;
        }
        let mut slots: Vec<Option<Invoke>> = Vec::new();
        slots.resize_with(self.invokes.len(), || None);
        for (invoke, &caller) in std::mem::take(&mut self.invokes).into_iter().zip(callers) {
            if let Some(next) = starts.get_mut(caller.min(methods)) {
                if let Some(slot) = slots.get_mut(*next) {
                    *slot = Some(invoke);
                }
                *next += 1;
            }
        }
        self.invokes = slots.into_iter().flatten().collect();
    }

    /// The callees of `invoke`: its own [`Invoke::callees`], or for legacy CSV virtual
    /// invokes the [`CallGraph::shared_overrides`] of their virtual-method node.
    pub fn callees<'g>(&'g self, invoke: &'g Invoke) -> impl Iterator<Item = Callee> + 'g {
        let shared = self.shared_callees(invoke).unwrap_or_default();
        invoke
            .callees
            .iter()
            .copied()
            .chain(shared.iter().map(|&method| Callee {
                method,
                expanded_here: false,
            }))
    }

    /// How many callees `invoke` has (see [`CallGraph::callees`]).
    #[must_use]
    pub fn callee_count(&self, invoke: &Invoke) -> usize {
        invoke.callees.len() + self.shared_callees(invoke).map_or(0, <[u64]>::len)
    }

    /// The `n`-th callee of `invoke` (see [`CallGraph::callees`]).
    #[must_use]
    pub fn callee(&self, invoke: &Invoke, n: usize) -> Option<Callee> {
        match invoke.callees.get(n) {
            Some(callee) => Some(*callee),
            None => {
                let shared = self.shared_callees(invoke)?;
                let method = *shared.get(n - invoke.callees.len())?;
                Some(Callee {
                    method,
                    expanded_here: false,
                })
            }
        }
    }

    fn shared_callees(&self, invoke: &Invoke) -> Option<&[u64]> {
        match invoke.target {
            DeclaredTarget::Method(node)
                if invoke.kind != InvokeKind::Direct && invoke.callees.is_empty() =>
            {
                self.shared_overrides.get(&node).map(Vec::as_slice)
            }
            _ => None,
        }
    }

    /// Every (caller, BCIs, callee, kind) edge, in report order.
    pub fn invoke_edges(&self) -> impl Iterator<Item = InvokeEdge<'_>> + '_ {
        self.invokes.iter().flat_map(|invoke| {
            self.callees(invoke).map(move |callee| InvokeEdge {
                caller: invoke.caller,
                bci: invoke.bci.as_ref(),
                callee: callee.method,
                kind: invoke.kind,
            })
        })
    }

    /// Every override/implementation edge: (declared target, implementing method id), for
    /// virtual and interface invokes.
    pub fn override_edges(&self) -> impl Iterator<Item = (&DeclaredTarget, u64)> + '_ {
        self.invokes
            .iter()
            .filter(|invoke| invoke.kind != InvokeKind::Direct)
            .flat_map(|invoke| {
                self.callees(invoke)
                    .map(move |c| (&invoke.target, c.method))
            })
    }

    /// The signature string of a declared target.
    #[must_use]
    pub fn target_signature<'g>(&'g self, target: &'g DeclaredTarget) -> Option<&'g str> {
        match target {
            DeclaredTarget::Method(id) => self.methods.get(id).map(|m| m.signature.as_str()),
            DeclaredTarget::Signature(signature) => Some(signature),
        }
    }
}

/// A virtual or interface invoke with no callees yet.
pub(crate) fn dispatch(caller: u64, bci: BciList, kind: InvokeKind, declared: &str) -> Invoke {
    Invoke {
        id: None,
        caller,
        bci: Some(bci),
        kind,
        target: DeclaredTarget::Signature(declared.to_owned()),
        callees: Callees::new(),
    }
}
