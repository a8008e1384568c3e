//! The bulk copy: contiguous runs on both sides, with streaming stores when larger than the caches, and the copy
//! that requests the next call's run as it goes.

use super::prefetch::{Level, prefetch_line};
use super::store::{head_to_align, stream32};
use std::arch::x86_64::*;

/// Runs shorter than this use `ptr::copy_nonoverlapping` even when streaming stores are on.
pub(crate) const NT_MIN_RUN: usize = 256;

/// Bytes before `dst` is at a line boundary, at most `len`: the ordinary head of a streamed copy.
#[inline(always)]
fn head_to_line(dst: *const u8, len: usize) -> usize {
    ((64 - (dst as usize & 63)) & 63).min(len)
}

/// Copies of at least this many bytes with ordinary stores take [`copy_avx2`] rather than `ptr::copy_nonoverlapping`
/// when [`rep_movsb_slow`] says so: from about here up to about the L2's size, glibc's `memcpy` copies with
/// `rep movsb` (`x86_rep_movsb_threshold`: 2112 bytes on the development EPYC, which has FSRM; 4096 on AVX2 CPUs
/// without it, where the loop then also takes 2048-4095 bytes from `memcpy`'s vector loop, as fast at every offset).
pub(crate) const REP_MOVSB_MIN_BYTES: usize = 2048;

/// Whether `rep movsb` copies from `src` to `dst` slowly: when the destination's offset within its 64-byte line is
/// past the source's. Measured on the development EPYC (Zen 3), 2026-11-28, with a C loop over pairs of offsets mod
/// 64 (`docs/PERFORMANCE.md`, twenty-fifth round): 1-31 bytes past, 2-3 GB/s at every size from 2200 to 200000
/// bytes, against 40-86 GB/s at offsets that are equal or behind; 33-63 bytes past, 0.5-1x those (20-49 GB/s at
/// 16 KiB over two runs, 29-31 at 200000 bytes). The loop of [`copy_avx2`] ran at 31-45 GB/s (L2 and beyond) and
/// 78-86 GB/s (L1) at every offset; from 1 MB on, where `memcpy` leaves `rep movsb`, both ran at 33-38 GB/s, so the
/// test has no upper bound. Where the offsets are equal or the destination's is behind, `memcpy` stays: the loop
/// for every run lost over the sweep's 30 bulk copies and fills with ordinary stores (1.04 of the time, five
/// alternating rounds), whose offsets mostly match. Only measured on Zen 3; elsewhere the loop is about as fast as
/// `memcpy`'s own vector loops.
#[inline]
pub(crate) fn rep_movsb_slow(src: *const u8, dst: *const u8) -> bool {
    (dst as usize & 63) > (src as usize & 63)
}

/// Copies `len` bytes with ordinary stores: unaligned 32-byte loads, stores aligned to 32 bytes of `dst` (an ordinary
/// head up to that boundary, 64 bytes per iteration, an ordinary tail), whatever the two ranges' alignments.
///
/// # Safety
/// AVX2 is available; `src` readable and `dst` writable for `len` bytes; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_avx2(src: *const u8, dst: *mut u8, len: usize) {
    let head = head_to_align(dst, len);
    // SAFETY: the first `head` bytes of both ranges.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, head) };
    let mut i = head;
    while i + 64 <= len {
        // SAFETY: bytes i..i+64 lie in both ranges; dst + i is 32-byte aligned (the head, steps of 64).
        unsafe {
            let a = _mm256_loadu_si256(src.add(i).cast());
            let b = _mm256_loadu_si256(src.add(i + 32).cast());
            _mm256_store_si256(dst.add(i).cast(), a);
            _mm256_store_si256(dst.add(i + 32).cast(), b);
        }
        i += 64;
    }
    // SAFETY: the tail i..len of both ranges (fewer than 64 bytes).
    unsafe { std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), len - i) };
}

/// Copies `len` bytes with non-temporal stores (128 bytes per iteration).
///
/// # Safety
/// AVX2 is available; `src` readable and `dst` writable for `len` bytes; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_nt_avx2(src: *const u8, dst: *mut u8, len: usize) {
    // Whole cache lines only: a line written partly with streaming stores and partly with ordinary ones costs ~20x
    // (nd8_f32's 256-byte rows into a NumPy array at 16 mod 64: 388 ms against 19 ms at 0 mod 64). So the ordinary
    // head runs to a 64-byte boundary and the streamed part is whole lines; the tail is ordinary.
    let head = head_to_line(dst, len);
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

