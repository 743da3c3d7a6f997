//! Name resolution (iprof format document, "Types" and "Methods"): ids to type names, method
//! names with their signature (`Fib.fibonacci()`, `java.io.PrintStream.print(java.lang.String)`),
//! and contexts rendered with names.
//!
//! Lookups go through an [`IndexMap`] built once per profile; ids are sparse and unordered.
//! Ids that resolve to nothing (stubbed metadata, dangling references) render as
//! `<type 5>` / `<method 7>` instead of failing.

use std::borrow::Cow;
use std::fmt;

use indexmap::IndexMap;

use crate::model::{Ctx, Method, Profile};

/// The id → name index of one profile.
#[derive(Debug, Clone)]
pub struct Names<'p> {
    types: IndexMap<i64, TypeNames<'p>>,
    methods: IndexMap<i64, &'p Method<'p>>,
}

/// A type's name as in the file and in Java source form, rendered once per type so that a
/// long name used by many signatures and frames is not re-scanned at every use.
#[derive(Debug, Clone)]
struct TypeNames<'p> {
    /// The name as in the file (`[Ljava.lang.String;`).
    raw: &'p str,
    /// The Java source form (`java.lang.String[]`).
    java: Cow<'p, str>,
    /// Where the simple name (`String[]`) starts in `java`.
    simple_start: usize,
}

impl<'p> TypeNames<'p> {
    fn new(raw: &'p str) -> Self {
        let java = java_type_name(raw);
        let simple_start = java.len().saturating_sub(simple_name(&java).len());
        TypeNames {
            raw,
            java,
            simple_start,
        }
    }

    fn simple(&self) -> &str {
        self.java.get(self.simple_start..).unwrap_or(&self.java)
    }
}

impl<'a> Profile<'a> {
    /// The id → name index of this profile (first definition wins for duplicate ids).
    pub fn names(&self) -> Names<'_> {
        Names::new(self)
    }
}

impl<'p> Names<'p> {
    /// Indexes `profile`'s types and methods by id.
    pub fn new(profile: &'p Profile<'_>) -> Self {
        let mut types = IndexMap::with_capacity(profile.types.len());
        for t in &profile.types {
            types.entry(t.id).or_insert_with(|| TypeNames::new(&t.name));
        }
        let mut methods: IndexMap<i64, &'p Method<'p>> =
            IndexMap::with_capacity(profile.methods.len());
        for m in &profile.methods {
            methods.entry(m.id).or_insert(m);
        }
        Names { types, methods }
    }

    /// The `Class.getName()` name of type `id` (`[Ljava.lang.String;`).
    pub fn type_name(&self, id: impl Into<i64>) -> Option<&'p str> {
        self.types.get(&id.into()).map(|t| t.raw)
    }

    /// The method with this id.
    pub fn method_entry(&self, id: impl Into<i64>) -> Option<&'p Method<'p>> {
        self.methods.get(&id.into()).copied()
    }

    /// The method with this id, ready to be displayed.
    pub fn method(&self, id: impl Into<i64>) -> Option<MethodName<'_, 'p>> {
        self.method_entry(id).map(|method| MethodName {
            names: self,
            method,
        })
    }

    /// The number of distinct type ids.
    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    /// The number of distinct method ids.
    pub fn method_count(&self) -> usize {
        self.methods.len()
    }

    /// The short name of method `id` (`Fib.fibonacci()`), or `<method id>` if it is unknown.
    pub fn short_method(&self, id: impl Into<i64>) -> String {
        let id = id.into();
        match self.method(id) {
            Some(m) => m.short().to_string(),
            None => format!("<method {id}>"),
        }
    }

    /// The fully qualified name of method `id`, or `<method id>` if it is unknown.
    pub fn qualified_method(&self, id: impl Into<i64>) -> String {
        let id = id.into();
        match self.method(id) {
            Some(m) => m.qualified().to_string(),
            None => format!("<method {id}>"),
        }
    }

    /// `ctx` with names: `String.valueOf(Object):11 < PrintStream.print(String):2 < …`,
    /// innermost first, short method names.
    pub fn context<'c>(&'c self, ctx: &'c Ctx<'_>) -> ContextNames<'c, 'p> {
        ContextNames {
            names: self,
            ctx,
            qualified: false,
        }
    }

    /// Like [`Names::context`], with fully qualified method names.
    pub fn qualified_context<'c>(&'c self, ctx: &'c Ctx<'_>) -> ContextNames<'c, 'p> {
        ContextNames {
            names: self,
            ctx,
            qualified: true,
        }
    }

    fn write_type(
        &self,
        f: &mut fmt::Formatter<'_>,
        id: Option<i64>,
        qualified: bool,
    ) -> fmt::Result {
        match id.and_then(|id| self.types.get(&id)) {
            Some(t) => f.write_str(if qualified { &t.java } else { t.simple() }),
            None => match id {
                Some(id) => write!(f, "<type {id}>"),
                None => f.write_str("<no type>"),
            },
        }
    }
}

