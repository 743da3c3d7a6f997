//! The call tree TXT report, line by line (`points-to-analysis-reports.ja.txt`, "TXT形式";
//! every version's grammar: `iprof-pointsto.md` §2.3 and its "TXT history").
//!
//! [`Reader`] is a lazy, fallible iterator that turns each physical line into one
//! [`CallTreeLine`] without looking at its neighbours, so it also reads fragments;
//! [`crate::call_tree::CallGraph::parse_txt`] and [`crate::call_tree::CallGraphBuilder`]
//! assemble those lines into the graph model.

use crate::cursor::{self, Indent, Marker, ParsedLines};
use crate::error::{Error, Result, quote};

/// The report's first line.
pub const HEADER: &str = "VM Entry Points";

/// A BCI list `@bci=<b0>-><b1>->…`: the invoke's BCI in the innermost inlined method first,
/// then the callers' BCIs outward. Stored without allocating for the usual single BCI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BciList {
    /// The innermost BCI.
    pub first: i32,
    /// Caller BCIs, innermost first.
    pub callers: Vec<i32>,
}

impl BciList {
    /// A list of one BCI.
    #[must_use]
    pub fn single(bci: i32) -> Self {
        Self {
            first: bci,
            callers: Vec::new(),
        }
    }

    /// Parses `b0->b1->…`.
    ///
    /// ```
    /// use pointsto::call_tree::txt::BciList;
    /// let list = BciList::parse("3->-1->12").unwrap();
    /// assert_eq!(list.iter().collect::<Vec<_>>(), [3, -1, 12]);
    /// assert_eq!(list.to_string(), "3->-1->12");
    /// assert!(BciList::parse("2147483648").is_none());
    /// assert!(BciList::parse("1->").is_none());
    /// assert!(BciList::parse("-").is_none());
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        let (first, mut at) = parse_bci(bytes, 0)?;
        let mut callers = Vec::new();
        while at < bytes.len() {
            if bytes.get(at..at + 2) != Some(b"->") {
                return None;
            }
            let (bci, next) = parse_bci(bytes, at + 2)?;
            callers.push(bci);
            at = next;
        }
        Some(Self { first, callers })
    }

    /// The BCIs, innermost first.
    pub fn iter(&self) -> impl Iterator<Item = i32> + '_ {
        std::iter::once(self.first).chain(self.callers.iter().copied())
    }
}

impl std::fmt::Display for BciList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.first)?;
        for bci in &self.callers {
            write!(f, "->{bci}")?;
        }
        Ok(())
    }
}

/// Parses one BCI starting at `at`; returns it and the offset after it.
fn parse_bci(bytes: &[u8], at: usize) -> Option<(i32, usize)> {
    let negative = bytes.get(at) == Some(&b'-');
    let start = at + usize::from(negative);
    let mut end = start;
    let mut value: i64 = 0;
    while let Some(&b) = bytes.get(end) {
        if !b.is_ascii_digit() || end - start >= 10 {
            break;
        }
        value = value * 10 + i64::from(b - b'0');
        end += 1;
    }
    if end == start || bytes.get(end).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let value = i32::try_from(if negative { -value } else { value }).ok()?;
    Some((value, end))
}

/// `id=<N>` (the method is expanded here) or `id-ref=<N>` (expanded elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IdTag {
    /// `id=<N>`.
    Id(u64),
    /// `id-ref=<N>`.
    IdRef(u64),
}

impl IdTag {
    /// The id either way.
    #[must_use]
    pub fn id(self) -> u64 {
        match self {
            Self::Id(id) | Self::IdRef(id) => id,
        }
    }

    fn parse(token: &str) -> Option<Self> {
        if let Some(id) = token.strip_prefix("id=") {
            cursor::parse_u64(id).map(Self::Id)
        } else {
            token
                .strip_prefix("id-ref=")
                .and_then(cursor::parse_u64)
                .map(Self::IdRef)
        }
    }
}

