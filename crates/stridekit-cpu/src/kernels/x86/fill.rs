//! The fill: one source element repeated over a contiguous destination (a broadcast innermost dimension).

use super::store::{head_to_align, store_blocks};
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// `dst[i] = src[0]` for `i in 0..n` elements of `T`.
///
/// Small fills are many calls (a row of a broadcast image per call): the element is splatted with one broadcast
/// instruction and the ends are written with at most two overlapping stores each, not a byte loop and `memcpy`
/// calls (a fill of 70 u16 spent about 40 cycles a call on those).
///
/// # Safety
/// AVX2 is available; one element readable at `src`, `n` writable at `dst`; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fill_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, nt: bool) {
    let e = T::SIZE;
    // SAFETY: one element of `e` bytes readable at `src`.
    let v = unsafe {
        match e {
            1 => _mm256_set1_epi8(src.read() as i8),
            2 => _mm256_set1_epi16(src.cast::<u16>().read_unaligned() as i16),
            4 => _mm256_set1_epi32(src.cast::<u32>().read_unaligned() as i32),
            _ => _mm256_set1_epi64x(src.cast::<u64>().read_unaligned() as i64),
        }
    };
    let len = n * e;
    if len < 32 {
        // SAFETY: the `len` destination bytes.
        unsafe { fill_short(dst, len, v) };
        return;
    }
    let head = if nt { head_to_align(dst, len) } else { 0 };
    let nt = nt && head.is_multiple_of(e);
    let head = if nt { head } else { 0 };
    // SAFETY: the first `head` (< 32) bytes of the destination, whole elements.
    unsafe { fill_short(dst, head, v) };
    let blocks = (len - head) / 32;
    let i = head + blocks * 32;
    // SAFETY: blocks of 32 bytes from `head` (a multiple of e, so the pattern lines up), `blocks * 32 <= len - head`
    // bytes of the destination, aligned when nt.
    unsafe { store_blocks(dst.add(head), blocks, nt, false, |_| v) };
    if i < len && !nt {
        // SAFETY: the last 32 bytes of the destination (len >= 32), from an element boundary (len and 32 are
        // multiples of e); ordinary stores, so overlapping the last block costs nothing.
        unsafe { _mm256_storeu_si256(dst.add(len - 32).cast(), v) };
    } else {
        // SAFETY: the tail i .. len (< 32 bytes, whole elements). Streaming, it stays inside the tail: an ordinary
        // store into a streamed line would flush it half-written.
        unsafe { fill_short(dst.add(i), len - i, v) };
    }
}

/// Writes the `len < 32` bytes at `dst` from the repeated pattern `v` with at most two overlapping stores of the
/// largest power of two at most `len` (a multiple of the element size, as `len` is, so both start on an element).
///
/// # Safety
/// AVX2 is available; `len` bytes writable at `dst`; `len` is a multiple of the pattern's element size.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn fill_short(dst: *mut u8, len: usize, v: __m256i) {
    let lo = _mm256_castsi256_si128(v);
    // SAFETY: every arm writes [0, s) and [len - s, len) with s <= len, inside the caller's `len` bytes.
    unsafe {
        match len {
            16.. => {
                _mm_storeu_si128(dst.cast(), lo);
                _mm_storeu_si128(dst.add(len - 16).cast(), lo);
            }
            8.. => {
                _mm_storel_epi64(dst.cast(), lo);
                _mm_storel_epi64(dst.add(len - 8).cast(), lo);
            }
            4.. => {
                let x = _mm_cvtsi128_si32(lo) as u32;
                dst.cast::<u32>().write_unaligned(x);
                dst.add(len - 4).cast::<u32>().write_unaligned(x);
            }
            2.. => {
                let x = _mm_cvtsi128_si32(lo) as u16;
                dst.cast::<u16>().write_unaligned(x);
                dst.add(len - 2).cast::<u16>().write_unaligned(x);
            }
            1 => dst.write(_mm_cvtsi128_si32(lo) as u8),
            _ => {}
        }
    }
}
