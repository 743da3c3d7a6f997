//! HPROF ASCII reports (`java.hprof.txt`). Not built yet.
