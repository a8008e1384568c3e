//! The cache-blocked transpose and the choice among its strategies.

use super::columns::{COL_BLOCK, column_blocks, transpose_stream_cols};
use super::copy::copy_nt_avx2;
use super::interleave::{interleave, interleave_bytes8, interleave_narrow};
use super::lines::{lines_fit, transpose_lines};
use super::narrow::Narrow;
use super::prefetch::{Level, prefetch_bytes, prefetch_line, request_next_piece};
use super::scratch::{SCRATCH_BYTES, with_scratch};
use super::table::{Partner, table_tiles, table_tiles_fit};
use super::tiles::{tile_for, tile_pair_for, tile_size};
use crate::kernels::Elem;
use crate::kernels::portable::table::SPREAD_BYTES;

/// Source bytes of each row `b` a chunk reads when no scratch block is used (64 elements of 4 bytes).
pub(crate) const CHUNK_BYTES: usize = 256;

/// Source bytes of each row `b` a chunk reads at most when a scratch block is used: each of the many rows (64 channels
/// of NCHW) is read sequentially for that long before the walk jumps to the next row. A cap of 256 elements read only
/// 256 bytes per row of 1-byte elements (512 of 2-byte ones) where 4-byte ones read 1 KiB; 2 KiB rather than 1 came
/// with the larger block (see [`SCRATCH_BYTES`]).
const SCRATCH_SOURCE_BYTES: usize = 2 << 10;

/// The most bytes (rows x chunk) the next chunk's prefetch may request at once.
const PREFETCH_CHUNK_BYTES: usize = 32 << 10;

/// Tiles of rows ahead that a block of rows prefetches when the whole next chunk is too large to.
pub(crate) const PREFETCH_TILES: usize = 2;

/// The tiles of source rows `b_src` bytes apart that a block of rows of [`transpose_chunks`] prefetches ahead:
/// [`PREFETCH_TILES`], or none but its own when the rows alias in L1 (`b_src` a multiple of 4 KiB, the span of L1's
/// set index: every row's lines fall in the same few sets). Then the tiles in flight, 24-48 rows of the same sets
/// against L1's 8-12 ways, evicted each other's lines before their loads: a transpose of 252 x 712 u32 rows 40960
/// bytes apart (sweep1_127 of `stridekit bench --sweep 200 --seed 1 --sweep-max-bytes 64M`) took 0.68 of the time
/// requesting only the block's own rows, ahead of its loads (six ABBA rounds), and eight such transposes of 4-16 KiB
/// rows, u8 to u64 (0.8-31 MiB), 0.96 (0.83-1.02, four rounds; `docs/PERFORMANCE.md`, fifty-third round). The same
/// shapes with rows padded off 4 KiB still ran up to 1.8x faster: what is left of the aliasing is the tiles' own.
pub(crate) fn prefetch_tiles_ahead(b_src: isize) -> usize {
    if b_src.unsigned_abs().is_multiple_of(4096) { 0 } else { PREFETCH_TILES }
}

/// Whether [`transpose_chunks`] requests the next chunk's lines of every source row at once, before each chunk of
/// `chunk` elements of `e` bytes: when the `na` rows `a` make more than one chunk and the `nb` source rows' lines of
/// one chunk fit [`PREFETCH_CHUNK_BYTES`]. Otherwise each tile of source rows requests the rows a few tiles on.
fn chunks_requested_whole(na: usize, nb: usize, chunk: usize, e: usize) -> bool {
    na > chunk && nb.saturating_mul(chunk * e) <= PREFETCH_CHUNK_BYTES
}

/// The fewest tiles of source rows `b` (destination columns) for which [`transpose_chunks`] walks a chunk pixel by
/// pixel ([`by_pixels`]).
const BY_PIXELS_MIN_TILES: usize = 3;

/// Whether [`transpose_chunks`] walks a chunk of `rows` rows `a` (destination pixels) a tile of them at a time, each
/// across all `nb` source rows `b`, rather than a tile of source rows at a time across the chunk: when the
/// transpose's chunks are requested whole (`requested_whole`, [`chunks_requested_whole`]: the walk then requests
/// nothing row by row; the last chunk too), the chunk has a tile of rows or more (shorter ones take the scalar
/// moves of the walk by source rows), and there are at least [`BY_PIXELS_MIN_TILES`] tiles of source rows (which
/// also keeps the narrow form, for fewer rows than a tile, out). Walked by source rows, a chunk writes 16-32 bytes
/// of each of its 32-256 destination rows per step and comes back to each row once per tile of source rows; walked
/// by pixels, each tile of pixels writes its rows whole, one run of `tile * a_dst` bytes when the rows are
/// contiguous, while the chunk's source lines (at most [`PREFETCH_CHUNK_BYTES`], requested before the chunk) stay
/// in L1 either way. Single tiles, also of 1- and 2-byte elements, whose walk by source rows takes two tiles side by
/// side (`tile_pair_for`): the walk by pixels was measured so. Mostly chunks written in place: through the scratch
/// block (streamed copies into contiguous rows) only 12-16 planes of 8-byte elements are requested whole.
///
/// Measured on an Intel Xeon (2 vCPUs, model 207, L2 2 MiB per core; `docs/PERFORMANCE.md`, forty-seventh round), time
/// ratios by pixels / by source rows, ABBA rounds of `stridekit bench --cases F --json` with the two orders: the 75
/// transposes of `--sweep 200 --sweep-max-bytes 64M` seeds 1-20 whose chunks could take either walk, 4 rounds: 0.95
/// for the 46 with at least three tiles of source rows (30 u64 planes into 2101 pixels, sweep1_076: 0.76; 94 u64
/// planes: 0.81), 1.06 for those with fewer (5-8 planes of u64: up to 1.28), hence the threshold; the 37
/// transposes of seeds 21-40 that take it, drawn after it was fixed, two runs of 6 rounds: 0.98 and 0.92 (roofline
/// ratios 0.94 and 0.95).
fn by_pixels(requested_whole: bool, rows: usize, nb: usize, tile: usize) -> bool {
    requested_whole && rows >= tile && nb >= BY_PIXELS_MIN_TILES * tile
}

/// Whether [`transpose_avx2`] suits a transpose of `na` destination rows of `nb` elements of `e` bytes (`a_dst`
/// bytes apart): at least a tile of rows, or pixels of at most a tile of elements into a contiguous destination
/// (the interleave and narrow forms). With fewer rows otherwise (two to seven planes out of pixels, say) every
/// element would take the tiles' scalar edge loop; the gather tiles do better there (SIMD gathers at strides of 2-4
/// elements). Long rows that happen to be contiguous (5 planes of a whole image) are such a case: they took the
/// scalar loop, 3.4x slower than the gather tiles their halves took when split over two threads.
pub(crate) fn transpose_tiles_fit(na: usize, nb: usize, a_dst: isize, e: usize) -> bool {
    na >= tile_size(e) || (nb <= tile_size(e) && usize::try_from(a_dst).ok() == nb.checked_mul(e))
}

