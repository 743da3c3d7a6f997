//! The name tables of a dump: `UTF8` strings by id, and class names from `LOAD_CLASS` records
//! (`hprof.md` §1.3), in the file's form (`java/lang/String`, `[I`) and in Java source form
//! (`java.lang.String`, `int[]`). The index, the object graph, the histogram and the columnar
//! export all name classes through [`ClassNames`].

use super::hash::IdMap;
use super::records::Record;
use super::types::Id;

/// Where a [`ClassNames`] keeps the bytes of its strings.
pub trait StringStore<'a>: Default {
    /// Keeps the string `id` (a later string with the same id replaces it).
    fn insert(&mut self, id: Id, bytes: &'a [u8]);
    /// The bytes of string `id`.
    fn lookup(&self, id: Id) -> Option<&[u8]>;
}

/// Strings borrowed from the input (an index over a dump held in memory).
#[derive(Debug, Clone, Default)]
pub struct BorrowedStrings<'a> {
    strings: IdMap<&'a [u8]>,
}

impl<'a> BorrowedStrings<'a> {
    /// The bytes of string `id`, borrowed from the input.
    #[inline]
    pub fn get(&self, id: Id) -> Option<&'a [u8]> {
        self.strings.get(&id).copied()
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether there is no string.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}

impl<'a> StringStore<'a> for BorrowedStrings<'a> {
    #[inline]
    fn insert(&mut self, id: Id, bytes: &'a [u8]) {
        self.strings.insert(id, bytes);
    }

    #[inline]
    fn lookup(&self, id: Id) -> Option<&[u8]> {
        self.get(id)
    }
}

/// Strings copied out of the input, so they outlive the buffer of an incremental decoder:
/// every string's bytes one after another (one allocation for all, not one each).
#[derive(Debug, Clone, Default)]
pub struct OwnedStrings {
    bytes: Vec<u8>,
    /// String id → `(start, end)` of its bytes in `bytes`.
    spans: IdMap<(usize, usize)>,
}

impl StringStore<'_> for OwnedStrings {
    fn insert(&mut self, id: Id, bytes: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        self.spans.insert(id, (start, self.bytes.len()));
    }

    #[inline]
    fn lookup(&self, id: Id) -> Option<&[u8]> {
        let &(start, end) = self.spans.get(&id)?;
        self.bytes.get(start..end)
    }
}

/// Class names gathered from `UTF8` and `LOAD_CLASS` records: the strings (owned by default,
/// or [`BorrowedStrings`] from a dump held in memory) and each class's name id.
#[derive(Debug, Clone, Default)]
pub struct ClassNames<S = OwnedStrings> {
    strings: S,
    class_name_ids: IdMap<Id>,
}

impl ClassNames {
    /// An empty table that copies its strings.
    pub fn new() -> ClassNames {
        ClassNames::default()
    }

    /// Records every string and class of `other` (its entries win over equal ids here).
    pub(crate) fn extend(&mut self, other: &ClassNames) {
        for (&id, &(start, end)) in &other.strings.spans {
            self.add_string(id, other.strings.bytes.get(start..end).unwrap_or_default());
        }
        self.class_name_ids.extend(&other.class_name_ids);
    }
}

impl<'a> ClassNames<BorrowedStrings<'a>> {
    /// An empty table whose strings borrow from the input.
    pub fn borrowing() -> ClassNames<BorrowedStrings<'a>> {
        ClassNames::default()
    }
}

impl<'a, S: StringStore<'a>> ClassNames<S> {
    /// Records a `UTF8` string.
    #[inline]
    pub fn add_string(&mut self, id: Id, bytes: &'a [u8]) {
        self.strings.insert(id, bytes);
    }

    /// Records a `LOAD_CLASS`.
    #[inline]
    pub fn add_class(&mut self, class_id: Id, name_id: Id) {
        self.class_name_ids.insert(class_id, name_id);
    }

    /// Takes `UTF8` and `LOAD_CLASS` records; ignores the others.
    pub fn add_record(&mut self, record: &Record<'a>) {
        match record {
            Record::Utf8(u) => self.add_string(u.id, u.bytes),
            Record::LoadClass(l) => self.add_class(l.class_id, l.name_id),
            _ => {}
        }
    }

    /// The strings.
    pub fn strings(&self) -> &S {
        &self.strings
    }

    /// The string with this id.
    #[inline]
    pub fn string(&self, id: Id) -> Option<&[u8]> {
        self.strings.lookup(id)
    }

    /// The id of the `UTF8` string naming class `class_id`.
    pub fn name_id(&self, class_id: Id) -> Option<Id> {
        self.class_name_ids.get(&class_id).copied()
    }

    /// The raw name of a class as written in the file (`java/lang/String`, `[I`).
    pub fn raw_name(&self, class_id: Id) -> Option<&[u8]> {
        self.string(self.name_id(class_id)?)
    }

    /// The class name in Java source form (`java.lang.String`, `int[]`), when the dump
    /// names the class.
    pub fn class_name(&self, class_id: Id) -> Option<String> {
        let raw = self.raw_name(class_id)?;
        Some(java_class_name(&String::from_utf8_lossy(raw)))
    }

    /// The class name in Java source form, or `<unknown class 0x…>`.
    pub fn java_name(&self, class_id: Id) -> String {
        self.class_name(class_id)
            .unwrap_or_else(|| format!("<unknown class 0x{class_id:x}>"))
    }

    /// Every class id with a name.
    pub fn class_ids(&self) -> impl Iterator<Item = Id> + '_ {
        self.class_name_ids.keys().copied()
    }

    /// Every `(class id, name id)` pair.
    pub fn class_name_ids(&self) -> impl Iterator<Item = (Id, Id)> + '_ {
        self.class_name_ids.iter().map(|(&c, &n)| (c, n))
    }
}

/// Converts a class name as written in dumps (`java/lang/String`, `[I`, `[[Ljava/lang/Object;`,
/// or the agent's dotted forms) to Java source form (`java.lang.String`, `int[]`,
/// `java.lang.Object[][]`).
pub fn java_class_name(raw: &str) -> String {
    let dims = raw.bytes().take_while(|&b| b == b'[').count();
    if dims == 0 {
        return raw.replace('/', ".");
    }
    let elem = raw.get(dims..).unwrap_or_default();
    let base = match elem {
        "Z" => "boolean".to_owned(),
        "C" => "char".to_owned(),
        "F" => "float".to_owned(),
        "D" => "double".to_owned(),
        "B" => "byte".to_owned(),
        "S" => "short".to_owned(),
        "I" => "int".to_owned(),
        "J" => "long".to_owned(),
        _ => {
            let e = elem.strip_prefix('L').unwrap_or(elem);
            let e = e.strip_suffix(';').unwrap_or(e);
            e.replace('/', ".")
        }
    };
    let mut s = base;
    for _ in 0..dims {
        s.push_str("[]");
    }
    s
}
