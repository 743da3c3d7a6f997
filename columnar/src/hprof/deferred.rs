//! The deferred pass, only when a class dump came after instances of its class (ART's dumps;
//! HotSpot's JDK 17 dumps need none): a second walk over the heap dumps that writes the
//! references of the instances the [heap pass](super::heap) read without a layout.

use hprof::binary::heap_dump::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump};
use hprof::binary::incremental::{Event, Visit};

use super::heap::{FieldNames, HeapPass};
use super::schema::table;
use super::walk::Pass;
use crate::rows::Rows;
use crate::{BATCH_ROWS, Error, Result};

/// The deferred pass's visitor: the heap pass's state, layouts built again with every class
/// dump known ([`HeapPass::defer`]).
pub(super) struct DeferredPass<'p, 'a, 's> {
    heap: &'p mut HeapPass<'a, 's>,
}

impl<'p, 'a, 's> DeferredPass<'p, 'a, 's> {
    pub(super) fn new(heap: &'p mut HeapPass<'a, 's>) -> Self {
        DeferredPass { heap }
    }

    /// Sends the `references` rows not sent yet.
    pub(super) fn flush(&mut self) -> Result<()> {
        let n = self.heap.refs.flush(self.heap.sink)?;
        self.heap.summary.add_rows(table::REFERENCES, n);
        Ok(())
    }
}

impl<'a> Visit<'a> for DeferredPass<'_, 'a, '_> {
    #[inline]
    fn event(&mut self, _: Event<'a>) {}

    #[inline]
    fn instance_dump(&mut self, _: u64, i: InstanceDump<'a>) {
        let heap = &mut *self.heap;
        if !heap.deferred.contains(&i.class_id) {
            return;
        }
        if let Some(layout) = heap.layout(i.class_id, FieldNames::EmptyWhenMissing) {
            heap.instance_refs(&i, layout);
            heap.summary.instances_without_layout =
                heap.summary.instances_without_layout.saturating_sub(1);
        }
        if heap.failed.is_none() && heap.refs.len() >= BATCH_ROWS {
            let r = heap.refs.flush(heap.sink);
            heap.sent(table::REFERENCES, r);
        }
    }

    #[inline]
    fn object_array_dump(&mut self, _: u64, _: ObjectArrayDump<'a>) {}

    #[inline]
    fn primitive_array_dump(&mut self, _: u64, _: PrimitiveArrayDump<'a>) {}
}

impl<'a> Pass<'a> for DeferredPass<'_, 'a, '_> {
    fn failed(&mut self) -> Option<Error> {
        self.heap.failed.take()
    }
}