/// A method with its profile's names, for display.
#[derive(Debug, Clone, Copy)]
pub struct MethodName<'n, 'p> {
    names: &'n Names<'p>,
    method: &'p Method<'p>,
}

impl<'n, 'p> MethodName<'n, 'p> {
    /// The method entry.
    pub fn method(&self) -> &'p Method<'p> {
        self.method
    }

    /// The declaring type's name as in the file (`Class.getName()` form).
    pub fn declaring_type(&self) -> Option<&'p str> {
        self.method
            .declaring_type()
            .and_then(|id| self.names.type_name(id))
    }

    /// `Fib.fibonacci()`, `String.valueOf(Object)`: simple type names.
    pub fn short(&self) -> impl fmt::Display + 'n
    where
        'p: 'n,
    {
        Rendered {
            name: *self,
            qualified: false,
        }
    }

    /// `java.lang.String.valueOf(java.lang.Object)`: fully qualified type names.
    pub fn qualified(&self) -> impl fmt::Display + 'n
    where
        'p: 'n,
    {
        Rendered {
            name: *self,
            qualified: true,
        }
    }
}

struct Rendered<'n, 'p> {
    name: MethodName<'n, 'p>,
    qualified: bool,
}

impl fmt::Display for Rendered<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let MethodName { names, method } = self.name;
        names.write_type(f, method.declaring_type(), self.qualified)?;
        write!(f, ".{}(", method.name)?;
        for (i, &p) in method.parameter_types().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            names.write_type(f, Some(p), self.qualified)?;
        }
        f.write_str(")")
    }
}

/// A context rendered with method names, innermost first (see [`Names::context`]).
#[derive(Debug, Clone, Copy)]
pub struct ContextNames<'c, 'p> {
    names: &'c Names<'p>,
    ctx: &'c Ctx<'c>,
    qualified: bool,
}

impl fmt::Display for ContextNames<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, frame) in self.ctx.frames().enumerate() {
            if i > 0 {
                f.write_str(" < ")?;
            }
            match self.names.method(i64::from(frame.method)) {
                Some(m) if self.qualified => write!(f, "{}", m.qualified())?,
                Some(m) => write!(f, "{}", m.short())?,
                None => write!(f, "<method {}>", frame.method)?,
            }
            write!(f, ":{}", frame.bci)?;
        }
        Ok(())
    }
}

/// A `Class.getName()` type name in Java source form: `[Ljava.lang.String;` →
/// `java.lang.String[]`, `[[I` → `int[][]`; other names unchanged.
pub fn java_type_name(name: &str) -> Cow<'_, str> {
    let dims = name.bytes().take_while(|&b| b == b'[').count();
    if dims == 0 {
        return Cow::Borrowed(name);
    }
    let element = name.get(dims..).unwrap_or("");
    let base = match element {
        "Z" => "boolean",
        "B" => "byte",
        "C" => "char",
        "S" => "short",
        "I" => "int",
        "J" => "long",
        "F" => "float",
        "D" => "double",
        _ => match element.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
            Some(class) if !class.is_empty() => class,
            _ => return Cow::Borrowed(name),
        },
    };
    let mut out = String::with_capacity(base.len() + 2 * dims);
    out.push_str(base);
    for _ in 0..dims {
        out.push_str("[]");
    }
    Cow::Owned(out)
}

/// The name without its package: `java.util.Map$Entry[]` → `Map$Entry[]`.
pub fn simple_name(java_name: &str) -> &str {
    // Hidden classes (`Foo$$Lambda/0x…`) have a '/' after the last '.'; strip before it.
    let search_end = java_name.find('/').unwrap_or(java_name.len());
    let head = java_name.get(..search_end).unwrap_or(java_name);
    match head.rfind('.') {
        Some(dot) => java_name.get(dot + 1..).unwrap_or(java_name),
        None => java_name,
    }
}
