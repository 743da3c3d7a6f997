//! Stack frames and traces with their strings resolved, and threads with their stacks.

use std::collections::HashMap;
use std::sync::Arc;

use super::build::Index;
use crate::binary::heap_dump::GcRoot;
use crate::binary::types::{ClassSerial, Id, StackTraceSerial, ThreadSerial};

/// A stack frame with its strings resolved. The strings are shared (`Arc`): a dump may name
/// every frame of a deep stack with one long string, and each is converted once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ResolvedFrame {
    /// Class name in Java source form (empty when unknown).
    pub class_name: Arc<str>,
    /// Method name.
    pub method_name: Arc<str>,
    /// Method signature.
    pub method_signature: Arc<str>,
    /// Source file name.
    pub source_file: Arc<str>,
    /// Line (> 0), or 0 / negative codes as in [`Frame::line`](crate::binary::records::Frame::line).
    pub line: i32,
}

impl std::fmt::Display for ResolvedFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.class_name, self.method_name)?;
        match self.line {
            l if l > 0 => write!(f, " ({}:{})", self.source_file, l),
            -2 => write!(f, " (compiled method)"),
            -3 => write!(f, " (native method)"),
            _ => write!(f, " ({})", self.source_file),
        }
    }
}

/// A thread with its stack trace (from `ROOT_THREAD_OBJECT` or `START_THREAD`, and `TRACE`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ThreadStack {
    /// Thread serial.
    pub thread_serial: ThreadSerial,
    /// The thread object id (0 when unknown).
    pub thread_object_id: Id,
    /// Stack trace serial.
    pub stack_trace_serial: StackTraceSerial,
    /// Frames, innermost first (shared by the threads with the same trace).
    pub frames: Arc<[ResolvedFrame]>,
}

/// Strings of frames resolved once for a whole query (many frames share names, many threads
/// share traces), so the output is never larger than the dump by more than pointers.
struct FrameNames<'i, 'a> {
    index: &'i Index<'a>,
    strings: HashMap<Id, Arc<str>>,
    classes: HashMap<ClassSerial, Arc<str>>,
    traces: HashMap<StackTraceSerial, Arc<[ResolvedFrame]>>,
}

impl<'i, 'a> FrameNames<'i, 'a> {
    fn new(index: &'i Index<'a>) -> Self {
        FrameNames {
            index,
            strings: HashMap::new(),
            classes: HashMap::new(),
            traces: HashMap::new(),
        }
    }

    fn string(&mut self, id: Id) -> Arc<str> {
        let index = self.index;
        self.strings
            .entry(id)
            .or_insert_with(|| {
                index
                    .string(id)
                    .map(|b| Arc::from(String::from_utf8_lossy(b)))
                    .unwrap_or_else(|| Arc::from(""))
            })
            .clone()
    }

    fn class(&mut self, serial: ClassSerial) -> Arc<str> {
        let index = self.index;
        self.classes
            .entry(serial)
            .or_insert_with(|| {
                let name = index
                    .class_by_serial(serial)
                    .and_then(|c| index.class_name(c))
                    .unwrap_or_default();
                Arc::from(name)
            })
            .clone()
    }

    fn frame(&mut self, frame_id: Id) -> Option<ResolvedFrame> {
        let f = self.index.frames.get(&frame_id)?;
        Some(ResolvedFrame {
            class_name: self.class(f.class_serial),
            method_name: self.string(f.method_name_id),
            method_signature: self.string(f.method_signature_id),
            source_file: self.string(f.source_file_id),
            line: f.line,
        })
    }

    fn trace(&mut self, serial: StackTraceSerial) -> Option<Vec<ResolvedFrame>> {
        let t = self.index.traces.get(&serial)?;
        Some(t.frame_ids.iter().filter_map(|id| self.frame(id)).collect())
    }

    fn shared_trace(&mut self, serial: StackTraceSerial) -> Arc<[ResolvedFrame]> {
        if let Some(t) = self.traces.get(&serial) {
            return t.clone();
        }
        let t: Arc<[ResolvedFrame]> = self.trace(serial).unwrap_or_default().into();
        self.traces.insert(serial, t.clone());
        t
    }
}

impl<'a> Index<'a> {
    /// The `FRAME` with this id, resolved.
    pub fn frame(&self, frame_id: Id) -> Option<ResolvedFrame> {
        FrameNames::new(self).frame(frame_id)
    }

    /// The frames of a trace, innermost first (frames without a `FRAME` record are left out).
    pub fn stack_trace(&self, serial: StackTraceSerial) -> Option<Vec<ResolvedFrame>> {
        FrameNames::new(self).trace(serial)
    }

    /// Every thread with its stack, from `ROOT_THREAD_OBJECT` roots (HotSpot, ART) and
    /// `START_THREAD` records (the JVMTI agent), ordered by thread serial.
    pub fn thread_stacks(&self) -> Vec<ThreadStack> {
        let mut out: Vec<ThreadStack> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let roots = self.roots.iter().filter_map(|r| match *r {
            GcRoot::ThreadObject {
                object_id,
                thread_serial,
                stack_trace_serial,
            } => Some((thread_serial, object_id, stack_trace_serial)),
            _ => None,
        });
        let started = self
            .threads
            .iter()
            .map(|t| (t.thread_serial, t.thread_object_id, t.stack_trace_serial));
        let mut names = FrameNames::new(self);
        for (thread_serial, thread_object_id, stack_trace_serial) in roots.chain(started) {
            if seen.insert(thread_serial) {
                out.push(ThreadStack {
                    thread_serial,
                    thread_object_id,
                    stack_trace_serial,
                    frames: names.shared_trace(stack_trace_serial),
                });
            }
        }
        out.sort_by_key(|t| t.thread_serial);
        out
    }
}
