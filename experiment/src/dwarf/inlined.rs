//! The code inlined into each function (`DW_TAG_inlined_subroutine` in `.debug_info`, DWARF 5
//! §3.3.8), as gprofng reads it from the units GCC made.

use std::collections::BTreeMap;

use super::files::{file_name, intern};
use super::sections::section;
use super::{InlinedCall, Reader, gimli_error};
use crate::elf::Elf;
use crate::error::{Error, Result};

/// The code inlined into each function, read from the units of `.debug_info` as gprofng
/// reads it (`DwrCU::parse_inlined_subroutine`, `DwrCU::map_dwarf_lines`): only units whose
/// producer starts with `GNU`; every `DW_TAG_inlined_subroutine` with its address ranges
/// (`DW_AT_low_pc`/`DW_AT_high_pc` or `DW_AT_ranges`, ranges starting at 0 or ending before
/// they start left out), nested ones one level deeper; the ranges given to the function
/// holding their start, a function's list restarting when another function's ranges came in
/// between. The work is linear in the sections (each unit's abbreviations are read once per
/// table offset) and the ranges kept are bounded by the sections' sizes.
pub(super) fn inlined_calls(
    data: &[u8],
    elf: &Elf,
    endian: gimli::RunTimeEndian,
    program_files: &std::collections::HashMap<usize, Vec<Option<Vec<u8>>>>,
    (file_names, file_ids): (
        &mut Vec<String>,
        &mut std::collections::HashMap<String, u32>,
    ),
    function_names: &mut Vec<String>,
) -> Result<BTreeMap<u64, Vec<InlinedCall>>> {
    let mut function_ids: std::collections::HashMap<Vec<u8>, u32> =
        std::collections::HashMap::new();
    let (info_bytes, info_at) = section(elf, data, ".debug_info")?;
    let (abbrev_bytes, _) = section(elf, data, ".debug_abbrev")?;
    let (str_bytes, _) = section(elf, data, ".debug_str")?;
    let (line_str_bytes, _) = section(elf, data, ".debug_line_str")?;
    let (ranges_bytes, _) = section(elf, data, ".debug_ranges")?;
    let (rnglists_bytes, _) = section(elf, data, ".debug_rnglists")?;
    let debug_info = gimli::DebugInfo::from(Reader::new(info_bytes, endian));
    let debug_abbrev = gimli::DebugAbbrev::from(Reader::new(abbrev_bytes, endian));
    let debug_str = gimli::DebugStr::from(Reader::new(str_bytes, endian));
    let debug_line_str = gimli::DebugLineStr::from(Reader::new(line_str_bytes, endian));
    let range_lists = gimli::RangeLists::new(
        gimli::DebugRanges::from(Reader::new(ranges_bytes, endian)),
        gimli::DebugRngLists::from(Reader::new(rnglists_bytes, endian)),
    );
    let debug_addr = gimli::DebugAddr::from(Reader::new(&[], endian));
    // Every range kept takes at least one byte of these sections.
    let budget = info_bytes
        .len()
        .saturating_add(ranges_bytes.len())
        .saturating_add(rnglists_bytes.len());
    let mut kept = 0usize;

    let mut out: BTreeMap<u64, Vec<InlinedCall>> = BTreeMap::new();
    let mut abbreviations: std::collections::HashMap<usize, gimli::Abbreviations> =
        std::collections::HashMap::new();
    let mut units = debug_info.units();
    let mut next_unit = 0u64;
    loop {
        let header = match units.next() {
            Ok(Some(h)) => h,
            Ok(None) => break,
            Err(e) => return Err(gimli_error("DWARF unit header", info_at + next_unit, e)),
        };
        let unit_offset = header
            .offset()
            .as_debug_info_offset()
            .map_or(next_unit, |o| o.0 as u64);
        next_unit = unit_offset.saturating_add(header.length_including_self() as u64);
        let at = info_at + unit_offset;
        let abbrev_offset = header.debug_abbrev_offset();
        let abbrevs = match abbreviations.entry(abbrev_offset.0) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                // The error is placed at the unit whose header points at the table.
                let table =
                    debug_abbrev
                        .abbreviations(abbrev_offset)
                        .map_err(|err| Error::Invalid {
                            what: "DWARF unit's abbreviations",
                            offset: at,
                            expected: format!(
                                "a table at .debug_abbrev offset {} gimli can read",
                                abbrev_offset.0
                            ),
                            found: err.to_string(),
                        })?;
                e.insert(table)
            }
        };
        let encoding = header.encoding();
        let mut cursor = header.entries(abbrevs);
        let die_error = |e| gimli_error("DWARF debugging information entry", at, e);
        let Some((_, root)) = cursor.next_dfs().map_err(die_error)? else {
            continue;
        };
        let producer = root
            .attr_value(gimli::DW_AT_producer)
            .map_err(die_error)?
            .and_then(|v| file_name(v, &debug_str, &debug_line_str));
        if !producer.is_some_and(|p| p.slice().starts_with(b"GNU")) {
            continue;
        }
        let files = match root.attr_value(gimli::DW_AT_stmt_list).map_err(die_error)? {
            Some(gimli::AttributeValue::DebugLineRef(o)) => program_files.get(&o.0),
            _ => None,
        };
        let base = match root.attr_value(gimli::DW_AT_low_pc).map_err(die_error)? {
            Some(gimli::AttributeValue::Addr(a)) => a,
            _ => 0,
        };
        // (depth, level) of the inlined subroutines enclosing the current entry.
        let mut open: Vec<(isize, u32)> = Vec::new();
        let mut depth = 0isize;
        // The function whose list the last ranges went to.
        let mut current: Option<u64> = None;
        while let Some((delta, entry)) = cursor.next_dfs().map_err(die_error)? {
            depth = depth.saturating_add(delta);
            while open.last().is_some_and(|&(d, _)| d >= depth) {
                open.pop();
            }
            if entry.tag() != gimli::DW_TAG_inlined_subroutine {
                continue;
            }
            let level = open.last().map_or(0, |&(_, l)| l.saturating_add(1));
            let value = |name| entry.attr_value(name).map_err(die_error);
            let file = match value(gimli::DW_AT_call_file)? {
                Some(gimli::AttributeValue::FileIndex(i)) => Some(i),
                Some(v) => v.udata_value(),
                None => None,
            }
            .and_then(|i| files?.get(usize::try_from(i).ok()?)?.as_deref())
            .map(|name| intern(file_names, file_ids, name));
            // The name of the abstract origin (in this unit), as gprofng reads it.
            let function = match value(gimli::DW_AT_abstract_origin)? {
                Some(gimli::AttributeValue::UnitRef(o)) => {
                    let mut origin = header.entries_at_offset(abbrevs, o).map_err(die_error)?;
                    origin.next_entry().map_err(die_error)?;
                    match origin.current() {
                        Some(e) => e
                            .attr_value(gimli::DW_AT_name)
                            .map_err(die_error)?
                            .and_then(|v| file_name(v, &debug_str, &debug_line_str)),
                        None => None,
                    }
                }
                _ => None,
            }
            .map(|name| {
                let name = name.slice().to_vec();
                match function_ids.get(&name) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(function_names.len()).unwrap_or(u32::MAX);
                        function_names.push(String::from_utf8_lossy(&name).into_owned());
                        function_ids.insert(name, id);
                        id
                    }
                }
            });
            let line = value(gimli::DW_AT_call_line)?
                .and_then(|v| v.udata_value())
                .and_then(|l| u32::try_from(l).ok())
                .unwrap_or(0);
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            match value(gimli::DW_AT_ranges)? {
                Some(gimli::AttributeValue::RangeListsRef(o)) => {
                    let offset = gimli::RangeListsOffset(o.0);
                    let mut list = range_lists
                        .ranges(offset, encoding, base, &debug_addr, gimli::DebugAddrBase(0))
                        .map_err(die_error)?;
                    while let Some(r) = list.next().map_err(die_error)? {
                        ranges.push((r.begin, r.end));
                        kept = kept.saturating_add(1);
                        if kept > budget {
                            return Err(Error::Invalid {
                                what: "DWARF inlined subroutine ranges",
                                offset: at,
                                expected: format!("at most {budget} ranges (the sections' bytes)"),
                                found: "more".into(),
                            });
                        }
                    }
                }
                Some(_) => {}
                None => {
                    let low = match value(gimli::DW_AT_low_pc)? {
                        Some(gimli::AttributeValue::Addr(a)) => Some(a),
                        _ => None,
                    };
                    let high = match (low, value(gimli::DW_AT_high_pc)?) {
                        (_, Some(gimli::AttributeValue::Addr(h))) => Some(h),
                        (Some(l), Some(v)) => v.udata_value().map(|n| l.saturating_add(n)),
                        _ => None,
                    };
                    if let (Some(l), Some(h)) = (low, high) {
                        ranges.push((l, h));
                        kept = kept.saturating_add(1);
                    }
                }
            }
            let mut any = false;
            for (low, high) in ranges {
                if low == 0 || low > high {
                    continue;
                }
                any = true;
                let Some(holder) = elf.function(low).filter(|f| !f.plt) else {
                    continue;
                };
                let list = out.entry(holder.address).or_default();
                if current != Some(holder.address) {
                    current = Some(holder.address);
                    list.clear();
                }
                list.push(InlinedCall {
                    low,
                    high,
                    level,
                    file,
                    line,
                    function,
                });
            }
            if any {
                open.push((depth, level));
            }
        }
    }
    Ok(out)
}
