//! The gather: `dst[i] = src[i * stride]`, destination contiguous, any source stride other than 0 and -1 element.

use crate::kernels::footprint::{Footprint, HERE};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};

/// One call reads `n` elements `stride` bytes apart and writes `n` forwards.
pub(crate) fn footprint(n: usize, stride: isize, esize: usize) -> Footprint {
    Footprint { src: [(n, stride), HERE], dst: [(n, esize as isize), HERE] }
}

/// `dst[i] = src[i * stride bytes]` for `i in 0..n`.
///
/// # Safety
/// The `n` source elements and `n` contiguous destination elements are valid and do not overlap; `n >= 1`;
/// `|stride| >= size_of T` (elements of one side do not overlap).
pub(crate) unsafe fn gather<T: Elem>(src: *const u8, dst: *mut u8, n: usize, stride: isize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && n >= 16 {
        // SAFETY: AVX2 detected; same ranges.
        if unsafe { x86::gather_avx2::<T>(src, dst, n, stride, ctx.nt) } {
            return;
        }
    }
    let _ = (ctx, Simd::None);
    let step = stride.unsigned_abs();
    debug_assert!(step >= T::SIZE);
    let span = (n - 1) * step + T::SIZE;
    // The lowest source byte: the first element going forwards, the last going backwards.
    let low = if stride < 0 { src.wrapping_sub(span - T::SIZE) } else { src };
    // SAFETY: the footprint: `span` bytes from the lowest source element to the end of the highest; n elements
    // at `dst`; no overlap.
    let (src, dst) =
        unsafe { (std::slice::from_raw_parts(low, span), std::slice::from_raw_parts_mut(dst, n * T::SIZE)) };
    let dst = dst.chunks_exact_mut(T::SIZE);
    if stride > 0 {
        // Chunk i starts at element i; the last chunk is the last element (span = (n - 1) step + size).
        for (d, s) in dst.zip(src.chunks(step)) {
            d.copy_from_slice(&s[..T::SIZE]);
        }
    } else {
        // From the end: chunk i ends with element i; the last chunk is exactly the lowest element.
        for (d, s) in dst.zip(src.rchunks(step)) {
            d.copy_from_slice(&s[s.len() - T::SIZE..]);
        }
    }
}
