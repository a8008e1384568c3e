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
