//! The data model of an `.iprof` file (iprof format document, sections "Structure", "Types",
//! "Methods"; schema v1.0.0/v1.1.0 root object).
//!
//! One model serves every layout: schema 1.0.0 and 1.1.0, the structurally identical 0.4.0,
//! and the legacy 0.2.0 layout (mapped as described in [`crate::legacy`]). Strings borrow from
//! the input where they can ([`Cow::Borrowed`]); [`Profile::into_owned`] gives the owned form
//! `Profile<'static>`.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};

use callctx::{Context, ContextBuf, Frame};

/// A whole `.iprof` file: the root JSON object.
///
/// Optional sections are `None` when the file does not have the key at all, and
/// `Some(vec![])` when it has an empty array, so that writing reproduces the file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Profile<'a> {
    /// `version`: `major.minor.patch` (`1.0.0`, `1.1.0`, or legacy `0.4.0`, `0.2.0`).
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub version: Cow<'a, str>,
    /// `types`: every type the profile refers to.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub types: Vec<Type<'a>>,
    /// `methods`: every method the profile refers to.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub methods: Vec<Method<'a>>,
    /// `callCountProfiles` (legacy `hotnessPoints`): executions per context, one count each.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub call_count_profiles: Option<Vec<ProfileEntry<'a>>>,
    /// `conditionalProfiles` (legacy `conditionalPoints`): branch triplets
    /// `(target bci, branch index, count)`.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub conditional_profiles: Option<Vec<ProfileEntry<'a>>>,
    /// `virtualInvokeProfiles` (legacy `invokePoints`): `(receiver type id, count)` pairs.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub virtual_invoke_profiles: Option<Vec<ProfileEntry<'a>>>,
    /// `monitorProfiles` (legacy `monitorsProfile`): one entry with the dummy context `0:0`
    /// and `(type id, count)` pairs.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub monitor_profiles: Option<Vec<ProfileEntry<'a>>>,
    /// `samplingProfiles`: whole sampled stacks, one count each.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub sampling_profiles: Option<Vec<ProfileEntry<'a>>>,
    /// `instanceofProfiles` (schema 1.1.0): `(type id, count)` pairs seen at an `instanceof`.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub instanceof_profiles: Option<Vec<ProfileEntry<'a>>>,
    /// Top-level keys this crate does not know (newer minor versions, forks such as
    /// `ceConditionalProfilesV2`), in file order, with their raw JSON values.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub unknown: Vec<(Cow<'a, str>, RawJson<'a>)>,
    /// Which key names and whitespace style the file used.
    pub layout: Layout,
    /// The order of the top-level keys in the file (empty: GraalVM's order).
    pub key_order: Vec<TopLevelKey>,
}

/// The key names and whitespace style of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Layout {
    /// Schema 1.x and 0.4.0: `name`, `ctx`, `callCountProfiles`, …; written compact.
    #[default]
    Modern,
    /// The 0.2.0 layout: `typeName`, `methodName`, `methodBciList`, `hotnessPoints`,
    /// `conditionalPoints`, `invokePoints`, object-shaped `monitorsProfile`; written
    /// pretty-printed the way GraalVM EE 22.x did.
    Legacy,
}

/// The profile sections that hold `{ctx, records}` entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
#[non_exhaustive]
pub enum Section {
    /// `callCountProfiles`.
    CallCount,
    /// `conditionalProfiles`.
    Conditional,
    /// `virtualInvokeProfiles`.
    VirtualInvoke,
    /// `monitorProfiles`.
    Monitor,
    /// `samplingProfiles`.
    Sampling,
    /// `instanceofProfiles`.
    Instanceof,
}

impl Section {
    /// All sections, in GraalVM's 1.x writing order.
    pub const ALL: [Section; 6] = [
        Section::CallCount,
        Section::Conditional,
        Section::VirtualInvoke,
        Section::Monitor,
        Section::Sampling,
        Section::Instanceof,
    ];

