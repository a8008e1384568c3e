//! The deinterleave of pixels of 2-4 elements into 2-4 long rows (pixels to planes, HWC -> CHW), every channel of
//! the pixels or the first ones (RGBA pixels to RGB planes).

use super::store::stream16;
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// Whether [`deinterleave`] takes a transpose of `na` destination rows whose source is pixels of `na` to 4 elements
/// (`b_src` is one pixel, and the partner reads one element: the rows are a pixel's first `na` channels).
pub(crate) fn deinterleave_fits(na: usize, b_src: isize, e: usize) -> bool {
    let pixel = usize::try_from(b_src).ok().filter(|b| b % e == 0).map(|b| b / e);
    (2..=4).contains(&na) && pixel.is_some_and(|c| (na..=4).contains(&c))
}

/// The transpose `dst[a * a_dst + b] = src[a + b * c]` of [`deinterleave_fits`] shapes: `na` (2-4) planes out of
/// pixels of `c = b_src / size_of T` elements (`na <= c <= 4`). The square tiles need a tile of rows, and a gather
/// per plane reads every source line `na` times (RGBA to RGB planes took the tiles' scalar edge: 0.2 of the
/// roofline); here each block of 16 bytes of every destination row is the OR of one `pshufb` per 16-byte source
/// window (the `16 c` source bytes of the block's pixels). With `nt`, when every row has the same alignment (`a_dst` a
/// multiple of 64), whole 64-byte lines of each row are streamed; the head before the first line and the tail take
/// ordinary stores, so no line mixes both.
///
/// # Safety
/// AVX2 is available; `deinterleave_fits(na, b_src, size_of T)`; every source element `(a, b)` at
/// `src + a * size_of T + b * b_src` and destination element at `dst + a * a_dst + b * size_of T`, `a < na`,
/// `b < nb`, is valid, and the bytes between two source elements lie inside the same allocation (their values,
/// read by the SIMD loads, are discarded); no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn deinterleave<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    nt: bool,
) {
    // SAFETY: the caller's contract, with `na` and the pixel's elements the const parameters of the arm.
    unsafe {
        match (na, b_src as usize / T::SIZE) {
            (2, 2) => deinterleave_n::<T, 2, 2>(src, dst, a_dst, nb, nt),
            (2, 3) => deinterleave_n::<T, 2, 3>(src, dst, a_dst, nb, nt),
            (2, _) => deinterleave_n::<T, 2, 4>(src, dst, a_dst, nb, nt),
            (3, 3) => deinterleave_n::<T, 3, 3>(src, dst, a_dst, nb, nt),
            (3, _) => deinterleave_n::<T, 3, 4>(src, dst, a_dst, nb, nt),
            _ => deinterleave_n::<T, 4, 4>(src, dst, a_dst, nb, nt),
        }
    }
}

/// The `pshufb` masks of [`deinterleave_n`] for `T`: mask `[a][k]` moves the bytes of source window `k` that belong
/// to row `a` into place in that row's 16-byte block (other lanes zero). Constants of the instance: built per call,
/// with a division by the element size per byte, they took half the time of calls of 24 pixels (3 f64 channels
/// into rows of 192 bytes under 35840 steps, sweep10_041: 0.11 of the roofline).
struct Masks<T, const NA: usize, const C: usize>(std::marker::PhantomData<T>);

impl<T: Elem, const NA: usize, const C: usize> Masks<T, NA, C> {
    const BYTES: [[[i8; 16]; C]; NA] = mask_bytes::<NA, C>(T::SIZE);

    /// The masks in registers.
    #[target_feature(enable = "avx2")]
    fn load() -> [[__m128i; C]; NA] {
        // SAFETY: each mask is 16 bytes.
        Self::BYTES.map(|row| row.map(|m| unsafe { _mm_loadu_si128(m.as_ptr().cast()) }))
    }
}

/// The bytes of [`Masks`] for elements of `e` bytes.
const fn mask_bytes<const NA: usize, const C: usize>(e: usize) -> [[[i8; 16]; C]; NA] {
    let mut bytes = [[[i8::MIN; 16]; C]; NA];
    let mut a = 0;
    while a < NA {
        let mut p = 0;
        while p < 16 {
            // Byte p of row a's block is byte `off` of the block's pixels, in window off / 16.
            let off = ((p / e) * C + a) * e + p % e;
            if off / 16 < C {
                bytes[a][off / 16][p] = (off % 16) as i8;
            }
            p += 1;
        }
        a += 1;
    }
    bytes
}

