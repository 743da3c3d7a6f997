//! The call graph model that both call tree formats read into: methods by id, invokes
//! (caller, BCIs, declared target, resolved callees), entry points
//! (`points-to-analysis-reports.ja.txt`, "コール・ツリー"; `iprof-pointsto.md` §2.3 and §2.5).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::call_tree::txt::{self, BciList, CallTreeLine, IdTag, NodeKind};
use crate::cursor::{ByteLines, LineEnding, StyleTracker, TextStyle};
use crate::error::{Error, Result, quote};

/// A fast hasher for the reports' integer ids, seeded per map: one folded 64×64→128-bit
/// multiply of the id and a secret seed. Ids come from the report, so they may be chosen to
/// collide; with the seed drawn at random for each map (see [`IdState`]) no fixed set of ids
/// makes every lookup probe the same buckets, as they could with an unseeded multiplicative
/// hash (ids `i << 32` all landed in one bucket).
#[derive(Debug, Clone, Copy, Default)]
pub struct IdHasher {
    seed: u64,
    hash: u64,
}

/// `x * y` as 128 bits, its halves XORed together.
#[inline(always)]
fn folded_multiply(x: u64, y: u64) -> u64 {
    let full = u128::from(x) * u128::from(y);
    (full as u64) ^ ((full >> 64) as u64)
}

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.hash
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.hash.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.hash = folded_multiply(id ^ self.seed, 0x9E37_79B9_7F4A_7C15 ^ self.hash);
    }
}

/// Builds [`IdHasher`]s with a seed drawn at random (from the standard library's per-process
/// random keys) when the map is created.
#[derive(Debug, Clone, Copy)]
pub struct IdState {
    seed: u64,
}

impl Default for IdState {
    fn default() -> Self {
        let seed = std::collections::hash_map::RandomState::new().hash_one(0x1d5_u64);
        IdState { seed }
    }
}

impl BuildHasher for IdState {
    type Hasher = IdHasher;

    fn build_hasher(&self) -> IdHasher {
        IdHasher {
            seed: self.seed,
            hash: 0,
        }
    }
}

/// A map keyed by report ids.
pub type IdMap<V> = IndexMap<u64, V, IdState>;

/// How an invoke dispatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum InvokeKind {
    /// `directly calls` (CSV `IsDirect` true).
    Direct,
    /// `virtually calls`, resolved by `is overridden by` (CSV `IsDirect` false).
    Virtual,
    /// `interfacially calls`, resolved by `is implemented by` (TXT ≤ 20.0).
    Interface,
}

/// The method an invoke names in the bytecode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DeclaredTarget {
    /// A method with an id (direct calls; CSV target and virtual-method rows).
    Method(u64),
    /// A TXT `virtually calls`/`interfacially calls` target, which has no id: its string.
    Signature(String),
}

/// A resolved callee of an invoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

