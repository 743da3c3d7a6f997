//! The heap-dump sub-record tags (`hprof.md` §1.5), JDK and Android.

use crate::binary::tags::tags;

tags! {
    /// Heap-dump sub-record tags.
    pub mod sub_tag;
    /// The sub-record's name as error messages give it (`"INSTANCE_DUMP sub-record"`), by tag.
    pub(crate) fn sub_record_what -> " sub-record", else "sub-record with an unknown tag";
    /// Whether `t` is one of the sub-record tags this crate decodes.
    pub fn is_known_sub_tag;
    ROOT_UNKNOWN = 0xFF, "ROOT_UNKNOWN", "`ROOT_UNKNOWN`.";
    ROOT_JNI_GLOBAL = 0x01, "ROOT_JNI_GLOBAL", "`ROOT_JNI_GLOBAL`.";
    ROOT_JNI_LOCAL = 0x02, "ROOT_JNI_LOCAL", "`ROOT_JNI_LOCAL`.";
    ROOT_JAVA_FRAME = 0x03, "ROOT_JAVA_FRAME", "`ROOT_JAVA_FRAME`.";
    ROOT_NATIVE_STACK = 0x04, "ROOT_NATIVE_STACK", "`ROOT_NATIVE_STACK`.";
    ROOT_STICKY_CLASS = 0x05, "ROOT_STICKY_CLASS", "`ROOT_STICKY_CLASS`.";
    ROOT_THREAD_BLOCK = 0x06, "ROOT_THREAD_BLOCK", "`ROOT_THREAD_BLOCK`.";
    ROOT_MONITOR_USED = 0x07, "ROOT_MONITOR_USED", "`ROOT_MONITOR_USED`.";
    ROOT_THREAD_OBJECT = 0x08, "ROOT_THREAD_OBJECT", "`ROOT_THREAD_OBJECT`.";
    CLASS_DUMP = 0x20, "CLASS_DUMP", "`CLASS_DUMP`.";
    INSTANCE_DUMP = 0x21, "INSTANCE_DUMP", "`INSTANCE_DUMP`.";
    OBJ_ARRAY_DUMP = 0x22, "OBJ_ARRAY_DUMP", "`OBJ_ARRAY_DUMP`.";
    PRIM_ARRAY_DUMP = 0x23, "PRIM_ARRAY_DUMP", "`PRIM_ARRAY_DUMP`.";
    HEAP_DUMP_INFO = 0xFE, "HEAP_DUMP_INFO", "Android `HEAP_DUMP_INFO`.";
    ROOT_INTERNED_STRING = 0x89, "ROOT_INTERNED_STRING", "Android `ROOT_INTERNED_STRING`.";
    ROOT_FINALIZING = 0x8A, "ROOT_FINALIZING", "Android `ROOT_FINALIZING` (Dalvik).";
    ROOT_DEBUGGER = 0x8B, "ROOT_DEBUGGER", "Android `ROOT_DEBUGGER`.";
    ROOT_REFERENCE_CLEANUP = 0x8C, "ROOT_REFERENCE_CLEANUP", "Android `ROOT_REFERENCE_CLEANUP` (Dalvik).";
    ROOT_VM_INTERNAL = 0x8D, "ROOT_VM_INTERNAL", "Android `ROOT_VM_INTERNAL`.";
    ROOT_JNI_MONITOR = 0x8E, "ROOT_JNI_MONITOR", "Android `ROOT_JNI_MONITOR`.";
    ROOT_UNREACHABLE = 0x90, "ROOT_UNREACHABLE", "Android `ROOT_UNREACHABLE` (Dalvik).";
    PRIMITIVE_ARRAY_NODATA = 0xC3, "PRIMITIVE_ARRAY_NODATA", "Android `PRIMITIVE_ARRAY_NODATA` (Dalvik).";
}