/// What a tree line says, after its prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum NodeKind<'a> {
    /// `entry <M> id=<N> ` (≤ 24.0) or `entry <M> id=<N>, parsing reason:  <R> ` (24.1+).
    Entry {
        /// The method string (with its loader prefix since 24.2).
        method: &'a str,
        /// The id.
        id: u64,
        /// The part of the parsing reason on this line (24.1+); a multi-line reason continues
        /// on [`CallTreeLine::Continuation`] lines.
        reason: Option<&'a str>,
    },
    /// `directly calls <M> id=<N> @bci=<B> ` / `… id-ref=<N> @bci=<B> `.
    DirectCall {
        /// The callee's method string.
        method: &'a str,
        /// Definition or reference.
        target: IdTag,
        /// The invoke's BCIs.
        bci: BciList,
    },
    /// `virtually calls <M> @bci=<B>`: the declared target (no loader, no id).
    VirtualCall {
        /// The declared target's method string.
        method: &'a str,
        /// The invoke's BCIs.
        bci: BciList,
    },
    /// `interfacially calls <M> @bci=<B>` (≤ 20.0).
    InterfaceCall {
        /// The declared target's method string.
        method: &'a str,
        /// The invoke's BCIs.
        bci: BciList,
    },
    /// `is overridden by <M> id=<N> ` / `… id-ref=<N> `, under a virtual call.
    OverriddenBy {
        /// The implementation's method string.
        method: &'a str,
        /// Definition or reference.
        target: IdTag,
    },
    /// `is implemented by <M> id=<N> ` / `… id-ref=<N> `, under an interface call (≤ 20.0).
    ImplementedBy {
        /// The implementation's method string.
        method: &'a str,
        /// Definition or reference.
        target: IdTag,
    },
}

impl NodeKind<'_> {
    /// The method string the line names.
    #[must_use]
    pub fn method(&self) -> &str {
        match self {
            Self::Entry { method, .. }
            | Self::DirectCall { method, .. }
            | Self::VirtualCall { method, .. }
            | Self::InterfaceCall { method, .. }
            | Self::OverriddenBy { method, .. }
            | Self::ImplementedBy { method, .. } => method,
        }
    }

    /// The line's `id=`/`id-ref=` tag (entries always define).
    #[must_use]
    pub fn id_tag(&self) -> Option<IdTag> {
        match self {
            Self::Entry { id, .. } => Some(IdTag::Id(*id)),
            Self::DirectCall { target, .. }
            | Self::OverriddenBy { target, .. }
            | Self::ImplementedBy { target, .. } => Some(*target),
            Self::VirtualCall { .. } | Self::InterfaceCall { .. } => None,
        }
    }
}

/// One tree line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Node<'a> {
    /// Indentation units before the marker (entries are at depth 0).
    pub depth: usize,
    /// The indentation, verbatim.
    pub indent: Indent<'a>,
    /// The marker.
    pub marker: Marker,
    /// What the line says.
    pub kind: NodeKind<'a>,
    /// Whether the line ends with the printers' trailing space.
    pub trailing_space: bool,
}

/// One physical line of a call tree TXT report.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum CallTreeLine<'a> {
    /// `VM Entry Points`.
    Header,
    /// A tree line.
    Node(Node<'a>),
    /// A line without a tree prefix: the continuation of a multi-line parsing reason (24.1+),
    /// verbatim.
    Continuation(&'a str),
    /// An empty line (the printers end the report with one).
    Empty,
}

fn syntax(line: u64, text: &[u8], part: &str, expected: &'static str) -> Error {
    Error::Syntax {
        line,
        column: cursor::column_of(text, part),
        expected,
        found: quote(part),
    }
}

/// Parses one line (without its line break); `number` is its 1-based line number for errors.
pub fn parse_line(number: u64, text: &str) -> Result<CallTreeLine<'_>> {
    parse_line_bytes(number, text.as_bytes())
}