impl Serialize for Callees {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Callees {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        Ok(Vec::<Callee>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

/// One invoke in a method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
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
    /// Reads a whole call tree TXT report (every version; UTF-8, LF or CRLF).
    ///
    /// `id-ref=` lines may come before their `id=` line: ids are resolved after the pass.
    pub fn parse_txt(bytes: &[u8]) -> Result<Self> {
        let mut builder = CallGraphBuilder::new();
        // About one invoke per 150 bytes in real reports; a hint, not a bound.
        builder.graph.invokes.reserve(bytes.len() / 256);
        builder.callers.reserve(bytes.len() / 256);
        for line in ByteLines::new(bytes) {
            builder.push(line.number, line.bytes, line.ending)?;
        }
        builder.finish()
    }

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
fn dispatch(caller: u64, bci: BciList, kind: InvokeKind, declared: &str) -> Invoke {
    Invoke {
        id: None,
        caller,
        bci: Some(bci),
        kind,
        target: DeclaredTarget::Signature(declared.to_owned()),
        callees: Callees::new(),
    }
}

/// A map from report ids to indices: a vector for the usual small, dense ids (the printers
/// count from 0), a hash map for the rest.
#[derive(Debug, Default)]
pub(crate) struct IdIndex {
    dense: Vec<u32>,
    /// How many ids the vector holds (not its length, which grows with the largest id).
    dense_entries: usize,
    sparse: HashMap<u64, usize, IdState>,
}

impl IdIndex {
    /// Whether `id` belongs in the vector: ids stay below a few times the number of entries
    /// in real reports, so the vector never outgrows the data by much.
    fn dense(&self, id: u64) -> bool {
        let entries = (self.dense_entries + self.sparse.len()) as u64;
        id < (1 << 16) + 8 * entries && id < (1 << 26)
    }

    /// Sets `id`'s index; returns false if `id` already had one.
    pub(crate) fn insert(&mut self, id: u64, index: usize) -> bool {
        if self.get(id).is_some() {
            return false;
        }
        match u32::try_from(index) {
            Ok(small) if small != u32::MAX && self.dense(id) => {
                let at = id as usize;
                if at >= self.dense.len() {
                    self.dense.resize((at + 1).next_power_of_two(), u32::MAX);
                }
                if let Some(slot) = self.dense.get_mut(at) {
                    *slot = small;
                    self.dense_entries += 1;
                }
                true
            }
            _ => self.sparse.insert(id, index).is_none(),
        }
    }

    /// `id`'s index.
    pub(crate) fn get(&self, id: u64) -> Option<usize> {
        match usize::try_from(id).ok().and_then(|at| self.dense.get(at)) {
            Some(&slot) if slot != u32::MAX => Some(slot as usize),
            _ => self.sparse.get(&id).copied(),
        }
    }
}

/// The set of defined ids: a bitset for the usual small ids, a hash set for the rest.
#[derive(Debug, Default)]
pub(crate) struct IdSet {
    dense: Vec<u64>,
    sparse: std::collections::HashSet<u64, IdState>,
}

impl IdSet {
    /// Ids below this live in the bitset (at most 2 MiB of bits).
    const DENSE_LIMIT: u64 = 1 << 24;

    pub(crate) fn insert(&mut self, id: u64) {
        if id < Self::DENSE_LIMIT {
            let word = (id / 64) as usize;
            if word >= self.dense.len() {
                self.dense.resize((word + 1).next_power_of_two(), 0);
            }
            if let Some(bits) = self.dense.get_mut(word) {
                *bits |= 1 << (id % 64);
            }
        } else {
            self.sparse.insert(id);
        }
    }

    pub(crate) fn contains(&self, id: u64) -> bool {
        if id < Self::DENSE_LIMIT {
            self.dense
                .get((id / 64) as usize)
                .is_some_and(|bits| bits & (1 << (id % 64)) != 0)
        } else {
            self.sparse.contains(&id)
        }
    }
}

/// A frame of the open tree path while lines stream by.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// A method expanded here (`entry`, `id=` lines): its id and index in `methods`.
    Method(u64, usize),
    /// A virtual or interface invoke (index into `invokes`).
    Dispatch(usize, InvokeKind),
    /// A line that cannot have children (`id-ref=`).
    Leaf,
}

/// Builds a [`CallGraph`] from TXT lines pushed one at a time, so a report never has to be in
/// memory whole: feed it lines from any reader, then call [`CallGraphBuilder::finish`].
///
/// ```
/// use pointsto::call_tree::CallGraphBuilder;
/// let mut builder = CallGraphBuilder::new();
/// for line in "VM Entry Points\n└── entry a.B.main():void id=0 \n".lines() {
///     builder.push_line(line)?;
/// }
/// let graph = builder.finish()?;
/// assert_eq!(graph.entry_points.len(), 1);
/// # Ok::<(), pointsto::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct CallGraphBuilder {
    graph: CallGraph,
    stack: Vec<Frame>,
    /// Line of each method's definition, by index in `methods` (for duplicate errors).
    defined_at: Vec<u64>,
    /// Index in `methods` of each invoke's caller.
    callers: Vec<usize>,
    /// Ids defined so far.
    defined: IdSet,
    /// Ids referenced before their definition, with the first referencing line.
    pending: HashMap<u64, u64, IdState>,
    style: StyleTracker,
    trailing: Option<TrailingSpaces>,
    seen_direct: bool,
    seen_virtual: bool,
    seen_override: bool,
    seen_header: bool,
    line: u64,
    /// An entry whose parsing reason may continue on the next lines.
    open_reason: bool,
    /// Empty lines seen after the last content line.
    empty_lines: u64,
}

impl CallGraphBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next line (with or without its `\n`/`\r\n`).
    pub fn push_line(&mut self, line: &str) -> Result<()> {
        let (text, ending) = if let Some(text) = line.strip_suffix("\r\n") {
            (text, LineEnding::CrLf)
        } else if let Some(text) = line.strip_suffix('\n') {
            (text, LineEnding::Lf)
        } else {
            (line, LineEnding::Lf)
        };
        let number = self.line + 1;
        self.push(number, text.as_bytes(), Some(ending))
    }

