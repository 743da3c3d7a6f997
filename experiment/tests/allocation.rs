//! Work is bounded by the input: a stack of many Java frames of one native method with a long
//! name does not make [`Stack::user_view_frames_jni`] rebuild that name, or name the same
//! native frame again, for every frame. A counting allocator records the bytes allocated.

// The counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to `System`.
#![allow(unsafe_code, clippy::unwrap_used, clippy::indexing_slicing)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use experiment::frameinfo::{JNI_MARKER, JavaFrame, NativeFrame, Stack};
use experiment::jclasses::{JClasses, JavaClass, JavaMethod};

struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
    let before = ALLOCATED.load(Ordering::Relaxed);
    let frames = stack.user_view_frames_jni(true, &jclasses, |_| {
        calls.set(calls.get() + 1);
        NativeFrame {
            function: Some(function.clone()),
            in_jvm: true,
        }
    });
    let allocated = ALLOCATED.load(Ordering::Relaxed) - before;
    // Every inner frame stops at the JVM frame; the leaf takes it.
    assert_eq!(frames, n + 1);
    assert_eq!(calls.get(), 1, "native frame named {} times", calls.get());
    assert!(allocated < 1 << 20, "{allocated} bytes allocated");
}