/// Transposes elements of `T`: `dst[a * a_dst + b] = src[a + b * b_src]`. The `a` range is walked in chunks;
/// inside a chunk, square SIMD tiles (16 x 16 bytes, 8 x 8 of 2 or 4 bytes, 4 x 4 of 8 bytes) go `b`-block by
/// `b`-block, so every source row is read in runs of at least 256 contiguous bytes, and the next chunk's source
/// lines are prefetched; the chunks of a transpose whose next chunks are requested whole (at most 32 KiB of lines),
/// when they have a tile of rows `a` and three `b`-blocks or more, go `a`-block by `a`-block instead, reading 16-32
/// bytes of each source row per block from L1 ([`by_pixels`]). Without `nt`, source rows of 1 KiB or more go in
/// strips instead ([`transpose_strips`], [`strips_fit`]). With `nt`, when a chunk's destination rows are
/// contiguous (NCHW -> NHWC), the chunk is assembled in the thread's scratch block ([`with_scratch`]) and then
/// streamed out, which saves the read-for-ownership of every destination line; when they are long (NHWC -> NCHW),
/// [`transpose_stream_cols`] streams column blocks instead, if a row holds one ([`column_blocks`]: rows of 9 u64,
/// 1152 bytes apart, took the column form's head and tail as two transposes of 1-8 columns, and ran in 0.53 of the
/// time through the tiles; `docs/PERFORMANCE.md`, fifty-sixth round). With `next`
/// (`portable::transpose::next_rows`: the step to the next call's piece of each row), or in a streaming copy whose
/// walk stores ordinarily into rows far apart ([`rows_ahead`]: 1 KiB on), each tile requests its rows' lines that
/// far on ([`request_next_piece`]).
///
/// # Safety
/// AVX2 is available; every source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is
/// valid; no overlap.
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)] // the two dimensions, the stores and the requests
pub(crate) unsafe fn transpose_avx2<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    nt: bool,
    next: Option<isize>,
) {
    let e = T::SIZE;
    if a_dst == (nb * e) as isize {
        // SAFETY: the caller's contract, with a contiguous destination (a_dst == nb * e).
        let done = unsafe {
            match nb {
                2 => interleave::<T, 2>(src, dst, na, b_src, nt),
                3 => interleave::<T, 3>(src, dst, na, b_src, nt),
                4 => interleave::<T, 4>(src, dst, na, b_src, nt),
                8 if e == 1 => interleave_bytes8(src, dst, na, b_src, nt),
                _ => interleave_narrow::<T>(src, dst, na, nb, b_src, nt),
            }
        };
        if done {
            return;
        }
    }
    let tile = tile_size(e);
    let row_bytes = nb * e;
    let use_scratch = nt && a_dst == row_bytes as isize && row_bytes * tile <= SCRATCH_BYTES;
    let cols = nt
        && !use_scratch
        && a_dst > 0
        && a_dst % 32 == 0
        && na * COL_BLOCK <= SCRATCH_BYTES
        && column_blocks(dst, nb, e).1 > 0;
    if lines_fit(na, a_dst, nb, b_src, e, nt, cols, dst as usize) {
        // SAFETY: the caller's contract, and `lines_fit`.
        unsafe { transpose_lines::<T>(src, dst, na, a_dst, nb, b_src, next) };
        return;
    }
    if strips_fit(na, nb, e, nt) {
        // SAFETY: the caller's contract; `strips_fit` gives at least a tile on each side.
        unsafe { transpose_strips::<T>(src, dst, na, a_dst, nb, b_src, next) };
        return;
    }
    if cols {
        // SAFETY: the caller's contract; the conditions of the column-streaming form hold.
        unsafe { transpose_stream_cols::<T>(src, dst, na, a_dst, nb, b_src) };
        return;
    }
    // Through the thread's scratch block only with `nt` into contiguous rows that a tile of fits.
    // SAFETY: the caller's contract, and that of the scratch form just stated (the block is SCRATCH_BYTES long).
    unsafe {
        match use_scratch {
            true => with_scratch(|block| {
                transpose_chunks::<T>(src, dst, na, a_dst, nb, b_src, Some((block, SCRATCH_BYTES)), None, Level::of(nt))
            }),
            false => {
                let ahead = next.or_else(|| rows_ahead(a_dst, row_bytes, ROW_AHEAD_BYTES, nt));
                transpose_chunks::<T>(src, dst, na, a_dst, nb, b_src, None, ahead, Level::of(nt))
            }
        }
    }
}

/// How far on in each destination row the chunked tile walk requests the row's lines ([`request_next_piece`], one
/// request per line, spread over the tiles): 1 KiB, as ordinary stores of long regions do (`x86/store.rs`).
const ROW_AHEAD_BYTES: usize = 1024;

/// The step, `step` bytes on in the same destination row, at which a tiled walk that stores ordinarily requests the
/// lines it will write, when the copy streams (`nt`: its destination is beyond the caches) and the destination rows
/// (`row_bytes` long, `a_dst` apart) are separate streams longer than the step. Each row is a stream of stores the
/// hardware prefetcher does not request ahead, and there are more rows than streams it tracks: NHWC -> NCHW of 64
/// f32 channels of 299 x 299 pixels (planes 357604 bytes apart, which the column blocks cannot stream: not a multiple
/// of 32) ran at 0.18-0.33 of the roofline, with the requests at 0.50-0.57; 82 f64 rows 494 KB apart (sweep3_060 of
/// `--sweep 200 --seed 3`) in 0.45-0.58 of the time, 172 u16 rows 282 KB apart (sweep2_137) in 0.81-0.89, the
/// strips of 2114 u32 rows of 10508 bytes (sweep2_042) in 0.62-0.75 (`docs/PERFORMANCE.md`, thirty-third round;
/// streaming copies no longer take the strips, [`strips_fit`]). A walk whose loop continues its rows requests the
/// next call's pieces instead (`portable::transpose::next_rows`).
fn rows_ahead(a_dst: isize, row_bytes: usize, step: usize, nt: bool) -> Option<isize> {
    let apart = a_dst.unsigned_abs() >= 4096;
    (nt && apart && row_bytes > step).then_some(step as isize)
}

