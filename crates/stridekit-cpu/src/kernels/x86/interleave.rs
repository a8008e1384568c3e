//! The interleave of 2-4 planes into a contiguous destination (planes to pixels, CHW -> HWC).

use super::store::{store, stream16};
use super::tiles::network16;
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// Whether [`transpose_avx2`] has a dedicated interleave for `nb` planes of `e`-byte elements into contiguous pixels,
/// which `portable::transpose` leaves them to rather than to the 64-byte permutes (`planes.rs::pixels64`): 2-4
/// planes ([`interleave`]), 8 planes of bytes ([`interleave_bytes8`], which streams: 8 byte planes into 8-byte
/// pixels of a 64 MB copy took 1.77x the time through the permutes), and, when the copy streams (`nt`), 6-7 planes
/// of 2-byte elements ([`interleave_narrow`], which streams its 16-byte chunks, and fills 6 or 7 of the 8 rows of
/// its tiles): the 192 MB CHW6 -> HWC of f16 (`t_f16_chw6_to_hwc`) took 0.63-0.87 of the time of the permutes and
/// 6 u16 planes of a 58 MB copy (sweep46_156) 0.69-1.06 (four runs of two to four ABBA rounds, each case in its
/// own process; `docs/PERFORMANCE.md`, forty-ninth round). 5 planes, half of whose tile rows are zero, stay with
/// the permutes (a 76 MB copy, sweep12_046: 0.79-1.29).
pub(crate) fn interleave_first(nb: usize, e: usize, nt: bool) -> bool {
    (2..=4).contains(&nb) || (nb == 8 && e == 1) || (nt && e == 2 && (6..=7).contains(&nb))
}

/// The transpose of [`transpose_avx2`] into a contiguous destination with `NB` = 2, 3 or 4 short rows: the
/// interleave of `NB` planes (CHW -> HWC images, planar -> interleaved pairs), `dst[a * NB + b] = src[a + b *
/// b_src]`. The square tiles would leave such a transpose to their scalar edge loop. Each block takes 16 bytes of
/// every source row and writes the `16 NB` destination bytes they make: destination chunk `j` is the OR of one
/// `pshufb` per source row (mask `[j][b]` picks the bytes of row `b` that land in chunk `j`). Returns `false`,
/// having written nothing, when there is not one whole block (the caller's tiles handle it).
///
/// # Safety
/// As for [`transpose_avx2`] with `nb == NB` and `a_dst == NB * size_of T`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn interleave<T: Elem, const NB: usize>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    b_src: isize,
    nt: bool,
) -> bool {
    let e = T::SIZE;
    let per = 16 / e;
    if na < 2 * per {
        return false;
    }
    // SAFETY: each mask is 16 bytes.
    let masks = Masks::<T, NB>::BYTES.map(|row| row.map(|m| unsafe { _mm_loadu_si128(m.as_ptr().cast()) }));
    // Streaming stores need 16-byte alignment: a head of `a` values that brings the destination there, if any
    // (the destination advances NB * e bytes per value, so one of the first 16 values aligns it when any does).
    let (nt, head) = stream_head(dst, NB * e, 16.min(na), 16, nt);
    let blocks = (na - head) / per;
    let vec_end = head + blocks * per;
    let ei = e as isize;
    // SAFETY: pixels 0 .. head < na, inside the caller's ranges.
    unsafe { scalar_pixels::<T, NB>(src, dst, b_src, 0..head) };
    for a0 in (head..vec_end).step_by(per) {
        // SAFETY: source elements a0 .. a0 + per of every row b < NB (16 bytes each), a0 + per <= vec_end <= na.
        let rows: [__m128i; NB] = std::array::from_fn(|b| unsafe {
            _mm_loadu_si128(src.offset(a0 as isize * ei + b as isize * b_src).cast())
        });
        // SAFETY: the first destination byte of element (a0, 0), inside the range.
        let out = unsafe { dst.add(a0 * NB * e) };
        for (j, chunk_masks) in masks.iter().enumerate() {
            let mut v = _mm_setzero_si128();
            for (row, mask) in rows.iter().zip(chunk_masks) {
                v = _mm_or_si128(v, _mm_shuffle_epi8(*row, *mask));
            }
            // SAFETY: destination bytes of elements a0 .. a0 + per (16 NB bytes from `out`), inside the range;
            // 16-byte aligned when nt (the head aligned it, blocks advance 16 NB bytes).
            unsafe { if nt { stream16(out.add(16 * j), v) } else { _mm_storeu_si128(out.add(16 * j).cast(), v) } };
        }
    }
    // SAFETY: pixels vec_end .. na, inside the caller's ranges.
    unsafe { scalar_pixels::<T, NB>(src, dst, b_src, vec_end..na) };
    true
}

