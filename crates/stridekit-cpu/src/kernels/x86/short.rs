//! The transpose of fewer destination rows than a square tile: each source row (pixel) holds the `na` elements of
//! the rows, and a tile's worth of pixels is loaded whole, transposed in registers, and only the `na` rows stored.

use super::prefetch::{Level, prefetch_line};
use super::tiles::{network16, tile_size, transpose4x8, transpose8x4};
use super::transpose::pixels_end;
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// The fewest rows [`transpose_short`] takes for `e`-byte elements: a quarter of a tile of bytes (4 of 16), two of
/// the others. Below that a tile's transpose costs more than the elements it stores: 16 loads and 64 unpacks (the
/// network of that measurement; the byte network of `tiles::network16` is now 24 unpacks and 16 lane moves) for 2
/// rows of 16 bytes, where the gather tiles move each byte with a load and a store.
const fn short_min_rows(e: usize) -> usize {
    if e == 1 { 4 } else { 2 }
}

/// Pixels closer than this (in bytes) are left to the gather tiles unless they are bytes: their rows are SIMD
/// gathers there (a gather kernel's shuffles at strides of 2-4 elements), and the short tiles ran 0.75-0.99 of
/// their speed on seven such sweep cases (3 of 9 u16 per pixel, sweep4_189: 0.75; 3 u64 pixels packed, sweep4_031:
/// 0.86). Byte pixels gained even that close (5 of 10 bytes, sweep3_072: 1.13).
const SHORT_MIN_PIXEL_BYTES: usize = 64;

/// Whether [`transpose_short`] takes a transpose of `na` destination rows out of `nb` pixels of `e`-byte elements
/// `b_src` bytes apart: fewer rows than a tile but at least [`short_min_rows`], at least a tile of pixels (every
/// destination store is a whole tile's width of a row, the last one overlapping its predecessor), and pixels of
/// bytes or at least [`SHORT_MIN_PIXEL_BYTES`] apart.
pub(crate) fn transpose_short_fits(na: usize, nb: usize, b_src: isize, e: usize) -> bool {
    let tile = tile_size(e);
    (short_min_rows(e)..tile).contains(&na) && nb >= tile && (e == 1 || b_src.unsigned_abs() >= SHORT_MIN_PIXEL_BYTES)
}

/// The transpose `dst[a * a_dst + b] = src[a + b * b_src]` (element indices, byte strides) of
/// [`transpose_short_fits`] shapes: per tile of pixels `b`, one load of a tile's width (16 bytes of bytes and
/// 2-byte elements, 32 of the others) at each pixel, the square transpose of `x86/tiles.rs` in registers, and the
/// first `na` of its rows stored. The gather tiles this replaces gather each of the `na` rows element by element:
/// 12 channels of 29 bytes under a reversed pixel order (sweep3_142 of `--sweep 200 --seed 3`) ran at 2.6 GB/s.
/// Over the 24 sweep cases of fewer rows than a tile (seeds 1-4), 0.91 of the time with these tiles for every
/// pixel distance, six alternating rounds: 2 u16 of pixels 288 bytes apart 0.57 (sweep4_141), 3 u64 0.68
/// (sweep2_128), 7 u16 0.68 (sweep4_157), 3 f32 0.72 (sweep3_047), 12 bytes 0.76 (sweep3_142, and 0.39 with its
/// loops reordered, `reuse::rereading_loops_inside`); pixels nearer than a line of wider elements lost (see
/// [`SHORT_MIN_PIXEL_BYTES`]).
///
/// A load reads past a pixel's `na` elements: into the bytes up to the next pixel, or past the highest pixel of the
/// call. Pixels whose load would end beyond the call's highest source byte (the last element of its highest pixel)
/// are first copied to a stack buffer, so that no load leaves the bytes between the call's source elements.
///
/// # Safety
/// AVX2 is available; `na` is at most a tile and `nb` at least one ([`transpose_short_fits`] gives more); every
/// source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is valid, and so is every byte
/// between the lowest and the highest source element (inside the allocation, read and discarded); the destination
/// rows do not overlap each other or the source.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn transpose_short<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    level: Level,
) {
    let e = T::SIZE;
    let tile = tile_size(e);
    debug_assert!(na <= tile && nb >= tile);
    // Bytes of a pixel's load, and the end of the call's source from `src`.
    let width = if e <= 2 { 16 } else { 32 };
    let end = pixels_end(na, nb, b_src, e);
    // Pixels a line or more apart are a stream each: request each pixel's line two tiles ahead.
    let ahead = b_src.unsigned_abs() >= 64;
    let mut buffer = [[0u8; 32]; 16];
    let mut b0 = 0;
    while b0 < nb {
        // The last tile of pixels overlaps its predecessor (the overlap written twice with the same values).
        let tb = b0.min(nb - tile);
        let mut rows = [std::ptr::null::<u8>(); 16];
        for (j, row) in rows[..tile].iter_mut().enumerate() {
            let at = (tb + j) as isize * b_src;
            if ahead {
                prefetch_line(src.wrapping_offset(at.wrapping_add((2 * tile as isize).wrapping_mul(b_src))), level);
            }
            *row = if at + width as isize <= end {
                // In range: at >= the lowest pixel's offset, and the load ends at or before `end`.
                src.wrapping_offset(at)
            } else {
                // SAFETY: the pixel's na elements (na e <= width bytes) are readable (the caller's contract); the
                // buffer row is 32 bytes.
                unsafe { std::ptr::copy_nonoverlapping(src.offset(at), buffer[j].as_mut_ptr(), na * e) };
                buffer[j].as_ptr()
            };
        }
        // SAFETY: every row pointer is `width` readable bytes (in the caller's source range or the buffer); the
        // destination rows a < na hold the tile's pixels tb .. tb + tile (tb + tile <= nb).
        unsafe { short_tile::<T>(&rows, dst.add(tb * e), a_dst, na) };
        b0 += tile;
    }
}

