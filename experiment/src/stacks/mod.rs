//! Named call stacks: the frames of gprofng's user view for each packet, with gprofng's
//! function names, load objects and offsets, interned so that a packet costs one id
//! (gprofng `CallStack::add_stack`, `CallStackP::add_stack_java`, `LoadObject::find_function`,
//! `JMethod::jni_match`; format notes §4–§5, §8).
//!
//! A [`Symbolizer`] names the PCs of an [`Experiment`](crate::Experiment)'s stacks through
//! `map.xml` and the load objects' ELF symbols. The load objects come from the experiment's
//! `archives/` (through its [`Source`](crate::Source)) or, for objects not archived, from
//! [`Source::load_object`](crate::Source::load_object) (the `fs` feature's directory source
//! searches like gprofng) or a caller-supplied closure
//! ([`Symbolizer::with_load_objects`]; the crate does no I/O). An object found nowhere is
//! named as gprofng names it, `<static>@0x0 (<libc.so.6>) --  no functions found`
//! ([`missing_object_name`]).
//!
//! Names follow gprofng exactly where the inputs allow:
//! * a native PC is named by the ELF function symbol containing it (`.symtab`, else `.dynsym`,
//!   aliases folded to the shortest name), C++ names demangled ([`function_name`]); a PC between
//!   symbols by gprofng's hole filler
//!   `<static>@0xLOW (<object>)`, `LOW` being the end of the function before the hole;
//! * a PC no mapping covers is `<Unknown>`; generated code (vDSO, collector API functions,
//!   JVM stubs) is named by its `map.xml` function;
//! * a native stack the collector cut off starts with `<Truncated-stack>`, one it could not
//!   unwind with `<Stack-unwind-failed>`; a leaf PC in a `.plt` section (gprofng's `@plt`
//!   function) is left out;
//! * C names of GCC's outlined and cloned parts (`main.cold`, `foo.part.0`,
//!   `foo.constprop.0`, `foo.isra.0`) are kept as they are and C++ ones demangled with
//!   binutils' ` [clone .part.0]` suffix, each its own function as in gprofng (which links only
//!   Sun compilers' `_$o1…` outlines to their parent);
//! * Java stacks (Java experiments): `Class.method(argument types)` per frame, root first,
//!   `<Truncated-stack>`, `<JVM-System>` for threads without a Java stack,
//!   `<no Java callstack recorded>` for AsyncGetCallTrace errors, and the native frames of a
//!   `Java_…` JNI function spliced under its `<Java native method>` frame.
//!
//! Inputs that disagree (PCs no mapping covers, load objects that cannot be read) still give
//! frames; [`Symbolizer::warnings`] counts them.

mod frames;
mod java;
mod names;
mod native;
mod symbolizer;

pub use frames::{Frame, FrameKind, Frames, Function, FunctionId, Order, StackId};
pub use names::{
    JVM_SYSTEM, NO_JAVA_CALLSTACK, STACK_UNWIND_FAILED, TOTAL, TRUNCATED_STACK, UNKNOWN,
    function_name, java_method_name, missing_object_name, object_name, static_name,
};
pub use symbolizer::{NativeLines, Symbolizer, Warnings};
