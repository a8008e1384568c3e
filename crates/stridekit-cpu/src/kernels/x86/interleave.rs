//! The interleave of 2-4 planes into a contiguous destination (planes to pixels, CHW -> HWC).

use super::store::stream16;
use crate::kernels::Elem;
use std::arch::x86_64::*;

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
    let mut mask_bytes = [[[i8::MIN; 16]; NB]; NB];
    for p in 0..16 * NB {
        let (elem, byte) = (p / e, p % e);
        mask_bytes[p / 16][elem % NB][p % 16] = ((elem / NB) * e + byte) as i8;
    }
    // SAFETY: each mask is 16 bytes.
    let masks = mask_bytes.map(|row| row.map(|m| unsafe { _mm_loadu_si128(m.as_ptr().cast()) }));
    // Streaming stores need 16-byte alignment: a head of `a` values that brings the destination there, if any
    // (the destination advances NB * e bytes per value, so one of the first 16 values aligns it when any does).
    let head = if nt { (0..16.min(na)).find(|h| (dst as usize + h * NB * e).is_multiple_of(16)) } else { None };
    let (nt, head) = match head {
        Some(h) => (true, h),
        None => (false, 0),
    };
    let blocks = (na - head) / per;
    let vec_end = head + blocks * per;
    let ei = e as isize;
    let scalar = |a: usize| {
        for b in 0..NB {
            // SAFETY: element (a, b), a < na, b < NB, of both of the caller's ranges.
            unsafe {
                dst.add((a * NB + b) * e)
                    .cast::<T>()
                    .write_unaligned(src.offset(a as isize * ei + b as isize * b_src).cast::<T>().read_unaligned())
            };
        }
    };
    (0..head).for_each(scalar);
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
    (vec_end..na).for_each(scalar);
    true
}
