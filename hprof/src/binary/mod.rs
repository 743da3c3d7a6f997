//! Binary HPROF heap dumps (`JAVA PROFILE 1.0.1`, `1.0.2`, Android `1.0.3`). Not built yet.