/// The interleave of 8 planes of bytes into 8-byte pixels (`dst[a * 8 + b] = src[a + b * b_src]`), which the
/// `pshufb` form above would do with 8 shuffles per 16 output bytes and the narrow tiles with a 16-row network over
/// half-empty registers: here 32 pixels of the 8 rows are three rounds of AVX2 unpacks (bytes, pairs, quads),
/// whose lanes hold pixels 0-15 and 16-31, and four lane permutes per half put them in order. With `nt`, a head
/// of at most 7 pixels brings the destination to a line boundary and each 256-byte block is streamed as whole
/// lines; the head and the tail take ordinary stores. Returns `false`, having written nothing, when there is not
/// one whole block (the caller's tiles handle it).
///
/// # Safety
/// As for [`transpose_avx2`] with `T = u8`, `nb == 8` and `a_dst == 8`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn interleave_bytes8(src: *const u8, dst: *mut u8, na: usize, b_src: isize, nt: bool) -> bool {
    const BLOCK: usize = 32;
    if na < 2 * BLOCK {
        return false;
    }
    let (nt, head) = stream_head(dst, 8, 8, 64, nt);
    let vec_end = head + (na - head) / BLOCK * BLOCK;
    // SAFETY: pixels 0 .. head < na, inside the caller's ranges.
    unsafe { scalar_pixels::<u8, 8>(src, dst, b_src, 0..head) };
    for a0 in (head..vec_end).step_by(BLOCK) {
        // SAFETY: source elements a0 .. a0 + 32 of every row b < 8, a0 + 32 <= vec_end <= na.
        let row = |b: isize| unsafe { _mm256_loadu_si256(src.offset(a0 as isize + b * b_src).cast()) };
        let pixels = bytes8_network([row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)]);
        for (i, v) in pixels.into_iter().enumerate() {
            // SAFETY: destination bytes of pixels a0 .. a0 + 32 (256 bytes from a0 * 8), inside the range; when nt,
            // 64-byte aligned at the block's start (the head aligned it, blocks advance 256 bytes).
            unsafe { store(dst.add(a0 * 8 + 32 * i), v, nt) };
        }
    }
    // SAFETY: pixels vec_end .. na, inside the caller's ranges.
    unsafe { scalar_pixels::<u8, 8>(src, dst, b_src, vec_end..na) };
    true
}

/// 32 pixels of 8 bytes, in order, from 32 bytes of each of 8 rows.
#[target_feature(enable = "avx2")]
#[inline]
fn bytes8_network(r: [__m256i; 8]) -> [__m256i; 8] {
    // Pairs of rows (0 1, 2 3, 4 5, 6 7): per lane, pixels 0-7 (lo) and 8-15 (hi) of 2 bytes.
    let t = [0, 2, 4, 6].map(|k| (_mm256_unpacklo_epi8(r[k], r[k + 1]), _mm256_unpackhi_epi8(r[k], r[k + 1])));
    // Quads (rows 0-3 and 4-7): per lane, pixels 0-3, 4-7, 8-11, 12-15 of 4 bytes.
    let quads = |p: (__m256i, __m256i), q: (__m256i, __m256i)| {
        [
            _mm256_unpacklo_epi16(p.0, q.0),
            _mm256_unpackhi_epi16(p.0, q.0),
            _mm256_unpacklo_epi16(p.1, q.1),
            _mm256_unpackhi_epi16(p.1, q.1),
        ]
    };
    let (u, v) = (quads(t[0], t[1]), quads(t[2], t[3]));
    // Whole pixels: w[2i] holds pixels 4i, 4i + 1 of each lane, w[2i + 1] pixels 4i + 2, 4i + 3.
    let w: [__m256i; 8] = std::array::from_fn(|j| match j % 2 {
        0 => _mm256_unpacklo_epi32(u[j / 2], v[j / 2]),
        _ => _mm256_unpackhi_epi32(u[j / 2], v[j / 2]),
    });
    std::array::from_fn(|i| match i / 4 {
        0 => _mm256_permute2x128_si256::<0x20>(w[2 * i], w[2 * i + 1]),
        _ => _mm256_permute2x128_si256::<0x31>(w[2 * (i - 4)], w[2 * (i - 4) + 1]),
    })
}