/// The rows `a` of a chunk through the scratch block of a transpose into contiguous destination rows of
/// `row_bytes` (elements of each source row a chunk reads): as many whole tiles of rows as the block holds, at most
/// [`SCRATCH_SOURCE_BYTES`] of each source row.
fn scratch_chunk(row_bytes: usize, e: usize) -> usize {
    (SCRATCH_BYTES / row_bytes / tile_size(e) * tile_size(e)).min(SCRATCH_SOURCE_BYTES / e)
}

/// Destination bytes of each row `a` that one strip of [`transpose_strips`] writes: one cache line.
const STRIP_BYTES: usize = 64;

/// The shortest source rows (`na` elements of `e` bytes) that [`transpose_strips`] takes.
const STRIP_MIN_ROW_BYTES: usize = 1024;

/// Whether [`transpose_strips`] takes a transpose of `na` x `nb` elements of `e` bytes: a copy that does not stream
/// (`nt`), elements of at most 4 bytes, source rows of at least [`STRIP_MIN_ROW_BYTES`], at least a tile on each
/// side.
///
/// The strips store ordinarily, so a streaming copy takes the forms that stream (the scratch block, the column
/// blocks) or the chunked walk. Until the fifty-sixth round the strips took streaming copies too, except where a
/// scratch chunk read a whole [`CHUNK_BYTES`] of each source row: measured on an Intel Xeon whose 260 MiB
/// last-level cache held every case (twenty-seventh round), where the ordinary stores cost nothing. On the Zen 4 of
/// the fifty-sixth round (32 MiB L3), the 15 streaming transposes of `--sweep 200 --sweep-max-bytes 64M` seeds 1-20
/// that took the strips ran in 0.72 of the time without them (0.49-1.01; sweep15_186, 1951 x 25511 bytes: 0.49;
/// sweep2_042, the 2114 x 2627 u32 transpose that drew the strips: 0.64), and the 22 of seeds 21-40, measured once
/// the rule was written, in 0.86 (0.56-1.47; the two slowest re-run over five rounds: 0.88 and 1.11); the 18 of
/// seeds 1-20 that do not stream ran in 1.11 without them (up to 2.9: sweep9_026, 538 x 807 u16 in cache), and keep
/// them.
fn strips_fit(na: usize, nb: usize, e: usize, nt: bool) -> bool {
    let tile = tile_size(e);
    !nt && e <= 4 && na.saturating_mul(e) >= STRIP_MIN_ROW_BYTES && nb >= tile && na >= tile
}

/// The transpose of [`transpose_avx2`] in strips: [`STRIP_BYTES`] / `e` source rows `b` at a time (a line of each
/// destination row), each strip walking its rows from end to end in tiles. The chunked walk reads 256 bytes of
/// every source row per chunk, so each chunk starts as many scattered streams as there are rows, and a chunk
/// through the scratch block of destination rows of several KiB reads only 32-64 bytes of each; a strip reads a
/// few rows sequentially (the hardware prefetcher follows each) and writes whole lines of the destination.
///
/// Taken for elements of 1-4 bytes in source rows of 1 KiB or more, in copies that do not stream (`strips_fit`;
/// streaming copies took them too until the fifty-sixth round). Time ratios over the sweep cases
/// of seeds 1-4 it changed, three runs of 6-8 alternating rounds (`docs/PERFORMANCE.md`, twenty-seventh round): a
/// 2114 x 2627 u32 transpose 0.41-0.50 (sweep2_042, which went through the scratch block 32 bytes of each source
/// row at a time), bytes reversed 0.61-0.69 (sweep4_109), u16 pairs of long rows 0.70-0.85 (sweep2_058), the
/// others 0.83-1.20 (sweep2_088), 0.97-1.11 (sweep2_173, sweep3_164). Shorter rows (256-1023 bytes) were split:
/// 0.69-0.79 for three cases, 1.11-1.28 for u64 rows of 64-82 elements under 5000-30000 rows. Elements of 8 bytes
/// keep the chunked walk: their strips (two 4 x 4 tiles) were split too, 0.87-0.93 for two cases and 1.07-1.35
/// for three of 15-27 rows (sweep4_036, sweep4_182, sweep2_195).
///
/// Regular stores: a strip's line of a destination row starts wherever the row's alignment puts it, so lines are
/// completed across two strips (the second finds the line still in L1/L2).
///
/// With `next`, each tile requests its part of its rows' next pieces (see [`request_next_piece`]).
///
/// # Safety
/// As for [`transpose_avx2`]; `na` and `nb` are each at least a tile.
#[target_feature(enable = "avx2")]
unsafe fn transpose_strips<T: Elem>(
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
    let tile = tile_size(e);
    debug_assert!(na >= tile && nb >= tile);
    let strip = (STRIP_BYTES / e).max(tile);
    let mut g0 = 0;
    while g0 < nb {
        let g1 = (g0 + strip).min(nb);
        let mut a0 = 0;
        while a0 < na {
            // Two tiles side by side in `a` where they fit (1-2 byte elements: see `tile_pair_for`).
            let rows = if e <= 2 && a0 + 2 * tile <= na { 2 * tile } else { tile };
            // A partial tile at the end of either side is the last full tile instead, overlapping its predecessor
            // (written twice with the same values, as in the chunked walk).
            let ta = a0.min(na - rows) as isize;
            let mut b0 = g0;
            while b0 < g1 {
                let tb = b0.min(nb - tile) as isize;
                request_next_piece(dst, (ta, rows), a_dst, (tb * ei, tile * e), next);
                // SAFETY: ta + rows <= na and tb + tile <= nb: the tiles' source rows and destination rows are
                // inside the caller's ranges.
                unsafe {
                    let (s, d) = (src.offset(ta * ei + tb * b_src), dst.offset(ta * a_dst + tb * ei));
                    match rows == tile {
                        true => tile_for::<T>(s, d, a_dst, b_src),
                        false => tile_pair_for::<T>(s, d, a_dst, b_src),
                    }
                };
                b0 += tile;
            }
            a0 += rows;
        }
        g0 = g1;
    }
}