/// Transposes one tile of pixels (the first `tile_size` of `rows`, each a tile's width of bytes) and stores the first
/// `na` rows of the result, row `a` at `dst + a * a_dst`.
///
/// # Safety
/// AVX2 is available; each of the first `tile_size(size_of T)` pointers of `rows` is 16 (elements of 1-2 bytes) or
/// 32 readable bytes; `na <= tile_size` destination rows of as many bytes at `dst + a * a_dst` are writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn short_tile<T: Elem>(rows: &[*const u8; 16], dst: *mut u8, a_dst: isize, na: usize) {
    // SAFETY: every load below reads a tile's width at one of the first `tile` row pointers and every store writes
    // that width at one of the first `na` destination rows: the caller's contract.
    unsafe {
        match T::SIZE {
            1 => {
                let v: [__m128i; 16] = std::array::from_fn(|j| _mm_loadu_si128(rows[j].cast()));
                for (a, r) in network16(v).into_iter().enumerate().take(na) {
                    _mm_storeu_si128(dst.offset(a as isize * a_dst).cast(), r);
                }
            }
            2 => {
                let v: [__m128i; 8] = std::array::from_fn(|j| _mm_loadu_si128(rows[j].cast()));
                for (a, r) in network16(v).into_iter().enumerate().take(na) {
                    _mm_storeu_si128(dst.offset(a as isize * a_dst).cast(), r);
                }
            }
            4 => {
                let v: [__m256i; 8] = std::array::from_fn(|j| _mm256_loadu_si256(rows[j].cast()));
                for (a, r) in transpose8x4(v).into_iter().enumerate().take(na) {
                    _mm256_storeu_si256(dst.offset(a as isize * a_dst).cast(), r);
                }
            }
            _ => {
                let v: [__m256i; 4] = std::array::from_fn(|j| _mm256_loadu_si256(rows[j].cast()));
                for (a, r) in transpose4x8(v).into_iter().enumerate().take(na) {
                    _mm256_storeu_si256(dst.offset(a as isize * a_dst).cast(), r);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::x86::tiles::assert_transposed;

    #[test]
    fn short_tiles_take_fewer_rows_than_a_tile_of_bytes_or_of_pixels_a_line_apart() {
        // Bytes: 4-15 rows at any distance (12 channels of 29 pixels 1056 bytes apart, 5 of 10-byte pixels).
        assert!(transpose_short_fits(12, 29, -1056, 1) && transpose_short_fits(5, 100, 10, 1));
        assert!(transpose_short_fits(4, 16, 4, 1) && transpose_short_fits(15, 100, 15, 1));
        assert!(!transpose_short_fits(3, 100, 64, 1) && !transpose_short_fits(16, 100, 64, 1));
        assert!(!transpose_short_fits(8, 15, 64, 1));
        // Wider elements: 2 rows to a tile less one, pixels a line or more apart.
        assert!(transpose_short_fits(2, 8, 288, 2) && transpose_short_fits(7, 8, -1120, 4));
        assert!(transpose_short_fits(3, 4, 177_072, 8) && transpose_short_fits(3, 100, -64, 4));
        assert!(!transpose_short_fits(3, 100, 18, 2) && !transpose_short_fits(3, 100, 24, 8));
        assert!(!transpose_short_fits(1, 100, 288, 2) && !transpose_short_fits(8, 100, 288, 4));
        assert!(!transpose_short_fits(3, 3, 288, 8));
    }

    /// Every element size and row count against the element-by-element definition: pixels padded (the loads read
    /// the padding), packed (they read the next pixel's elements) and reversed, a partial last tile, and a source
    /// that ends at the call's last element (the top pixels through the buffer, caught by Miri otherwise).
    #[test]
    fn short_tiles_of_every_element_size_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>() {
            let e = T::SIZE;
            let tile = tile_size(e);
            let nb = 2 * tile + 3;
            for na in short_min_rows(e)..tile {
                for (pad, back) in [(0, false), (3, false), (0, true), (5, true)] {
                    let pixel = (na + pad) * e;
                    // Exactly the call's source: from the lowest pixel to the last element of the highest.
                    let len = (nb - 1) * pixel + na * e;
                    let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
                    let (s0, b_src) = if back { ((nb - 1) * pixel, -(pixel as isize)) } else { (0, pixel as isize) };
                    let a_dst = (nb + 2) * e;
                    let mut dst = vec![0u8; na * a_dst];
                    // SAFETY: AVX2 detected; source element (a, b) at s0 + a e + b b_src inside `src`, and the whole
                    // call's source is the vector; destination (a, b) at a a_dst + b e inside `dst`; fits holds.
                    unsafe {
                        transpose_short::<T>(
                            src.as_ptr().add(s0),
                            dst.as_mut_ptr(),
                            na,
                            a_dst as isize,
                            nb,
                            b_src,
                            Level::L1,
                        )
                    };
                    let what = format!("{na} rows, pad {pad} back {back}");
                    assert_transposed(&src, (s0, e as isize, b_src), &dst, (0, a_dst as isize), (na, nb, e), &what);
                }
            }
        }
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }
}
