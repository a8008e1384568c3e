//! Store primitives of the AVX2 kernels: streaming (non-temporal) stores, which need an aligned destination,
//! the head that brings a destination to that alignment, and the fence that orders them.

use std::arch::x86_64::*;

/// Orders earlier non-temporal stores before later stores.
#[cfg(not(miri))]
pub(crate) fn sfence() {
    // SAFETY: SSE (and so `sfence`) is part of the x86_64 baseline.
    unsafe { _mm_sfence() };
}

/// A 32-byte streaming store. Under Miri, which cannot run the instruction (stdarch implements it with inline
/// assembly), an ordinary unaligned store with the same effect on memory.
///
/// # Safety
/// AVX2 is available; 32 bytes writable at `dst`, which is 32-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn stream32(dst: *mut u8, v: __m256i) {
    debug_assert!((dst as usize).is_multiple_of(32));
    #[cfg(not(miri))]
    // SAFETY: the caller's contract (aligned, writable).
    unsafe {
        _mm256_stream_si256(dst.cast(), v)
    };
    #[cfg(miri)]
    // SAFETY: the caller's contract (writable).
    unsafe {
        _mm256_storeu_si256(dst.cast(), v)
    };
}

/// Bytes to write with scalar code before `dst` is 32-byte aligned, at most `len`.
pub(crate) fn head_to_align(dst: *const u8, len: usize) -> usize {
    ((32 - (dst as usize & 31)) & 31).min(len)
}

/// Whether the 32 bytes at `at` may stream: the whole 64-byte line holding them lies in `[lo, hi)`, the bytes the
/// calling kernel writes with vector stores. A line written partly with streaming and partly with ordinary stores
/// (a scalar head or tail, or the neighbouring row's call) costs about 20x a whole streamed line on the development
/// machine: its write-combining buffer is flushed partially and the line is read for ownership again. Lines at the
/// ends of the region take ordinary stores on both halves instead.
#[inline(always)]
pub(crate) fn whole_line(at: *const u8, lo: *const u8, hi: *const u8) -> bool {
    let line = at as usize & !63;
    line >= lo as usize && line + 64 <= hi as usize
}

/// Stores 32 bytes, streaming when `nt` (then `dst` must be 32-byte aligned).
///
/// # Safety
/// AVX2 is available; 32 bytes writable at `dst`; aligned to 32 when `nt`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn store(dst: *mut u8, v: __m256i, nt: bool) {
    // SAFETY: the caller's contract.
    unsafe { if nt { stream32(dst, v) } else { _mm256_storeu_si256(dst.cast(), v) } }
}

/// A 16-byte streaming store (under Miri an ordinary store, as for [`stream32`]).
///
/// # Safety
/// 16 bytes writable at `dst`, which is 16-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn stream16(dst: *mut u8, v: __m128i) {
    debug_assert!((dst as usize).is_multiple_of(16));
    #[cfg(not(miri))]
    // SAFETY: the caller's contract (aligned, writable).
    unsafe {
        _mm_stream_si128(dst.cast(), v)
    };
    #[cfg(miri)]
    // SAFETY: the caller's contract (writable).
    unsafe {
        _mm_storeu_si128(dst.cast(), v)
    };
}
