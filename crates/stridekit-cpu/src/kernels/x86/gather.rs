//! The gather at small strides (+-2 to +-4 elements, and +-5 to +-8 of 1-byte elements) into a contiguous
//! destination, with byte shuffles.

use super::reverse::reverse_vector;
use super::store::{head_to_align, store_blocks};
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// `dst[i] = src[i * stride bytes]` for elements of `T` at a stride of +-2, +-3 or +-4 elements, or of +-5 to +-8
/// bytes, with byte shuffles (hardware gathers measured 5x slower on the development machine). Strides of 5-8 cost
/// a load and a shuffle per 16 source bytes: against the scalar loop's moves per element that pays for the 32 bytes
/// of a block (u8 at stride 8: 0.45 -> 0.90 of the roofline; every other RGBA pixel into planes 0.18 -> 0.33), not
/// for the 16 elements of 2 bytes (every other RGB pixel of f16 into planes: 0.26 -> 0.16). Returns `false`, having
/// written nothing, for any other stride; the caller then runs the portable loop.
///
/// # Safety
/// AVX2 is available; the `n` source elements and `n` contiguous destination elements are valid; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn gather_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, stride: isize, nt: bool) -> bool {
    let e = T::SIZE as isize;
    if stride % e != 0 {
        return false;
    }
    let k = stride / e;
    // SAFETY: for all arms, the caller's contract; K * e is the byte stride's magnitude.
    unsafe {
        match k.unsigned_abs() {
            2 => gather_k::<T, 2>(src, dst, n, k < 0, nt),
            3 => gather_k::<T, 3>(src, dst, n, k < 0, nt),
            4 => gather_k::<T, 4>(src, dst, n, k < 0, nt),
            5 if e == 1 => gather_k::<T, 5>(src, dst, n, k < 0, nt),
            6 if e == 1 => gather_k::<T, 6>(src, dst, n, k < 0, nt),
            7 if e == 1 => gather_k::<T, 7>(src, dst, n, k < 0, nt),
            8 if e == 1 => gather_k::<T, 8>(src, dst, n, k < 0, nt),
            _ => return false,
        }
    }
    true
}

/// `pshufb` masks for a gather of `e`-byte elements at stride `K` elements: mask `c` moves into each 16-byte output
/// lane the bytes that lie in chunk `c` of the lane's `16 K` source bytes, and zeroes the others (so that the
/// `K` shuffled chunks can be OR-ed together). Both 128-bit halves hold the same lane mask. `K` masks, one per
/// chunk: built per call, so a stride of 2 builds two, not the eight of stride 8.
pub(crate) fn gather_masks<const K: usize>(e: usize) -> [[i8; 32]; K] {
    let mut masks = [[i8::MIN; 32]; K];
    for j in 0..16 {
        let from = (j / e) * K * e + j % e;
        masks[from / 16][j] = (from % 16) as i8;
        masks[from / 16][j + 16] = (from % 16) as i8;
    }
    masks
}

/// Gathers the `32 / size_of T` elements at stride `K` elements starting at `p`, forwards, reading the `32 K`
/// bytes from `p` (the last element's stride step included).
///
/// # Safety
/// AVX2 is available; `32 K` bytes readable at `p`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn gather_block<T: Elem, const K: usize>(p: *const u8, masks: &[__m256i; K]) -> __m256i {
    // SAFETY: for every load, the loads cover bytes p .. p + 32 K, the caller's range.
    unsafe {
        if T::SIZE == 4 && K == 2 {
            // Two 8-element vectors; `shufps` keeps the even elements of each 128-bit half, `vpermq` orders them.
            let a = _mm256_castsi256_ps(_mm256_loadu_si256(p.cast()));
            let b = _mm256_castsi256_ps(_mm256_loadu_si256(p.add(32).cast()));
            let even = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
            return _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(even));
        }
        if T::SIZE == 4 && K == 3 {
            // Three vectors, each permuted across lanes so that its elements land in place, then blended.
            let a =
                _mm256_permutevar8x32_epi32(_mm256_loadu_si256(p.cast()), _mm256_setr_epi32(0, 3, 6, 0, 0, 0, 0, 0));
            let b = _mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(p.add(32).cast()),
                _mm256_setr_epi32(0, 0, 0, 1, 4, 7, 0, 0),
            );
            let c = _mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(p.add(64).cast()),
                _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 2, 5),
            );
            return _mm256_blend_epi32::<0b1100_0000>(_mm256_blend_epi32::<0b0011_1000>(a, b), c);
        }
        // General case: output lane h (16 bytes) comes from source bytes 16 K h .. 16 K (h + 1); `pshufb` works
        // within 128-bit lanes, so chunk c of both lanes is loaded into one vector and shuffled with mask c.
        let mut acc = _mm256_setzero_si256();
        for (c, mask) in masks.iter().enumerate() {
            let lo = _mm_loadu_si128(p.add(16 * c).cast());
            let hi = _mm_loadu_si128(p.add(16 * K + 16 * c).cast());
            let v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            acc = _mm256_or_si256(acc, _mm256_shuffle_epi8(v, *mask));
        }
        acc
    }
}

