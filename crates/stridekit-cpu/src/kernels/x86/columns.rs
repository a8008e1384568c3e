//! The transpose into few long destination rows (NHWC -> NCHW) with streaming stores: column blocks assembled in
//! scratch, then streamed out as whole aligned lines.

use super::prefetch::{Level, prefetch_bytes};
use super::scratch::with_scratch;
use super::store::{head_to_align, stream32};
use super::tiles::{tile_for, tile_size};
use super::transpose::{PREFETCH_TILES, transpose_avx2};
use crate::kernels::Elem;
use std::arch::x86_64::*;

/// Bytes of each destination row that [`transpose_stream_cols`] assembles per block (four cache lines).
pub(crate) const COL_BLOCK: usize = 256;

/// The columns of a destination row of `nb` elements of `e` bytes from `dst` before its first 32-byte aligned one,
/// and the whole blocks of [`COL_BLOCK`] bytes from there, that [`transpose_stream_cols`] streams: none when the row
/// is shorter than its head and a block, or when `dst` is not element-aligned (it cannot be brought to 32-byte
/// alignment then). [`transpose_avx2`] takes the column form only with at least one block: without one, the form
/// split the transpose into its head and its tail, two transposes of a few columns each on the tiles' scalar edge.
pub(crate) fn column_blocks(dst: *const u8, nb: usize, e: usize) -> (usize, usize) {
    let head_bytes = head_to_align(dst, nb * e);
    if head_bytes.is_multiple_of(e) { (head_bytes / e, (nb - head_bytes / e) / (COL_BLOCK / e)) } else { (nb, 0) }
}

/// The transpose of [`transpose_avx2`] when the destination rows `a` are long (NHWC -> NCHW: few rows of a whole
/// plane each, `a_dst` a multiple of 32) and there are few of them (`na * COL_BLOCK` fits the scratch block).
/// Written row by row in 32-byte pieces, such a transpose keeps `na` partial lines in flight per row block and pays a
/// read-for-ownership for each; here a block of `COL_BLOCK` bytes of every row is assembled in scratch from the
/// contiguous source rows, then streamed out as whole, aligned lines. Columns before the first 32-byte aligned
/// destination column and after the last whole block take the plain tiled path.
///
/// # Safety
/// As for [`transpose_avx2`]; in addition `a_dst > 0`, `a_dst % 32 == 0` and `na * COL_BLOCK <= SCRATCH_BYTES`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn transpose_stream_cols<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
) {
    let e = T::SIZE;
    let ei = e as isize;
    let wb = COL_BLOCK / e;
    let (head, blocks) = column_blocks(dst, nb, e);
    let body_end = head + blocks * wb;
    // Columns 0 .. head and body_end .. nb: sub-ranges of the caller's (a, b) ranges, run without streaming (so
    // this function is not re-entered). An empty range is skipped: its start may lie outside the allocation.
    if head > 0 {
        // SAFETY: columns 0 .. head of the caller's range.
        unsafe { transpose_avx2::<T>(src, dst, na, a_dst, head, b_src, false, None) };
    }
    if body_end < nb {
        let (bs, bd) = (body_end as isize * b_src, body_end as isize * ei);
        // SAFETY: columns body_end .. nb of the caller's range; column body_end exists.
        unsafe { transpose_avx2::<T>(src.offset(bs), dst.offset(bd), na, a_dst, nb - body_end, b_src, false, None) };
    }
    if blocks > 0 {
        // SAFETY: the caller's contract; blocks of wb columns from `head`, which the alignment above makes 32-byte
        // aligned in the destination, up to body_end <= nb; the thread's block is SCRATCH_BYTES >= na * COL_BLOCK
        // bytes.
        with_scratch(|block| unsafe { stream_blocks::<T>(src, dst, na, a_dst, b_src, head, blocks, block) });
    }
}

