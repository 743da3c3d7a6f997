//! Decoding a memory-mapped dump a window at a time, prefetching ahead of the decoder and
//! dropping the pages decoded: the fast path of the streaming examples (`histogram`,
//! `heap-diff --shallow-only`).
#![allow(dead_code, unsafe_code, clippy::indexing_slicing)]

use std::fs::File;

use hprof::binary::incremental::{Decoder, Event, Fork, Visit};
use hprof::binary::{InstanceDump, ObjectArrayDump, PrimitiveArrayDump};

/// How far ahead of the decoder the memory-mapped dump is prefetched, in bytes.
const PREFETCH_DISTANCE: usize = 4096;

/// A visitor (the histogram, a census), with the bytes [`PREFETCH_DISTANCE`] ahead of each
/// object dump prefetched into the cache: the decoder's next position depends on the length it reads from this
/// one, so without it every cache miss on a page not seen yet stalls the loop.
pub(crate) struct Prefetching<V>(V);

impl<'a, V: Fork<'a>> Fork<'a> for Prefetching<V> {
    fn fork(&self) -> Self {
        Prefetching(self.0.fork())
    }
    fn join(&mut self, fork: &mut Self) {
        self.0.join(&mut fork.0);
    }
}

impl<'a, V: Visit<'a>> Visit<'a> for Prefetching<V> {
    #[inline]
    fn event(&mut self, event: Event<'a>) {
        self.0.event(event);
    }
    #[inline]
    fn instance_dump(&mut self, at: u64, dump: InstanceDump<'a>) {
        self.0.instance_dump(at, dump);
    }
    #[inline]
    fn object_array_dump(&mut self, at: u64, dump: ObjectArrayDump<'a>) {
        self.0.object_array_dump(at, dump);
    }
    #[inline]
    fn primitive_array_dump(&mut self, at: u64, dump: PrimitiveArrayDump<'a>) {
        self.0.primitive_array_dump(at, dump);
    }
    #[inline(always)]
    fn ahead(&mut self, input: &'a [u8]) {
        // SAFETY: a prefetch is a hint: it reads nothing the program sees and never faults,
        // even at an address past the end of `input` or of any mapping (no bounds check on
        // the hot path: 4% of the histogram's time).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                input.as_ptr().wrapping_add(PREFETCH_DISTANCE).cast(),
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = input;
    }
}

/// The dump is decoded in windows of an eighth of its size, a power of two between 64 KiB and
/// this many bytes (so that small dumps are decoded in several too); the pages of each
/// window are unmapped once it is decoded, so that the resident set stays small (the kernel
/// keeps them in its page cache).
const MAX_WINDOW: usize = 4 << 20;

/// How far apart [`touch`] reads the bytes of a window: the span the kernel maps around a
/// page fault on a file (`fault_around_bytes`, 64 KiB by default).
const TOUCH_STRIDE: usize = 64 << 10;

/// Maps the pages of `bytes` by reading one byte every [`TOUCH_STRIDE`]: each read that
/// faults maps the pages around it in one go (the whole 2 MiB where the page cache holds the
/// file in pages that large). `MADV_POPULATE_READ` maps them too, but then looks up every
/// 4 KiB page again, which costs more system time than the mapping where the file is cached
/// in 4 KiB pages (`benches/README.md`, "each window mapped by reading one byte per 64 KiB").
fn touch(bytes: &[u8]) {
    let mut seen = 0u8;
    for chunk in bytes.chunks(TOUCH_STRIDE) {
        seen ^= chunk[0];
    }
    // And the last byte: the reads above start at the window's first byte, not at a block's,
    // so they can miss the 64 KiB block the window ends in.
    seen ^= bytes.last().copied().unwrap_or(0);
    std::hint::black_box(seen);
}

/// The file memory-mapped, or `None` when it cannot be (the caller then streams it).
pub(crate) fn map(path: &str) -> Option<memmap2::Mmap> {
    let file = File::open(path).ok()?;
    // SAFETY: the map is only read; a file truncated by someone else while mapped would fault,
    // as with every memory-mapped reader (`sigbus` reports it).
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    super::sigbus::dump(path, &map);
    Some(map)
}

/// How [`mapped`] decodes each window into the visitor (wrapped to prefetch): with
/// [`Decoder::decode_with`], or [`Decoder::decode_forked`] for a visitor that can be forked
/// (two heap-dump records walked at once).
pub(crate) type Decode<V> =
    fn(&mut Decoder, &[u8], &mut Prefetching<V>) -> hprof::binary::Result<(usize, usize)>;

/// Decodes the bytes `range` of a memory-mapped dump into `visitor` (which must not keep
/// borrowed bytes: the pages decoded are dropped) through `decoder` and `decode`, a window at
/// a time, telling `progress` the offset reached after each.
pub(crate) fn mapped<V: for<'a> Visit<'a> + Default>(
    map: &memmap2::Mmap,
    range: (usize, usize),
    decoder: &mut Decoder,
    visitor: &mut V,
    progress: impl FnMut(u64),
    decode: Decode<V>,
) -> hprof::binary::Result<()> {
    let mut v = Prefetching(std::mem::take(visitor));
    let done = windows(map, range, decoder, progress, |d, bytes| {
        decode(d, bytes, &mut v)
    });
    *visitor = v.0;
    done
}

/// Hands `decode` the bytes `range` of the map a window at a time (the window's pages mapped
/// before it, and dropped once decoded), with `decoder`, which it advances as
/// [`Decoder::decode_with`] does.
fn windows<'m>(
    map: &'m memmap2::Mmap,
    range: (usize, usize),
    decoder: &mut Decoder,
    mut progress: impl FnMut(u64),
    mut decode: impl FnMut(&mut Decoder, &'m [u8]) -> hprof::binary::Result<(usize, usize)>,
) -> hprof::binary::Result<()> {
    let (start, stop) = range;
    let data: &[u8] = &map[..stop];
    let window = ((stop - start) / 8)
        .next_power_of_two()
        .clamp(64 << 10, MAX_WINDOW);
    // Only whole windows inside the range are dropped: never a page of a neighbouring range
    // that another thread is decoding.
    let (mut pos, mut end, mut dropped) = (
        start,
        (start + window).min(stop),
        start.div_ceil(window) * window,
    );
    // Each window's pages are mapped before it is decoded, so that the prefetches ahead of the
    // decoder find them (a prefetch of a page not mapped yet is dropped).
    touch(&data[start..end]);
    loop {
        let (consumed, needed) = decode(decoder, &data[pos..end])?;
        pos += consumed;
        if end == stop {
            return decoder.finish(&data[pos..]);
        }
        progress(pos as u64);
        let next = (end + window).max(end + needed).min(stop);
        touch(&data[end..next]);
        end = next;
        let done = pos / window * window;
        if done > dropped {
            // SAFETY: the map is read-only and nothing borrowed from the bytes before `done`
            // is used again (the visitor owns what it keeps): the pages are only unmapped, and
            // would be read back from the file if they were touched.
            #[cfg(unix)]
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    dropped,
                    done - dropped,
                )
            };
            dropped = done;
        }
    }
}