    /// The section's key in schema 1.x files.
    pub const fn key(self) -> &'static str {
        match self {
            Section::CallCount => "callCountProfiles",
            Section::Conditional => "conditionalProfiles",
            Section::VirtualInvoke => "virtualInvokeProfiles",
            Section::Monitor => "monitorProfiles",
            Section::Sampling => "samplingProfiles",
            Section::Instanceof => "instanceofProfiles",
        }
    }

    /// The section's key in 0.2.0 files, where it existed.
    pub const fn legacy_key(self) -> Option<&'static str> {
        match self {
            Section::CallCount => Some("hotnessPoints"),
            Section::Conditional => Some("conditionalPoints"),
            Section::VirtualInvoke => Some("invokePoints"),
            Section::Monitor => Some("monitorsProfile"),
            Section::Sampling | Section::Instanceof => None,
        }
    }

    /// How many integers make one record of this section (1, 3 or 2).
    pub const fn arity(self) -> usize {
        match self {
            Section::CallCount | Section::Sampling => 1,
            Section::Conditional => 3,
            Section::VirtualInvoke | Section::Monitor | Section::Instanceof => 2,
        }
    }

    /// How many integers an entry's `records` holds, in words (`exactly 1`, `a multiple of
    /// 3`): what [`Error::Arity`](crate::Error::Arity) says was expected.
    pub(crate) const fn records_len_rule(self) -> &'static str {
        match self.arity() {
            1 => "exactly 1",
            3 => "a multiple of 3",
            _ => "a multiple of 2",
        }
    }

    /// True for sections whose records hold exactly one record (`minItems 1, maxItems 1`).
    pub const fn is_single(self) -> bool {
        matches!(self, Section::CallCount | Section::Sampling)
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A top-level key of the root object, for remembering the file's key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum TopLevelKey {
    /// `version`.
    Version,
    /// `types`.
    Types,
    /// `methods`.
    Methods,
    /// One of the profile sections.
    Section(Section),
    /// The unknown key at this index of [`Profile::unknown`].
    Unknown(usize),
}

/// One entry of `types`: a type id and the type's `Class.getName()` name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Type<'a> {
    /// `id`: unique within one file (sparse, any order; stubbed files use -1).
    pub id: i64,
    /// `name` (legacy `typeName`): e.g. `int`, `java.lang.String`, `[Ljava.lang.String;`.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub name: Cow<'a, str>,
    /// Members this crate does not know (`id`, `name` come first and second).
    #[cfg_attr(
        feature = "serde",
        serde(borrow, default, skip_serializing_if = "Extra::is_empty")
    )]
    pub extra: Extra<'a>,
}

/// One entry of `methods`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Method<'a> {
    /// `id`: unique within one file; the method ids of contexts refer to it.
    pub id: i64,
    /// `name` (legacy `methodName`): the simple method name (`main`, `<init>`, `lambda$x$0`).
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub name: Cow<'a, str>,
    /// `signature`: type ids of the declaring type, the return type, then the parameter
    /// types in order (the receiver is not included).
    pub signature: Vec<i64>,
    /// Members this crate does not know (`id`, `name`, `signature` come first to third).
    #[cfg_attr(
        feature = "serde",
        serde(borrow, default, skip_serializing_if = "Extra::is_empty")
    )]
    pub extra: Extra<'a>,
}

impl Method<'_> {
    /// The declaring type's id (`signature[0]`).
    pub fn declaring_type(&self) -> Option<i64> {
        self.signature.first().copied()
    }

    /// The return type's id (`signature[1]`).
    pub fn return_type(&self) -> Option<i64> {
        self.signature.get(1).copied()
    }

    /// The parameter types' ids (`signature[2..]`).
    pub fn parameter_types(&self) -> &[i64] {
        self.signature.get(2..).unwrap_or(&[])
    }

    /// The owned form.
    pub fn into_owned(self) -> Method<'static> {
        Method {
            id: self.id,
            name: Cow::Owned(self.name.into_owned()),
            signature: self.signature,
            extra: self.extra.into_owned(),
        }
    }
}