/// The gather of [`gather_avx2`] at a stride of `K` elements, backwards when `neg`.
///
/// A vector block of outputs `i .. i + per` reads the `32 K` source bytes from its lowest element on, which run
/// `(K - 1)` elements' worth past its highest element: up to (excluding) the element of output `i + per` going
/// forwards, of output `i - 1` going backwards. Vector blocks are only used where that element exists, so no byte
/// outside the caller's range is read. Backward gathers run their blocks from the last to the first, so that the
/// source is read at rising addresses (see [`reverse_avx2`]).
///
/// # Safety
/// As for [`gather_avx2`], with the byte stride `K * size_of T`, negated when `neg`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn gather_k<T: Elem, const K: usize>(src: *const u8, dst: *mut u8, n: usize, neg: bool, nt: bool) {
    let e = T::SIZE;
    let per = 32 / e;
    let step = K * e;
    let head = if nt { head_to_align(dst, n * e) / e } else { 0 };
    // A head that is not a whole number of elements cannot reach alignment: fall back to unaligned stores.
    let nt = nt && (dst as usize + head * e).is_multiple_of(32);
    // Backwards, block 0 would read above output 0's element: start one block later (alignment is kept).
    let start = if neg && head == 0 { per.min(n) } else { head };
    let room = if neg { n - start } else { n.saturating_sub(start + 1) };
    let vec_end = start + room / per * per;
    // SAFETY: callers pass i < n, an element of the caller's source range.
    let elem = |i: usize| unsafe { if neg { src.sub(i * step) } else { src.add(i * step) } };
    let scalar = |i: usize| {
        // SAFETY: element i < n of both ranges.
        unsafe { dst.cast::<T>().add(i).write_unaligned(elem(i).cast::<T>().read_unaligned()) }
    };
    let masks = gather_masks::<K>(e).map(|m| {
        // SAFETY: `m` is 32 bytes.
        unsafe { _mm256_loadu_si256(m.as_ptr().cast()) }
    });
    let blocks = (vec_end - start) / per;
    // The gathered outputs i .. i + per: callers pass i >= 1 with i + per <= n backwards, i + per < n forwards, so
    // that the 32 K bytes read lie between two elements of the caller's range (output i + per - 1's element up to,
    // excluding, output i - 1's backwards; output i's up to, excluding, output i + per's forwards).
    let vector = |i: usize| {
        // SAFETY: the range the callers guarantee (above); AVX2 is available.
        unsafe {
            match neg {
                true => reverse_vector::<T>(gather_block::<T, K>(elem(i + per - 1), &masks)),
                false => gather_block::<T, K>(elem(i), &masks),
            }
        }
    };
    // Without streaming, the outputs left over at either end take one more block, overlapping its neighbour (those
    // outputs are written twice with the same values), instead of up to two blocks' worth of scalar loop: short
    // rows under outer loops (77 bytes at stride -2, 44 floats at stride -3) did most of their elements one by one.
    // The block needs its extra element (the one past its last output), as the others do: a call of more than
    // `per` outputs has it.
    let edges = !nt && n > per;
    let edge_block = |i: usize| {
        // SAFETY: the callers below pass i as `vector` requires; outputs i .. i + per are the caller's (stored
        // unaligned).
        unsafe { _mm256_storeu_si256(dst.add(i * e).cast(), vector(i)) }
    };
    if neg {
        if edges && vec_end < n {
            // Outputs vec_end .. n inside n - per .. n (vec_end > n - per, n - per >= 1).
            edge_block(n - per);
        } else {
            for i in (vec_end..n).rev() {
                scalar(i);
            }
        }
        // SAFETY: block k holds outputs i .. i + per (i = start + k per) and reads 32 K bytes from output
        // i + per - 1's element (i + per <= vec_end <= n) up to, excluding, output i - 1's element (i >= start >= 1);
        // the region (from output `start`, 32-byte aligned when nt) is the destination's. Blocks go downwards, so
        // that reads rise.
        unsafe { store_blocks(dst.add(start * e), blocks, nt, true, |k| vector(start + k * per)) };
        // Without streaming, start == per: outputs 1 .. per in the block at 1, output 0 alone (its block would
        // read above it).
        let head_end = if edges && start > 1 {
            edge_block(1);
            1
        } else {
            start
        };
        for i in (0..head_end).rev() {
            scalar(i);
        }
    } else {
        for i in 0..start {
            scalar(i);
        }
        // SAFETY: block k holds outputs i .. i + per (i = start + k per) and reads 32 K bytes from output i's element
        // up to, excluding, output i + per's (i + per < n); the region is the destination's, aligned when nt.
        unsafe { store_blocks(dst.add(start * e), blocks, nt, false, |k| vector(start + k * per)) };
        // Outputs vec_end .. n - 1 inside the block at n - 1 - per (vec_end > n - 1 - per >= start), the last alone
        // (its block would read past it).
        let tail_from = if edges && vec_end + 1 < n {
            edge_block(n - 1 - per);
            n - 1
        } else {
            vec_end
        };
        for i in tail_from..n {
            scalar(i);
        }
    }
}
