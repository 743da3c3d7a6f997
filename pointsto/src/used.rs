//! The `used_methods`, `used_classes` and `used_packages` lists written beside every call tree
//! (`iprof-pointsto.md` §2.4): one item per line, sorted, no header; `<loader>:` prefixes and
//! qualified method parameters since 24.2.

use crate::cursor::Lines;
use crate::error::{Error, Result, quote};
use crate::signature::{MethodSignature, split_loader_prefix};

/// One `used_classes` / `used_packages` item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UsedName<'a> {
    /// The class loader (24.2+).
    pub loader: Option<&'a str>,
    /// The class or package name.
    pub name: &'a str,
}

fn lines(bytes: &[u8]) -> Result<impl Iterator<Item = crate::cursor::Line<'_>>> {
    Ok(Lines::from_bytes(bytes)?.filter(|line| !line.text.is_empty()))
}

/// Reads a `used_methods` list.
///
/// ```
/// let list = pointsto::used::methods(b"app:a.B.c(int):void\nnull:java.lang.Object.<init>():void\n")?;
/// assert_eq!(list[1].name, "<init>");
/// # Ok::<(), pointsto::Error>(())
/// ```
pub fn methods(bytes: &[u8]) -> Result<Vec<MethodSignature<'_>>> {
    lines(bytes)?
        .map(|line| {
            MethodSignature::parse(line.text).ok_or_else(|| Error::Syntax {
                line: line.number,
                column: 1,
                expected: "a method `[<loader>:]Holder.name(params)[:ret]`",
                found: quote(line.text),
            })
        })
        .collect()
}

/// Reads a `used_classes` or `used_packages` list.
pub fn names(bytes: &[u8]) -> Result<Vec<UsedName<'_>>> {
    Ok(lines(bytes)?
        .map(|line| {
            let (loader, name) = split_loader_prefix(line.text);
            UsedName { loader, name }
        })
        .collect())
}