    pub(crate) fn push(
        &mut self,
        number: u64,
        text: &[u8],
        ending: Option<LineEnding>,
    ) -> Result<()> {
        self.line = number;
        let parsed = txt::parse_line_bytes(number, text)?;
        let marker = match &parsed {
            CallTreeLine::Node(node) => Some(node.marker),
            _ => None,
        };
        self.style.line(text.is_empty(), ending, marker);
        if !self.seen_header {
            return match parsed {
                CallTreeLine::Header => {
                    self.seen_header = true;
                    Ok(())
                }
                _ => Err(Error::Syntax {
                    line: number,
                    column: 1,
                    expected: "the header `VM Entry Points`",
                    found: quote(&String::from_utf8_lossy(text)),
                }),
            };
        }
        if matches!(parsed, CallTreeLine::Empty) {
            self.empty_lines += 1;
            self.open_reason = false;
            return Ok(());
        }
        if self.empty_lines > 0 {
            return Err(Error::Syntax {
                line: number,
                column: 1,
                expected: "nothing after the report's closing empty line",
                found: quote(&String::from_utf8_lossy(text)),
            });
        }
        match parsed {
            CallTreeLine::Header => Err(Error::Syntax {
                line: number,
                column: 1,
                expected: "a tree line",
                found: quote(&String::from_utf8_lossy(text)),
            }),
            CallTreeLine::Continuation(more) => self.continuation(number, more),
            CallTreeLine::Node(node) => {
                self.open_reason = false;
                self.node(
                    number,
                    node.depth,
                    node.indent.len(),
                    node.kind,
                    node.trailing_space,
                )
            }
            CallTreeLine::Empty => Ok(()),
        }
    }

    fn continuation(&mut self, number: u64, more: &str) -> Result<()> {
        let entry = self
            .graph
            .entry_points
            .last_mut()
            .filter(|_| self.open_reason);
        let Some(entry) = entry else {
            return Err(Error::Syntax {
                line: number,
                column: 1,
                expected: "a tree line (`├── `, `└── `, `│   `, `    ` prefix)",
                found: quote(more),
            });
        };
        let reason = entry.reason.get_or_insert_with(String::new);
        if entry.trailing_space {
            reason.push(' ');
        }
        reason.push('\n');
        match more.strip_suffix(' ') {
            Some(more) => {
                reason.push_str(more);
                entry.trailing_space = true;
            }
            None => {
                reason.push_str(more);
                entry.trailing_space = false;
            }
        }
        Ok(())
    }

    /// Adds a method; returns its index in `methods`.
    fn define(&mut self, number: u64, id: u64, signature: &str) -> Result<usize> {
        let entry = match self.graph.methods.entry(id) {
            indexmap::map::Entry::Occupied(occupied) => {
                let first = self
                    .defined_at
                    .get(occupied.index())
                    .copied()
                    .unwrap_or_default();
                return Err(Error::DuplicateId {
                    line: number,
                    id,
                    first,
                });
            }
            indexmap::map::Entry::Vacant(vacant) => vacant,
        };
        let index = entry.index();
        entry.insert(Method {
            id,
            signature: signature.to_owned(),
            invokes: 0..0,
            csv: None,
        });
        self.defined_at.push(number);
        self.defined.insert(id);
        if !self.pending.is_empty() {
            self.pending.remove(&id);
        }
        Ok(index)
    }