/// Parses one line given as bytes, checking UTF-8 only where the tree prefix ends.
pub(crate) fn parse_line_bytes(number: u64, text: &[u8]) -> Result<CallTreeLine<'_>> {
    if text.is_empty() {
        return Ok(CallTreeLine::Empty);
    }
    let Some(prefix) = cursor::split_prefix(text) else {
        if let Some(column) = cursor::broken_prefix(text) {
            return Err(Error::Syntax {
                line: number,
                column,
                expected: "`├── ` or `└── ` after the indentation of a tree line",
                found: quote(&String::from_utf8_lossy(
                    text.get(column as usize - 1..).unwrap_or_default(),
                )),
            });
        }
        let line = cursor::utf8(number, 0, text)?;
        return Ok(if line == HEADER {
            CallTreeLine::Header
        } else {
            CallTreeLine::Continuation(line)
        });
    };
    let rest = cursor::utf8(
        number,
        prefix.rest,
        text.get(prefix.rest..).unwrap_or_default(),
    )?;
    let (body, trailing_space) = match rest.strip_suffix(' ') {
        Some(body) => (body, true),
        None => (rest, false),
    };
    let kind = if let Some(body) = body.strip_prefix("directly calls ") {
        let (left, bci) = split_bci(number, text, body)?;
        let (method, target) = split_id_tag(number, text, left)?;
        NodeKind::DirectCall {
            method,
            target,
            bci,
        }
    } else if let Some(body) = body.strip_prefix("virtually calls ") {
        let (method, bci) = split_bci(number, text, body)?;
        NodeKind::VirtualCall { method, bci }
    } else if let Some(body) = body.strip_prefix("is overridden by ") {
        let (method, target) = split_id_tag(number, text, body)?;
        NodeKind::OverriddenBy { method, target }
    } else if let Some(entry) = rest.strip_prefix("entry ") {
        return parse_entry(number, text, &prefix, entry);
    } else if let Some(body) = body.strip_prefix("interfacially calls ") {
        let (method, bci) = split_bci(number, text, body)?;
        NodeKind::InterfaceCall { method, bci }
    } else if let Some(body) = body.strip_prefix("is implemented by ") {
        let (method, target) = split_id_tag(number, text, body)?;
        NodeKind::ImplementedBy { method, target }
    } else {
        return Err(syntax(
            number,
            text,
            rest,
            "`entry`, `directly calls`, `virtually calls`, `interfacially calls`, `is overridden by` or `is implemented by`",
        ));
    };
    Ok(CallTreeLine::Node(Node {
        depth: prefix.depth,
        indent: prefix.indent,
        marker: prefix.marker,
        kind,
        trailing_space,
    }))
}

fn parse_entry<'a>(
    number: u64,
    text: &'a [u8],
    prefix: &cursor::Prefix<'a>,
    entry: &'a str,
) -> Result<CallTreeLine<'a>> {
    const REASON: &str = ", parsing reason:  ";
    let expected = "`<method> id=<N> ` or `<method> id=<N>, parsing reason:  <reason> `";
    let Some(at) = entry.find(" id=") else {
        return Err(syntax(number, text, entry, expected));
    };
    let method = entry.get(..at).unwrap_or_default();
    let after = entry.get(at + 4..).unwrap_or_default();
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let (id_text, tail) = after.split_at_checked(digits).unwrap_or_default();
    let Some(id) = cursor::parse_u64(id_text) else {
        return Err(syntax(number, text, after, "a decimal id after `id=`"));
    };
    let (reason, trailing_space) = if let Some(reason) = tail.strip_prefix(REASON) {
        match reason.strip_suffix(' ') {
            Some(reason) => (Some(reason), true),
            None => (Some(reason), false),
        }
    } else if tail == " " {
        (None, true)
    } else if tail.is_empty() {
        (None, false)
    } else {
        return Err(syntax(
            number,
            text,
            tail,
            "` ` or `, parsing reason:  ` after the id",
        ));
    };
    if method.is_empty() {
        return Err(syntax(number, text, entry, expected));
    }
    Ok(CallTreeLine::Node(Node {
        depth: prefix.depth,
        indent: prefix.indent,
        marker: prefix.marker,
        kind: NodeKind::Entry { method, id, reason },
        trailing_space,
    }))
}

/// Splits `<method> @bci=<B>`.
fn split_bci<'a>(number: u64, text: &[u8], body: &'a str) -> Result<(&'a str, BciList)> {
    let split = body.rfind(' ').and_then(|space| {
        let bci_text = body.get(space + 1..)?.strip_prefix("@bci=")?;
        Some((body.get(..space)?, bci_text))
    });
    let Some((left, bci_text)) = split else {
        return Err(syntax(number, text, body, "`<method> … @bci=<bci>`"));
    };
    let Some(bci) = BciList::parse(bci_text) else {
        return Err(syntax(
            number,
            text,
            bci_text,
            "a BCI list `<bci>-><bci>…` after `@bci=`",
        ));
    };
    if left.is_empty() {
        return Err(syntax(number, text, body, "a method before `@bci=`"));
    }
    Ok((left, bci))
}

