//! Bit sets over node indices, one bit a node in `u64` words (`n.div_ceil(64)` of them).

/// Sets bit `v` (nothing when `v` is past the words).
#[inline(always)]
pub(super) fn set(bits: &mut [u64], v: u32) {
    if let Some(w) = bits.get_mut(v as usize / 64) {
        *w |= 1 << (v % 64);
    }
}

/// Whether bit `v` is set (false when `v` is past the words).
#[inline(always)]
pub(super) fn is_set(bits: &[u64], v: u32) -> bool {
    bits.get(v as usize / 64)
        .is_some_and(|w| w >> (v % 64) & 1 == 1)
}
