//! A resolved call stack and how gprofng's user view counts it: native frames, or Java frames
//! with `<JVM-System>`, AsyncGetCallTrace errors and the native frames of JNI calls spliced
//! under their `<Java native method>` (gprofng `CallStackP::add_stack_java`,
//! `JMethod::jni_match`).

use crate::jclasses::JClasses;
use std::collections::HashMap;

/// A Java frame: method id and bci/line (`JVMPI_CallFrame`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct JavaFrame {
    /// `jmethodID` (0 with a negative `lineno` = AsyncGetCallTrace error code).
    pub method_id: u64,
    /// bci (or line; -3 = native method).
    pub lineno: i32,
}

/// A resolved call stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stack {
    /// Native PCs, leaf first (truncation marker removed).
    pub native: Vec<u64>,
    /// The native stack ended with the truncation marker (`SP_TRUNC_STACK_MARKER`: cut at the
    /// collector's unwind limit; gprofng's `<Truncated-stack>`).
    pub native_truncated: bool,
    /// The native stack ended with the failed-unwind marker (`SP_FAILED_UNWIND_MARKER`: the
    /// collector could not unwind further; gprofng's `<Stack-unwind-failed>`).
    pub native_unwind_failed: bool,
    /// Java frames, leaf first (truncation marker removed).
    pub java: Vec<JavaFrame>,
    /// The Java stack ended with the truncation marker.
    pub java_truncated: bool,
    /// OpenMP state, if recorded.
    pub omp_state: Option<u32>,
    /// MPI state, if recorded.
    pub mpi_state: Option<u32>,
}

impl Stack {
    /// Frames as gprofng counts them: Java frames when there is a Java stack, else native.
    pub fn frames(&self) -> usize {
        if self.java.is_empty() {
            self.native.len()
        } else {
            self.java.len()
        }
    }

    /// The AsyncGetCallTrace error code when the Java stack is a single frame with method id 0.
    pub fn java_error(&self) -> Option<i32> {
        match self.java.as_slice() {
            [f] if f.method_id == 0 => Some(f.lineno),
            _ => None,
        }
    }

    /// Frames of gprofng's user view without naming any native frame: in a Java experiment
    /// `<JVM-System>`/`<no Java callstack recorded>` count 1, else the Java frames (plus the
    /// `<Truncated-stack>` frame); native experiments count native frames. Exact unless a
    /// `<Java native method>` frame is implemented by a `Java_…` JNI function — see
    /// [`Stack::user_view_frames_jni`], which names the native frames to find those.
    pub fn user_view_frames(&self, kind: ExperimentKind) -> usize {
        self.user_view_frames_jni(kind, &JClasses::default(), |_| NativeFrame::default())
    }

    /// Frames of gprofng's user view (what `-dheap`/`-dprofile` print as `frames =`), with the
    /// native frames gprofng splices under `<Java native method>` frames. `native` names a
    /// native PC of this stack: [`Map::resolve`](crate::map::Map::resolve) it at the packet's
    /// time, then [`Map::native_frame`](crate::map::Map::native_frame) with the load object's
    /// [`Elf`](crate::elf::Elf) symbols (from `archives/` or the recorded path). `jclasses`
    /// names the Java methods. Only stacks with a native-method frame call `native`.
    ///
    /// gprofng's rule (`CallStackP::add_stack_java` in CallStack.cc, `JMethod::jni_match` in
    /// JMethod.cc): the user stack is built root first. A truncated Java stack starts with
    /// `<Truncated-stack>`. Each Java frame is added; when its bci is −3 (a native method),
    /// the native stack is scanned from the root towards the leaf, continuing where the
    /// previous scan stopped: frames are skipped until one whose function [`jni_match`]es the
    /// method; from it on, native frames are added — all of them down to the native leaf when
    /// the native method is the Java leaf, else up to (not including) the first frame in the
    /// JVM (`libjvm.so`, [`Resolved::in_jvm`](crate::map::Resolved::in_jvm)), where the scan
    /// stops and the next Java frames follow. A native method implemented inside the JVM
    /// (`Unsafe.allocateMemory0` → `Unsafe_AllocateMemory0`) never matches, so nothing is
    /// spliced; its scan still uses up the native stack for deeper native methods.
    pub fn user_view_frames_jni<N>(
        &self,
        kind: ExperimentKind,
        jclasses: &JClasses,
        mut native: N,
    ) -> usize
    where
        N: FnMut(u64) -> NativeFrame,
    {
        if kind == ExperimentKind::Native {
            return self.native.len();
        }
        if self.java.is_empty() || self.java_error().is_some() {
            return 1;
        }
        let mut frames = self.java.len() + usize::from(self.java_truncated);
        // `self.native` is leaf first: the scan walks it from the end (the root) down.
        let mut next = self.native.len();
        // A stack may repeat a native method many times, and each scan after a stop starts at
        // the frame it stopped at: names are built once per method, native frames named once,
        // and a method matched once against the frame the scans stopped at.
        let mut methods: HashMap<u64, Option<String>> = HashMap::new();
        let mut named: Option<(usize, NativeFrame)> = None;
        let mut matched: HashMap<(u64, usize), bool> = HashMap::new();
        for (depth, f) in self.java.iter().enumerate().rev() {
            if f.lineno != JNI_MARKER {
                continue;
            }
            let leaf = depth == 0;
            let mut found = false;
            while let Some(i) = next.checked_sub(1) {
                let nf = match named.take() {
                    Some((at, nf)) if at == i => nf,
                    _ => native(self.native.get(i).copied().unwrap_or_default()),
                };
                if !found {
                    let method = methods
                        .entry(f.method_id)
                        .or_insert_with(|| jclasses.method_full_name(f.method_id));
                    found = *matched.entry((f.method_id, i)).or_insert_with(|| {
                        match (method.as_deref(), nf.function.as_deref()) {
                            (Some(m), Some(func)) => jni_match(m, func),
                            _ => false,
                        }
                    });
                }
                if found {
                    if nf.in_jvm && !leaf {
                        named = Some((i, nf));
                        break;
                    }
                    frames += 1;
                }
                next = i;
            }
        }
        frames
    }
}