/// [`deinterleave`] with `NA` rows out of pixels of `C` elements.
///
/// # Safety
/// As for [`deinterleave`] with `na == NA` and `b_src == C * size_of T`.
#[target_feature(enable = "avx2")]
unsafe fn deinterleave_n<T: Elem, const NA: usize, const C: usize>(
    src: *const u8,
    dst: *mut u8,
    a_dst: isize,
    nb: usize,
    nt: bool,
) {
    let e = T::SIZE;
    let (per, line) = (16 / e, 64 / e);
    let masks = Masks::<T, NA, C>::load();
    // A block reads its pixels whole; the channels after the first NA of the last pixel may lie past the source
    // range, so with C > NA the last pixel is never in a block.
    let nv = if C > NA { nb.saturating_sub(1) } else { nb };
    // Streaming needs each row's lines at the same offsets: the head of `b` values that brings row 0 (and so every
    // row) to a line boundary, if one of the first `line` values does.
    let head = match nt && a_dst % 64 == 0 {
        true => (0..line.min(nb)).find(|h| (dst as usize + h * e).is_multiple_of(64)),
        false => None,
    };
    let (nt, head) = match head {
        Some(h) => (true, h),
        None => (false, 0),
    };
    // Whole lines of every row stream (from the head on); without streaming, every block takes ordinary stores.
    let line_end = if nt { head + nv.saturating_sub(head) / line * line } else { 0 };
    let vec_end = line_end + nv.saturating_sub(line_end) / per * per;
    let scalar = |b: usize| {
        for a in 0..NA {
            // SAFETY: element (a, b), a < NA, b < nb, of both of the caller's ranges.
            unsafe {
                dst.offset(a as isize * a_dst + (b * e) as isize)
                    .cast::<T>()
                    .write_unaligned(src.add((b * C + a) * e).cast::<T>().read_unaligned())
            };
        }
    };
    // The 16-byte blocks of every row for elements b .. b + per.
    let block = |b: usize| -> [__m128i; NA] {
        // SAFETY: source bytes of pixels b .. b + per (16 C bytes), b + per <= vec_end <= nv: whole pixels before
        // the last (C > NA) or pixels of NA elements (C == NA), inside the source range.
        let windows: [__m128i; C] =
            std::array::from_fn(|k| unsafe { _mm_loadu_si128(src.add(b * C * e + 16 * k).cast()) });
        masks.map(|row_masks| {
            let mut v = _mm_setzero_si128();
            for (w, m) in windows.iter().zip(row_masks) {
                v = _mm_or_si128(v, _mm_shuffle_epi8(*w, m));
            }
            v
        })
    };
    // Row a's block at element b.
    let out = |a: usize, b: usize| dst.wrapping_offset(a as isize * a_dst + (b * e) as isize);
    (0..head).for_each(scalar);
    for b in (head..line_end).step_by(line) {
        // A whole line of every row: its four blocks are streamed one after the other, row by row. Streaming one
        // block of each row in turn left as many lines partly written at once as there are rows, and the
        // write-combining buffers flushed them in pieces: RGBA -> RGB planes of f16 ran 3x slower than with
        // ordinary stores. (Pairs of blocks as 32-byte streaming stores measured 5x slower again on two threads
        // over page-aligned buffers: 16-byte ones.)
        let blocks: [[__m128i; NA]; 4] = std::array::from_fn(|j| block(b + j * per));
        for a in 0..NA {
            for (j, row) in blocks.iter().enumerate() {
                // SAFETY: destination elements (a, b + j per .. b + (j + 1) per) of the caller's range, 16-byte
                // aligned (the head aligned row 0 to 64, a_dst is a multiple of 64, b advances whole lines).
                unsafe { stream16(out(a, b + j * per), row[a]) };
            }
        }
    }
    for b in (line_end..vec_end).step_by(per) {
        for (a, v) in block(b).into_iter().enumerate() {
            // SAFETY: destination elements (a, b .. b + per) of the caller's range.
            unsafe { _mm_storeu_si128(out(a, b).cast(), v) };
        }
    }
    (vec_end..nb).for_each(scalar);
}