/// The column blocks of [`transpose_stream_cols`]: `blocks` blocks of `COL_BLOCK` bytes of every row from column
/// `head`, each assembled in the scratch block `scratch_ptr` (rows 0 .. na of COL_BLOCK bytes) and then streamed out.
///
/// # Safety
/// As for [`transpose_stream_cols`]; column `head` is 32-byte aligned in every destination row,
/// `head + blocks * COL_BLOCK / e <= nb`, and `scratch_ptr` is `na * COL_BLOCK` writable bytes.
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)] // the transpose's numbers, the column range and the block
unsafe fn stream_blocks<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    b_src: isize,
    head: usize,
    blocks: usize,
    scratch_ptr: *mut u8,
) {
    let e = T::SIZE;
    let ei = e as isize;
    let tile = tile_size(e);
    let wb = COL_BLOCK / e;
    let cb = COL_BLOCK as isize;
    for blk in 0..blocks {
        let b0 = (head + blk * wb) as isize;
        // Source rows b0 + bb .. + tile (contiguous, `tile` rows of `na` elements) are consumed one group at a
        // time, so the source is read strictly forwards; the scratch rows take `tile` elements each. A partial
        // tile at the end of `a` is the last full tile instead (rows na - tile .. na), overlapping the one before
        // it in scratch with the same values: the scalar edge cost more than the tiles (u8 rows of 120 elements:
        // 8 of every 120 elements, a third of the time).
        let full_a = na / tile * tile;
        let last_a = if !na.is_multiple_of(tile) && na >= tile { Some((na - tile) as isize) } else { None };
        for bb in (0..wb as isize).step_by(tile) {
            // The rows `PREFETCH_TILES` tiles ahead (into the next block at the end of this one): rows a line or
            // more apart are not a stream the hardware prefetcher follows (u8 rows of 120 elements 1720 bytes
            // apart waited on every row: 0.10 of the roofline). A hint: past the last row it names lines that are
            // never read.
            for r in 0..tile as isize {
                let row = src.wrapping_offset((b0 + bb + (PREFETCH_TILES * tile) as isize + r) * b_src);
                // The column blocks run in streaming copies only: lines from memory, requested into L2.
                prefetch_bytes(row, na * e, Level::L2);
            }
            for a in (0..full_a as isize).step_by(tile).chain(last_a) {
                // SAFETY: source tile rows b0 + bb .. + tile, elements a .. a + tile, inside the caller's range
                // (b0 + bb + tile <= body_end <= nb, a + tile <= na); scratch rows a .. a + tile at bytes
                // bb * e .. (bb + tile) * e of COL_BLOCK, inside the block (na * COL_BLOCK <= SCRATCH_BYTES).
                unsafe {
                    tile_for::<T>(
                        src.offset(a * ei + (b0 + bb) * b_src),
                        scratch_ptr.offset(a * cb + bb * ei),
                        cb,
                        b_src,
                    )
                };
            }
        }
        // Fewer rows than a tile: element by element.
        let scalar_from = if last_a.is_some() { na } else { full_a };
        for ai in scalar_from as isize..na as isize {
            for bb in 0..wb as isize {
                // SAFETY: element (ai, b0 + bb) of the source range; byte bb * e of scratch row ai.
                unsafe {
                    scratch_ptr
                        .offset(ai * cb + bb * ei)
                        .cast::<T>()
                        .write_unaligned(src.offset(ai * ei + (b0 + bb) * b_src).cast::<T>().read_unaligned())
                };
            }
        }
        for a in 0..na as isize {
            for piece in (0..cb).step_by(32) {
                // SAFETY: scratch row a was fully written above; the destination bytes b0 * e + piece .. + 32 of
                // row a lie inside the block b0 .. b0 + wb of the caller's range, 32-byte aligned (dst + head * e
                // is aligned, a_dst and COL_BLOCK are multiples of 32).
                unsafe {
                    let v = _mm256_loadu_si256(scratch_ptr.offset(a * cb + piece).cast());
                    stream32(dst.offset(a * a_dst + b0 * ei + piece), v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head and the whole blocks of a destination row: none for rows shorter than their head and a block (9 u64
    /// from 1152-byte rows, sweep1_072, which the column form split into two transposes of a few columns), and
    /// none for a destination off its element alignment.
    #[test]
    fn column_blocks_count_whole_blocks_after_the_head() {
        let at = |addr: usize| std::ptr::without_provenance::<u8>(addr);
        assert_eq!(column_blocks(at(0x1000), 9, 8), (0, 0));
        assert_eq!(column_blocks(at(0x1008), 9, 8), (3, 0));
        assert_eq!(column_blocks(at(0x1000), 32, 8), (0, 1));
        assert_eq!(column_blocks(at(0x1008), 35, 8), (3, 1));
        assert_eq!(column_blocks(at(0x1008), 34, 8), (3, 0));
        assert_eq!(column_blocks(at(0x1004), 200, 4), (7, 3));
        assert_eq!(column_blocks(at(0x1001), 300, 2), (300, 0));
        assert_eq!(column_blocks(at(0x1001), 300, 1), (31, 1));
    }

    /// NHWC -> NCHW of `na` channels of u32 through the column blocks, against the element-by-element definition:
    /// fewer channels than a tile (the scalar rows), a tile and a partial one (the overlapping last tile).
    #[test]
    fn column_blocks_of_every_channel_count_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let nb: usize = 200; // pixels: a head before the first aligned column, three whole blocks of 64, a tail
        for na in [3, 5, 8, 13] {
            let a_dst = (nb * 4).next_multiple_of(32) + 32; // padded destination rows, a multiple of 32 bytes
            let src: Vec<u32> = (0..(na * nb) as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
            let mut dst = vec![0u32; na * a_dst / 4 + 8];
            // Start the destination off 32-byte alignment so that the head is not empty.
            let shift = usize::from((dst.as_ptr() as usize).is_multiple_of(32));
            let base = dst[shift..].as_mut_ptr().cast::<u8>();
            // SAFETY: AVX2 detected; source element (a, b) at a + b * na (b_src = na elements) inside `src`;
            // destination element (a, b) at a * a_dst + 4 b, inside `dst` from `shift` (na rows of a_dst bytes);
            // a_dst > 0, a multiple of 32, and na * COL_BLOCK <= SCRATCH_BYTES.
            unsafe {
                transpose_stream_cols::<u32>(src.as_ptr().cast(), base, na, a_dst as isize, nb, (na * 4) as isize)
            };
            for a in 0..na {
                for b in 0..nb {
                    assert_eq!(dst[shift + a * a_dst / 4 + b], src[a + b * na], "na {na}, element ({a}, {b})");
                }
            }
        }
    }
}
