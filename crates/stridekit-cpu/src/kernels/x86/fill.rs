//! The fill: one source element repeated over a contiguous destination (a broadcast innermost dimension).

use super::store::{head_to_align, store_blocks, stream32};
use crate::kernels::Elem;
use crate::kernels::portable::fill::ADJACENT_BLOCK_MIN;
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
    // SAFETY: one element readable at `src`.
    let v = unsafe { splat::<T>(src) };
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

/// The element at `src`, repeated over a 256-bit register.
///
/// # Safety
/// AVX2 is available; one element of `T` readable at `src`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn splat<T: Elem>(src: *const u8) -> __m256i {
    // SAFETY: one element of `T::SIZE` bytes readable at `src`.
    unsafe {
        match T::SIZE {
            1 => _mm256_set1_epi8(src.read() as i8),
            2 => _mm256_set1_epi16(src.cast::<u16>().read_unaligned() as i16),
            4 => _mm256_set1_epi32(src.cast::<u32>().read_unaligned() as i32),
            _ => _mm256_set1_epi64x(src.cast::<u64>().read_unaligned() as i64),
        }
    }
}

/// Bytes `32 - k .. 64 - k` are a blend mask whose bytes from `k` on are set (`0 < k < 32`).
static FROM_BYTE: [u8; 64] = {
    let mut m = [0u8; 64];
    let mut i = 32;
    while i < 64 {
        m[i] = 0xFF;
        i += 1;
    }
    m
};

/// The calls of a fill loop whose blocks are adjacent: call `i < steps` writes `n` copies of the element at `src + i
/// * s` to the `n * T::SIZE` bytes at `dst + i * n * T::SIZE` (at least [`ADJACENT_BLOCK_MIN`]).
///
/// Each destination line is assembled in two registers, a blend of the one or two elements its 32-byte halves
/// hold (a line inside one call, short of its boundary, is that call's value with no test), and stored whole,
/// streamed when `nt` (ordinary stores otherwise: short fills under loops that do not stream,
/// `portable::fill::adjacent_loop`); the partial lines at both ends are assembled the same way on the stack and
/// stored ordinarily, only the bytes of the calls. Through the L1 stage instead (`kernels/stage.rs`), each call
/// stored its block there and the stage was copied out: fills of 336 bytes ran at two thirds of the speed of fills of
/// whole lines.
///
/// # Safety
/// AVX2 is available; the `steps` source elements are readable; the `steps * n * T::SIZE` bytes from `dst` are
/// writable and overlap none of them; `n * T::SIZE >= ADJACENT_BLOCK_MIN`. `dst` is a multiple of `T::SIZE` (else the
/// registers' elements straddle the output's: wrong values, not unsoundness).
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fill_adjacent_avx2<T: Elem>(
    src: *const u8,
    s: isize,
    steps: usize,
    n: usize,
    dst: *mut u8,
    nt: bool,
) {
    let block = (n * T::SIZE) as isize;
    debug_assert!(block >= ADJACENT_BLOCK_MIN as isize && steps > 0 && (dst as usize).is_multiple_of(T::SIZE));
    let end = steps as isize * block;
    // SAFETY: call i < steps reads its element (the caller's).
    let value = |i: usize| unsafe { splat::<T>(src.wrapping_offset(i as isize * s)) };
    // Call `a` fills the output bytes up to `boundary` (relative to `dst`), call `a + 1` (`next`; the last call's own
    // value past the end, bytes never stored) the block after it.
    let mut st = Calls { a: 0, this: value(0), next: if steps > 1 { value(1) } else { value(0) }, boundary: block };
    // The 32 bytes of output from `x` (a multiple of 32 from the line of `dst`), in order: bytes before `dst` or
    // past the end hold whatever value is at hand.
    let chunk = |st: &mut Calls, x: isize| {
        let v = if st.boundary < x + 32 {
            // 0 < k < 32: the block is at least 32 bytes, so at most one boundary falls inside the chunk, and the
            // lines stored whole below stop short of it.
            let k = (st.boundary - x) as usize;
            // SAFETY: bytes 32 - k .. 64 - k of the 64-byte table.
            let mask = unsafe { _mm256_loadu_si256(FROM_BYTE.as_ptr().add(32 - k).cast()) };
            _mm256_blendv_epi8(st.this, st.next, mask)
        } else {
            st.this
        };
        // The chunk reaches call `a`'s end: the next chunk starts in call `a + 1`.
        if st.boundary <= x + 32 {
            st.a += 1;
            (st.this, st.boundary) = (st.next, st.boundary + block);
            st.next = if st.a + 1 < steps { value(st.a + 1) } else { st.this };
        }
        v
    };
    // A partial line at `x`: its bytes `from .. to` (relative to the line) are the output's.
    let partial = |x: isize, lo: __m256i, hi: __m256i, from: usize, to: usize| {
        let mut line = [0u8; 64];
        // SAFETY: the 64 bytes of `line`; output bytes dst + x + from .. dst + x + to are inside 0 .. end (the
        // caller's), and `line` is not the output.
        unsafe {
            _mm256_storeu_si256(line.as_mut_ptr().cast(), lo);
            _mm256_storeu_si256(line.as_mut_ptr().add(32).cast(), hi);
            std::ptr::copy_nonoverlapping(line.as_ptr().add(from), dst.offset(x + from as isize), to - from);
        }
    };
    // A whole line at `x`.
    let whole = |x: isize, lo: __m256i, hi: __m256i| {
        // SAFETY: the whole line dst + x .. dst + x + 64 (aligned: x is a multiple of 64 from dst's line) is inside
        // 0 .. end (the callers' loop conditions).
        unsafe {
            if nt {
                stream32(dst.offset(x), lo);
                stream32(dst.offset(x + 32), hi);
            } else {
                _mm256_storeu_si256(dst.offset(x).cast(), lo);
                _mm256_storeu_si256(dst.offset(x + 32).cast(), hi);
            }
        }
    };
    let mut x = -((dst as usize % 64) as isize);
    if x < 0 {
        let (lo, hi) = (chunk(&mut st, x), chunk(&mut st, x + 32));
        partial(x, lo, hi, x.unsigned_abs(), (end - x).min(64) as usize);
        x += 64;
    }
    while x + 64 <= end {
        // The lines that lie wholly inside one call, short of its boundary: its value, with no test per chunk (long
        // blocks spent most of their time on the tests).
        while x + 64 <= end && st.boundary > x + 64 {
            whole(x, st.this, st.this);
            x += 64;
        }
        if x + 64 > end {
            break;
        }
        let (lo, hi) = (chunk(&mut st, x), chunk(&mut st, x + 32));
        whole(x, lo, hi);
        x += 64;
    }
    if x < end {
        let (lo, hi) = (chunk(&mut st, x), chunk(&mut st, x + 32));
        partial(x, lo, hi, 0, (end - x) as usize);
    }
}

