//! The streamed transpose in blocks of whole cache lines: a line of each of `64 / e` source rows in, a line of each
//! of `64 / e` destination rows out, each line touched once.

use super::store::stream32;
use super::tiles::{tile_for, tile_size};
use super::transpose::transpose_avx2;
use crate::kernels::Elem;
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Bytes of a cache line: of each row a block reads or writes.
const LINE: usize = 64;

/// The fewest blocks of destination columns of a call that [`transpose_lines`] takes when its columns are not whole
/// blocks from a line boundary. 18 u64 columns (two blocks and the columns around them, sweep21_159 and sweep30_132
/// of `--sweep 200 --seed 21` and `--seed 30`) ran 1.25x and 2x as long as the chunked walk.
const COLUMN_BLOCKS_MIN: usize = 4;

/// One cache line, aligned: a row of a block's stages.
#[repr(C, align(64))]
struct Line([u8; LINE]);

/// Whether [`transpose_lines`] takes a transpose of `na` destination rows `a_dst` bytes apart, out of `nb` source
/// rows `b_src` bytes apart, of `e`-byte elements, into the destination at address `dst`: a streaming copy (`nt`:
/// the blocks stream their lines), a block or more on each side (`64 / e` elements), both strides whole lines (so
/// that every row's lines start at the same element), a destination at an element boundary (so that its lines can
/// be reached), not the column blocks (`cols`, `columns::transpose_stream_cols`) of packed source pixels
/// (`|b_src| == na e`), which read the source as one sequential stream, and [`COLUMN_BLOCKS_MIN`] blocks of
/// destination columns or more unless they are whole blocks from a line boundary.
///
/// Measured (`docs/PERFORMANCE.md`, fifty-first round), time ratios line blocks / the walk they replace, three
/// ABBA rounds, each case in its own process: 0.38-0.68 for square transposes of 1024-4096 elements a side
/// (4096 x 4096 f16: roofline 0.19 -> 0.46), 0.74 over 64 transposes (40 random 2-D, NCHW -> NHWC and NHWC -> NCHW
/// shapes with line-multiple strides, the 11 of `--sweep 200` seeds 1-20 whose calls fit, and 13 square and
/// channel shapes), 3 of them slower by 1.10-1.28. NHWC -> NCHW of 64 f32 channels of 16384 packed pixels ran 1.45x
/// slower than its column blocks, hence that exception; without `nt` (ordinary stores straight from the tiles) 5 of
/// 6 calls ran 1.16-1.9x slower than the chunked walk, whose partial lines stay in the caches there. Over 25 cases
/// (the 7 calls of seeds 1-20 and the 7 of seeds 21-40, drawn after the first rule, that it took; squares; the
/// benchmark files' NCHW -> NHWC) the final rule, which drops the calls of few destination columns, came to 0.66.
#[allow(clippy::too_many_arguments)] // the transpose's numbers and its form
pub(crate) fn lines_fit(
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    e: usize,
    nt: bool,
    cols: bool,
    dst: usize,
) -> bool {
    let c = LINE / e;
    let packed_cols = cols && b_src.unsigned_abs() == na * e;
    // The destination columns before and after the blocks (at most c - 1 on either side) run as separate calls,
    // whose narrow tiles are scalar: a few blocks' worth of columns, or whole blocks only.
    let head = (LINE - dst % LINE) % LINE / e;
    let columns_fit = nb >= COLUMN_BLOCKS_MIN * c || (head == 0 && nb.is_multiple_of(c));
    nt && na >= c
        && nb >= c
        && columns_fit
        && b_src % LINE as isize == 0
        && a_dst % LINE as isize == 0
        && dst.is_multiple_of(e)
        && !packed_cols
}

