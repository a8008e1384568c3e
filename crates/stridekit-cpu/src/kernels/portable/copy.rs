//! The bulk copy: a contiguous run on both sides (`ptr::copy_nonoverlapping`, or with AVX2 streaming stores, or the
//! AVX2 loop where `memcpy`'s `rep movsb` is slow: `x86::rep_movsb_slow`).

use crate::kernels::footprint::{Footprint, HERE};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Simd};

/// One call copies `bytes` bytes forward on both sides (whole elements of `esize` bytes).
pub(crate) fn footprint(bytes: usize, esize: usize) -> Footprint {
    let run = (bytes / esize, esize as isize);
    Footprint { src: [run, HERE], dst: [run, HERE] }
}

/// Copies `len` bytes.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the ranges do not overlap.
pub(crate) unsafe fn copy_bytes(src: *const u8, dst: *mut u8, len: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.nt && ctx.simd == Simd::Avx2 && len >= x86::NT_MIN_RUN {
        // SAFETY: AVX2 was detected at run time; the ranges are the caller's.
        unsafe { x86::copy_nt_avx2(src, dst, len) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && len >= x86::REP_MOVSB_MIN_BYTES && x86::rep_movsb_slow(src, dst) {
        // SAFETY: AVX2 was detected at run time; the ranges are the caller's.
        unsafe { x86::copy_avx2(src, dst, len) };
        return;
    }
    let _ = (ctx, Simd::None);
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
}

/// Copies `len` bytes like [`copy_bytes`], requesting as it goes the lines of the `next_len` bytes at `next` (the
/// start of the next call's run, which the dispatch hands over when that call jumps): with AVX2, one request per
/// line copied ([`x86::copy_avx2_ahead`]); otherwise a plain copy (the portable kernels request nothing). `next`
/// is never read.
///
/// # Safety
/// As for [`copy_bytes`].
pub(crate) unsafe fn copy_bytes_ahead(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    (next, next_len): (*const u8, usize),
    ctx: Ctx,
) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 was detected at run time; the ranges are the caller's; `next` is only prefetched.
        unsafe {
            match ctx.nt {
                true => x86::copy_avx2_ahead::<true>(src, dst, len, next, next_len),
                false => x86::copy_avx2_ahead::<false>(src, dst, len, next, next_len),
            }
        };
        return;
    }
    let _ = (next, next_len);
    // SAFETY: the caller's contract.
    unsafe { copy_bytes(src, dst, len, ctx) };
}
