//! GraalVM Native Image PGO profiles (`.iprof`, schema v1.0.0 and the legacy layouts).
//!
//! Not built yet: this crate will hold the typed model, validation, writer and merge of
//! `.iprof` files, with call contexts from the `callctx` crate.
