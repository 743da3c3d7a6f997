//! Source files as gprofng names them: a line program header's file name (inline, or in
//! `.debug_str` / `.debug_line_str`), and its last component, each given an id once.

use super::Reader;

/// The bytes of a file name of a line program header: inline, or in `.debug_str` or
/// `.debug_line_str` (the forms GCC and Clang write; others give no name).
pub(super) fn file_name<'d>(
    value: gimli::AttributeValue<Reader<'d>>,
    debug_str: &gimli::DebugStr<Reader<'d>>,
    debug_line_str: &gimli::DebugLineStr<Reader<'d>>,
) -> Option<Reader<'d>> {
    match value {
        gimli::AttributeValue::String(s) => Some(s),
        gimli::AttributeValue::DebugStrRef(o) => debug_str.get_str(o).ok(),
        gimli::AttributeValue::DebugLineStrRef(o) => debug_line_str.get_str(o).ok(),
        _ => None,
    }
}

/// The id of file `name` (its last component) in `files`, added if new.
pub(super) fn intern(
    files: &mut Vec<String>,
    ids: &mut std::collections::HashMap<String, u32>,
    name: &[u8],
) -> u32 {
    let name = String::from_utf8_lossy(name);
    let base = name.rsplit('/').next().unwrap_or(&name);
    match ids.get(base) {
        Some(&id) => id,
        None => {
            let id = u32::try_from(files.len()).unwrap_or(u32::MAX);
            ids.insert(base.to_owned(), id);
            files.push(base.to_owned());
            id
        }
    }
}
