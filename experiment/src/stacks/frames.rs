//! Named stacks' data: functions, frames and their kinds, and the ids that intern them.

/// What a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum FrameKind {
    /// Machine code of a load object or generated code.
    Native,
    /// A Java method whose execution mode the native stack does not show (a native method,
    /// or a native stack too short to reach the frame).
    Java,
    /// A Java method running in the interpreter: its native frame is in the JVM's
    /// `Interpreter` code (map.xml `object="function" name="Interpreter"`).
    JavaInterpreted,
    /// A Java method running as JIT-compiled code (map.xml `object="jcm"`), or inlined into
    /// one.
    JavaCompiled,
    /// A native frame spliced under a `<Java native method>` frame (the JNI function and
    /// what it called).
    Jni,
    /// A frame gprofng makes up: `<Truncated-stack>`, `<JVM-System>`, `<Unknown>`, …
    Pseudo,
}

/// The order a stack's frames are given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Order {
    /// Outermost caller first (`<Total>`'s child first, as call trees and folded stacks read).
    RootFirst,
    /// Innermost callee first (the sampled PC first, as data.frameinfo records stacks).
    LeafFirst,
}

/// The frames of one stack in the [`Order`] asked for (see
/// [`Symbolizer::stack_frames`](super::Symbolizer::stack_frames)).
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    pub(super) frames: std::slice::Iter<'a, Frame>,
    pub(super) order: Order,
}

impl<'a> Iterator for Frames<'a> {
    type Item = &'a Frame;

    fn next(&mut self) -> Option<&'a Frame> {
        match self.order {
            Order::RootFirst => self.frames.next(),
            Order::LeafFirst => self.frames.next_back(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.frames.size_hint()
    }
}

impl DoubleEndedIterator for Frames<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self.order {
            Order::RootFirst => self.frames.next_back(),
            Order::LeafFirst => self.frames.next(),
        }
    }
}

impl ExactSizeIterator for Frames<'_> {}

/// Index of a function in [`Symbolizer::functions`](super::Symbolizer::functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FunctionId(pub u32);

/// Index of an interned stack in a [`Symbolizer`](super::Symbolizer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StackId(pub u32);

/// A function as gprofng lists it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Function {
    /// The name exactly as gprofng prints it.
    pub name: String,
    /// The load object (its path in map.xml), `None` for pseudo-functions and Java methods.
    pub load_object: Option<String>,
    /// The JVM signature of a Java method (`()Ljava/lang/Object;`): two methods whose names
    /// print the same (a bridge method and the method it bridges) stay two functions.
    pub signature: Option<String>,
}

/// One frame of a named stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Frame {
    /// The function.
    pub function: FunctionId,
    /// Offset of the PC in the function (native), or the bci (Java).
    pub offset: u64,
    /// Source line, where the experiment has it: for a Java frame the line of its bci in the
    /// `LineNumberTable` of its class file (`jdynclasses/` or `archives/`); for a native frame
    /// the line of its PC in the DWARF line table of its load object, when the symbolizer was
    /// asked for them (`Symbolizer::with_native_lines`, feature `dwarf`).
    pub line: Option<u32>,
    /// The frame's source file, an index in
    /// [`Symbolizer::files`](super::Symbolizer::files): a Java method's class's `SourceFile`
    /// (as jclasses records it, with or without a line), a native frame's file of its line.
    pub file: Option<u32>,
    /// What the frame is.
    pub kind: FrameKind,
}