/// The transpose of `super::transpose_avx2` (`dst[a * a_dst + b] = src[a + b * b_src]`, element indices) with
/// streaming stores, in blocks of `64 / e` x `64 / e` elements, each a whole line of `64 / e` source rows and of
/// `64 / e` destination rows: the block's source lines are copied into a stage on the stack (each line read once,
/// whole), transposed there by the square tiles into a second stage, and each destination line streamed out whole.
///
/// Why: rows whose stride has a large power of two in it (planes of 1024 x 1024, rows of 2048 f32) fall into the
/// same few sets of L1 and L2. The chunked and strip walks read or write part of a line and come back for the rest
/// after touching the same part of every other row, by when the line has left its set: a 4096 x 4096 f16 transpose
/// took 2.2x the time of a 4000 x 4000 one. Here no line is touched twice, so the sets' ways do not matter; and a
/// destination line is written by one pair of streaming stores, which the write-combining buffers take whole.
///
/// The blocks are aligned to lines on both sides: source rows from the first line-aligned element `a` (the same in
/// every row, `b_src` being whole lines), destination rows from the first line-aligned `b` (`a_dst` whole lines).
/// The columns and rows around them take `super::transpose_avx2` without this form.
///
/// # Safety
/// As for `super::transpose_avx2`; [`lines_fit`] holds (`b_src`, `a_dst` multiples of 64; `dst` element-aligned).
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn transpose_lines<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    next: Option<isize>,
) {
    let e = T::SIZE;
    let ei = e as isize;
    let c = LINE / e;
    let ci = c as isize;
    let tile = tile_size(e);
    // The first line-aligned element of every source row (for a source off element boundaries, the first element
    // after a line boundary: the blocks' loads then straddle lines, still correct), and of every destination row.
    let a_lo = ((LINE - src as usize % LINE) % LINE / e).min(na);
    let b_lo = ((LINE - dst as usize % LINE) % LINE / e).min(nb);
    let (a_blocks, b_blocks) = ((na - a_lo) / c, (nb - b_lo) / c);
    let (a_hi, b_hi) = (a_lo + a_blocks * c, b_lo + b_blocks * c);
    let edge = |a0: usize, a1: usize, b0: usize, b1: usize| {
        // An empty range is skipped: its start may lie outside the allocation.
        if a1 > a0 && b1 > b0 {
            let (a0i, b0i) = (a0 as isize, b0 as isize);
            // SAFETY: rows a0 .. a1 of columns b0 .. b1, a sub-range of the caller's ranges. One side of every edge
            // is shorter than a block, which `lines_fit` rejects, so this function is not re-entered.
            unsafe {
                transpose_avx2::<T>(
                    src.offset(a0i * ei + b0i * b_src),
                    dst.offset(a0i * a_dst + b0i * ei),
                    a1 - a0,
                    a_dst,
                    b1 - b0,
                    b_src,
                    true,
                    next,
                )
            };
        }
    };
    // The columns before and after the blocks, whole; then the rows before and after the blocks, between those.
    edge(0, na, 0, b_lo);
    edge(0, na, b_hi, nb);
    edge(0, a_lo, b_lo, b_hi);
    edge(a_hi, na, b_lo, b_hi);
    // Left uninitialised: zeroing the two 4 KiB stages on every call is work no block needs, since each block
    // writes every byte of the stage rows it then reads (see below).
    let mut stage_in = MaybeUninit::<[Line; LINE]>::uninit();
    let mut stage_out = MaybeUninit::<[Line; LINE]>::uninit();
    let sin = stage_in.as_mut_ptr().cast::<u8>();
    let sout = stage_out.as_mut_ptr().cast::<u8>();
    let line = LINE as isize;
    // Block columns outside, rows inside: each of a block column's `c` source rows is then read forwards, line
    // after line, a stream the hardware prefetcher follows.
    for bk in 0..b_blocks {
        let b0 = (b_lo + bk * c) as isize;
        for ak in 0..a_blocks {
            let a0 = (a_lo + ak * c) as isize;
            // SAFETY: source rows b0 .. b0 + c (b0 + c <= b_hi <= nb) from element a0 (a0 + c <= a_hi <= na): a line
            // of each, inside the caller's source range; the stages hold c <= 64 lines of 64 bytes, 64-byte aligned;
            // stage rows 0 .. c are written whole before the tiles read them, and the tiles (rows ta .. ta + tile,
            // bytes tb e .. (tb + tile) e, over 0 .. c on both) write out rows 0 .. c whole before they are read;
            // destination rows a0 .. a0 + c from element b0: a line of each inside the caller's destination range,
            // 64-byte aligned (dst + b_lo e is, and a_dst and c e = 64 are multiples of 64).
            unsafe {
                let s = src.offset(a0 * ei + b0 * b_src);
                for r in 0..ci {
                    let p = s.offset(r * b_src);
                    _mm256_store_si256(sin.offset(r * line).cast(), _mm256_loadu_si256(p.cast()));
                    _mm256_store_si256(sin.offset(r * line + 32).cast(), _mm256_loadu_si256(p.add(32).cast()));
                }
                // Stage row r (source row b0 + r) holds elements a0 .. a0 + c; out row q (destination row a0 + q)
                // takes elements b0 .. b0 + c.
                for ta in (0..ci).step_by(tile) {
                    for tb in (0..ci).step_by(tile) {
                        tile_for::<T>(sin.offset(ta * ei + tb * line), sout.offset(ta * line + tb * ei), line, line);
                    }
                }
                let d = dst.offset(a0 * a_dst + b0 * ei);
                for q in 0..ci {
                    let o = sout.offset(q * line);
                    stream32(d.offset(q * a_dst), _mm256_load_si256(o.cast()));
                    stream32(d.offset(q * a_dst + 32), _mm256_load_si256(o.add(32).cast()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tiles::assert_transposed;
    use super::*;

    #[test]
    fn line_blocks_take_streamed_transposes_of_whole_line_strides() {
        // 4096 x 4096 f16, one thread's part of 256 rows; NCHW -> NHWC of 64 f32 channels (pixel rows of 256 bytes).
        assert!(lines_fit(256, 8192, 4096, 8192, 2, true, false, 0x1000));
        assert!(lines_fit(1024, 256, 64, 65536, 4, true, false, 0x1000));
        // A block on each side: 16 f32 elements; 8 of 8 bytes.
        assert!(lines_fit(16, 64, 16, 64, 4, true, false, 0));
        assert!(!lines_fit(15, 64, 16, 64, 4, true, false, 0));
        assert!(!lines_fit(16, 64, 7, 64, 8, true, false, 0));
        // Fewer than four blocks of destination columns: only whole blocks from a line boundary (sweep30_132's
        // 22 x 18 u64 calls are not).
        assert!(lines_fit(22, 192, 16, 5_972_736, 8, true, false, 0x1000));
        assert!(!lines_fit(22, 192, 16, 5_972_736, 8, true, false, 0x1008));
        assert!(!lines_fit(22, 192, 18, 5_972_736, 8, true, false, 0x1000));
        assert!(lines_fit(22, 192, 33, 5_972_736, 8, true, false, 0x1008));
        // Not without streaming, strides off whole lines, or a destination off element boundaries.
        assert!(!lines_fit(256, 8192, 4096, 8192, 2, false, false, 0));
        assert!(!lines_fit(1000, 4000, 1000, 4000, 4, true, false, 0));
        assert!(!lines_fit(256, 8192, 4096, 8160, 2, true, false, 0));
        assert!(!lines_fit(256, 8192, 4096, 8192, 2, true, false, 0x1001));
        // NHWC -> NCHW of 64 f32 channels: the column blocks of packed pixels, unless the pixels are apart.
        assert!(!lines_fit(64, 65536, 1024, 256, 4, true, true, 0));
        assert!(lines_fit(64, 65536, 1024, 320, 4, true, true, 0));
    }

    /// Every element size, forwards and backwards on either side, with source and destination starting off line
    /// boundaries and sides that are not whole blocks (the edges around the blocks): every element where the
    /// definition puts it, the destination rows' padding untouched.
    #[test]
    fn line_blocks_and_their_edges_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>(na: usize, nb: usize, s_head: usize, d_head: usize) {
            let e = T::SIZE;
            // Source rows of na elements padded to whole lines, destination rows of nb elements padded to whole
            // lines and one more.
            let b_src = (s_head + na * e).next_multiple_of(LINE) as isize;
            let a_dst = ((d_head + nb * e).next_multiple_of(LINE) + LINE) as isize;
            for (b_back, a_back) in [(false, false), (true, false), (false, true), (true, true)] {
                let src_len = nb * b_src as usize;
                let src: Vec<u8> = (0..src_len + LINE).map(|i| (i * 7 + i / 251) as u8).collect();
                // Start from a line-aligned offset inside the vectors, then the heads.
                let s_base = src.as_ptr().align_offset(LINE) + s_head;
                let s0 = if b_back { s_base + (nb - 1) * b_src as usize } else { s_base };
                let bs = if b_back { -b_src } else { b_src };
                let mut dst = vec![0xEEu8; na * a_dst as usize + LINE];
                let d_base = dst.as_ptr().align_offset(LINE) + d_head;
                let d0 = if a_back { d_base + (na - 1) * a_dst as usize } else { d_base };
                let ad = if a_back { -a_dst } else { a_dst };
                assert!(lines_fit(na, ad, nb, bs, e, true, false, dst.as_ptr() as usize + d0));
                // SAFETY: AVX2 detected; lines_fit holds; source element (a, b) at s0 + a e + b bs inside `src`;
                // destination element (a, b) at d0 + a ad + b e inside `dst`; no overlap.
                unsafe { transpose_lines::<T>(src.as_ptr().add(s0), dst.as_mut_ptr().add(d0), na, ad, nb, bs, None) };
                let what = format!("{e}-byte lines {na} x {nb}, heads {s_head}/{d_head}, back {b_back}/{a_back}");
                assert_transposed(&src, (s0, e as isize, bs), &dst, (d0, ad), (na, nb, e), &what);
                let mut written = vec![false; dst.len()];
                for a in 0..na {
                    let row = (d0 as isize + a as isize * ad) as usize;
                    written[row..row + nb * e].fill(true);
                }
                assert!(dst.iter().zip(&written).all(|(&x, &w)| w || x == 0xEE), "{what}: a byte outside the rows");
            }
        }
        // Aligned starts, then heads on both sides; every side a few whole blocks and a tail (a tile and a few).
        // Under Miri one pair of heads, which reaches every edge.
        let heads: &[(usize, usize)] = if cfg!(miri) { &[(8, 24)] } else { &[(0, 0), (8, 24), (40, 8)] };
        for &(s_head, d_head) in heads {
            check::<u64>(8 + 3, 8 * 4 + 1, s_head, d_head);
            check::<u32>(16 * 2 + 5, 16 * 4 + 9, s_head, d_head);
            if !cfg!(miri) {
                check::<u16>(32 + 17, 32 * 4, s_head, d_head);
                check::<u8>(64 * 2 + 3, 64 * 4 + 20, s_head, d_head);
            }
        }
        // Whole blocks of destination columns from a line boundary, fewer than COLUMN_BLOCKS_MIN of them.
        for s_head in [0, 8].into_iter().take(if cfg!(miri) { 1 } else { 2 }) {
            check::<u64>(8 + 3, 8, s_head, 0);
            check::<u32>(16 + 1, 16 * 2, s_head, 0);
        }
    }
}
