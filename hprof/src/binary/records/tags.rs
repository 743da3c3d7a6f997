//! The top-level record tags (`hprof.md` §1.3).

use crate::binary::tags::tags;

tags! {
    /// Top-level record tags.
    pub mod tag;
    /// The record's name as error messages give it (`"UTF8 record"`), by tag.
    pub(crate) fn record_what -> " record", else "record with an unknown tag";
    /// Whether `t` is one of the tags this crate decodes.
    pub fn is_known_tag;
    UTF8 = 0x01, "UTF8", "`STRING_IN_UTF8`.";
    LOAD_CLASS = 0x02, "LOAD_CLASS", "`LOAD_CLASS`.";
    UNLOAD_CLASS = 0x03, "UNLOAD_CLASS", "`UNLOAD_CLASS`.";
    FRAME = 0x04, "STACK_FRAME", "`STACK_FRAME`.";
    TRACE = 0x05, "STACK_TRACE", "`STACK_TRACE`.";
    ALLOC_SITES = 0x06, "ALLOC_SITES", "`ALLOC_SITES`.";
    HEAP_SUMMARY = 0x07, "HEAP_SUMMARY", "`HEAP_SUMMARY`.";
    START_THREAD = 0x0A, "START_THREAD", "`START_THREAD`.";
    END_THREAD = 0x0B, "END_THREAD", "`END_THREAD`.";
    HEAP_DUMP = 0x0C, "HEAP_DUMP", "`HEAP_DUMP`.";
    CPU_SAMPLES = 0x0D, "CPU_SAMPLES", "`CPU_SAMPLES`.";
    CONTROL_SETTINGS = 0x0E, "CONTROL_SETTINGS", "`CONTROL_SETTINGS`.";
    HEAP_DUMP_SEGMENT = 0x1C, "HEAP_DUMP_SEGMENT", "`HEAP_DUMP_SEGMENT`.";
    HEAP_DUMP_END = 0x2C, "HEAP_DUMP_END", "`HEAP_DUMP_END`.";
}