    fn reference(&mut self, number: u64, id: u64) {
        if !self.defined.contains(id) {
            self.pending.entry(id).or_insert(number);
        }
    }

    fn note_trailing(&mut self, kind: &NodeKind<'_>, trailing: bool) {
        let spaces = self.trailing.get_or_insert_with(TrailingSpaces::default);
        let (seen, slot) = match kind {
            NodeKind::Entry { .. } => return,
            NodeKind::DirectCall { .. } => (&mut self.seen_direct, &mut spaces.direct),
            NodeKind::VirtualCall { .. } | NodeKind::InterfaceCall { .. } => {
                (&mut self.seen_virtual, &mut spaces.virtual_call)
            }
            NodeKind::OverriddenBy { .. } | NodeKind::ImplementedBy { .. } => {
                (&mut self.seen_override, &mut spaces.override_line)
            }
        };
        if !*seen {
            *seen = true;
            *slot = trailing;
        }
    }

    fn node(
        &mut self,
        number: u64,
        depth: usize,
        indent_len: usize,
        kind: NodeKind<'_>,
        trailing_space: bool,
    ) -> Result<()> {
        if depth > self.stack.len() {
            return Err(Error::Depth {
                line: number,
                column: indent_len as u64 + 1,
                max: self.stack.len() as u64,
                found: depth as u64,
            });
        }
        self.stack.truncate(depth);
        let parent = self.stack.last().copied();
        self.note_trailing(&kind, trailing_space);
        let nesting = |expected: &'static str, kind: &NodeKind<'_>| Error::Nesting {
            line: number,
            expected,
            found: quote(kind.method()),
        };
        let frame = match (kind, parent) {
            (NodeKind::Entry { method, id, reason }, None) => {
                let index = self.define(number, id, method)?;
                self.graph.entry_points.push(EntryPoint {
                    method: id,
                    reason: reason.map(str::to_owned),
                    trailing_space,
                });
                self.open_reason = reason.is_some();
                Frame::Method(id, index)
            }
            (kind @ NodeKind::Entry { .. }, Some(_)) => {
                return Err(nesting("an invoke (`entry` lines are at depth 0)", &kind));
            }
            (kind, None) => return Err(nesting("an `entry` line at depth 0", &kind)),
            (
                NodeKind::DirectCall {
                    method,
                    target,
                    bci,
                },
                Some(Frame::Method(caller, at)),
            ) => {
                let frame = self.callee(number, method, target)?;
                self.add_invoke(
                    at,
                    Invoke {
                        id: None,
                        caller,
                        bci: Some(bci),
                        kind: InvokeKind::Direct,
                        target: DeclaredTarget::Method(target.id()),
                        callees: Callees::one(Callee {
                            method: target.id(),
                            expanded_here: matches!(target, IdTag::Id(_)),
                        }),
                    },
                );
                frame
            }
            (NodeKind::VirtualCall { method, bci }, Some(Frame::Method(caller, at))) => {
                let index = self.add_invoke(at, dispatch(caller, bci, InvokeKind::Virtual, method));
                Frame::Dispatch(index, InvokeKind::Virtual)
            }
            (NodeKind::InterfaceCall { method, bci }, Some(Frame::Method(caller, at))) => {
                let index =
                    self.add_invoke(at, dispatch(caller, bci, InvokeKind::Interface, method));
                Frame::Dispatch(index, InvokeKind::Interface)
            }
            (kind, Some(Frame::Method(..))) => {
                return Err(nesting(
                    "`directly calls`, `virtually calls` or `interfacially calls`",
                    &kind,
                ));
            }
            (
                NodeKind::OverriddenBy { method, target },
                Some(Frame::Dispatch(index, InvokeKind::Virtual)),
            )
            | (
                NodeKind::ImplementedBy { method, target },
                Some(Frame::Dispatch(index, InvokeKind::Interface)),
            ) => {
                let frame = self.callee(number, method, target)?;
                if let Some(invoke) = self.graph.invokes.get_mut(index) {
                    invoke.callees.push(Callee {
                        method: target.id(),
                        expanded_here: matches!(target, IdTag::Id(_)),
                    });
                }
                frame
            }
            (kind, Some(Frame::Dispatch(_, InvokeKind::Interface))) => {
                return Err(nesting("`is implemented by`", &kind));
            }
            (kind, Some(Frame::Dispatch(..))) => return Err(nesting("`is overridden by`", &kind)),
            (kind, Some(Frame::Leaf)) => {
                return Err(nesting("no child (an `id-ref=` line is a leaf)", &kind));
            }
        };
        self.stack.push(frame);
        Ok(())
    }

