//! The reversed run: the destination contiguous, the source walking backwards one element at a time.

use super::store::{head_to_align, store_blocks};
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// Reverses the elements of `T` inside a 32-byte vector.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn reverse_vector<T: Elem>(v: __m256i) -> __m256i {
    match T::SIZE {
        1 => {
            let m = _mm256_setr_epi8(
                15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
                1, 0,
            );
            _mm256_permute2x128_si256::<0x01>(_mm256_shuffle_epi8(v, m), _mm256_shuffle_epi8(v, m))
        }
        2 => {
            let m = _mm256_setr_epi8(
                14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3,
                0, 1,
            );
            let s = _mm256_shuffle_epi8(v, m);
            _mm256_permute2x128_si256::<0x01>(s, s)
        }
        4 => _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
        _ => _mm256_permute4x64_epi64::<0x1B>(v),
    }
}

/// `dst[i] = src[-i]` for `i in 0..n` elements of `T`. The vector blocks go from the last output block to the
/// first, so that the source is read at rising addresses (hardware prefetchers follow forward streams far better
/// than backward ones here) while the destination is written backwards, which streaming stores do not mind.
///
/// # Safety
/// AVX2 is available; elements `src - (n-1) ..= src` readable, `dst .. dst + n` writable; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn reverse_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, nt: bool) {
    let e = T::SIZE;
    let per = 32 / e;
    // Head: scalar until dst is 32-byte aligned (when streaming), so that the vector stores may stream.
    let head = if nt { head_to_align(dst, n * e) / e } else { 0 };
    // A head that is not a whole number of elements cannot reach alignment: fall back to unaligned stores.
    let nt = nt && (dst as usize + head * e).is_multiple_of(32);
    let blocks = (n - head) / per;
    let vec_end = head + blocks * per;
    let scalar = |i: usize| {
        // SAFETY: element i < n of both ranges.
        unsafe { dst.cast::<T>().add(i).write_unaligned(src.cast::<T>().sub(i).read_unaligned()) }
    };
    // Lowest source addresses first: the tail, then the vector blocks backwards, then the head. Without streaming,
    // a tail of a few elements is one more block overlapping the last (written twice with the same values): short
    // reversed rows under outer loops (103 f16, 7 of them one by one) otherwise spent most of their time there.
    if !nt && vec_end < n && n >= per {
        // SAFETY: outputs n - per .. n (n >= per; they include vec_end .. n), read as the 32 bytes from
        // src - (n - 1) elements to src - (n - per), inside the source range; stored unaligned in the destination.
        unsafe {
            let v = reverse_vector::<T>(_mm256_loadu_si256(src.sub((n - 1) * e).cast()));
            _mm256_storeu_si256(dst.add((n - per) * e).cast(), v)
        };
    } else {
        for i in (vec_end..n).rev() {
            scalar(i);
        }
    }
    // SAFETY: block k holds output elements i .. i + per (i = head + k per, i + per <= vec_end <= n), read as the
    // 32 bytes from src - (i + per - 1) elements to src - i, inside the source range; the region (blocks of 32 bytes
    // from dst + head elements) is the destination's, aligned when nt. Blocks go downwards: reads rise.
    unsafe {
        store_blocks(dst.add(head * e), blocks, nt, true, |k| {
            let i = head + k * per;
            reverse_vector::<T>(_mm256_loadu_si256(src.sub((i + per - 1) * e).cast()))
        })
    };
    for i in (0..head).rev() {
        scalar(i);
    }
}
