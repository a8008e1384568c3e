//! The fill: one source element repeated over a contiguous destination (a broadcast innermost dimension).

use super::store::{head_to_align, store_blocks};
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// `dst[i] = src[0]` for `i in 0..n` elements of `T`.
///
/// # Safety
/// AVX2 is available; one element readable at `src`, `n` writable at `dst`; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fill_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, nt: bool) {
    let e = T::SIZE;
    let mut pattern = [0u8; 32];
    for chunk in pattern.chunks_exact_mut(e) {
        // SAFETY: one element readable at `src`; `chunk` is `e` bytes.
        unsafe { std::ptr::copy_nonoverlapping(src, chunk.as_mut_ptr(), e) };
    }
    // SAFETY: `pattern` is 32 bytes.
    let v = unsafe { _mm256_loadu_si256(pattern.as_ptr().cast()) };
    let len = n * e;
    let head = if nt { head_to_align(dst, len) } else { 0 };
    let nt = nt && head.is_multiple_of(e);
    let head = if nt { head } else { 0 };
    // SAFETY: the first `head` bytes (whole elements) of the destination; the pattern starts on an element boundary.
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), dst, head) };
    let blocks = (len - head) / 32;
    let i = head + blocks * 32;
    // SAFETY: blocks of 32 bytes from `head` (a multiple of e, so the pattern lines up), `blocks * 32 <= len - head`
    // bytes of the destination, aligned when nt.
    unsafe { store_blocks(dst.add(head), blocks, nt, false, |_| v) };
    // SAFETY: the tail i .. len (< 32 bytes, starting on an element boundary).
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), dst.add(i), len - i) };
}