/// The state of [`fill_adjacent_avx2`]'s walk: call `a` fills the output bytes up to `boundary` with `this`, call
/// `a + 1` the block after it with `next`.
struct Calls {
    a: usize,
    this: __m256i,
    next: __m256i,
    boundary: isize,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element size, blocks of 32 bytes on (one and two calls per 32-byte chunk, a call of whole lines, calls
    /// longer than a line), a call, two and many, values read forwards and backwards, every start modulo a line,
    /// streamed and ordinary stores: each call's block holds its value, and no byte around the blocks is written.
    #[test]
    fn adjacent_fills_write_each_block_and_nothing_else() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>(block: usize, steps: usize, at: usize, s: isize, nt: bool) {
            let e = T::SIZE;
            let n = block / e;
            // Distinct element values, `s` elements apart from the middle of the source.
            let src: Vec<u8> = (0..(2 * steps + 2) * e).map(|i| (i * 7 + 3) as u8).collect();
            let first = (steps + 1) * e;
            let mut buf = vec![0xEEu8; 64 + steps * block + 64 + 64];
            let start = (64 - buf.as_ptr() as usize % 64) % 64 + at;
            // SAFETY: AVX2 detected; call i reads the element at first + i * s * e (within `src` for |s| <= 1);
            // the steps * block bytes from `start` lie in `buf`; block >= 32.
            unsafe {
                let (from, to) = (src.as_ptr().add(first), buf.as_mut_ptr().add(start));
                fill_adjacent_avx2::<T>(from, s * e as isize, steps, n, to, nt)
            };
            for i in 0..steps {
                let from = (first as isize + i as isize * s * e as isize) as usize;
                let value = &src[from..from + e];
                let out = &buf[start + i * block..start + (i + 1) * block];
                assert!(
                    out.chunks_exact(e).all(|x| x == value),
                    "{e}-byte elements, block {block}, {steps} steps, at {at}, s {s}, nt {nt}: call {i}"
                );
            }
            let around = buf[..start].iter().chain(&buf[start + steps * block..]);
            assert!(around.into_iter().all(|&b| b == 0xEE), "block {block}, {steps} steps, at {at}: beyond the blocks");
        }
        let (blocks, steps, starts): (&[usize], &[usize], usize) = if cfg!(miri) {
            (&[40, 336], &[1, 5], 2)
        } else {
            (&[32, 40, 56, 64, 96, 128, 200, 336, 1000], &[1, 2, 4, 13], 64)
        };
        for &block in blocks {
            for &k in steps {
                for at in 0..starts {
                    let at = if cfg!(miri) { at * 24 } else { at };
                    for (s, nt) in [(1, true), (0, true), (-1, true), (1, false), (-1, false)] {
                        check::<u64>(block, k, at - at % 8, s, nt);
                        check::<u32>(block, k, at - at % 4, s, nt);
                        check::<u16>(block - block % 2, k, at - at % 2, s, nt);
                        check::<u8>(block, k, at, s, nt);
                    }
                }
            }
        }
    }
}
