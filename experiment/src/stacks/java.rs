//! Java frames: methods named from `jclasses` with their argument types, their kinds
//! (interpreted, compiled, native) and bytecode lines, and the native frames of a JNI call
//! spliced under its `<Java native method>` (gprofng `CallStackP::add_stack_java`,
//! `JMethod::jni_match`; format notes §8).

use super::frames::{Frame, FrameKind, Function, FunctionId};
use super::names::{JVM_SYSTEM, NO_JAVA_CALLSTACK, TRUNCATED_STACK, UNKNOWN, java_method_name};
use super::symbolizer::Symbolizer;
use crate::classfile::ClassFile;
use crate::frameinfo::{JNI_MARKER, Stack, jni_match};
use crate::log::Timestamp;
use crate::source::Source;

impl<S: Source> Symbolizer<'_, S> {
    pub(super) fn java_method(&mut self, method_id: u64) -> FunctionId {
        let name = self.jclasses.method(method_id).map(|(c, m)| {
            (
                java_method_name(&crate::jclasses::class_name(&c.name), &m.name, &m.signature),
                m.signature.clone(),
            )
        });
        match name {
            Some((name, signature)) => self.intern(Function {
                name,
                load_object: None,
                signature: Some(signature),
            }),
            None => {
                self.warnings.unknown_methods += 1;
                self.intern_function(UNKNOWN, None)
            }
        }
    }

    /// How each Java frame of `stack` (leaf first) runs, read off its native stack: walking
    /// both from the leaf, a native frame in the `Interpreter` is the next Java frame,
    /// interpreted; a native frame in JIT code of method `m` is the next Java frame if that is
    /// `m`, compiled, and otherwise a frame inlined into `m` (compiled too, the native frame
    /// still to be matched). A native method takes its own native frame (the interpreter's
    /// native entry or its compiled wrapper) and stays `Java`, as do frames beyond the native
    /// stack. JIT code of a method not on the Java stack is passed over.
    pub(super) fn java_kinds(&self, stack: &Stack, rel: Timestamp) -> Vec<FrameKind> {
        let mut modes = stack.native.iter().filter_map(|&pc| {
            let (r, at) = self.resolve(pc, rel)?;
            if let Some(m) = self.map.jit_method(pc, at) {
                // JIT code of a method the Java stack lacks (AsyncGetCallTrace started its
                // walk further out) matches no frame.
                return stack
                    .java
                    .iter()
                    .any(|jf| jf.method_id == m)
                    .then_some(Some(m));
            }
            (r.generated && r.name == "Interpreter").then_some(None)
        });
        let mut current = modes.next();
        let mut kinds = Vec::with_capacity(stack.java.len());
        for jf in &stack.java {
            let kind = match current {
                // A native method is entered through the interpreter's native entry or a
                // compiled native wrapper: either is its own native frame.
                _ if jf.lineno == JNI_MARKER => {
                    if matches!(current, Some(None)) || current == Some(Some(jf.method_id)) {
                        current = modes.next();
                    }
                    FrameKind::Java
                }
                Some(None) => {
                    current = modes.next();
                    FrameKind::JavaInterpreted
                }
                Some(Some(m)) => {
                    if m == jf.method_id {
                        current = modes.next();
                    }
                    FrameKind::JavaCompiled
                }
                None => FrameKind::Java,
            };
            kinds.push(kind);
        }
        kinds
    }

    /// The source line of bytecode index `bci` of Java method `method_id`, from its class's
    /// class file in the experiment: `jdynclasses/<internal name>.class`, else a copy
    /// `archives/<simple name>.class_…` (gprofng shows no line for classes it has no class file
    /// of, e.g. the JDK's own).
    pub(super) fn java_line(&mut self, method_id: u64, bci: u32) -> Option<u32> {
        let (class, name, signature) = self.jclasses.method(method_id).map(|(c, m)| {
            let internal = c
                .name
                .strip_prefix('L')
                .and_then(|n| n.strip_suffix(';'))
                .unwrap_or(&c.name)
                .to_owned();
            (internal, m.name.clone(), m.signature.clone())
        })?;
        if !self.classes.contains_key(&class) {
            let file = self.class_file(&class);
            self.classes.insert(class.clone(), file);
        }
        self.classes
            .get(&class)?
            .as_ref()?
            .method(&name, &signature)?
            .line(bci)
    }

    pub(super) fn class_file(&self, class: &str) -> Option<ClassFile> {
        let bytes = match self.exp.file(&format!("jdynclasses/{class}.class")) {
            Ok(Some(b)) => Some(b),
            _ => {
                let simple = class.rsplit('/').next().unwrap_or(class);
                let prefix = format!("{simple}.class_");
                let archived = self
                    .exp
                    .archives()
                    .into_iter()
                    .find(|a| a.starts_with(&prefix))?;
                self.exp
                    .file(&format!("archives/{archived}"))
                    .ok()
                    .flatten()
            }
        }?;
        ClassFile::parse(&bytes)
            .ok()
            .filter(|c| c.this_class == class)
    }

    /// gprofng's user view of a Java stack (see
    /// [`Stack::user_view_frames_jni`](crate::frameinfo::Stack::user_view_frames_jni) for the
    /// splice rule this mirrors frame by frame).
    pub(super) fn java_frames(&mut self, stack: &Stack, rel: Timestamp, out: &mut Vec<Frame>) {
        if stack.java.is_empty() {
            let f = self.pseudo(JVM_SYSTEM);
            out.push(f);
            return;
        }
        if stack.java_error().is_some() {
            let f = self.pseudo(NO_JAVA_CALLSTACK);
            out.push(f);
            return;
        }
        if stack.java_truncated {
            let f = self.pseudo(TRUNCATED_STACK);
            out.push(f);
        }
        let kinds = self.java_kinds(stack, rel);
        let mut next = stack.native.len();
        for (depth, jf) in stack.java.iter().enumerate().rev() {
            let function = self.java_method(jf.method_id);
            let line = u32::try_from(jf.lineno)
                .ok()
                .and_then(|bci| self.java_line(jf.method_id, bci));
            if jf.lineno == JNI_MARKER {
                self.native_methods.insert(function);
            }
            let source_file = self
                .jclasses
                .method(jf.method_id)
                .map(|(class, _)| class.source_file.clone())
                .filter(|f| !f.is_empty());
            let file = source_file.map(|f| self.intern_file(&f));
            out.push(Frame {
                function,
                offset: u64::try_from(jf.lineno).unwrap_or(0),
                line,
                file,
                kind: kinds.get(depth).copied().unwrap_or(FrameKind::Java),
            });
            if jf.lineno != JNI_MARKER {
                continue;
            }
            let leaf = depth == 0;
            let method = self.jclasses.method_full_name(jf.method_id);
            let mut found = false;
            while let Some(i) = next.checked_sub(1) {
                let pc = stack.native.get(i).copied().unwrap_or_default();
                let frame = self.native(pc, rel, FrameKind::Jni);
                // The native leaf in .plt is skipped, as in native stacks.
                if i == 0 && self.is_plt(&frame) {
                    break;
                }
                let in_jvm = self.map.resolve(pc, rel).is_some_and(|r| r.in_jvm());
                if !found {
                    let fname = self
                        .function(frame.function)
                        .map(|f| f.name.clone())
                        .unwrap_or_default();
                    found = method.as_deref().is_some_and(|m| jni_match(m, &fname));
                }
                if found {
                    if in_jvm && !leaf {
                        break;
                    }
                    out.push(frame);
                }
                next = i;
            }
        }
    }
}