    fn callee(&mut self, number: u64, method: &str, target: IdTag) -> Result<Frame> {
        match target {
            IdTag::Id(id) => Ok(Frame::Method(id, self.define(number, id, method)?)),
            IdTag::IdRef(id) => {
                self.reference(number, id);
                Ok(Frame::Leaf)
            }
        }
    }

    /// Appends an invoke of the method at index `at` in `methods`.
    fn add_invoke(&mut self, at: usize, invoke: Invoke) -> usize {
        let index = self.graph.invokes.len();
        self.callers.push(at);
        self.graph.invokes.push(invoke);
        index
    }

    /// Ends the report: resolves every `id-ref=` and returns the graph.
    pub fn finish(mut self) -> Result<CallGraph> {
        if !self.seen_header {
            return Err(Error::UnexpectedEnd {
                line: self.line + 1,
                expected: "the header `VM Entry Points`",
            });
        }
        if let Some((&id, &line)) = self.pending.iter().min_by_key(|(_, line)| **line) {
            return Err(Error::UnresolvedId { line, id });
        }
        self.graph.group_invokes(&self.callers);
        self.graph.txt = Some(TxtLayout {
            style: self.style.finish(),
            trailing_spaces: self.trailing.unwrap_or_default(),
        });
        Ok(self.graph)
    }
}

#[cfg(test)]
mod tests {
    /// Review regression: the unseeded multiplicative hash put ids `i << 32` (which a report can
    /// hold) all in one bucket, making each insert scan all the others. Seeded, they spread
    /// like random values (about 63% of 4096 buckets hit by 4096 keys).
    #[test]
    fn ids_sharing_low_bits_spread_over_buckets() {
        use std::hash::BuildHasher;
        let state = IdState::default();
        let buckets: std::collections::HashSet<u64> = (0..4096u64)
            .map(|i| state.hash_one(i << 32) & 4095)
            .collect();
        assert!(buckets.len() > 2200, "{} buckets", buckets.len());
        let small: std::collections::HashSet<u64> =
            (0..4096u64).map(|i| state.hash_one(i) & 4095).collect();
        assert!(small.len() > 2200, "{} buckets", small.len());
        // Two maps draw different seeds.
        assert_ne!(state.hash_one(1u64), IdState::default().hash_one(1u64));
    }

    use super::*;

    #[test]
    fn id_index_dense_and_sparse() {
        let mut index = IdIndex::default();
        assert!(index.insert(3, 0));
        assert!(index.insert(u64::MAX, 1));
        assert!(index.insert(1 << 40, 2));
        assert!(!index.insert(3, 9));
        assert!(!index.insert(u64::MAX, 9));
        assert_eq!(
            (
                index.get(3),
                index.get(u64::MAX),
                index.get(1 << 40),
                index.get(4)
            ),
            (Some(0), Some(1), Some(2), None)
        );
        assert!(index.dense.len() < 1 << 17);
        let mut set = IdSet::default();
        set.insert(5);
        set.insert(u64::MAX);
        assert!(set.contains(5) && set.contains(u64::MAX) && !set.contains(6));
    }
}
