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
    #[cfg(target_arch = "x86_64")]
    if ctx.vbmi && x86::gather64_pays(T::SIZE) && x86::gather64_fits(n, stride, T::SIZE) {
        // The strides the AVX2 gather has no shuffles for: 64-byte permutes out of each step's source windows.
        // SAFETY: AVX-512 VBMI detected (`ctx.vbmi`); same ranges; the bytes between source elements lie inside the
        // source range's allocation (execute_raw's contract), and the values the loads read there are discarded.
        unsafe { x86::gather64(src, dst, n, stride, T::SIZE) };
        return;
    }
    let _ = (ctx, Simd::None);
    debug_assert!(stride.unsigned_abs() >= T::SIZE);
    // The bytes between source elements may belong to someone else (another array's elements, written meanwhile):
    // no slice may span them, so each element is its own unaligned read. The destination is exactly the n elements.
    for i in 0..n {
        // SAFETY: element i of the caller's ranges: the source element at `i * stride` bytes, and destination
        // element i of the n contiguous ones at `dst`; the sides do not overlap.
        unsafe {
            let value = src.offset(i as isize * stride).cast::<T>().read_unaligned();
            dst.add(i * T::SIZE).cast::<T>().write_unaligned(value);
        }
    }
}
