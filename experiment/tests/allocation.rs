//! Work is bounded by the input: a stack of many Java frames of one native method with a long
//! name does not make [`Stack::user_view_frames_jni`] rebuild that name, or name the same
//! native frame again, for every frame. A counting allocator (`testkit`) records the bytes allocated.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use experiment::frameinfo::ExperimentKind;
use std::cell::Cell;

use experiment::frameinfo::{JNI_MARKER, JavaFrame, NativeFrame, Stack};
use experiment::jclasses::{JClasses, JavaClass, JavaMethod};
use testkit::total_of;

#[global_allocator]
static ALLOC: testkit::Counting = testkit::Counting;

/// Review regression: 2,000 Java frames of one native method whose class name is 100 KB, over
/// one native frame in the JVM that implements it, built the method's name 2,000 times, named
/// the native frame 2,000 times (each a map.xml scan and a symbol copy for a real caller) and
/// compared the 100 KB names 2,000 times: 400 MB allocated for one stack. Now the name is
/// built once per method and each native frame named once.
#[test]
fn repeated_native_method_frames_name_things_once() {
    let class = "a".repeat(100_000);
    let mut jclasses = JClasses::default();
    jclasses.push_class(JavaClass {
        class_id: 1,
        tstamp: 0,
        name: format!("L{class};"),
        source_file: String::new(),
        methods: vec![JavaMethod {
            method_id: 1,
            name: "nat".into(),
            signature: "()V".into(),
        }],
    });
    let function = format!("Java_{class}_nat");
    let n = 2_000;
    let stack = Stack {
        native: vec![0x200],
        java: vec![
            JavaFrame {
                method_id: 1,
                lineno: JNI_MARKER,
            };
            n
        ],
        ..Stack::default()
    };
    let calls = Cell::new(0usize);
    let (frames, allocated) = total_of(|| {
        stack.user_view_frames_jni(ExperimentKind::Java, &jclasses, |_| {
            calls.set(calls.get() + 1);
            NativeFrame {
                function: Some(function.clone()),
                in_jvm: true,
            }
        })
    });
    // Every inner frame stops at the JVM frame; the leaf takes it.
    assert_eq!(frames, n + 1);
    assert_eq!(calls.get(), 1, "native frame named {} times", calls.get());
    assert!(allocated < 1 << 20, "{allocated} bytes allocated");
}