/// The chunked tile walk of [`transpose_avx2`]; with `scratch` (a block and its length), each chunk is assembled
/// there and then streamed; with `next`, each tile requests its part of its rows' next pieces
/// ([`request_next_piece`]).
///
/// # Safety
/// As for [`transpose_avx2`]; `scratch`, when given, is that many writable bytes, and then `a_dst == nb e` with
/// `nb e` times a tile at most that many.
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)] // the two dimensions, the scratch block and the requests
unsafe fn transpose_chunks<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    scratch: Option<(*mut u8, usize)>,
    next: Option<isize>,
    level: Level,
) {
    let e = T::SIZE;
    let tile = tile_size(e);
    let row_bytes = nb * e;
    let use_scratch = scratch.is_some();
    let (scratch_ptr, scratch_bytes) = scratch.unwrap_or((std::ptr::null_mut(), 0));
    debug_assert!(!use_scratch || (a_dst == row_bytes as isize && row_bytes * tile <= scratch_bytes));
    let chunk = if use_scratch {
        debug_assert_eq!(scratch_bytes, SCRATCH_BYTES);
        scratch_chunk(row_bytes, e)
    } else {
        CHUNK_BYTES / e
    };
    let ei = e as isize;
    // Fewer rows than a tile into a contiguous destination (5 to 15 planes of bytes to pixels, say): see
    // [`Narrow`]. Its buffers exist only for such transposes, so that the others do not pay for zeroing them.
    let mut narrow = if nb < tile && a_dst == row_bytes as isize { Some(Narrow::new(nb, row_bytes)) } else { None };
    // The next chunk's lines of every row are prefetched at once while they fit L1 (a few dozen channel rows);
    // with more rows, or a single chunk, each block of rows prefetches the rows `PREFETCH_TILES` tiles ahead
    // instead (rows a line or more apart defeat the hardware prefetcher, which stays inside a 4 KiB page: 120-byte
    // rows 1720 bytes apart ran at 0.06 of the roofline), or its own rows where they alias in L1
    // ([`prefetch_tiles_ahead`]).
    let whole_chunk_prefetch = chunks_requested_whole(na, nb, chunk, e);
    let mut c0 = 0;
    while c0 < na {
        let c1 = (c0 + chunk).min(na);
        if c1 < na && whole_chunk_prefetch {
            for b in 0..nb as isize {
                for line in (0..chunk * e).step_by(64) {
                    // Prefetching is a hint that never faults; wrapping_offset keeps the address computation
                    // defined even where it would leave the allocation.
                    let p = src.wrapping_offset(c1 as isize * ei + line as isize + b * b_src);
                    prefetch_line(p, level);
                }
            }
        }
        // Element (a, b) of this chunk goes to out + (a - out_a0) * a_dst + b * e.
        let (out, out_a0) = if use_scratch { (scratch_ptr, c0) } else { (dst, 0) };
        let one = |a: usize, b: usize| {
            let (ai, bi) = (a as isize, b as isize);
            // SAFETY: (a, b) inside the caller's ranges (a < na, b < nb); with scratch, (a - c0) < chunk rows of
            // row_bytes, inside the scratch block.
            unsafe {
                out.offset((a - out_a0) as isize * a_dst + bi * ei)
                    .cast::<T>()
                    .write_unaligned(src.offset(ai * ei + bi * b_src).cast::<T>().read_unaligned())
            }
        };
        if by_pixels(whole_chunk_prefetch, c1 - c0, nb, tile) {
            // A tile of pixels across every source row, then the next tile; the last tile of each side overlaps
            // the one before it, as below.
            let mut a0 = c0;
            while a0 < c1 {
                let ta = a0.min(c1 - tile);
                let mut b0 = 0;
                while b0 < nb {
                    let tb = b0.min(nb - tile);
                    let (a, b) = (ta as isize, tb as isize);
                    request_next_piece(dst, (a, tile), a_dst, (b * ei, tile * e), next);
                    // SAFETY: `by_pixels` gives c1 - c0 >= tile and nb >= 3 tile, so c0 <= ta, ta + tile <= c1 and
                    // tb + tile <= nb: the tile ta .. ta + tile, tb .. tb + tile lies inside the source range and
                    // inside the destination range (or the scratch block, rows ta - c0 .. ta - c0 + tile <= chunk).
                    unsafe {
                        let (s, d) =
                            (src.offset(a * ei + b * b_src), out.offset((ta - out_a0) as isize * a_dst + b * ei));
                        tile_for::<T>(s, d, a_dst, b_src)
                    };
                    b0 += tile;
                }
                a0 += tile;
            }
        } else {
            let mut b0 = 0;
            while b0 < nb {
                if !whole_chunk_prefetch {
                    let ahead = prefetch_tiles_ahead(b_src);
                    for b in b0 + ahead * tile..b0 + (ahead + 1) * tile {
                        // Rows past the last one are the first rows of the next chunk, so that a chunk does not
                        // start on cold rows.
                        let (b, a0, a1) = match b < nb {
                            true => (b, c0, c1),
                            false if c1 < na && b - nb < nb => (b - nb, c1, (c1 + chunk).min(na)),
                            false => break,
                        };
                        let row = src.wrapping_offset(a0 as isize * ei + b as isize * b_src);
                        prefetch_bytes(row, (a1 - a0) * e, level);
                    }
                }
                // A partial tile at the end of `b` or of the chunk's `a` is the last full tile instead, overlapping
                // the one before it: the overlap is written twice with the same values (outputs never overlap, D1),
                // where a scalar edge cost 10-20 times a tile's time per element (u8 rows of 120: 8 of every 120
                // rows).
                let tile_b = match b0 + tile <= nb {
                    true => Some(b0),
                    false => nb.checked_sub(tile),
                };
                let mut a0 = c0;
                while a0 < c1 {
                    // Two tiles side by side in `a` where they fit (1-2 byte elements: see `tile_pair_for`).
                    let rows = if e <= 2 && a0 + 2 * tile <= c1 { 2 * tile } else { tile };
                    if let Some(tb) = tile_b
                        && c1 - c0 >= tile
                    {
                        let ta = a0.min(c1 - rows);
                        let (a, b) = (ta as isize, tb as isize);
                        request_next_piece(dst, (a, rows), a_dst, (b * ei, tile * e), next);
                        // SAFETY: the tiles ta .. ta + rows (c0 <= ta, ta + rows <= c1), tb .. tb + tile (tb + tile <=
                        // nb) lie inside the source range and inside the destination range (or the scratch block,
                        // rows ta - c0 .. ta - c0 + rows <= chunk).
                        unsafe {
                            let (s, d) =
                                (src.offset(a * ei + b * b_src), out.offset((ta - out_a0) as isize * a_dst + b * ei));
                            match rows == tile {
                                true => tile_for::<T>(s, d, a_dst, b_src),
                                false => tile_pair_for::<T>(s, d, a_dst, b_src),
                            }
                        };
                        a0 += rows;
                        continue;
                    } else if let Some(narrow) = narrow.as_mut()
                        && a0 + tile <= c1
                    {
                        // SAFETY: elements a0 .. a0 + tile (a0 + tile <= c1 <= na) of the nb source rows are inside the
                        // caller's range; the chunk's destination rows (a0 - out_a0 .. c1 - out_a0 of `row_bytes`,
                        // a_dst == row_bytes) are this call's destination rows or the scratch block's chunk rows.
                        unsafe {
                            let s = src.offset(a0 as isize * ei);
                            narrow.tile::<T>(s, b_src, out, (a0 - out_a0) * row_bytes, (c1 - out_a0) * row_bytes)
                        };
                    } else {
                        for a in a0..(a0 + tile).min(c1) {
                            for b in b0..(b0 + tile).min(nb) {
                                one(a, b);
                            }
                        }
                    }
                    a0 += tile;
                }
                b0 += tile;
            }
        }
        if use_scratch {
            // SAFETY: the scratch block holds rows c0..c1 (contiguous, row_bytes each), every byte of them written
            // above (each element (a, b) of the chunk at least once; overlapping tiles write the same values
            // again); the destination rows c0..c1 are contiguous too (a_dst == row_bytes) and inside the
            // destination range.
            unsafe { copy_nt_avx2(scratch_ptr, dst.offset(c0 as isize * a_dst), (c1 - c0) * row_bytes) };
        }
        c0 = c1;
    }
}

