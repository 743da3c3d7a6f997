//! The stacks of a heap trace: gprofng's `-leaks` and `-allocs`.

use super::metrics::Metric;
use super::stack_profile::StackProfile;
use crate::experiment::Experiment;
use crate::packets::DataKind;
use crate::source::Source;
use crate::stacks::{FrameKind, NO_JAVA_CALLSTACK, NativeLines, Order, StackId, Symbolizer};
use std::collections::HashMap;

/// Which stacks of a heap trace gprofng lists (`-leaks` or `-allocs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum HeapView {
    /// Allocations never freed (`-leaks`).
    Leaks,
    /// Every allocation (`-allocs`).
    Allocations,
}

/// One distinct stack of a heap trace with what it allocated or leaked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeapStack {
    /// How many allocations (or leaks) the stack made.
    pub instances: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The frames, leaf first, as gprofng prints them (`calloc + 0x000000D9`; see
    /// [`Symbolizer::frame_text`]).
    pub frames: Vec<String>,
}

impl<S: Source> StackProfile<'_, S> {
    /// The distinct stacks that allocated (or leaked) memory, with instances and bytes, in
    /// gprofng's order: bytes, largest first, then instances, largest first.
    pub fn heap_stacks(&self, view: HeapView) -> Vec<HeapStack> {
        let (count, bytes) = match view {
            HeapView::Leaks => (Metric::HeapLeakCnt.index(), Metric::HeapLeakBytes.index()),
            HeapView::Allocations => (Metric::HeapAllocCnt.index(), Metric::HeapAllocBytes.index()),
        };
        let mut out: Vec<HeapStack> = Vec::new();
        let mut index: HashMap<Vec<String>, usize> = HashMap::new();
        // gprofng's leaks and allocations of a Java experiment list Java frames only: no
        // native frames spliced under a `<Java native method>` (which its per-packet view
        // shows), and its `<no Java callstack recorded>` reads as a native method.
        let java = self.symbols.is_java();
        for (s, v) in self.values.iter().enumerate() {
            let instances = v.get(count).copied().unwrap_or(0);
            if instances == 0 {
                continue;
            }
            let frames: Vec<String> = self
                .symbols
                .stack_frames(
                    StackId(u32::try_from(s).unwrap_or(u32::MAX)),
                    Order::LeafFirst,
                )
                .filter(|f| !(java && f.kind == FrameKind::Jni))
                .map(|f| {
                    let text = self.symbols.frame_text(f);
                    if java && text == NO_JAVA_CALLSTACK {
                        format!("{text} <Java native method>")
                    } else {
                        text
                    }
                })
                .collect();
            let b = v.get(bytes).copied().unwrap_or(0);
            // Stacks the symbolizer tells apart that print the same are one.
            match index.get(&frames) {
                Some(&at) => {
                    if let Some(e) = out.get_mut(at) {
                        e.instances = e.instances.wrapping_add(instances);
                        e.bytes = e.bytes.wrapping_add(b);
                    }
                }
                None => {
                    index.insert(frames.clone(), out.len());
                    out.push(HeapStack {
                        instances,
                        bytes: b,
                        frames,
                    });
                }
            }
        }
        sort_heap_stacks(&mut out);
        out
    }
}

fn sort_heap_stacks(stacks: &mut [HeapStack]) {
    stacks.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then_with(|| b.instances.cmp(&a.instances))
    });
}

/// The heap stacks of `exp` and its descendants with data (gprofng's `-leaks` or `-allocs`
/// of the experiment): stacks that print the same add up.
pub fn heap_stacks<S: Source>(
    exp: &Experiment<S>,
    view: HeapView,
) -> crate::Result<Vec<HeapStack>> {
    heap_stacks_with(exp, view, NativeLines::Off)
}

/// [`heap_stacks`] with native frames' source lines from `native`: with
/// `NativeLines::Dwarf` (feature `dwarf`) a frame reads `allocate + 0x00000096, line 97 in
/// "lines.c"`, as gprofng prints the frames of programs whose line tables it reads.
pub fn heap_stacks_with<S: Source>(
    exp: &Experiment<S>,
    view: HeapView,
    native: NativeLines,
) -> crate::Result<Vec<HeapStack>> {
    let symbols = Symbolizer::new(exp).with_lines(native);
    let mut all = StackProfile::collect(exp, symbols, Some(DataKind::Heap))?.heap_stacks(view);
    for d in exp.descendants().into_iter().filter(|d| d.has_data) {
        let child = exp.open_descendant(&d.name)?;
        let symbols = Symbolizer::new(&child)
            .with_lines(native)
            .with_founder_archives(exp);
        let profile = StackProfile::collect(&child, symbols, Some(DataKind::Heap))?;
        for h in profile.heap_stacks(view) {
            match all.iter_mut().find(|a| a.frames == h.frames) {
                Some(a) => {
                    a.instances = a.instances.wrapping_add(h.instances);
                    a.bytes = a.bytes.wrapping_add(h.bytes);
                }
                None => all.push(h),
            }
        }
    }
    sort_heap_stacks(&mut all);
    Ok(all)
}