impl Type<'_> {
    /// The owned form.
    pub fn into_owned(self) -> Type<'static> {
        Type {
            id: self.id,
            name: Cow::Owned(self.name.into_owned()),
            extra: self.extra.into_owned(),
        }
    }
}

/// One `{ "ctx": …, "records": […] }` entry of a profile section.
///
/// `records` is kept as the file has it; [`crate::profiles`] gives typed views that check the
/// arity of the section.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProfileEntry<'a> {
    /// `ctx` (legacy `methodBciList`): the partial call context, innermost frame first.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub ctx: Ctx<'a>,
    /// `records`: the section's integers (counts exceed 2^32; conditional target bcis can be
    /// negative).
    pub records: Vec<i64>,
    /// Members this crate does not know (`ctx`, `records` come first and second).
    #[cfg_attr(
        feature = "serde",
        serde(borrow, default, skip_serializing_if = "Extra::is_empty")
    )]
    pub extra: Extra<'a>,
}

impl<'a> ProfileEntry<'a> {
    /// An entry of `ctx` and `records`, without unknown members.
    pub fn new(ctx: Ctx<'a>, records: Vec<i64>) -> Self {
        ProfileEntry {
            ctx,
            records,
            extra: Extra::default(),
        }
    }
}

impl ProfileEntry<'_> {
    /// The owned form.
    pub fn into_owned(self) -> ProfileEntry<'static> {
        ProfileEntry {
            ctx: self.ctx.into_owned(),
            records: self.records,
            extra: self.extra.into_owned(),
        }
    }
}

/// A call context of a profile entry: borrowed from the input where the file spells it
/// `m:bci<m:bci`, owned where it had to be rebuilt (legacy `m:bci,m:bci` lists, strings
/// with escapes, contexts built in code).
///
/// Equality, ordering and hashing look at the frames only.
#[derive(Debug, Clone)]
pub enum Ctx<'a> {
    /// A context borrowed from the input.
    Borrowed(Context<'a>),
    /// An owned context.
    Owned(ContextBuf),
}

impl<'a> Ctx<'a> {
    /// Parses `text` (`m:bci<m:bci…`, innermost first), borrowing it.
    pub fn parse(text: &'a str) -> Result<Self, callctx::Error> {
        Context::parse(text).map(Ctx::Borrowed)
    }

    /// An owned context of these frames (innermost first).
    ///
    /// Returns `None` for an empty frame list (a context has at least one frame).
    pub fn from_frames(frames: impl IntoIterator<Item = Frame>) -> Option<Ctx<'static>> {
        let buf = ContextBuf::from_frames(frames);
        (!buf.is_empty()).then_some(Ctx::Owned(buf))
    }

    /// The frames, innermost (callee) first.
    pub fn frames(&self) -> CtxFrames<'_> {
        match self {
            Ctx::Borrowed(c) => CtxFrames::Borrowed(c.frames()),
            Ctx::Owned(b) => CtxFrames::Owned(b.frames().iter().copied()),
        }
    }

    /// The number of frames.
    pub fn len(&self) -> usize {
        match self {
            Ctx::Borrowed(c) => c.len(),
            Ctx::Owned(b) => b.len(),
        }
    }

    /// Always false: a context has at least one frame.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The innermost frame (the profiled location).
    pub fn innermost(&self) -> Option<Frame> {
        self.frames().next()
    }

    /// The outermost frame (the compilation root, or the stack bottom for samples).
    pub fn outermost(&self) -> Option<Frame> {
        self.frames().next_back()
    }

    /// An owned copy as a `callctx` buffer.
    pub fn to_context_buf(&self) -> ContextBuf {
        match self {
            Ctx::Borrowed(c) => c.to_context_buf(),
            Ctx::Owned(b) => b.clone(),
        }
    }

    /// The owned form.
    pub fn into_owned(self) -> Ctx<'static> {
        match self {
            Ctx::Borrowed(c) => Ctx::Owned(c.to_context_buf()),
            Ctx::Owned(b) => Ctx::Owned(b),
        }
    }
}