/// The interleave of [`transpose_avx2`] into a contiguous destination with more planes than [`interleave`] takes
/// and fewer than a tile of 16 bytes: 9-15 planes of bytes, 5-7 of 2 bytes (CHW12 -> HWC). Returns `false`,
/// having written nothing, when this form does not apply or there are not two blocks of pixels.
///
/// # Safety
/// As for [`transpose_avx2`] with `a_dst == nb * size_of T`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn interleave_narrow<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    nb: usize,
    b_src: isize,
    nt: bool,
) -> bool {
    // SAFETY: the caller's contract, with `nb` the const parameter of the arm.
    unsafe {
        match (T::SIZE, nb) {
            (1, 9) => interleave_padded::<T, 9, 16>(src, dst, na, b_src, nt),
            (1, 10) => interleave_padded::<T, 10, 16>(src, dst, na, b_src, nt),
            (1, 11) => interleave_padded::<T, 11, 16>(src, dst, na, b_src, nt),
            (1, 12) => interleave_padded::<T, 12, 16>(src, dst, na, b_src, nt),
            (1, 13) => interleave_padded::<T, 13, 16>(src, dst, na, b_src, nt),
            (1, 14) => interleave_padded::<T, 14, 16>(src, dst, na, b_src, nt),
            (1, 15) => interleave_padded::<T, 15, 16>(src, dst, na, b_src, nt),
            (2, 5) => interleave_padded::<T, 5, 8>(src, dst, na, b_src, nt),
            (2, 6) => interleave_padded::<T, 6, 8>(src, dst, na, b_src, nt),
            (2, 7) => interleave_padded::<T, 7, 8>(src, dst, na, b_src, nt),
            _ => false,
        }
    }
}

/// Source pixels whose bytes a 16-byte destination chunk of [`interleave_padded`] takes at most (pixels of 9-15
/// bytes: a chunk spans parts of up to three).
const CHUNK_PIXELS: usize = 3;

