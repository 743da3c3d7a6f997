//! gprofng's tag numbering (`Experiment::mapTagValue`): raw thread and LWP ids replaced by small
//! sequential ids (1, 2, …) in order of first appearance, as `er_print` shows them (`t = 1`).

/// gprofng's `mapTagValue`: replaces raw thread/LWP ids with small sequential ids (1, 2, …) in
/// order of first appearance, as `er_print` shows them (`t = 1`).
#[derive(Debug, Clone, Default)]
pub struct TagMap {
    tags: std::collections::HashMap<u64, u32>,
}

impl TagMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tag of `raw`, assigning the next one on first sight.
    pub fn tag(&mut self, raw: u64) -> u32 {
        let next = u32::try_from(self.tags.len() + 1).unwrap_or(u32::MAX);
        *self.tags.entry(raw).or_insert(next)
    }
}
