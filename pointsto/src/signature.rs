//! Method, field and class strings as the reports print them: `<loader>:Holder.name(p1, p2):ret`
//! (`points-to-analysis-reports.ja.txt`, `<qualified-holder>.<method-name>(<qualified-parameters>):
//! <qualified-return-type>`; loader prefixes and their detection rules: `iprof-pointsto.md` §2.2).

/// A parsed method string: `[<loader>:]<holder>.<name>(<parameters>)[:<return type>]`.
///
/// Borrowed from the report text. The return type is absent in the object tree's method roots
/// and in old `used_methods` files, which print `%H.%n(%p)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MethodSignature<'a> {
    /// The class loader name (`app`, `null`, `platform`, `app->app`), present since 24.2.
    pub loader: Option<&'a str>,
    /// The declaring class, fully qualified (`java.lang.String`, `Foo$$Lambda/0x…`).
    pub holder: &'a str,
    /// The method name (`<init>`, `lambda$main$0`).
    pub name: &'a str,
    /// The parameter list as printed between the parentheses.
    pub parameters: &'a str,
    /// The return type, if printed.
    pub return_type: Option<&'a str>,
}

impl<'a> MethodSignature<'a> {
    /// Parses a method string; `None` when it has no `holder.name(...)` shape.
    ///
    /// ```
    /// use pointsto::signature::MethodSignature;
    /// let m = MethodSignature::parse("app:com.Foo.bar(int, java.lang.String[]):void").unwrap();
    /// assert_eq!(m.loader, Some("app"));
    /// assert_eq!((m.holder, m.name, m.return_type), ("com.Foo", "bar", Some("void")));
    /// assert_eq!(m.parameter_types().collect::<Vec<_>>(), ["int", "java.lang.String[]"]);
    /// ```
    #[must_use]
    pub fn parse(text: &'a str) -> Option<Self> {
        let open = text.find('(')?;
        let head = text.get(..open)?;
        let after = text.get(open + 1..)?;
        let close = after.find(')')?;
        let parameters = after.get(..close)?;
        let tail = after.get(close + 1..)?;
        let return_type = if tail.is_empty() {
            None
        } else {
            Some(tail.strip_prefix(':').filter(|r| !r.is_empty())?)
        };
        // A loader prefix is present iff the text before `(` contains a `:`.
        let (loader, qualified) = match head.rfind(':') {
            Some(colon) => (Some(head.get(..colon)?), head.get(colon + 1..)?),
            None => (None, head),
        };
        let dot = qualified.rfind('.')?;
        let holder = qualified.get(..dot)?;
        let name = qualified.get(dot + 1..)?;
        if holder.is_empty() || name.is_empty() {
            return None;
        }
        Some(Self {
            loader,
            holder,
            name,
            parameters,
            return_type,
        })
    }

    /// The parameter types: the printed list split on `", "`; empty for `()`.
    pub fn parameter_types(&self) -> impl Iterator<Item = &'a str> + 'a {
        let list = self.parameters;
        list.split(", ").filter(move |_| !list.is_empty())
    }

    /// The signature without its loader prefix, as `Holder.name(params)[:ret]`.
    #[must_use]
    pub fn without_loader(&self) -> String {
        let mut text = format!("{}.{}({})", self.holder, self.name, self.parameters);
        if let Some(ret) = self.return_type {
            text.push(':');
            text.push_str(ret);
        }
        text
    }

    /// The class loader split into its host and run-time parts (`a->b`, 25.1+); both parts are
    /// the same name when the loader has no `->`.
    #[must_use]
    pub fn loader_parts(&self) -> Option<(&'a str, &'a str)> {
        self.loader.map(split_loader)
    }
}

/// Splits a loader name `<host>-><runtime>` (25.1+); a plain name is both.
#[must_use]
pub fn split_loader(loader: &str) -> (&str, &str) {
    loader.split_once("->").unwrap_or((loader, loader))
}

/// A parsed field string: `[<loader>:]<holder>.<name>:<declared type>` (object-tree roots) or
/// `<name>:<declared type>` (object-tree fields, `holder` empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FieldSignature<'a> {
    /// The class loader name, present since 24.2 on roots.
    pub loader: Option<&'a str>,
    /// The declaring class; empty for non-root fields, which print no holder.
    pub holder: &'a str,
    /// The field name.
    pub name: &'a str,
    /// The declared type, fully qualified.
    pub declared_type: &'a str,
}

impl<'a> FieldSignature<'a> {
    /// Parses a static-field root string `[<loader>:]Holder.name:Type`.
    ///
    /// ```
    /// use pointsto::signature::FieldSignature;
    /// let f = FieldSignature::parse_root("null:java.lang.Integer$IntegerCache.cache:java.lang.Integer[]").unwrap();
    /// assert_eq!((f.loader, f.holder, f.name), (Some("null"), "java.lang.Integer$IntegerCache", "cache"));
    /// ```
    #[must_use]
    pub fn parse_root(text: &'a str) -> Option<Self> {
        let (head, declared_type) = text.rsplit_once(':')?;
        let (loader, qualified) = match head.rsplit_once(':') {
            Some((loader, rest)) => (Some(loader), rest),
            None => (None, head),
        };
        let (holder, name) = qualified.rsplit_once('.')?;
        if holder.is_empty() || name.is_empty() || declared_type.is_empty() {
            return None;
        }
        Some(Self {
            loader,
            holder,
            name,
            declared_type,
        })
    }

    /// Parses a non-root field string `name:Type`.
    #[must_use]
    pub fn parse_field(text: &'a str) -> Option<Self> {
        let (name, declared_type) = text.split_once(':')?;
        if name.is_empty() || declared_type.is_empty() {
            return None;
        }
        Some(Self {
            loader: None,
            holder: "",
            name,
            declared_type,
        })
    }
}

/// A `used_classes` / `used_packages` line: `[<loader>:]<name>` (loader since 24.2).
#[must_use]
pub fn split_loader_prefix(text: &str) -> (Option<&str>, &str) {
    match text.rsplit_once(':') {
        Some((loader, name)) => (Some(loader), name),
        None => (None, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        let m = MethodSignature::parse("com.Foo$$Lambda/0x0000000800c01234.run():void").unwrap();
        assert_eq!(
            (m.loader, m.holder, m.name),
            (None, "com.Foo$$Lambda/0x0000000800c01234", "run")
        );
        assert_eq!(m.parameter_types().count(), 0);
        let m = MethodSignature::parse("app->jdk.internal.loader.Loader:a.B.<init>(int)").unwrap();
        assert_eq!(
            m.loader_parts(),
            Some(("app", "jdk.internal.loader.Loader"))
        );
        assert_eq!((m.name, m.return_type), ("<init>", None));
        assert_eq!(m.without_loader(), "a.B.<init>(int)");
        assert!(MethodSignature::parse("nodot(int):void").is_none());
        assert!(MethodSignature::parse("a.b(int):").is_none());
        assert!(MethodSignature::parse("a.b(int)x").is_none());
        let f = FieldSignature::parse_field("value:byte[]").unwrap();
        assert_eq!((f.name, f.declared_type), ("value", "byte[]"));
        assert!(FieldSignature::parse_root("a:b").is_none());
        assert_eq!(
            split_loader_prefix("app:java.util"),
            (Some("app"), "java.util")
        );
    }
}