/// `NB` planes of `16 / TILE`-byte elements into pixels of `NB` elements, `TILE` pixels per block: the block's `NB`
/// source rows of 16 bytes and `TILE - NB` zero rows go through the square tile's unpack network, which leaves each
/// pixel in a register of its own (its bytes past the pixel zero); each 16-byte destination chunk is then the OR of
/// one `pshufb` per pixel it spans. Against the narrow tiles this stages nothing and stores each destination byte
/// once. With `nt`, a head of at most 15 pixels aligns the destination to 16 bytes and the chunks are streamed.
///
/// # Safety
/// As for [`transpose_avx2`] with `nb == NB`, `a_dst == NB * size_of T` and `TILE == 16 / size_of T`.
#[target_feature(enable = "avx2")]
unsafe fn interleave_padded<T: Elem, const NB: usize, const TILE: usize>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    b_src: isize,
    nt: bool,
) -> bool {
    let e = T::SIZE;
    let px = NB * e;
    if e * TILE != 16 || na < 2 * TILE {
        return false;
    }
    // Chunk j takes pixels first[j] .. first[j] + CHUNK_PIXELS (clamped to the block).
    let first: [usize; NB] = std::array::from_fn(|j| 16 * j / px);
    // SAFETY: each mask is 16 bytes.
    let masks = Masks::<T, NB>::PADDED.map(|chunk| chunk.map(|m| unsafe { _mm_loadu_si128(m.as_ptr().cast()) }));
    let (nt, head) = stream_head(dst, px, TILE.min(na), 16, nt);
    let vec_end = head + (na - head) / TILE * TILE;
    let ei = e as isize;
    // SAFETY: pixels 0 .. head < na, inside the caller's ranges.
    unsafe { scalar_pixels::<T, NB>(src, dst, b_src, 0..head) };
    for a0 in (head..vec_end).step_by(TILE) {
        let rows: [__m128i; TILE] = std::array::from_fn(|b| match b < NB {
            // SAFETY: source elements a0 .. a0 + TILE (16 bytes) of row b < NB, a0 + TILE <= vec_end <= na.
            true => unsafe { _mm_loadu_si128(src.offset(a0 as isize * ei + b as isize * b_src).cast()) },
            false => _mm_setzero_si128(),
        });
        let pixels = network16::<TILE>(rows);
        // SAFETY: the first destination byte of pixel a0, inside the range.
        let out = unsafe { dst.add(a0 * px) };
        for (j, chunk_masks) in masks.iter().enumerate() {
            let mut v = _mm_setzero_si128();
            for (s, mask) in chunk_masks.iter().enumerate() {
                v = _mm_or_si128(v, _mm_shuffle_epi8(pixels[(first[j] + s).min(TILE - 1)], *mask));
            }
            // SAFETY: destination bytes of pixels a0 .. a0 + TILE (16 NB bytes from `out`, chunk j at 16 j), inside
            // the range; 16-byte aligned when nt (the head aligned it, blocks advance 16 NB bytes).
            unsafe { if nt { stream16(out.add(16 * j), v) } else { _mm_storeu_si128(out.add(16 * j).cast(), v) } };
        }
    }
    // SAFETY: pixels vec_end .. na, inside the caller's ranges.
    unsafe { scalar_pixels::<T, NB>(src, dst, b_src, vec_end..na) };
    true
}

/// The `pshufb` masks of the interleaves of `NB` planes of `T`, constants of each instance: built per call, with
/// divisions per byte, masks took half the time of short calls (the deinterleave's: `deinterleave.rs`).
struct Masks<T, const NB: usize>(std::marker::PhantomData<T>);

impl<T: Elem, const NB: usize> Masks<T, NB> {
    /// Of [`interleave`]: mask `[j][b]` picks the bytes of row `b` that land in destination chunk `j`.
    const BYTES: [[[i8; 16]; NB]; NB] = {
        let e = T::SIZE;
        let mut bytes = [[[i8::MIN; 16]; NB]; NB];
        let mut p = 0;
        while p < 16 * NB {
            let (elem, byte) = (p / e, p % e);
            bytes[p / 16][elem % NB][p % 16] = ((elem / NB) * e + byte) as i8;
            p += 1;
        }
        bytes
    };

    /// Of [`interleave_padded`]: mask `[j][s]` places the bytes of pixel `first[j] + s` (`first[j] = 16 j / px`)
    /// that land in destination chunk `j`.
    const PADDED: [[[i8; 16]; CHUNK_PIXELS]; NB] = {
        let px = NB * T::SIZE;
        let mut bytes = [[[i8::MIN; 16]; CHUNK_PIXELS]; NB];
        let mut j = 0;
        while j < NB {
            let first = 16 * j / px;
            let mut s = 0;
            while s < CHUNK_PIXELS {
                let mut q = 0;
                while q < 16 {
                    // Byte q of chunk j is byte `at` of pixel first + s when 0 <= at < px.
                    let at = (16 * j + q) as isize - (px * (first + s)) as isize;
                    if at >= 0 && at < px as isize {
                        bytes[j][s][q] = at as i8;
                    }
                    q += 1;
                }
                s += 1;
            }
            j += 1;
        }
        bytes
    };
}

/// Where a streaming interleave may start vector stores: the first of the first `limit` pixels (`px` bytes each)
/// whose destination is `align`-byte aligned, as `(true, head)`; `(false, 0)`, ordinary stores from pixel 0, when
/// none is or when not streaming (`nt` false).
fn stream_head(dst: *const u8, px: usize, limit: usize, align: usize, nt: bool) -> (bool, usize) {
    match (0..limit).find(|h| nt && (dst as usize + h * px).is_multiple_of(align)) {
        Some(h) => (true, h),
        None => (false, 0),
    }
}