/// Copies `len` bytes (with streaming stores when `NT`, as [`copy_nt_avx2`] does: an ordinary head up to a line
/// boundary of `dst`, whole lines streamed, an ordinary tail) and requests the lines of the `ahead_len` bytes at
/// `ahead` (the start of the next call's run, when the next call jumps: a skipped row, rows bottom-up) one per 64
/// bytes copied, over the copy's last 64-byte chunks, into L2 when `NT` (`prefetch::Level`), otherwise L1. Requested
/// all at once into L1 before the copy, those lines held the line fill buffers while the copy's own loads waited
/// behind them (as the table passes' did, `portable::table::request_lines`).
/// `ahead` is only ever prefetched, never read: it may name any bytes.
///
/// # Safety
/// AVX2 is available; `src` readable and `dst` writable for `len` bytes; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_avx2_ahead<const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    len: usize,
    ahead: *const u8,
    ahead_len: usize,
) {
    let head = if NT { head_to_line(dst, len) } else { 0 };
    // SAFETY: the first `head` bytes of both ranges.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, head) };
    let chunk = |i: usize| {
        // SAFETY: bytes i..i+64 lie in both ranges (the loops below); with NT, dst + i is 64-byte aligned (the
        // head, steps of 64).
        unsafe {
            let a = _mm256_loadu_si256(src.add(i).cast());
            let b = _mm256_loadu_si256(src.add(i + 32).cast());
            match NT {
                true => {
                    stream32(dst.add(i), a);
                    stream32(dst.add(i + 32), b);
                }
                false => {
                    _mm256_storeu_si256(dst.add(i).cast(), a);
                    _mm256_storeu_si256(dst.add(i + 32).cast(), b);
                }
            }
        }
    };
    // The next run's `lines` lines from the line `ahead` lies in: the first before the chunks that request, one
    // with each of them, what remains (when there are fewer chunks than lines) after.
    let first = ahead.wrapping_sub(ahead as usize & 63);
    let lines = ((ahead as usize & 63) + ahead_len).div_ceil(64);
    let chunks = (len - head) / 64;
    let quiet = chunks.saturating_sub(lines.saturating_sub(1));
    let mut i = head;
    for _ in 0..quiet {
        chunk(i);
        i += 64;
    }
    prefetch_line(first, Level::of(NT));
    let mut k = 1;
    for _ in quiet..chunks {
        prefetch_line(first.wrapping_add(k * 64), Level::of(NT));
        k += 1;
        chunk(i);
        i += 64;
    }
    while k < lines {
        prefetch_line(first.wrapping_add(k * 64), Level::of(NT));
        k += 1;
    }
    // SAFETY: the tail i..len of both ranges (fewer than 64 bytes).
    unsafe { std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), len - i) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_that_request_the_next_run_copy_every_byte_at_any_alignment() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let src: Vec<u8> = (0..700u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 63, 64, 65, 127, 128, 200, 256, 300, 511] {
            for (s_off, d_off, next) in [(0, 0, len), (1, 0, len), (0, 17, 64), (5, 63, len), (32, 32, 1000)] {
                // SAFETY: `ahead` is only prefetched; a run past the end of the source names no byte read.
                let ahead = src.as_ptr().wrapping_add(s_off + len);
                let mut out = vec![0u8; 600];
                // SAFETY: AVX2 detected; len + offsets <= 700 and 600 bytes; separate vectors.
                unsafe {
                    copy_avx2_ahead::<false>(src.as_ptr().add(s_off), out.as_mut_ptr().add(d_off), len, ahead, next)
                };
                assert_eq!(&out[d_off..d_off + len], &src[s_off..s_off + len], "ordinary, len {len}");
                assert!(out[..d_off].iter().chain(&out[d_off + len..]).all(|&b| b == 0));
                let mut out = vec![0u8; 600];
                // SAFETY: as above.
                unsafe {
                    copy_avx2_ahead::<true>(src.as_ptr().add(s_off), out.as_mut_ptr().add(d_off), len, ahead, next)
                };
                assert_eq!(&out[d_off..d_off + len], &src[s_off..s_off + len], "streamed, len {len}");
                assert!(out[..d_off].iter().chain(&out[d_off + len..]).all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn copies_past_the_rep_movsb_threshold_copy_every_byte_at_any_alignment() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let src: Vec<u8> = (0..2200u32).map(|i| (i * 131 + i / 256) as u8).collect();
        // Around the 32-byte head and the 64-byte steps, and one length past the threshold.
        for len in [0, 31, 64, 100, 257, 2111] {
            for (s_off, d_off) in [(0, 0), (0, 8), (24, 16), (5, 63), (63, 0), (32, 33), (17, 49)] {
                let mut out = vec![0u8; 2200 + 64];
                // SAFETY: AVX2 detected; len + offsets fit both vectors, which are separate.
                unsafe { copy_avx2(src.as_ptr().add(s_off), out.as_mut_ptr().add(d_off), len) };
                assert_eq!(&out[d_off..d_off + len], &src[s_off..s_off + len], "len {len}, offsets {s_off} {d_off}");
                assert!(out[..d_off].iter().chain(&out[d_off + len..]).all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn rep_movsb_is_slow_where_the_destination_runs_ahead_within_its_line() {
        let at = |offset: usize| (4096 + offset) as *const u8;
        // Past by 1-63 bytes within the line: slow; level or behind: fast.
        assert!(rep_movsb_slow(at(0), at(8)) && rep_movsb_slow(at(24), at(60)) && rep_movsb_slow(at(0), at(63)));
        assert!(!rep_movsb_slow(at(0), at(0)) && !rep_movsb_slow(at(8), at(0)) && !rep_movsb_slow(at(56), at(64)));
    }
}
