//! gprofng's naming rules: the pseudo-functions it shows (`<Total>`, `<Unknown>`,
//! `<Truncated-stack>` …), load objects in angle brackets, holes between symbols, objects it
//! cannot find, C++ names demangled as binutils prints them, and Java methods with their
//! argument types (gprofng `LoadObject::find_function`, `Function::get_name`,
//! `JMethod::get_name`).

use crate::elf::Elf;

/// gprofng's name for a PC no load object covers.
pub const UNKNOWN: &str = "<Unknown>";
/// gprofng's root frame of a stack the collector cut off.
pub const TRUNCATED_STACK: &str = "<Truncated-stack>";
/// gprofng's root frame of a native stack the collector could not unwind to its end.
pub const STACK_UNWIND_FAILED: &str = "<Stack-unwind-failed>";
/// gprofng's frame for samples of JVM threads without a Java stack.
pub const JVM_SYSTEM: &str = "<JVM-System>";
/// gprofng's frame for a Java stack AsyncGetCallTrace could not walk.
pub const NO_JAVA_CALLSTACK: &str = "<no Java callstack recorded>";
/// gprofng's row of the whole experiment.
pub const TOTAL: &str = "<Total>";

/// gprofng's name of a load object: its file name in angle brackets.
pub fn object_name(path: &str) -> String {
    format!("<{}>", path.rsplit('/').next().unwrap_or(path))
}

/// gprofng's name for a hole between function symbols (`LoadObject::find_function`): the hole
/// starts at the end of the function before it (0 before the first). gprofng's quirk is kept:
/// a hole just before the *last* function is named after that function's end.
pub fn static_name(elf: Option<&Elf>, address: u64, object: &str) -> (String, u64) {
    let funcs = elf.map(|e| e.functions.as_slice()).unwrap_or_default();
    let left = funcs.partition_point(|f| f.address <= address);
    let low = match (funcs.len().checked_sub(1), left) {
        (None, _) | (Some(_), 0) => 0,
        (Some(last), left) if left < last => funcs
            .get(left - 1)
            .map_or(0, |f| f.address.wrapping_add(f.size)),
        (Some(last), _) => funcs
            .get(last)
            .map_or(0, |f| f.address.wrapping_add(f.size)),
    };
    (
        format!("<static>@{low:#x} ({})", object_name(object)),
        address.wrapping_sub(low),
    )
}

/// gprofng's function for a PC of a load object it has no function symbols of (not archived
/// and not found, unreadable, or stripped bare), and the PC's offset in it. gprofng takes such
/// an object for one function covering the first `segment_size` bytes of the file, the size of
/// the mapping holding the PC, named `<static>@0x0 (<object>) --  no functions found`; a PC at
/// a file offset past that falls in the hole after it, `<static>@0xSIZE (<object>) --  no
/// functions found` (as [`static_name`] names a hole after the last function). So a library
/// whose code starts past its size reads `<static>@0x2d000 (<libgp-collector.so>)` (code mapped
/// at 0x47000, 0x2d000 bytes), a small program's `<static>@0x1000 (<prog>)`, and libc's
/// `<static>@0x0 (<libc.so.6>)` (code at 0x26000, 0x156000 bytes).
pub fn missing_object_name(segment_size: u64, file_offset: u64, object: &str) -> (String, u64) {
    let low = if file_offset < segment_size {
        0
    } else {
        segment_size
    };
    (
        format!(
            "<static>@{low:#x} ({}) --  no functions found",
            object_name(object)
        ),
        file_offset - low,
    )
}

/// The name gprofng shows for the ELF symbol `symbol` (`Function::set_name`): a globalization
/// prefix (`$X…` or `.X…` up to the first `.` after it) is dropped, and a name starting with `_`
/// is demangled with its parameter lists where it is a C++ (Itanium ABI) name, GCC's clone
/// suffixes printed the way binutils prints them (`_ZL8split_mei.part.0` is
/// `split_me(int) [clone .part.0]`); anything else (C names, `main.cold`, `foo.constprop.0`) is
/// shown as it is. Demangling needs the `demangle` feature (on by default); without it names
/// stay mangled.
pub fn function_name(symbol: &str) -> std::borrow::Cow<'_, str> {
    let name = match symbol.get(..2) {
        Some("$X" | ".X") => symbol
            .get(2..)
            .and_then(|rest| rest.split_once('.'))
            .map_or(symbol, |(_, n)| n),
        _ => symbol,
    };
    if name.starts_with('_') {
        if let Some(d) = demangle(name) {
            return std::borrow::Cow::Owned(d);
        }
    }
    std::borrow::Cow::Borrowed(name)
}

#[cfg(feature = "demangle")]
fn demangle(name: &str) -> Option<String> {
    let d = cpp_demangle::Symbol::new(name.as_bytes())
        .ok()?
        .demangle()
        .ok()?;
    Some(std_abbreviations(&d))
}

