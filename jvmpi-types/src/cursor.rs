//! The one reader of dump buffers (JVMPI spec §4.1 "sizes and types used in the dump formats"):
//! identifiers are `I` bytes (4 or 8) in the VM's native byte order; every `u2`/`u4`/`u8` and
//! every primitive value is big-endian. Every read returns `Result` and no read looks past the
//! end of the buffer. [`Writer`] is its mirror for encoding.

use crate::error::{Error, Result};

/// Size in bytes of every identifier in a dump buffer: the `sizeof(void *)` of the VM that
/// wrote it.
///
/// The same type, variants and methods as `hprof::binary::IdSize` (the crates share no
/// dependency, so each defines it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IdSize {
    /// 4-byte identifiers (32-bit VMs).
    Four,
    /// 8-byte identifiers (64-bit VMs).
    Eight,
}

impl IdSize {
    /// The size in bytes (4 or 8).
    #[inline]
    #[must_use]
    pub const fn bytes(self) -> usize {
        match self {
            Self::Four => 4,
            Self::Eight => 8,
        }
    }

    /// The id size of `n` bytes, or `None` when it is neither 4 nor 8.
    #[must_use]
    pub const fn from_bytes(n: u32) -> Option<IdSize> {
        match n {
            4 => Some(Self::Four),
            8 => Some(Self::Eight),
            _ => None,
        }
    }
}

impl TryFrom<u64> for IdSize {
    type Error = Error;
    /// The id size of `raw` bytes; [`Error::BadIdSize`] when it is neither 4 nor 8.
    fn try_from(raw: u64) -> Result<Self> {
        u32::try_from(raw)
            .ok()
            .and_then(Self::from_bytes)
            .ok_or(Error::BadIdSize(raw))
    }
}

/// Byte order of identifiers in a dump buffer: the VM host's native order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum IdOrder {
    /// Little-endian host (x86, x86-64, ...).
    Little,
    /// Big-endian host (SPARC, PowerPC, ...).
    Big,
}

/// How to read (and write) a dump buffer: the things the buffer itself does not record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DumpOptions {
    /// Identifier size of the VM that wrote the buffer.
    pub id_size: IdSize,
    /// Identifier byte order (the VM host's order).
    pub id_order: IdOrder,
    /// Byte order of the `jobject` global reference in `JVMPI_GC_ROOT_JNI_GLOBAL` and of the
    /// `void *` reserved slot of `JVMPI_GC_CLASS_DUMP`. The Sun/CVM writers store them like any
    /// identifier (`id_order`), but HotSpot 5.0 writes them through its `u4`/`u8` path, i.e.
    /// big-endian on every host: use [`DumpOptions::hotspot`] for HotSpot buffers.
    pub void_order: IdOrder,
}

impl DumpOptions {
    /// Options for a buffer whose identifiers are `id_size` bytes in `id_order`.
    #[must_use]
    pub const fn new(id_size: IdSize, id_order: IdOrder) -> Self {
        Self {
            id_size,
            id_order,
            void_order: id_order,
        }
    }

    /// The same options with HotSpot 5.0's quirk: the JNI-global `jobject` and the class-dump
    /// reserved slot are big-endian whatever the host order.
    #[must_use]
    pub const fn hotspot(self) -> Self {
        Self {
            void_order: IdOrder::Big,
            ..self
        }
    }

    /// Identifier size in bytes.
    #[must_use]
    pub const fn id_bytes(&self) -> usize {
        self.id_size.bytes()
    }
}

