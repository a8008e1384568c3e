//! The reversed run: `dst[i] = src[-i]`, destination contiguous, source walking backwards.

use crate::kernels::footprint::{Footprint, HERE};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};

/// One call reads `n` elements backwards from `src` (the highest) and writes `n` forwards from `dst`.
pub(crate) fn footprint(n: usize, esize: usize) -> Footprint {
    let e = esize as isize;
    Footprint { src: [(n, -e), HERE], dst: [(n, e), HERE] }
}

/// `dst[i] = src[-i]` for `i in 0..n` (elements).
///
/// # Safety
/// `src - (n-1)` .. `src` readable and `dst .. dst + n` writable (elements of `T`), not overlapping; `n >= 1`.
pub(crate) unsafe fn reverse<T: Elem>(src: *const u8, dst: *mut u8, n: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::reverse_avx2::<T>(src, dst, n, ctx.nt) };
        return;
    }
    let _ = (ctx, Simd::None);
    let len = n * T::SIZE;
    // SAFETY: the footprint: n elements ending with the one at `src`, and n elements from `dst`; no overlap.
    let (src, dst) =
        unsafe { (std::slice::from_raw_parts(src.sub(len - T::SIZE), len), std::slice::from_raw_parts_mut(dst, len)) };
    reverse_slices::<T>(src, dst);
}

/// The portable body: `dst` gets the elements of `src` in reverse order.
fn reverse_slices<T: Elem>(src: &[u8], dst: &mut [u8]) {
    for (d, s) in dst.chunks_exact_mut(T::SIZE).zip(src.chunks_exact(T::SIZE).rev()) {
        d.copy_from_slice(s);
    }
}