/// Splits `<method> id=<N>` / `<method> id-ref=<N>`.
fn split_id_tag<'a>(number: u64, text: &[u8], body: &'a str) -> Result<(&'a str, IdTag)> {
    let expected = "`<method> id=<N>` or `<method> id-ref=<N>`";
    let Some(space) = body.rfind(' ') else {
        return Err(syntax(number, text, body, expected));
    };
    let method = body.get(..space).unwrap_or_default();
    let token = body.get(space + 1..).unwrap_or_default();
    match IdTag::parse(token) {
        Some(tag) if !method.is_empty() => Ok((method, tag)),
        _ => Err(syntax(number, text, token, expected)),
    }
}

/// What a call tree report (or a fragment of one) starts with.
const FIRST_LINE: &str = "`VM Entry Points` or a tree line";

/// A lazy, fallible iterator over the lines of a call tree TXT report (or a fragment of one).
///
/// An empty input, and an input that ends inside a line (without the line break the printers
/// end every line with: a report cut off), are errors with the line and column where it ended.
///
/// ```
/// use pointsto::call_tree::txt::{CallTreeLine, NodeKind, Reader};
/// let text = "VM Entry Points\n└── entry a.B.main():void id=0 \n\n";
/// let mut reader = Reader::new(text);
/// assert_eq!(reader.next_line().unwrap(), Some(CallTreeLine::Header));
/// let Some(CallTreeLine::Node(node)) = reader.next_line().unwrap() else { panic!() };
/// assert!(matches!(node.kind, NodeKind::Entry { id: 0, .. }));
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    lines: ParsedLines<'a>,
}

impl<'a> Reader<'a> {
    /// A reader over report text.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Self::from_bytes(text.as_bytes())
    }

    /// A reader over report bytes; each line is checked to be UTF-8 when read.
    #[must_use]
    pub fn from_bytes(bytes: &'a [u8]) -> Self {
        Self {
            lines: ParsedLines::new(bytes, FIRST_LINE),
        }
    }

    /// The next line, `Ok(None)` at the end.
    pub fn next_line(&mut self) -> Result<Option<CallTreeLine<'a>>> {
        match self.next() {
            Some(Ok(line)) => Ok(Some(line.1)),
            Some(Err(error)) => Err(error),
            None => Ok(None),
        }
    }

    /// The 1-based number of the line returned last.
    #[must_use]
    pub fn line_number(&self) -> u64 {
        self.lines.line_number()
    }
}

impl<'a> Iterator for Reader<'a> {
    /// The line's 1-based number and the line.
    type Item = Result<(u64, CallTreeLine<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        self.lines.next_with(parse_line_bytes)
    }
}

/// Writes one line exactly as parsed (indentation verbatim), without a line break.
pub fn write_line(out: &mut String, line: &CallTreeLine<'_>) {
    match line {
        CallTreeLine::Header => out.push_str(HEADER),
        CallTreeLine::Continuation(text) => out.push_str(text),
        CallTreeLine::Empty => {}
        CallTreeLine::Node(node) => {
            node.indent.write_to(out);
            out.push_str(cursor::marker_str(node.marker));
            write_node_body(out, &node.kind, node.trailing_space);
        }
    }
}

/// Appends a decimal number without going through `fmt`.
pub(crate) fn push_u64(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        if let Some(d) = digits.get_mut(start) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || start == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(digits.get(start..).unwrap_or_default()).unwrap_or_default());
}

fn push_i32(out: &mut String, n: i32) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, u64::from(n.unsigned_abs()));
}

/// Appends ` @bci=<b0>-><b1>…`.
fn push_bci(out: &mut String, bci: &BciList) {
    out.push_str(" @bci=");
    push_i32(out, bci.first);
    for &caller in &bci.callers {
        out.push_str("->");
        push_i32(out, caller);
    }
}