/// Pixels `pixels` element by element: element (a, b) of `NB` from `src + a e + b b_src` to `dst + (a NB + b) e`.
///
/// # Safety
/// Those elements, for every a in `pixels` and b < NB, lie in the caller's ranges.
unsafe fn scalar_pixels<T: Elem, const NB: usize>(
    src: *const u8,
    dst: *mut u8,
    b_src: isize,
    pixels: std::ops::Range<usize>,
) {
    let e = T::SIZE;
    for a in pixels {
        for b in 0..NB {
            // SAFETY: element (a, b), per the caller.
            unsafe {
                dst.add((a * NB + b) * e)
                    .cast::<T>()
                    .write_unaligned(src.offset((a * e) as isize + b as isize * b_src).cast::<T>().read_unaligned())
            };
        }
    }
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;
    use crate::kernels::x86::tiles::assert_transposed;

    #[test]
    fn dedicated_interleaves_come_first_and_the_narrow_one_when_streaming() {
        assert!(interleave_first(2, 8, false) && interleave_first(4, 1, false) && interleave_first(8, 1, false));
        assert!(!interleave_first(8, 2, true) && !interleave_first(12, 1, true) && !interleave_first(5, 2, true));
        assert!(interleave_first(6, 2, true) && interleave_first(7, 2, true));
        assert!(!interleave_first(6, 2, false) && !interleave_first(7, 2, false) && !interleave_first(6, 4, true));
    }

    /// Every instance of the interleaves' constant masks, called directly (on CPUs with AVX-512 VBMI the planner
    /// sends some of these shapes to `planes.rs::pixels64` instead): `na` pixels out of `nb` planes `b_src` bytes
    /// apart (forwards and backwards), from a destination offset of 0 and 1 element (a streamed head differs), with
    /// and without streaming stores; every element where the definition puts it and the bytes after the pixels
    /// untouched.
    #[test]
    fn interleaves_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>(nb: usize) {
            let e = T::SIZE;
            let na = 70;
            let b_src = (na * e + 3) as isize;
            let src: Vec<u8> = (0..nb * b_src as usize).map(|i| (i * 7 + i / 251) as u8).collect();
            for back in [false, true] {
                // Backwards, plane 0 is the last one of the buffer.
                let (s0, bs) = if back { ((nb - 1) * b_src as usize, -b_src) } else { (0, b_src) };
                for (lead, nt) in [(0, false), (e, false), (0, true), (e, true)] {
                    let mut dst = vec![0xEEu8; 64 + lead + na * nb * e + 64];
                    let d0 = 64 + lead;
                    // SAFETY: AVX2 detected; the na elements of the nb rows from s0 (bs apart) lie in `src`, the
                    // na * nb * e destination bytes from d0 in `dst`; no overlap.
                    let done = unsafe {
                        let (s, d) = (src.as_ptr().add(s0), dst.as_mut_ptr().add(d0));
                        match nb {
                            2 => interleave::<T, 2>(s, d, na, bs, nt),
                            3 => interleave::<T, 3>(s, d, na, bs, nt),
                            4 => interleave::<T, 4>(s, d, na, bs, nt),
                            _ => interleave_narrow::<T>(s, d, na, nb, bs, nt),
                        }
                    };
                    assert!(done, "{nb} planes of {e} bytes");
                    let what = format!("{nb} planes of {e} bytes, backwards {back}, lead {lead}, nt {nt}");
                    assert_transposed(&src, (s0, e as isize, bs), &dst, (d0, (nb * e) as isize), (na, nb, e), &what);
                    let end = d0 + na * nb * e;
                    assert!(dst[..d0].iter().chain(&dst[end..]).all(|&b| b == 0xEE), "{what}: bytes around");
                }
            }
        }
        for nb in 2..=4 {
            check::<u8>(nb);
            check::<u16>(nb);
            check::<u32>(nb);
            check::<u64>(nb);
        }
        (9..=15).for_each(check::<u8>);
        (5..=7).for_each(check::<u16>);
    }
}
