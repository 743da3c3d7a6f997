//! What an export wrote, and why it stopped early.

use std::collections::HashMap;

/// What an export wrote, and where reading stopped when the dump is cut off or damaged.
#[derive(Debug, Default)]
pub struct Summary {
    /// Rows per table.
    pub rows: HashMap<&'static str, u64>,
    /// The decoding error that ended the export early: everything before it was written (a
    /// dump of only its header is cut short too).
    pub stopped: Option<hprof::binary::Error>,
    /// Instances whose class has no usable `CLASS_DUMP` (their references are not written).
    pub instances_without_layout: u64,
    /// Whether the dump ends with a heap dump but without `HEAP DUMP END` after segments.
    pub missing_heap_dump_end: bool,
}

impl Summary {
    /// Whether everything the dump holds was written.
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none() && !self.missing_heap_dump_end
    }

    /// Counts `n` rows sent to `table`.
    #[inline]
    pub(super) fn add_rows(&mut self, table: &'static str, n: u64) {
        *self.rows.entry(table).or_default() += n;
    }
}
