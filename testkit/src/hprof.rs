//! Reshaping real HPROF dumps for tests: the records moved, their bytes untouched.

/// `data` (a binary HPROF dump) with its first two `HEAP_DUMP_SEGMENT` records in the other
/// order; `None` when the dump has fewer than two, or they are not neighbours. Dumps written in
/// address order then have ids that ascend within each segment but not across them.
pub fn segments_swapped(data: &[u8]) -> Option<Vec<u8>> {
    // The header: the format name, its NUL, the id size and the time stamp.
    let mut at = data.iter().position(|&b| b == 0)? + 1 + 12;
    let mut segments = Vec::new();
    while segments.len() < 2 {
        let head = data.get(at..at + 9)?;
        let len = u32::from_be_bytes(head.get(5..9)?.try_into().ok()?) as usize;
        if head.first() == Some(&0x1c) {
            segments.push(at..at + 9 + len);
        }
        at += 9 + len;
    }
    let (a, b) = (segments.first()?.clone(), segments.get(1)?.clone());
    if a.end != b.start {
        return None;
    }
    let mut out = data.get(..a.start)?.to_vec();
    out.extend_from_slice(data.get(b.clone())?);
    out.extend_from_slice(data.get(a)?);
    out.extend_from_slice(data.get(b.end..)?);
    Some(out)
}
