//! The bulk copy with streaming stores: contiguous runs on both sides, larger than the caches.

use super::store::stream32;
use std::arch::x86_64::*;

/// Runs shorter than this use `ptr::copy_nonoverlapping` even when streaming stores are on.
pub(crate) const NT_MIN_RUN: usize = 256;

/// Copies `len` bytes with non-temporal stores (128 bytes per iteration).
///
/// # Safety
/// AVX2 is available; `src` readable and `dst` writable for `len` bytes; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_nt_avx2(src: *const u8, dst: *mut u8, len: usize) {
    // Whole cache lines only: a line written partly with streaming stores and partly with ordinary ones costs ~20x
    // (nd8_f32's 256-byte rows into a NumPy array at 16 mod 64: 388 ms against 19 ms at 0 mod 64). So the ordinary
    // head runs to a 64-byte boundary and the streamed part is whole lines; the tail is ordinary.
    let head = ((64 - (dst as usize & 63)) & 63).min(len);
    // SAFETY: the first `head` bytes of both ranges.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, head) };
    let mut i = head;
    while i + 128 <= len {
        // SAFETY: bytes i..i+128 lie in both ranges; dst + i is 64-byte aligned (head alignment, steps of 64).
        unsafe {
            let s = src.add(i);
            let a = _mm256_loadu_si256(s.cast());
            let b = _mm256_loadu_si256(s.add(32).cast());
            let c = _mm256_loadu_si256(s.add(64).cast());
            let d = _mm256_loadu_si256(s.add(96).cast());
            let t = dst.add(i);
            stream32(t, a);
            stream32(t.add(32), b);
            stream32(t.add(64), c);
            stream32(t.add(96), d);
        }
        i += 128;
    }
    while i + 64 <= len {
        // SAFETY: bytes i..i+64 lie in both ranges; dst + i is 64-byte aligned.
        unsafe {
            stream32(dst.add(i), _mm256_loadu_si256(src.add(i).cast()));
            stream32(dst.add(i + 32), _mm256_loadu_si256(src.add(i + 32).cast()));
        }
        i += 64;
    }
    // SAFETY: the tail i..len of both ranges.
    unsafe { std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), len - i) };
}
