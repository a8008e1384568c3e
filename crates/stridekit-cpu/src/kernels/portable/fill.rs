//! The fill: one source element repeated over a contiguous destination (a broadcast innermost dimension).

use crate::kernels::footprint::{Footprint, HERE};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};

/// One call reads one element and writes `n` forwards.
pub(crate) fn footprint(n: usize, esize: usize) -> Footprint {
    Footprint { src: [HERE, HERE], dst: [(n, esize as isize), HERE] }
}

/// `dst[i] = src[0]` for `i in 0..n`.
///
/// # Safety
/// One element readable at `src`, `n` elements writable at `dst`, not overlapping.
pub(crate) unsafe fn fill<T: Elem>(src: *const u8, dst: *mut u8, n: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::fill_avx2::<T>(src, dst, n, ctx.nt) };
        return;
    }
    let _ = (ctx, Simd::None);
    // SAFETY: the footprint: one element at `src`, n elements at `dst`; no overlap.
    let (src, dst) =
        unsafe { (std::slice::from_raw_parts(src, T::SIZE), std::slice::from_raw_parts_mut(dst, n * T::SIZE)) };
    for d in dst.chunks_exact_mut(T::SIZE) {
        d.copy_from_slice(src);
    }
}

/// The shortest block [`fill_adjacent`] takes: a 32-byte chunk of the output then holds at most two calls' elements.
pub(crate) const ADJACENT_BLOCK_MIN: usize = 32;

/// The calls of a streamed fill loop whose blocks are adjacent, not through the L1 stage: `steps` calls, call `i`
/// writing `n` copies of the element at `src + i * s` to `dst + i * n * T::SIZE`, each destination line assembled
/// in registers and streamed whole (`x86::fill_adjacent_avx2`). Returns whether it ran: with AVX2, blocks of at
/// least [`ADJACENT_BLOCK_MIN`] bytes and a destination at an element boundary (a host byte slice may start
/// anywhere, D10); the caller stages the calls otherwise.
///
/// # Safety
/// The `steps` source elements are readable; the `steps * n * T::SIZE` bytes from `dst` are writable, inside the
/// checked output range, and overlap none of them.
pub(crate) unsafe fn fill_adjacent<T: Elem>(
    src: *const u8,
    s: isize,
    steps: usize,
    n: usize,
    dst: *mut u8,
    ctx: Ctx,
) -> bool {
    // The registers repeat the element from their first byte on: the destination must start on an element.
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2
        && (dst as usize).is_multiple_of(T::SIZE)
        && n * T::SIZE >= ADJACENT_BLOCK_MIN
        && steps > 0
    {
        // SAFETY: AVX2 detected; the caller's ranges; the block is long enough and the destination on an element.
        unsafe { x86::fill_adjacent_avx2::<T>(src, s, steps, n, dst) };
        return true;
    }
    let _ = (src, s, steps, n, dst, ctx);
    false
}
