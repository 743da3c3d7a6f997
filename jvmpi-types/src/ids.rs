//! Typed identifiers: every pointer-sized item of the JVMPI headers (`jobjectID`, `JNIEnv *`,
//! `jmethodID`, `JVMPI_RawMonitor`, `jobject`, plain `char *`/`void *`), held as a `u64` so one
//! type serves 4-byte (ILP32) and 8-byte (LP64) virtual machines. NULL is 0.

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident, $c:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        pub struct $name(pub u64);

        impl $name {
            /// The NULL identifier.
            pub const NULL: Self = Self(0);

            /// Whether this is the NULL identifier.
            #[must_use]
            pub const fn is_null(self) -> bool {
                self.0 == 0
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "0x{:x}", self.0)
            }
        }

        impl From<u64> for $name {
            fn from(raw: u64) -> Self {
                Self(raw)
            }
        }

        impl From<$name> for u64 {
            fn from(id: $name) -> u64 {
                id.0
            }
        }
    };
}

id_newtype!(
    /// A `jobjectID`: an object, or a class (the id of its `java.lang.Class` object).
    ObjectId, "jobjectID"
);
id_newtype!(
    /// A `JNIEnv *`: JVMPI's thread identifier.
    EnvId, "JNIEnv *"
);
id_newtype!(
    /// A `jmethodID`.
    MethodId, "jmethodID"
);
id_newtype!(
    /// A `JVMPI_RawMonitor`.
    RawMonitorId, "JVMPI_RawMonitor"
);
id_newtype!(
    /// A `jobject`: a JNI (global) reference handle.
    JniRef, "jobject"
);
id_newtype!(
    /// A raw `char *` / `void *` into the VM's memory (only meaningful inside that process).
    Pointer, "void *"
);
