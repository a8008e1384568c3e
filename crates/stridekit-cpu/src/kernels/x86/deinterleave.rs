//! The deinterleave of pixels of 2-4 elements into as many long rows (pixels to planes, HWC -> CHW).

use super::store::stream16;
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// Whether [`deinterleave`] takes a transpose of `na` destination rows whose source is `na`-element pixels
/// (`b_src` is one pixel, and the partner reads one element: the source is contiguous).
pub(crate) fn deinterleave_fits(na: usize, b_src: isize, e: usize) -> bool {
    (2..=4).contains(&na) && usize::try_from(b_src).ok() == Some(na * e)
}

/// The transpose `dst[a * a_dst + b] = src[a + b * na]` of [`deinterleave_fits`] shapes: `na` (2-4) planes out of
/// contiguous pixels. The square tiles need a tile of rows, and a gather per plane reads every source line `na`
/// times; here each block of 16 bytes of every destination row is the OR of one `pshufb` per 16-byte source window
/// (the `16 na` source bytes of the block's pixels). With `nt`, when every row has the same alignment (`a_dst` a
/// multiple of 64), whole 64-byte lines of each row are streamed; the head before the first line and the tail take
/// ordinary stores, so no line mixes both.
///
/// # Safety
/// AVX2 is available; every source element `(a, b)` at `src + (b * na + a) * size_of T` and destination element at
/// `dst + a * a_dst + b * size_of T`, `a < na`, `b < nb`, is valid; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn deinterleave<T: Elem>(src: *const u8, dst: *mut u8, na: usize, a_dst: isize, nb: usize, nt: bool) {
    // SAFETY: the caller's contract, with `na` the const parameter of the arm.
    unsafe {
        match na {
            2 => deinterleave_n::<T, 2>(src, dst, a_dst, nb, nt),
            3 => deinterleave_n::<T, 3>(src, dst, a_dst, nb, nt),
            _ => deinterleave_n::<T, 4>(src, dst, a_dst, nb, nt),
        }
    }
}

/// The `pshufb` masks of [`deinterleave_n`]: mask `[a][k]` moves the bytes of source window `k` that belong to row
/// `a` into place in that row's 16-byte block (other lanes zero).
#[target_feature(enable = "avx2")]
fn masks<const NA: usize>(e: usize) -> [[__m128i; NA]; NA] {
    let mut bytes = [[[i8::MIN; 16]; NA]; NA];
    for (a, row) in bytes.iter_mut().enumerate() {
        for (k, mask) in row.iter_mut().enumerate() {
            for (p, m) in mask.iter_mut().enumerate() {
                // Byte p of row a's block is byte `off` of the block's pixels.
                let off = ((p / e) * NA + a) * e + p % e;
                if off / 16 == k {
                    *m = (off % 16) as i8;
                }
            }
        }
    }
    // SAFETY: each mask is 16 bytes.
    bytes.map(|row| row.map(|m| unsafe { _mm_loadu_si128(m.as_ptr().cast()) }))
}

/// [`deinterleave`] with `NA` rows.
///
/// # Safety
/// As for [`deinterleave`] with `na == NA`.
#[target_feature(enable = "avx2")]
unsafe fn deinterleave_n<T: Elem, const NA: usize>(src: *const u8, dst: *mut u8, a_dst: isize, nb: usize, nt: bool) {
    let e = T::SIZE;
    let (per, line) = (16 / e, 64 / e);
    let masks = masks::<NA>(e);
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
    let line_end = head + (nb - head) / line * line;
    let vec_end = line_end + (nb - line_end) / per * per;
    let scalar = |b: usize| {
        for a in 0..NA {
            // SAFETY: element (a, b), a < NA, b < nb, of both of the caller's ranges.
            unsafe {
                dst.offset(a as isize * a_dst + (b * e) as isize)
                    .cast::<T>()
                    .write_unaligned(src.add((b * NA + a) * e).cast::<T>().read_unaligned())
            };
        }
    };
    // The 16-byte blocks of every row for elements b .. b + per, stored (streamed when `stream`).
    let block = |b: usize, stream: bool| {
        // SAFETY: source bytes of pixels b .. b + per (16 NA bytes), b + per <= vec_end <= nb.
        let windows: [__m128i; NA] =
            std::array::from_fn(|k| unsafe { _mm_loadu_si128(src.add(b * NA * e + 16 * k).cast()) });
        for (a, row_masks) in masks.iter().enumerate() {
            let mut v = _mm_setzero_si128();
            for (w, m) in windows.iter().zip(row_masks) {
                v = _mm_or_si128(v, _mm_shuffle_epi8(*w, *m));
            }
            // SAFETY: destination elements (a, b .. b + per) of the caller's range; when streaming, 16-byte aligned
            // (the head aligned row 0 to 64, a_dst is a multiple of 64, b advances 16 bytes).
            unsafe {
                let out = dst.offset(a as isize * a_dst + (b * e) as isize);
                if stream { stream16(out, v) } else { _mm_storeu_si128(out.cast(), v) }
            };
        }
    };
    (0..head).for_each(scalar);
    for b in (head..line_end).step_by(per) {
        block(b, nt);
    }
    for b in (line_end..vec_end).step_by(per) {
        block(b, false);
    }
    (vec_end..nb).for_each(scalar);
}
