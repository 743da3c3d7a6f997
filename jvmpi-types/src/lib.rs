//! JVMPI (Java Virtual Machine Profiler Interface) data.
//!
//! Not built yet: this crate will hold the JVMPI constants, the event structs, and codecs for
//! the heap dump, object dump and monitor dump buffer formats.