/// The end of the source of a transpose out of `nb` pixels `b_src` bytes apart, from its first pixel: past the `na`
/// elements of `e` bytes of its highest pixel. The partner and short tiles load whole vectors at pixels and take
/// loads that would pass it from a copy instead.
pub(crate) fn pixels_end(na: usize, nb: usize, b_src: isize, e: usize) -> isize {
    b_src.max(0) * (nb - 1) as isize + (na * e) as isize
}

/// Source pixels per call of the partner tiles in [`transpose_partner`]: their offsets (`b * b_src`) are built on
/// the stack, up to a tile more for the last call so that no call has fewer than a tile.
const PARTNER_PIXELS: usize = 64;

/// Whether [`transpose_partner`] takes a transpose of `na` destination rows (`a_dst` bytes apart) whose source rows are
/// 2-4 elements of `e` bytes apart (`a_src`: every second to fourth element of `nb` pixels `b_src` bytes apart), which
/// the gather tiles took otherwise, one gather per row: 2- and 4-byte elements, at least two partner tiles of rows (16
/// u16 or 8 u32 rows), where the table's partner tiles fit ([`table_tiles_fit`]: their spaced steps, gathered by byte
/// shuffles) and the offsets of a call fit `i32`. The 9 such sweep transposes of seeds 1-4 ran in 0.67 of the time (six
/// alternating rounds, `docs/PERFORMANCE.md`, thirty-fourth round): 661 rows of every second u16 out of pixels 5304
/// bytes apart read backwards (sweep3_164) in 0.40-0.42 (two sets), 23 and 117 such rows (sweep4_158, sweep4_030) in
/// 0.45-0.59 and 0.63, six more in 0.63-0.96; fewer rows than two tiles lost, 7 and 5 rows of every third u32
/// (sweep1_102, sweep3_104) 1.15 and 1.33, and take the gather tiles.
pub(crate) fn transpose_partner_spaced_fits(
    na: usize,
    nb: usize,
    a_src: isize,
    a_dst: isize,
    b_src: isize,
    e: usize,
) -> bool {
    matches!(e, 2 | 4)
        && a_src > e as isize
        && na >= 2 * (16 / e)
        && table_tiles_fit(nb, na, a_src, a_dst, e)
        && call_offsets_fit(b_src)
}

/// Whether [`transpose_partner`] takes a transpose of `na` destination rows (`a_dst` bytes apart) out of `nb` source
/// pixels `b_src` bytes apart, whose `na` elements of `e` bytes are contiguous: 4-byte elements (4-7 rows, fewer
/// than [`transpose_avx2`]'s tile of 8, at least the partner tiles' 4) where the table's partner tiles fit
/// ([`table_tiles_fit`]), and the offsets of a call fit `i32`. Bytes are not taken: 4-15 rows of them through
/// these tiles ran 1.9x and 2.1x slower than the gather tiles on the two sweep cases that took them (sweep3_142, 12
/// channels of 29 pixels a call; sweep3_072, 5 of 10-byte pixels), as 2-byte rows had as table partners; they go to
/// the short tiles (`x86/short.rs`), one register transpose per tile of pixels.
pub(crate) fn transpose_partner_fits(na: usize, nb: usize, a_dst: isize, b_src: isize, e: usize) -> bool {
    e == 4 && table_tiles_fit(nb, na, e as isize, a_dst, e) && call_offsets_fit(b_src)
}

/// Whether the offsets of one call of [`transpose_partner`] (pixels `b_src` bytes apart, at most
/// `PARTNER_PIXELS + 16` of them) fit the table tiles' `i32` offsets.
fn call_offsets_fit(b_src: isize) -> bool {
    b_src.checked_mul((PARTNER_PIXELS + 16) as isize).is_some_and(|s| i32::try_from(s).is_ok())
}

