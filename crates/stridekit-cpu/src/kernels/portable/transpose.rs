//! The transpose: `dst[a * a_dst + b] = src[a + b * b_src]`, a 2-D tile walk where dimension `a` reads
//! contiguously and dimension `b` writes contiguously (NCHW <-> NHWC, planes <-> pixels).

use crate::kernels::footprint::Footprint;
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};

/// One call reads `na x nb` elements (`a` contiguous, `b` at `b_src` bytes) and writes them at (`a_dst` bytes,
/// contiguous `b`).
pub(crate) fn footprint(na: usize, a_dst: isize, nb: usize, b_src: isize, esize: usize) -> Footprint {
    let e = esize as isize;
    Footprint { src: [(na, e), (nb, b_src)], dst: [(na, a_dst), (nb, e)] }
}

/// `dst[a * a_dst + b] = src[a + b * b_src]` (element indices a, b; strides in bytes) in cache-sized tiles.
///
/// The destination rows may interleave with another thread's rows (a padded or permuted output), so no slice may
/// span them: this stays a pointer loop.
///
/// # Safety
/// Every source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is valid; the sides do
/// not overlap.
pub(crate) unsafe fn transpose<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    ctx: Ctx,
) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::transpose_avx2::<T>(src, dst, na, a_dst, nb, b_src, ctx.nt) };
        return;
    }
    let _ = (ctx, Simd::None);
    const TILE: usize = 16;
    let e = T::SIZE as isize;
    for a0 in (0..na).step_by(TILE) {
        for b0 in (0..nb).step_by(TILE) {
            for a in a0..(a0 + TILE).min(na) {
                for b in b0..(b0 + TILE).min(nb) {
                    let (a, b) = (a as isize, b as isize);
                    // SAFETY: (a, b) is inside the caller's ranges (a < na, b < nb).
                    unsafe {
                        dst.offset(a * a_dst + b * e)
                            .cast::<T>()
                            .write_unaligned(src.offset(a * e + b * b_src).cast::<T>().read_unaligned())
                    };
                }
            }
        }
    }
}
