//! `error: PATH: reason` and exit 1, not death by signal, when a page of a memory-mapped file
//! fails. The kernel raises `SIGBUS` at the instruction that touched such a page: a page of the
//! dump past its end (the file was cut short while mapped) or unreadable (a disk error), or a
//! page of a scratch file that cannot be given disk space (the scratch disk is full). The
//! handler looks up the faulting address among the mapped dumps registered with [`dump`], else
//! blames the scratch directory registered with [`scratch`], writes the line with `write(2)`
//! and leaves with `_exit(1)`: both safe in a signal handler, and nothing half-computed is
//! printed as if it were whole. Elsewhere than Linux it does nothing.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// A registered path: its bytes, leaked for the life of the process (a handful per run).
struct Path {
    bytes: AtomicPtr<u8>,
    len: AtomicUsize,
}

impl Path {
    const fn empty() -> Path {
        Path {
            bytes: AtomicPtr::new(std::ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    fn set(&self, path: &str) {
        let bytes: &'static mut [u8] = Box::leak(path.as_bytes().to_vec().into_boxed_slice());
        self.len.store(bytes.len(), Ordering::Release);
        self.bytes.store(bytes.as_mut_ptr(), Ordering::Release);
    }

    fn get(&self) -> Option<&'static [u8]> {
        let p = self.bytes.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was stored by `set` after its length, from a leaked
        // slice of that length that is never freed or written again.
        (!p.is_null())
            .then(|| unsafe { std::slice::from_raw_parts(p, self.len.load(Ordering::Acquire)) })
    }
}

/// A mapped dump: where its pages are, and its path.
struct Dump {
    start: AtomicUsize,
    len: AtomicUsize,
    path: Path,
}

/// The dumps mapped (`heap-diff` maps two); slots past the last are empty.
static DUMPS: [Dump; 4] = [const {
    Dump {
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        path: Path::empty(),
    }
}; 4];
/// The first slot of [`DUMPS`] not taken yet.
static NEXT_DUMP: AtomicUsize = AtomicUsize::new(0);
/// The scratch directory, if any.
static SCRATCH: Path = Path::empty();

/// Registers a mapped dump: a fault on its pages is reported as its own. A path mapped again
/// keeps its slot, with the new pages.
pub(crate) fn dump(path: &str, pages: &[u8]) {
    let same = DUMPS
        .iter()
        .find(|d| d.path.get().is_some_and(|p| p == path.as_bytes()));
    let Some(slot) = same.or_else(|| DUMPS.get(NEXT_DUMP.fetch_add(1, Ordering::AcqRel))) else {
        return;
    };
    if same.is_none() {
        slot.path.set(path);
    }
    slot.len.store(pages.len(), Ordering::Release);
    slot.start.store(pages.as_ptr() as usize, Ordering::Release);
    install();
}

/// Registers the scratch directory: a fault outside the dumps is reported as the scratch
/// disk's.
pub(crate) fn scratch(dir: &str) {
    SCRATCH.set(dir);
    install();
}

/// The line for a fault at `addr`: whose, and why.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn blame(addr: usize) -> (&'static [u8], &'static [u8]) {
    for d in &DUMPS {
        let (start, len) = (
            d.start.load(Ordering::Acquire),
            d.len.load(Ordering::Acquire),
        );
        if len > 0 && addr >= start && addr - start < len {
            if let Some(path) = d.path.get() {
                let why = concat!(
                    "a page of the file could not be read while mapped ",
                    "(was it cut short while being read, or is the disk failing?)"
                );
                return (path, why.as_bytes());
            }
        }
    }
    match SCRATCH.get() {
        Some(dir) => (
            dir,
            concat!(
                "a scratch file could not be given disk space or read back ",
                "(no space left on the device?)"
            )
            .as_bytes(),
        ),
        None => (
            b"memory-mapped file",
            b"a page could not be read or written (SIGBUS)",
        ),
    }
}

#[cfg(target_os = "linux")]
fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: a zeroed `sigaction` is a valid empty one; the handler below has the
        // `SA_SIGINFO` signature and calls only async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                on_sigbus;
            action.sa_sigaction = handler as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}

#[cfg(not(target_os = "linux"))]
fn install() {}

#[cfg(target_os = "linux")]
extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid `siginfo_t` to an `SA_SIGINFO` handler; `si_addr` is
    // the faulting address for SIGBUS.
    let addr = if info.is_null() {
        0
    } else {
        unsafe { (*info).si_addr() as usize }
    };
    let (whose, why) = blame(addr);
    for part in [&b"error: "[..], whose, b": ", why, b"\n"] {
        write_all(part);
    }
    // SAFETY: `_exit` ends the process at once, without running anything that could touch
    // the failed page again.
    unsafe { libc::_exit(1) }
}

/// Writes `bytes` to stderr with `write(2)`, as far as it goes.
#[cfg(target_os = "linux")]
fn write_all(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe `bytes`.
        let n = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => bytes = bytes.get(n..).unwrap_or_default(),
            _ => return,
        }
    }
}