impl From<ContextBuf> for Ctx<'static> {
    fn from(buf: ContextBuf) -> Self {
        Ctx::Owned(buf)
    }
}

impl<'a> From<Context<'a>> for Ctx<'a> {
    fn from(ctx: Context<'a>) -> Self {
        Ctx::Borrowed(ctx)
    }
}

impl PartialEq for Ctx<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.frames().eq(other.frames())
    }
}

impl Eq for Ctx<'_> {}

impl PartialOrd for Ctx<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ctx<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.frames().cmp(other.frames())
    }
}

impl Hash for Ctx<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for frame in self.frames() {
            frame.hash(state);
        }
    }
}

impl fmt::Display for Ctx<'_> {
    /// The context in the modern notation, `m:bci<m:bci`: a borrowed context exactly as the
    /// file spelled it, an owned one in canonical form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ctx::Borrowed(c) => f.write_str(c.as_str()),
            Ctx::Owned(b) => fmt::Display::fmt(b, f),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Ctx<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de: 'a, 'a> serde::Deserialize<'de> for Ctx<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CtxVisitor;
        impl<'de> serde::de::Visitor<'de> for CtxVisitor {
            type Value = Ctx<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a call context string such as 5:0<3:2")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ctx::parse(v).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                v.parse::<ContextBuf>().map(Ctx::Owned).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(CtxVisitor)
    }
}

/// The frames of a [`Ctx`], innermost first.
#[derive(Debug, Clone)]
pub enum CtxFrames<'c> {
    /// Frames of a borrowed context.
    Borrowed(callctx::Frames<'c>),
    /// Frames of an owned context.
    Owned(std::iter::Copied<std::slice::Iter<'c, Frame>>),
}

impl Iterator for CtxFrames<'_> {
    type Item = Frame;

    fn next(&mut self) -> Option<Frame> {
        match self {
            CtxFrames::Borrowed(it) => it.next(),
            CtxFrames::Owned(it) => it.next(),
        }
    }
}

impl DoubleEndedIterator for CtxFrames<'_> {
    fn next_back(&mut self) -> Option<Frame> {
        match self {
            CtxFrames::Borrowed(it) => it.next_back(),
            CtxFrames::Owned(it) => it.next_back(),
        }
    }
}

/// The raw JSON text of a value this crate does not interpret (an unknown top-level key's
/// value), written back as it was (without the insignificant whitespace).
///
/// Equality ignores whitespace outside strings.
#[derive(Debug, Clone, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawJson<'a>(#[cfg_attr(feature = "serde", serde(borrow))] pub Cow<'a, str>);

impl RawJson<'_> {
    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text without whitespace outside strings.
    pub fn minified(&self) -> String {
        let mut out = String::with_capacity(self.0.len());
        minify_into(&self.0, &mut out);
        out
    }

    /// The owned form.
    pub fn into_owned(self) -> RawJson<'static> {
        RawJson(Cow::Owned(self.0.into_owned()))
    }
}

/// Appends `json` to `out` without whitespace outside strings.
pub(crate) fn minify_into(json: &str, out: &mut String) {
    let mut in_string = false;
    let mut escaped = false;
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
}

impl PartialEq for RawJson<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 || self.minified() == other.minified()
    }
}

impl Hash for RawJson<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.minified().hash(state);
    }
}

/// The members of an object (a type, a method, a profile entry) that this crate does not
/// know, in file order, each with the number of known members before it, so that the writer
/// puts it back where it was. Empty (and allocation-free) for the objects of current GraalVM
/// files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
// A boxed Vec: 8 bytes in every type, method and entry instead of 24, for members that
// current files never have.
#[allow(clippy::box_collection)]
pub struct Extra<'a>(
    #[cfg_attr(feature = "serde", serde(borrow))] Option<Box<Vec<ExtraMember<'a>>>>,
);

/// One unknown member of an object (see [`Extra`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExtraMember<'a> {
    /// How many of the object's known members come before it in the file (0: first).
    pub after: usize,
    /// The key.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub key: Cow<'a, str>,
    /// The value, as JSON text.
    #[cfg_attr(feature = "serde", serde(borrow))]
    pub value: RawJson<'a>,
}