/// A reading position in a dump buffer that knows the buffer's [`DumpOptions`].
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    options: DumpOptions,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`.
    #[must_use]
    pub const fn new(data: &'a [u8], options: DumpOptions) -> Self {
        Self {
            data,
            pos: 0,
            base: 0,
            options,
        }
    }

    /// A cursor over `data`, a slice that starts at byte `base` of a larger buffer: offsets
    /// (and errors) count from the start of that buffer.
    #[must_use]
    pub const fn with_base(data: &'a [u8], base: usize, options: DumpOptions) -> Self {
        Self {
            data,
            pos: 0,
            base,
            options,
        }
    }

    /// The options this cursor reads with.
    #[must_use]
    pub const fn options(&self) -> DumpOptions {
        self.options
    }

    /// Current byte offset from the start of the buffer.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    /// Bytes read since position `start` (a value [`Cursor::offset`] returned earlier).
    #[must_use]
    pub fn since(&self, start: usize) -> &'a [u8] {
        let from = start.saturating_sub(self.base);
        self.data.get(from..self.pos).unwrap_or_default()
    }

    /// Bytes left to read.
    #[must_use]
    pub const fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// Whether the whole buffer has been read.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Fails unless `needed` more bytes are available; `what` names the item for the error.
    pub fn ensure(&self, needed: u64, what: &'static str) -> Result<()> {
        if needed > self.remaining() as u64 {
            return Err(self.eof(needed, what));
        }
        Ok(())
    }

    fn eof(&self, needed: u64, what: &'static str) -> Error {
        Error::Truncated {
            offset: self.offset(),
            what,
            needed,
            available: self.remaining(),
        }
    }

    /// Reads `n` raw bytes.
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.eof(n as u64, what))?;
        let out = self
            .data
            .get(self.pos..end)
            .ok_or_else(|| self.eof(n as u64, what))?;
        self.pos = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let slice = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    /// Reads a `u1`.
    pub fn u1(&mut self, what: &'static str) -> Result<u8> {
        let b = *self.data.get(self.pos).ok_or_else(|| self.eof(1, what))?;
        self.pos += 1;
        Ok(b)
    }

    /// Reads a big-endian `u2`.
    pub fn u2(&mut self, what: &'static str) -> Result<u16> {
        self.array::<2>(what).map(u16::from_be_bytes)
    }

    /// Reads a big-endian `u4`.
    pub fn u4(&mut self, what: &'static str) -> Result<u32> {
        self.array::<4>(what).map(u32::from_be_bytes)
    }

    /// Reads a big-endian `u8`.
    pub fn u8(&mut self, what: &'static str) -> Result<u64> {
        self.array::<8>(what).map(u64::from_be_bytes)
    }

    /// Reads an identifier (`I` bytes, `id_order`).
    pub fn id(&mut self, what: &'static str) -> Result<u64> {
        self.id_in(self.options.id_order, what)
    }

    /// Reads a `void *`/`jobject` item that HotSpot writes in `void_order`.
    pub fn void_id(&mut self, what: &'static str) -> Result<u64> {
        self.id_in(self.options.void_order, what)
    }

    fn id_in(&mut self, order: IdOrder, what: &'static str) -> Result<u64> {
        Ok(match (self.options.id_size, order) {
            (IdSize::Four, IdOrder::Little) => u64::from(u32::from_le_bytes(self.array(what)?)),
            (IdSize::Four, IdOrder::Big) => u64::from(u32::from_be_bytes(self.array(what)?)),
            (IdSize::Eight, IdOrder::Little) => u64::from_le_bytes(self.array(what)?),
            (IdSize::Eight, IdOrder::Big) => u64::from_be_bytes(self.array(what)?),
        })
    }

    /// Reads `count` identifiers into a vector, checking first that they all fit (so the
    /// allocation is bounded by the buffer).
    pub fn ids<T: From<u64>>(&mut self, count: u64, what: &'static str) -> Result<Vec<T>> {
        let size = self.options.id_size.bytes();
        let n = self.ensure_items(count, size, what)?;
        let bytes = self.bytes(n * size, what)?;
        let order = self.options.id_order;
        Ok(match self.options.id_size {
            IdSize::Four => bytes
                .chunks_exact(4)
                .map(|c| {
                    let mut a = [0u8; 4];
                    a.copy_from_slice(c);
                    T::from(u64::from(match order {
                        IdOrder::Little => u32::from_le_bytes(a),
                        IdOrder::Big => u32::from_be_bytes(a),
                    }))
                })
                .collect(),
            IdSize::Eight => bytes
                .chunks_exact(8)
                .map(|c| {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(c);
                    T::from(match order {
                        IdOrder::Little => u64::from_le_bytes(a),
                        IdOrder::Big => u64::from_be_bytes(a),
                    })
                })
                .collect(),
        })
    }

    /// Checks that `count` items of `size` bytes each fit in the rest of the buffer, so a
    /// caller may allocate `count` items. Returns `count` as `usize`.
    pub fn ensure_items(&self, count: u64, size: usize, what: &'static str) -> Result<usize> {
        let needed = count.saturating_mul(size as u64);
        self.ensure(needed, what)?;
        usize::try_from(count).map_err(|_| self.eof(needed, what))
    }
}

/// The encoder's mirror of [`Cursor`]: appends items to a `Vec<u8>` with the same rules.
#[derive(Debug)]
pub struct Writer<'o> {
    out: &'o mut Vec<u8>,
    options: DumpOptions,
}

impl<'o> Writer<'o> {
    /// A writer appending to `out`.
    pub fn new(out: &'o mut Vec<u8>, options: DumpOptions) -> Self {
        Self { out, options }
    }

    /// The options this writer writes with.
    #[must_use]
    pub const fn options(&self) -> DumpOptions {
        self.options
    }

    /// Appends a `u1`.
    pub fn u1(&mut self, v: u8) {
        self.out.push(v);
    }

    /// Appends a big-endian `u2`.
    pub fn u2(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a big-endian `u4`.
    pub fn u4(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a big-endian `u8`.
    pub fn u8(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, v: &[u8]) {
        self.out.extend_from_slice(v);
    }

    /// Appends an identifier; fails if it does not fit in `I` bytes.
    pub fn id(&mut self, v: u64, what: &'static str) -> Result<()> {
        self.id_in(v, self.options.id_order, what)
    }

    /// Appends a `void *`/`jobject` item in `void_order`.
    pub fn void_id(&mut self, v: u64, what: &'static str) -> Result<()> {
        self.id_in(v, self.options.void_order, what)
    }

    fn id_in(&mut self, v: u64, order: IdOrder, what: &'static str) -> Result<()> {
        match self.options.id_size {
            IdSize::Four => {
                let v32 = u32::try_from(v).map_err(|_| Error::IdTooLarge {
                    what,
                    value: v,
                    id_size: 4,
                })?;
                match order {
                    IdOrder::Little => self.out.extend_from_slice(&v32.to_le_bytes()),
                    IdOrder::Big => self.out.extend_from_slice(&v32.to_be_bytes()),
                }
            }
            IdSize::Eight => match order {
                IdOrder::Little => self.out.extend_from_slice(&v.to_le_bytes()),
                IdOrder::Big => self.out.extend_from_slice(&v.to_be_bytes()),
            },
        }
        Ok(())
    }

    /// Appends a count as `u4`; fails if it exceeds `u32::MAX`.
    pub fn count(&mut self, n: usize, what: &'static str) -> Result<()> {
        let n = u32::try_from(n).map_err(|_| Error::Inconsistent {
            what,
            reason: format!("{n} items do not fit a u4 count"),
        })?;
        self.u4(n);
        Ok(())
    }
}
