//! How a text report's tree is drawn and laid out: line endings, the tree-drawing charset,
//! markers, indentation, and the [`TextStyle`] a writer re-emits
//! (`points-to-analysis-reports.ja.txt`, "TXT形式"; `iprof-pointsto.md` §2.2).

/// The line separator a report was written with (`%n` is `\r\n` on Windows builders).
///
/// The same type, variants and methods as `hprof::ascii::LineEnding` (the crates share no
/// dependency, so each defines it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LineEnding {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The separator of the first line of `input` (LF when it has none).
    ///
    /// ```
    /// use pointsto::style::LineEnding;
    /// assert_eq!(LineEnding::from_input(b"a\r\nb\n"), LineEnding::CrLf);
    /// assert_eq!(LineEnding::from_input(b"a\nb\r\n"), LineEnding::Lf);
    /// assert_eq!(LineEnding::from_input(b"no break"), LineEnding::Lf);
    /// ```
    #[must_use]
    pub fn from_input(input: &[u8]) -> LineEnding {
        memchr::memchr(b'\n', input).map_or(LineEnding::Lf, |at| LineEnding::of_break(input, at))
    }

    /// The separator whose `\n` is at `input[newline]`: CRLF when a `\r` comes before it.
    #[inline]
    pub(crate) fn of_break(input: &[u8], newline: usize) -> LineEnding {
        match newline.checked_sub(1).and_then(|i| input.get(i)) {
            Some(b'\r') => LineEnding::CrLf,
            _ => LineEnding::Lf,
        }
    }

    /// The separator's text.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lf => "\n",
            Self::CrLf => "\r\n",
        }
    }
}

/// Which characters draw the tree: Unicode box drawing, or `?` where a builder with a
/// non-UTF-8 default charset replaced every box-drawing character (`oracle/graal#2657`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Charset {
    /// `├── `, `└── `, `│   `.
    #[default]
    BoxDrawing,
    /// `??? `, `??? `, `?   `.
    Mangled,
}

/// The marker that ends a tree prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Marker {
    /// `├── `: a child with later siblings.
    Child,
    /// `└── `: the last child.
    LastChild,
    /// `??? `: either, written by a non-UTF-8 builder.
    Mangled,
}

/// One 4-character indentation unit before a marker.
pub(crate) const UNIT_BAR: &str = "│   ";
/// An indentation unit below a last child.
pub(crate) const UNIT_SPACE: &str = "    ";
/// The mangled form of [`UNIT_BAR`].
pub(crate) const UNIT_BAR_MANGLED: &str = "?   ";
/// `├── `.
pub(crate) const MARK_CHILD: &str = "├── ";
/// `└── `.
pub(crate) const MARK_LAST: &str = "└── ";
/// `??? `.
pub(crate) const MARK_MANGLED: &str = "??? ";

/// One 4-character indentation unit before a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IndentUnit {
    /// `│   `: an ancestor with later siblings.
    Bar,
    /// Four spaces: an ancestor that was a last child.
    Space,
    /// `?   `: [`IndentUnit::Bar`] written by a non-UTF-8 builder.
    MangledBar,
}

impl IndentUnit {
    /// The unit's text.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bar => UNIT_BAR,
            Self::Space => UNIT_SPACE,
            Self::MangledBar => UNIT_BAR_MANGLED,
        }
    }
}

/// The indentation of a tree line, verbatim: a run of [`IndentUnit`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Indent<'a> {
    /// Only ever the bytes of whole units (checked by
    /// [`split_prefix`](crate::cursor::split_prefix)).
    pub(crate) bytes: &'a [u8],
}

impl<'a> Indent<'a> {
    /// The units, outermost first.
    pub fn units(&self) -> impl Iterator<Item = IndentUnit> + 'a {
        let mut rest = self.bytes;
        std::iter::from_fn(move || {
            let (unit, width) = match rest.first()? {
                b' ' => (IndentUnit::Space, 4),
                b'?' => (IndentUnit::MangledBar, 4),
                _ => (IndentUnit::Bar, UNIT_BAR.len()),
            };
            rest = rest.get(width..).unwrap_or_default();
            Some(unit)
        })
    }

    /// Appends the indentation's text to `out`.
    pub fn write_to(&self, out: &mut String) {
        for unit in self.units() {
            out.push_str(unit.as_str());
        }
    }

    /// The indentation's length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there is no indentation (depth 0).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The last unit (the one right before the marker).
    #[must_use]
    pub fn last(&self) -> Option<IndentUnit> {
        match self.bytes.last()? {
            _ if self.bytes.ends_with(UNIT_BAR.as_bytes()) => Some(IndentUnit::Bar),
            _ if self.bytes.ends_with(UNIT_BAR_MANGLED.as_bytes()) => Some(IndentUnit::MangledBar),
            _ => Some(IndentUnit::Space),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Indent<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut text = String::with_capacity(self.bytes.len());
        self.write_to(&mut text);
        serializer.serialize_str(&text)
    }
}

/// The text of a marker.
pub(crate) fn marker_str(marker: Marker) -> &'static str {
    match marker {
        Marker::Child => MARK_CHILD,
        Marker::LastChild => MARK_LAST,
        Marker::Mangled => MARK_MANGLED,
    }
}

/// Writes the indentation for a line whose ancestors (outermost first) are last children or not.
pub(crate) fn write_indent(out: &mut String, charset: Charset, ancestors_last: &[bool]) {
    for &last in ancestors_last {
        out.push_str(match (last, charset) {
            (true, _) => UNIT_SPACE,
            (false, Charset::BoxDrawing) => UNIT_BAR,
            (false, Charset::Mangled) => UNIT_BAR_MANGLED,
        });
    }
}

/// Writes a marker.
pub(crate) fn write_marker(out: &mut String, charset: Charset, last: bool) {
    out.push_str(match (charset, last) {
        (Charset::Mangled, _) => MARK_MANGLED,
        (Charset::BoxDrawing, false) => MARK_CHILD,
        (Charset::BoxDrawing, true) => MARK_LAST,
    });
}

/// Layout details of a text report that a writer needs to re-emit it byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TextStyle {
    /// The line separator.
    pub line_ending: LineEnding,
    /// The tree-drawing characters.
    pub charset: Charset,
    /// Empty lines after the last tree line (the printers write one).
    pub trailing_empty_lines: u32,
    /// Whether the last line ends with a line break.
    pub final_line_break: bool,
}

impl Default for TextStyle {
    fn default() -> Self {
        Self {
            line_ending: LineEnding::Lf,
            charset: Charset::BoxDrawing,
            trailing_empty_lines: 1,
            final_line_break: true,
        }
    }
}