/// binutils without `DMGL_VERBOSE` (gprofng's `cplus_demangle(name, DMGL_PARAMS)`) prints the
/// standard substitutions `Ss`, `Si`, `So`, `Sd` as `std::string`, `std::istream`,
/// `std::ostream`, `std::iostream`, except as the class of a constructor or destructor;
/// `cpp_demangle` spells some of them out (and names `Dn` `std::nullptr_t` where binutils
/// prints `decltype(nullptr)`).
#[cfg(feature = "demangle")]
fn std_abbreviations(name: &str) -> String {
    const FULL: [(&str, &str, &str); 4] = [
        (
            "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
            "std::string",
            "basic_string",
        ),
        (
            "std::basic_istream<char, std::char_traits<char> >",
            "std::istream",
            "basic_istream",
        ),
        (
            "std::basic_ostream<char, std::char_traits<char> >",
            "std::ostream",
            "basic_ostream",
        ),
        (
            "std::basic_iostream<char, std::char_traits<char> >",
            "std::iostream",
            "basic_iostream",
        ),
    ];
    // `Dn`: binutils prints the type as written in the ABI.
    let mut out = name.replace("std::nullptr_t", "decltype(nullptr)");
    for (full, short, ctor) in FULL {
        // A constructor or destructor named after the short form (`std::ostream::ostream(`).
        let tail = short.strip_prefix("std::").unwrap_or(short);
        for tilde in ["", "~"] {
            for open in ["(", "<"] {
                let abbreviated = format!("{short}::{tilde}{tail}{open}");
                if out.contains(&abbreviated) {
                    out = out.replace(&abbreviated, &format!("{full}::{tilde}{ctor}{open}"));
                }
            }
        }
        if !out.contains(full) {
            continue;
        }
        let mut next = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(full) {
            next.push_str(rest.get(..at).unwrap_or_default());
            let after = rest.get(at + full.len()..).unwrap_or_default();
            let member = after
                .strip_prefix("::")
                .map(|m| m.strip_prefix('~').unwrap_or(m));
            let structor = member.is_some_and(|m| {
                m.strip_prefix(ctor)
                    .is_some_and(|r| r.starts_with('(') || r.starts_with('<') || r.starts_with(' '))
            });
            next.push_str(if structor { full } else { short });
            rest = after;
        }
        next.push_str(rest);
        out = next;
    }
    out
}

#[cfg(not(feature = "demangle"))]
fn demangle(_: &str) -> Option<String> {
    None
}

/// A Java method as gprofng names it: `pkg.Class.method(type, type[])` from the JVM signature
/// `(Ltype;[I)V` (`$` of nested classes kept).
pub fn java_method_name(class: &str, method: &str, signature: &str) -> String {
    let mut out = format!("{class}.{method}(");
    let args = signature
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .unwrap_or_default();
    let mut b = args.bytes().peekable();
    let mut first = true;
    while b.peek().is_some() {
        let mut dims = 0;
        while b.peek() == Some(&b'[') {
            dims += 1;
            b.next();
        }
        let ty: String = match b.next() {
            Some(b'L') => {
                let name: Vec<u8> = b.by_ref().take_while(|&c| c != b';').collect();
                String::from_utf8_lossy(&name).replace('/', ".")
            }
            Some(b'I') => "int".into(),
            Some(b'J') => "long".into(),
            Some(b'Z') => "boolean".into(),
            Some(b'B') => "byte".into(),
            Some(b'C') => "char".into(),
            Some(b'S') => "short".into(),
            Some(b'F') => "float".into(),
            Some(b'D') => "double".into(),
            Some(b'V') => "void".into(),
            Some(c) => char::from(c).to_string(),
            None => break,
        };
        if !first {
            out.push_str(", ");
        }
        first = false;
        out.push_str(&ty);
        for _ in 0..dims {
            out.push_str("[]");
        }
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::function_name;

    #[test]
    fn symbol_names_as_gprofng_shows_them() {
        // C names, GCC's parts and clones of C functions: as they are.
        for c in [
            "main",
            "main.cold",
            "foo.part.0",
            "foo.constprop.0",
            "foo.isra.0",
            "_init",
        ] {
            assert_eq!(function_name(c), c);
        }
        // Sun compilers' globalization prefix.
        assert_eq!(function_name("$XAqBaKx8Lm0gm.counter"), "counter");
        assert_eq!(function_name(".XAqBaKx8Lm0gm.counter"), "counter");
        #[cfg(feature = "demangle")]
        {
            assert_eq!(function_name("_Z3fooi.cold"), "foo(int) [clone .cold]");
            assert_eq!(
                function_name("_ZL9by_configPK6Config.constprop.0.isra.0"),
                "by_config(Config const*) [clone .constprop.0] [clone .isra.0]"
            );
            assert_eq!(
                function_name("_ZNK4geom3BoxIdE4growEi"),
                "geom::Box<double>::grow(int) const"
            );
            // binutils' non-verbose standard substitutions (checked with `c++filt -i`).
            assert_eq!(function_name("_ZNSi6ignoreEv"), "std::istream::ignore()");
            assert_eq!(
                function_name("_ZNSs4swapERSs"),
                "std::string::swap(std::string&)"
            );
            assert_eq!(
                function_name("_ZNSoC1ERSd"),
                "std::basic_ostream<char, std::char_traits<char> >::basic_ostream(std::iostream&)"
            );
            assert_eq!(
                function_name("_ZNSiD0Ev"),
                "std::basic_istream<char, std::char_traits<char> >::~basic_istream()"
            );
            assert_eq!(
                function_name("_ZNSolsEDn"),
                "std::ostream::operator<<(decltype(nullptr))"
            );
            // Not a mangled name after all: kept.
            assert_eq!(function_name("_Zfoo"), "_Zfoo");
        }
    }
}