/// The transpose `dst[a * a_dst + b] = src[a * a_src + b * b_src]` (byte strides; `a_src` one element, or 2-4 of them
/// apart) of fewer rows than a square tile of [`transpose_avx2`] takes, or of rows 2-4 elements apart in the source
/// ([`transpose_partner_spaced_fits`]): the pixels `b` are the offsets of the table's partner tiles ([`table_tiles`]),
/// and the rows `a` their partner steps, whose destination lines the tiles request ahead as for a table's partner
/// ([`super::table::dst_ahead`]) when the rows are spaced. Per 4 pixels and 4 rows of adjacent f32, one 16-byte load
/// per pixel (spaced rows: the windows of `Steps`, shuffled) and a 4-by-4 transpose in registers (the last rows' tile
/// overlapping its predecessor; no load leaves a pixel's `na` elements), where the gather tiles loaded and stored each
/// element: 7 f32 channels of 14 into planes (sweep3_155) in 0.68 of the time, six cases more 0.92-0.99
/// (`docs/PERFORMANCE.md`, twenty-second round).
///
/// # Safety
/// AVX2 is available; [`transpose_partner_fits`] holds with `a_src` one element, or [`transpose_partner_spaced_fits`];
/// every source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is valid, and so is every byte
/// between the lowest and the highest source element (the source range of the call); the destination rows do not
/// overlap each other or the source.
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)] // the two dimensions, the partner's step and the requests' level
pub(crate) unsafe fn transpose_partner<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    a_src: isize,
    level: Level,
) {
    let e = T::SIZE;
    let end = pixels_end(na, nb, b_src, e) + (na as isize - 1) * (a_src - e as isize);
    let ahead = nb.saturating_mul(b_src.unsigned_abs()) > SPREAD_BYTES;
    let mut offsets = [0i32; PARTNER_PIXELS + 16];
    let mut b0 = 0;
    while b0 < nb {
        let k = if nb - b0 < PARTNER_PIXELS + 16 { nb - b0 } else { PARTNER_PIXELS };
        for (q, o) in offsets[..k].iter_mut().enumerate() {
            // In range: q * |b_src| < (PARTNER_PIXELS + 16) |b_src|, which fits i32 (`call_offsets_fit`).
            *o = (q as isize * b_src) as i32;
        }
        let at = b0 as isize * b_src;
        // The rows of 4-7 channels do not request theirs (`dst_ahead`: 1.03, up to 1.33 with them).
        let dst_ahead = if a_src == e as isize { None } else { super::table::dst_ahead(na, a_dst, k * e) };
        let p = Partner { na, a_src, a_dst, end: end - at, ahead: ahead.then_some(level), dst_ahead };
        // SAFETY: AVX2 detected; `table_tiles_fit` holds for these k >= a tile of pixels (every call but a single
        // one takes at least PARTNER_PIXELS, the last all that remain, and nb itself fits); pixel b0 + q is offset
        // q from `src + at`, its na elements readable and its destination elements at a * a_dst + (b0 + q) e
        // writable; every byte from the lowest pixel of the call up to its `end` lies in the caller's source range.
        unsafe { table_tiles::<T>(src.wrapping_offset(at), dst.add(b0 * e), &offsets[..k], p) };
        b0 += k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::x86::tiles::assert_transposed;

    #[test]
    fn tiles_take_a_tile_of_rows_or_narrow_pixels_into_a_contiguous_destination() {
        // A tile of rows (8 of 4 bytes) whatever the destination.
        assert!(transpose_tiles_fit(8, 1000, 12345, 4));
        // Three planes into RGB pixels (contiguous destination, pixels of 3 <= a tile): the interleave forms.
        assert!(transpose_tiles_fit(1000, 3, 12, 4));
        assert!(transpose_tiles_fit(1000, 8, 8, 1));
        // Five rows of a whole image each (contiguous only because the rows follow each other): not a tile of rows,
        // pixels far longer than a tile, so the gather tiles (the tiles would walk every element).
        assert!(!transpose_tiles_fit(5, 237_150, 948_600, 4));
        // Few rows into a strided destination.
        assert!(!transpose_tiles_fit(3, 64, 1000, 4));
    }

    #[test]
    fn rows_that_alias_in_l1_request_no_tiles_ahead() {
        // Multiples of 4 KiB, either direction: the block's own rows only.
        for b_src in [4096, -4096, 40960, -40960, 65536, 1 << 20] {
            assert_eq!(prefetch_tiles_ahead(b_src), 0, "{b_src}");
        }
        // Off 4 KiB, even by a line or a multiple of 2 KiB: the tiles ahead.
        for b_src in [64, 1720, 2048, 4032, 4160, -41600, 6144] {
            assert_eq!(prefetch_tiles_ahead(b_src), PREFETCH_TILES, "{b_src}");
        }
    }

    #[test]
    fn strips_take_rows_of_a_kib_in_copies_that_do_not_stream() {
        // Rows of 1 KiB and more, a tile on each side.
        assert!(strips_fit(256, 8, 4, false) && strips_fit(1024, 16, 1, false) && strips_fit(512, 8, 2, false));
        // Not 8-byte elements.
        assert!(!strips_fit(128, 4, 8, false) && !strips_fit(4096, 64, 8, false));
        assert!(!strips_fit(255, 8, 4, false) && !strips_fit(1023, 16, 1, false));
        assert!(!strips_fit(2000, 7, 4, false) && !strips_fit(2000, 3, 8, false));
        // Not in a streaming copy: the 2114 x 2627 u32 transpose streams through the scratch block instead.
        assert!(!strips_fit(2114, 2627, 4, true) && !strips_fit(1024, 16, 1, true));
    }

    /// The strips against the element-by-element definition, every element size: ragged tiles on both sides, a
    /// partial last strip, source rows walked backwards and destination rows stepping back (a reversed `a`).
    #[test]
    fn strips_of_every_element_size_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>() {
            let e = T::SIZE;
            let tile = tile_size(e);
            // Under Miri, rows shorter than `strips_fit` asks for (the kernel itself takes any rows of a tile).
            let na = if cfg!(miri) { 2 * tile + 3 } else { STRIP_MIN_ROW_BYTES / e + 3 };
            let nb = STRIP_BYTES / e + tile + 1;
            // The kernel itself takes 8-byte elements too (strips_fit does not give it them).
            assert!(strips_fit(na, nb, e, false) || e == 8 || cfg!(miri));
            // Bytes, so that every byte of a wide element is checked: source element (a, b) of the packed source is
            // the e bytes at (b na + a) e.
            let src: Vec<u8> = (0..na * nb * e).map(|i| (i * 7 + i / 251) as u8).collect();
            // The last case with its rows' next strips requested (`rows_ahead`).
            for (b_back, a_back, ahead) in [(false, false, None), (true, false, None), (false, true, Some(64))] {
                let a_dst = (nb + 5) * e; // padded destination rows
                let mut dst = vec![0u8; na * a_dst];
                let row = (na * e) as isize;
                let (s0, b_src) = if b_back { ((nb - 1) * na * e, -row) } else { (0, row) };
                let (d0, ad) = if a_back { ((na - 1) * a_dst, -(a_dst as isize)) } else { (0, a_dst as isize) };
                // SAFETY: AVX2 detected; source element (a, b) at s0 + a e + b b_src inside `src` (from the last row
                // when backwards); destination element (a, b) at d0 + a ad + b e inside `dst`; na, nb at least a
                // tile; no overlap.
                unsafe {
                    transpose_strips::<T>(src.as_ptr().add(s0), dst.as_mut_ptr().add(d0), na, ad, nb, b_src, ahead)
                };
                let what = format!("backwards {b_back} {a_back}");
                assert_transposed(&src, (s0, e as isize, b_src), &dst, (d0, ad), (na, nb, e), &what);
            }
        }
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }

    /// The chunked tile walk of 1- and 2-byte elements, whose tiles go in pairs side by side in `a`
    /// (`tile_pair_for`): two chunks, the second of a pair and a ragged last tile, ragged in `b` too, into padded
    /// rows and through the scratch block into contiguous rows: every element where the definition puts it, the
    /// padding untouched.
    #[test]
    fn chunked_pairs_of_tiles_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>() {
            let e = T::SIZE;
            let tile = tile_size(e);
            let na = if cfg!(miri) { 2 * tile + 5 } else { CHUNK_BYTES / e + 2 * tile + 5 };
            // Fewer than three tiles of source rows: walked by source rows (not `by_pixels`), where the pairs are.
            let nb = 2 * tile + 1;
            assert!(!by_pixels(true, na, nb, tile));
            let src: Vec<u8> = (0..na * nb * e).map(|i| (i * 11 + i / 253) as u8).collect();
            let b_src = (na * e) as isize;
            let mut scratch = vec![0u8; SCRATCH_BYTES];
            for padded in [true, false] {
                let a_dst = if padded { (nb + 3) * e } else { nb * e };
                let mut dst = vec![0xEEu8; na * a_dst];
                let block = (!padded).then_some((scratch.as_mut_ptr(), SCRATCH_BYTES));
                // SAFETY: AVX2 detected; source element (a, b) at a e + b b_src inside `src`; destination element
                // (a, b) at a a_dst + b e inside `dst`; the scratch block is SCRATCH_BYTES long, used only into
                // contiguous rows (a_dst == nb e) of which a tile fits it; no overlap.
                unsafe {
                    transpose_chunks::<T>(
                        src.as_ptr(),
                        dst.as_mut_ptr(),
                        na,
                        a_dst as isize,
                        nb,
                        b_src,
                        block,
                        None,
                        Level::L1,
                    )
                };
                let what = format!("pairs, padded {padded}");
                assert_transposed(&src, (0, e as isize, b_src), &dst, (0, a_dst as isize), (na, nb, e), &what);
                for a in 0..na {
                    assert!(dst[a * a_dst + nb * e..(a + 1) * a_dst].iter().all(|&x| x == 0xEE), "{what}: row {a}");
                }
            }
        }
        check::<u8>();
        check::<u16>();
    }

    #[test]
    fn chunks_are_walked_by_pixels_from_three_tiles_of_source_rows_when_requested_whole() {
        assert!(by_pixels(true, 4, 12, 4) && by_pixels(true, 32, 94, 4) && by_pixels(true, 8, 24, 8));
        // Fewer source rows, a chunk shorter than a tile, or chunks requested row by row.
        assert!(!by_pixels(true, 32, 11, 4) && !by_pixels(true, 3, 12, 4) && !by_pixels(false, 32, 12, 4));
        // The whole next chunk is requested while there is one and its lines fit.
        assert!(chunks_requested_whole(33, 128, 32, 8) && !chunks_requested_whole(32, 128, 32, 8));
        assert!(!chunks_requested_whole(33, 129, 32, 8));
    }

    /// The chunked tile walk by pixels ([`by_pixels`]) against the element-by-element definition, every element
    /// size: two whole chunks and a last one of a tile and a few rows (its last tile overlapping), ragged in `b`
    /// too, into padded rows forwards and stepping back, and (8-byte elements, whose chunks through the scratch
    /// block are requested whole) a whole chunk and such a last one through the scratch block into contiguous rows;
    /// then a last chunk shorter than a tile, which the walk by source rows takes: every element where the
    /// definition puts it, the padding untouched. Under Miri, 8-byte elements forwards only.
    #[test]
    fn chunks_walked_by_pixels_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>() {
            let e = T::SIZE;
            let tile = tile_size(e);
            let chunk = CHUNK_BYTES / e;
            let nb = 3 * tile + 1;
            let mut scratch = vec![0u8; SCRATCH_BYTES];
            let scratch_rows = scratch_chunk(nb * e, e);
            // Through the scratch block only where its chunk is requested whole: 8-byte elements.
            let through_scratch = chunks_requested_whole(scratch_rows + 1, nb, scratch_rows, e);
            assert_eq!(through_scratch, e == 8);
            let cases = [
                (2 * chunk + tile + 3, true, false),
                (2 * chunk + tile + 3, true, true),
                (scratch_rows + tile + 3, false, false),
                (chunk + 3, true, false),
            ];
            // Under Miri, all but the rows stepping back: the walk forwards, in place and through the scratch block.
            let wanted = |i: usize| !cfg!(miri) || i != 1;
            let cases = cases.into_iter().enumerate().filter(|&(i, _)| wanted(i)).map(|(_, c)| c);
            for (na, padded, a_back) in cases.filter(|&(_, padded, _)| padded || through_scratch) {
                let rows = if padded { chunk } else { scratch_rows };
                assert!(by_pixels(chunks_requested_whole(na, nb, rows, e), rows.min(na), nb, tile));
                let src: Vec<u8> = (0..na * nb * e).map(|i| (i * 13 + i / 239) as u8).collect();
                let b_src = (na * e) as isize;
                let a_dst = if padded { (nb + 3) * e } else { nb * e };
                let mut dst = vec![0xEEu8; na * a_dst];
                let (d0, ad) = if a_back { ((na - 1) * a_dst, -(a_dst as isize)) } else { (0, a_dst as isize) };
                let block = (!padded).then_some((scratch.as_mut_ptr(), SCRATCH_BYTES));
                // SAFETY: AVX2 detected; source element (a, b) at a e + b b_src inside `src`; destination element
                // (a, b) at d0 + a ad + b e inside `dst`; the scratch block is SCRATCH_BYTES long, used only into
                // contiguous rows (a_dst == nb e) of which a tile fits it; no overlap.
                unsafe {
                    transpose_chunks::<T>(
                        src.as_ptr(),
                        dst.as_mut_ptr().add(d0),
                        na,
                        ad,
                        nb,
                        b_src,
                        block,
                        None,
                        Level::L1,
                    )
                };
                let what = format!("by pixels, {na} rows, padded {padded}, backwards {a_back}");
                assert_transposed(&src, (0, e as isize, b_src), &dst, (d0, ad), (na, nb, e), &what);
                for a in 0..na {
                    let row = (d0 as isize + a as isize * ad) as usize;
                    assert!(dst[row + nb * e..row + a_dst].iter().all(|&x| x == 0xEE), "{what}: padding of row {a}");
                }
            }
        }
        // Under Miri 8-byte elements only: their chunks are 32 rows (a byte transpose's are 256 rows of 49).
        if !cfg!(miri) {
            check::<u8>();
            check::<u16>();
            check::<u32>();
        }
        check::<u64>();
    }

    #[test]
    fn rows_far_apart_in_a_streaming_copy_request_their_lines_further_on() {
        // 64 f32 planes of 299 x 299 pixels (357604 bytes apart), 1 KiB on; any step shorter than the rows.
        assert_eq!(rows_ahead(357_604, 357_604, ROW_AHEAD_BYTES, true), Some(1024));
        assert_eq!(rows_ahead(-494_000, 246_968, STRIP_BYTES, true), Some(64));
        // Not when the copy fits the caches, the rows are near each other, or shorter than the step.
        assert_eq!(rows_ahead(357_604, 357_604, ROW_AHEAD_BYTES, false), None);
        assert_eq!(rows_ahead(4095, 4000, ROW_AHEAD_BYTES, true), None);
        assert_eq!(rows_ahead(8192, 1024, ROW_AHEAD_BYTES, true), None);
    }

    /// The chunked tile walk of a streaming copy into rows far apart, their lines requested 1 KiB on (neither the
    /// scratch block nor the column blocks: rows not a multiple of 32 bytes apart), forwards and with the rows
    /// stepping back: every element where the definition puts it, the rows' padding untouched.
    #[test]
    fn chunked_tiles_requesting_their_rows_ahead_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let (na, nb, e) = (20, if cfg!(miri) { 300 } else { 1100 }, 4);
        let a_dst = (nb * e + 4).max(4100); // 4 mod 32, at least 4096
        assert!(!strips_fit(na, nb, e, true) && a_dst % 32 != 0);
        let src: Vec<u8> = (0..na * nb * e).map(|i| (i * 13 + i / 241) as u8).collect();
        for a_back in [false, true] {
            let mut dst = vec![0xEEu8; na * a_dst];
            let (d0, ad) = if a_back { ((na - 1) * a_dst, -(a_dst as isize)) } else { (0, a_dst as isize) };
            let b_src = (na * e) as isize;
            // SAFETY: AVX2 detected; source element (a, b) at a e + b b_src inside `src`; destination element (a, b)
            // at d0 + a ad + b e inside `dst`; no overlap.
            unsafe { transpose_avx2::<u32>(src.as_ptr(), dst.as_mut_ptr().add(d0), na, ad, nb, b_src, true, None) };
            assert_transposed(&src, (0, e as isize, b_src), &dst, (d0, ad), (na, nb, e), "chunks ahead");
            for a in 0..na {
                let row = (d0 as isize + a as isize * ad) as usize;
                assert!(dst[row + nb * e..row + a_dst].iter().all(|&x| x == 0xEE), "padding of row {a}");
            }
        }
    }

    #[test]
    fn partner_tiles_take_two_tiles_or_more_of_rows_two_to_four_elements_apart() {
        // 661 rows of every second u16 out of pixels read backwards (sweep3_164's call), every fourth u32.
        assert!(transpose_partner_spaced_fits(661, 2214, 4, 4428, -5304, 2));
        assert!(transpose_partner_spaced_fits(8, 100, 16, 400, 1000, 4));
        // Fewer rows than two tiles, bytes, adjacent or five elements apart, reading backwards: the gather tiles.
        assert!(!transpose_partner_spaced_fits(7, 100, 12, 400, 1000, 4));
        assert!(!transpose_partner_spaced_fits(15, 100, 4, 400, 1000, 2));
        assert!(!transpose_partner_spaced_fits(64, 100, 2, 400, 1000, 1));
        assert!(!transpose_partner_spaced_fits(64, 100, 4, 400, 1000, 4));
        assert!(!transpose_partner_spaced_fits(64, 100, 20, 400, 1000, 4));
        assert!(!transpose_partner_spaced_fits(64, 100, -8, 400, 1000, 4));
        // Pixels so far apart that the offsets of a call would not fit i32.
        assert!(!transpose_partner_spaced_fits(64, 100, 8, 400, 30_000_000, 4));
    }

    /// Rows 2-4 elements apart through the partner tiles, against the definition: pixels forwards and backwards,
    /// a ragged last call, rows stepping back, every element size it takes, rows far enough apart to request their
    /// lines ahead (`dst_ahead`); the padding of every row keeps its sentinel.
    #[test]
    fn spaced_rows_through_the_partner_tiles_against_the_definition() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn check<T: Elem>(k: usize) {
            let e = T::SIZE;
            let na = 2 * (16 / e) + 3;
            let nb = if cfg!(miri) { 70 } else { PARTNER_PIXELS * 2 + 21 };
            let pixel = (na - 1) * k * e + e + 6; // b_src: a pixel's spaced elements and a gap
            let src: Vec<u8> = (0..nb * pixel).map(|i| (i * 11 + i / 253) as u8).collect();
            for (b_back, a_back) in [(false, false), (true, false), (false, true)] {
                let a_dst = nb * e + 24;
                let mut dst = vec![0xC3u8; na * a_dst];
                let (s0, b_src) = if b_back { ((nb - 1) * pixel, -(pixel as isize)) } else { (0, pixel as isize) };
                let (d0, ad) = if a_back { ((na - 1) * a_dst, -(a_dst as isize)) } else { (0, a_dst as isize) };
                let a_src = (k * e) as isize;
                assert!(transpose_partner_spaced_fits(na, nb, a_src, ad, b_src, e), "k {k} e {e}");
                // SAFETY: AVX2 detected; source element (a, b) at s0 + a a_src + b b_src inside `src`, every byte
                // between them too; destination element (a, b) at d0 + a ad + b e inside `dst`; no overlap.
                unsafe {
                    transpose_partner::<T>(
                        src.as_ptr().add(s0),
                        dst.as_mut_ptr().add(d0),
                        na,
                        ad,
                        nb,
                        b_src,
                        a_src,
                        Level::L1,
                    )
                };
                let what = format!("k {k} e {e} backwards {b_back} {a_back}");
                assert_transposed(&src, (s0, a_src, b_src), &dst, (d0, ad), (na, nb, e), &what);
                for a in 0..na {
                    let row = (d0 as isize + a as isize * ad) as usize;
                    assert!(dst[row + nb * e..row + a_dst].iter().all(|&x| x == 0xC3), "{what}: padding of row {a}");
                }
            }
        }
        for k in 2..=4 {
            check::<u16>(k);
            check::<u32>(k);
        }
    }

    #[test]
    fn partner_tiles_take_four_to_seven_rows_of_four_bytes() {
        // Six f32 channels of 43 pixels 200 KB apart (sweep1_171's call), 4 and 7 channels, reversed pixels.
        assert!(transpose_partner_fits(6, 43, 172, 206_400, 4));
        assert!(transpose_partner_fits(4, 4, 1000, 80, 4) && transpose_partner_fits(7, 100, 1000, -1120, 4));
        // Three channels (fewer than a 4 x 4 tile), fewer pixels than a tile, bytes and u16 (the gather tiles).
        assert!(!transpose_partner_fits(3, 100, 1000, 80, 4) && !transpose_partner_fits(6, 3, 1000, 80, 4));
        assert!(!transpose_partner_fits(7, 100, 1000, 20, 1) && !transpose_partner_fits(5, 100, 1000, 20, 2));
        // Pixels so far apart that the offsets of a call would not fit i32.
        assert!(!transpose_partner_fits(6, 100, 1000, 30_000_000, 4));
    }
}
