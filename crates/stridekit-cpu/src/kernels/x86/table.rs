//! The shuffle form of a table pass: per 16 destination bytes, one unaligned 16-byte load and one `pshufb` per
//! source window, OR-ed, and one unaligned store (see [`Chunks`]).

use crate::table::Chunks;
use std::arch::x86_64::*;

/// Writes the `pass_bytes` (>= 16) destination bytes of one full pass at `dst` from the windows of `c` at `src`.
///
/// # Safety
/// AVX2 is available; every window `[src + start, src + start + 16)` of `c` is readable (they lie in the pass
/// interval, inside the caller's checked source range) and the `pass_bytes` bytes at `dst` are writable; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn table_chunks(src: *const u8, dst: *mut u8, c: &Chunks, pass_bytes: usize) {
    // SAFETY: forwarded; each arm's `W` is `c.windows`.
    unsafe {
        match c.windows {
            1 => chunks_with::<1>(src, dst, c, pass_bytes),
            2 => chunks_with::<2>(src, dst, c, pass_bytes),
            4 => chunks_with::<4>(src, dst, c, pass_bytes),
            _ => chunks_with::<8>(src, dst, c, pass_bytes),
        }
    }
}

/// [`table_chunks`] with `W` windows per chunk.
///
/// # Safety
/// As for [`table_chunks`], with `c.windows == W`.
#[target_feature(enable = "avx2")]
unsafe fn chunks_with<const W: usize>(src: *const u8, dst: *mut u8, c: &Chunks, pass_bytes: usize) {
    debug_assert_eq!(c.windows, W);
    debug_assert!(pass_bytes >= 16);
    let count = c.starts.len() / W;
    debug_assert_eq!(count, pass_bytes.div_ceil(16));
    for (i, (starts, masks)) in c.starts.chunks_exact(W).zip(c.masks.chunks_exact(W)).enumerate() {
        let at = if i + 1 == count { pass_bytes - 16 } else { i * 16 };
        let mut acc = _mm_setzero_si128();
        for w in 0..W {
            // SAFETY: window w of chunk i is readable (the caller's contract); the mask is 16 bytes.
            unsafe {
                let v = _mm_loadu_si128(src.offset(starts[w] as isize).cast());
                let m = _mm_loadu_si128(masks[w].as_ptr().cast());
                acc = _mm_or_si128(acc, _mm_shuffle_epi8(v, m));
            }
        }
        // SAFETY: at + 16 <= pass_bytes, inside the caller's destination.
        unsafe { _mm_storeu_si128(dst.add(at).cast(), acc) };
    }
}