/// Which user view a stack is counted in: gprofng shows native stacks in native experiments,
/// and Java stacks (with pseudo-frames and JNI splices) in Java experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ExperimentKind {
    /// A native experiment: the native frames.
    Native,
    /// A Java experiment (`-j on`): Java frames, `<JVM-System>`, JNI splices.
    Java,
}

impl ExperimentKind {
    /// The kind of the experiment `log` describes.
    pub fn of(log: &crate::log::Log) -> Self {
        if log.is_java() {
            ExperimentKind::Java
        } else {
            ExperimentKind::Native
        }
    }
}

/// The bci of a Java frame that is a native method (`JNI_MARKER`, shown as
/// `<Java native method>`).
pub const JNI_MARKER: i32 = -3;

/// What [`Stack::user_view_frames_jni`] needs to know about a native PC.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NativeFrame {
    /// Name of the function containing the PC (`None` when unknown: no symbols, no mapping).
    pub function: Option<String>,
    /// The PC is in the JVM's own load object (`libjvm.so`).
    pub in_jvm: bool,
}

/// gprofng's `JMethod::jni_match`: does native function `function` implement the Java method
/// whose full name is `method` (`pkg.Class.method`, anything from `(` or a space on is
/// ignored)? The function name must start with `Java_`; then each `.` of the method name must
/// be `_`, each `_` must be `_1`, every other byte must be itself. It is a prefix match: the
/// function name may go on (`__<signature>` of overloaded methods, or anything else). Other
/// JNI escapes (`_0xxxx` for non-ASCII and `$`, `_2`, `_3`) are not decoded, so such methods
/// never match, exactly like gprofng.
pub fn jni_match(method: &str, function: &str) -> bool {
    let Some(mut f) = function.strip_prefix("Java_").map(str::bytes) else {
        return false;
    };
    for m in method.bytes().take_while(|&b| b != b'(' && b != b' ') {
        let ok = match m {
            b'.' => f.next() == Some(b'_'),
            b'_' => f.next() == Some(b'_') && f.next() == Some(b'1'),
            _ => f.next() == Some(m),
        };
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jni_match_is_gprofngs_prefix_rule() {
        let m = "java.lang.ClassLoader.findBootstrapClass";
        assert!(jni_match(
            m,
            "Java_java_lang_ClassLoader_findBootstrapClass"
        ));
        // Overloads carry `__<signature>`; gprofng accepts anything after the method name.
        assert!(jni_match(
            m,
            "Java_java_lang_ClassLoader_findBootstrapClass__Ljava"
        ));
        assert!(jni_match(
            m,
            "Java_java_lang_ClassLoader_findBootstrapClassOrNull"
        ));
        // `_` is `_1`; arguments after `(` are ignored.
        assert!(jni_match(
            "com.sun.forte.st.collector.CollectorAPI._sample(java.lang.String)",
            "Java_com_sun_forte_st_collector_CollectorAPI__1sample"
        ));
        assert!(!jni_match(
            "com.sun.forte.st.collector.CollectorAPI._sample",
            "Java_com_sun_forte_st_collector_CollectorAPI__sample"
        ));
        // Only `Java_` functions; `$` would be `_00024` in JNI but gprofng compares it as is.
        assert!(!jni_match(
            "jdk.internal.misc.Unsafe.allocateMemory0",
            "Unsafe_AllocateMemory0"
        ));
        assert!(!jni_match("a.B$C.d", "Java_a_B_00024C_d"));
        assert!(jni_match("a.B$C.d", "Java_a_B$C_d"));
        // The function name ending early is a mismatch, not an overrun.
        assert!(!jni_match("a.b.c", "Java_a_b"));
        assert!(!jni_match("a._", "Java_a__"));
    }

    /// Method ids 1..4 of class `a.A`: `run`, `nat` (native, `Java_a_A_nat`), `back`,
    /// `intrinsic` (native, implemented in the JVM).
    fn jclasses() -> JClasses {
        let methods = [(1, "run"), (2, "nat"), (3, "back"), (4, "intrinsic")]
            .into_iter()
            .map(|(id, name)| crate::jclasses::JavaMethod {
                method_id: id,
                name: name.into(),
                signature: "()V".into(),
            })
            .collect();
        let mut j = JClasses::default();
        j.push_class(crate::jclasses::JavaClass {
            class_id: 1,
            tstamp: 0,
            name: "La/A;".into(),
            source_file: "A.java".into(),
            methods,
        });
        j
    }

    fn frame(method_id: u64, lineno: i32) -> JavaFrame {
        JavaFrame { method_id, lineno }
    }

    /// Native PCs name themselves: 0x1xx `Java_a_A_nat`, 0x2xx in libjvm, 0x3xx libc.
    fn name(pc: u64) -> NativeFrame {
        let (function, in_jvm) = match pc >> 8 {
            1 => ("Java_a_A_nat", false),
            2 => ("JVM_Something", true),
            3 => ("malloc", false),
            _ => ("Interpreter", false),
        };
        NativeFrame {
            function: Some(function.into()),
            in_jvm,
        }
    }

    #[test]
    fn leaf_native_method_takes_the_whole_native_tail() {
        let j = jclasses();
        // Leaf first: malloc, JVM, JNI function, interpreter, interpreter.
        let stack = Stack {
            native: vec![0x300, 0x200, 0x100, 0x400, 0x401],
            java: vec![frame(2, JNI_MARKER), frame(1, 5)],
            ..Stack::default()
        };
        assert_eq!(
            stack.user_view_frames_jni(ExperimentKind::Java, &j, name),
            2 + 3
        );
        assert_eq!(stack.user_view_frames(ExperimentKind::Java), 2);
        assert_eq!(
            stack.user_view_frames_jni(ExperimentKind::Native, &j, name),
            5
        );
        // A native method implemented in the JVM (no `Java_` function): nothing spliced.
        let intrinsic = Stack {
            java: vec![frame(4, JNI_MARKER), frame(1, 5)],
            ..stack.clone()
        };
        assert_eq!(
            intrinsic.user_view_frames_jni(ExperimentKind::Java, &j, name),
            2
        );
        // Truncated Java stacks get `<Truncated-stack>`.
        let truncated = Stack {
            java_truncated: true,
            ..stack
        };
        assert_eq!(
            truncated.user_view_frames_jni(ExperimentKind::Java, &j, name),
            2 + 3 + 1
        );
    }

    #[test]
    fn inner_native_method_stops_at_the_jvm() {
        let j = jclasses();
        // run → nat (native, calls back into Java through the JVM) → back → nat (leaf).
        let stack = Stack {
            native: vec![0x300, 0x101, 0x201, 0x402, 0x200, 0x301, 0x100, 0x400],
            java: vec![
                frame(2, JNI_MARKER),
                frame(3, 7),
                frame(2, JNI_MARKER),
                frame(1, 5),
            ],
            ..Stack::default()
        };
        // Inner nat: 0x100, 0x301 then stop at 0x200. Leaf nat: from 0x200 on, the next
        // `Java_` is 0x101: 0x101, 0x300.
        assert_eq!(
            stack.user_view_frames_jni(ExperimentKind::Java, &j, name),
            4 + 2 + 2
        );
        // An unknown method never matches, and its scan uses up the whole native stack.
        let unknown = Stack {
            java: vec![
                frame(2, JNI_MARKER),
                frame(3, 7),
                frame(99, JNI_MARKER),
                frame(1, 5),
            ],
            ..stack
        };
        assert_eq!(
            unknown.user_view_frames_jni(ExperimentKind::Java, &j, name),
            4
        );
    }

    #[test]
    fn jvm_system_and_agct_errors_are_one_frame() {
        let j = jclasses();
        let system = Stack {
            native: vec![0x100, 0x200],
            ..Stack::default()
        };
        assert_eq!(
            system.user_view_frames_jni(ExperimentKind::Java, &j, name),
            1
        );
        let error = Stack {
            java: vec![frame(0, -2)],
            ..system
        };
        assert_eq!(
            error.user_view_frames_jni(ExperimentKind::Java, &j, name),
            1
        );
    }
}