impl<'a> Extra<'a> {
    /// True when the object had no unknown members.
    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|v| v.is_empty())
    }

    /// The unknown members, in file order.
    pub fn members(&self) -> &[ExtraMember<'a>] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// Appends an unknown member that came after `after` known members.
    pub fn push(&mut self, after: usize, key: Cow<'a, str>, value: RawJson<'a>) {
        self.0
            .get_or_insert_with(Box::default)
            .push(ExtraMember { after, key, value });
    }

    /// True when one of the members has this key.
    pub fn contains_key(&self, key: &str) -> bool {
        self.members().iter().any(|m| m.key == key)
    }

    /// The owned form.
    pub fn into_owned(self) -> Extra<'static> {
        Extra(self.0.map(|v| {
            Box::new(
                v.into_iter()
                    .map(|m| ExtraMember {
                        after: m.after,
                        key: Cow::Owned(m.key.into_owned()),
                        value: m.value.into_owned(),
                    })
                    .collect(),
            )
        }))
    }
}

impl<'a> Profile<'a> {
    /// An empty profile of schema version `1.0.0` (modern layout, GraalVM's key order).
    pub fn new() -> Profile<'static> {
        Profile {
            version: Cow::Borrowed("1.0.0"),
            ..Profile::default()
        }
    }

    /// The entries of `section`, if the file has it.
    pub fn section(&self, section: Section) -> Option<&[ProfileEntry<'a>]> {
        match section {
            Section::CallCount => self.call_count_profiles.as_deref(),
            Section::Conditional => self.conditional_profiles.as_deref(),
            Section::VirtualInvoke => self.virtual_invoke_profiles.as_deref(),
            Section::Monitor => self.monitor_profiles.as_deref(),
            Section::Sampling => self.sampling_profiles.as_deref(),
            Section::Instanceof => self.instanceof_profiles.as_deref(),
        }
    }

    /// The entries of `section` (empty when the file lacks it).
    pub fn entries(&self, section: Section) -> &[ProfileEntry<'a>] {
        self.section(section).unwrap_or(&[])
    }

    /// Mutable access to `section`'s slot.
    pub fn section_mut(&mut self, section: Section) -> &mut Option<Vec<ProfileEntry<'a>>> {
        match section {
            Section::CallCount => &mut self.call_count_profiles,
            Section::Conditional => &mut self.conditional_profiles,
            Section::VirtualInvoke => &mut self.virtual_invoke_profiles,
            Section::Monitor => &mut self.monitor_profiles,
            Section::Sampling => &mut self.sampling_profiles,
            Section::Instanceof => &mut self.instanceof_profiles,
        }
    }

    /// The owned form, independent of the input buffer.
    pub fn into_owned(self) -> Profile<'static> {
        fn owned(entries: Option<Vec<ProfileEntry<'_>>>) -> Option<Vec<ProfileEntry<'static>>> {
            entries.map(|v| v.into_iter().map(ProfileEntry::into_owned).collect())
        }
        Profile {
            version: Cow::Owned(self.version.into_owned()),
            types: self.types.into_iter().map(Type::into_owned).collect(),
            methods: self.methods.into_iter().map(Method::into_owned).collect(),
            call_count_profiles: owned(self.call_count_profiles),
            conditional_profiles: owned(self.conditional_profiles),
            virtual_invoke_profiles: owned(self.virtual_invoke_profiles),
            monitor_profiles: owned(self.monitor_profiles),
            sampling_profiles: owned(self.sampling_profiles),
            instanceof_profiles: owned(self.instanceof_profiles),
            unknown: self
                .unknown
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                .collect(),
            layout: self.layout,
            key_order: self.key_order,
        }
    }

    /// The deepest context of any entry, in frames (0 for a profile without entries).
    pub fn max_context_depth(&self) -> usize {
        Section::ALL
            .iter()
            .flat_map(|&s| self.entries(s))
            .map(|e| e.ctx.len())
            .max()
            .unwrap_or(0)
    }
}