/// Writes what follows the marker.
pub(crate) fn write_node_body(out: &mut String, kind: &NodeKind<'_>, trailing_space: bool) {
    match kind {
        NodeKind::Entry { method, id, reason } => {
            out.push_str("entry ");
            out.push_str(method);
            out.push_str(" id=");
            push_u64(out, *id);
            if let Some(reason) = reason {
                out.push_str(", parsing reason:  ");
                out.push_str(reason);
            }
        }
        NodeKind::DirectCall {
            method,
            target,
            bci,
        } => {
            out.push_str("directly calls ");
            out.push_str(method);
            write_tag(out, *target);
            push_bci(out, bci);
        }
        NodeKind::VirtualCall { method, bci } => {
            out.push_str("virtually calls ");
            out.push_str(method);
            push_bci(out, bci);
        }
        NodeKind::InterfaceCall { method, bci } => {
            out.push_str("interfacially calls ");
            out.push_str(method);
            push_bci(out, bci);
        }
        NodeKind::OverriddenBy { method, target } => {
            out.push_str("is overridden by ");
            out.push_str(method);
            write_tag(out, *target);
        }
        NodeKind::ImplementedBy { method, target } => {
            out.push_str("is implemented by ");
            out.push_str(method);
            write_tag(out, *target);
        }
    }
    if trailing_space {
        out.push(' ');
    }
}

fn write_tag(out: &mut String, tag: IdTag) {
    let (text, id) = match tag {
        IdTag::Id(id) => (" id=", id),
        IdTag::IdRef(id) => (" id-ref=", id),
    };
    out.push_str(text);
    push_u64(out, id);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str) -> Node<'_> {
        match parse_line(1, text).unwrap() {
            CallTreeLine::Node(node) => node,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_line_kind() {
        let n = node(
            "├── entry app:a.B.main(java.lang.String[]):void id=3, parsing reason:  root method ",
        );
        assert_eq!(
            n.kind,
            NodeKind::Entry {
                method: "app:a.B.main(java.lang.String[]):void",
                id: 3,
                reason: Some("root method")
            }
        );
        assert!(n.trailing_space);
        let n = node("│   └── directly calls a.B.c(int, long):void id-ref=12 @bci=4->-1 ");
        assert_eq!(n.depth, 1);
        assert_eq!(
            n.kind,
            NodeKind::DirectCall {
                method: "a.B.c(int, long):void",
                target: IdTag::IdRef(12),
                bci: BciList {
                    first: 4,
                    callers: vec![-1]
                }
            }
        );
        let n = node("    ├── virtually calls a.B.v():int @bci=7");
        assert!(!n.trailing_space);
        assert!(matches!(
            n.kind,
            NodeKind::VirtualCall {
                method: "a.B.v():int",
                ..
            }
        ));
        let n = node("?   ??? is implemented by a.C.v():int id=9 ");
        assert_eq!(
            n.kind,
            NodeKind::ImplementedBy {
                method: "a.C.v():int",
                target: IdTag::Id(9)
            }
        );
        assert_eq!(
            parse_line(1, "at x.Y.z(Y.java:3) [bci: 4] ").unwrap(),
            CallTreeLine::Continuation("at x.Y.z(Y.java:3) [bci: 4] ")
        );
    }

    #[test]
    fn numbers_are_written_plainly() {
        for n in [0, 7, 10, 1_234_567, u64::MAX] {
            let mut out = String::new();
            push_u64(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        for n in [i32::MIN, -6, 0, i32::MAX] {
            let mut out = String::new();
            push_i32(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn errors_say_where() {
        let err = parse_line(7, "│   └── directly calls a.B.c():void id=x @bci=1 ").unwrap_err();
        assert!(
            matches!(
                err,
                Error::Syntax {
                    line: 7,
                    column: 45,
                    ..
                }
            ),
            "{err}"
        );
        assert!(parse_line(1, "└── sometimes calls x").is_err());
        assert!(parse_line(1, "└── entry a.B.c():void id=1x").is_err());
        assert!(parse_line(1, "└── virtually calls a.B.c():void @bci=").is_err());
    }
}
