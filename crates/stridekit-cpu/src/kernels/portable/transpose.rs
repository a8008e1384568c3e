//! The transpose: `dst[a * a_dst + b] = src[a * a_src + b * b_src]`, a 2-D tile walk where dimension `b` writes
//! contiguously and dimension `a` reads nearby bytes (`|a_src|` below a cache line): NCHW <-> NHWC, planes <->
//! pixels when `a_src` is one element, and "gather tiles" otherwise (every third element of 3-channel pixels, rows
//! of a strided window read column by column). Either way the lines one block of `b` reads are used by every `a`
//! before the block moves on, where a gather per `a` would read each source line once per `a`.

use super::gather::gather;
use crate::kernels::footprint::Footprint;
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};

/// One call reads `na x nb` elements (`a` at `a_src` bytes, `b` at `b_src`) and writes them at (`a_dst` bytes,
/// contiguous `b`).
pub(crate) fn footprint(na: usize, a_src: isize, a_dst: isize, nb: usize, b_src: isize, esize: usize) -> Footprint {
    let e = esize as isize;
    Footprint { src: [(na, a_src), (nb, b_src)], dst: [(na, a_dst), (nb, e)] }
}

/// Source bytes a block of `b` may span (its lines are reused by every `a` while in L1).
const BLOCK_SOURCE_BYTES: usize = 16 << 10;

/// Elements of `b` per block of the gather tiles: about [`BLOCK_SOURCE_BYTES`] of source lines (each element costs
/// its stride, at least one element and at most a line), a multiple of 64 elements (so that the destination
/// pieces of one row stay whole lines when the row is line-aligned), at least 64.
pub(crate) fn gather_block(b_src: isize, esize: usize) -> usize {
    let per = b_src.unsigned_abs().clamp(esize, 64);
    (BLOCK_SOURCE_BYTES / per / 64 * 64).max(64)
}

/// The longest piece of each destination row (`nb` elements) whose continuation a transpose requests ahead
/// ([`next_rows`]).
const NEXT_PIECE_MAX_BYTES: usize = 1024;

/// The most destination bytes of one call for which a transpose requests the next call's ([`next_rows`]): beyond
/// about a quarter of L2, the lines requested a call ahead would leave the cache before the next call writes them.
const NEXT_CALL_MAX_BYTES: usize = 512 << 10;

/// The step from each destination row's piece to the piece the next call writes in the same row, when a transpose
/// requests that piece with write intent while it writes its own; `on` is that step when the loop around the call
/// continues the rows (it steps one piece, `nb` elements). An ordinary store that misses waits for its line to be
/// read for ownership, and the hardware prefetcher does not follow `na` separate rows: a transpose of 117 rows of 40
/// f16 elements per call, continued by the 1638 steps of two loops (sweep4_030 of `--sweep 200 --seed 4`), stalled on
/// the stores of every new line; with each row's next piece requested as the row is written (one call of time
/// ahead), it ran in 0.42-0.50 of the time (`docs/PERFORMANCE.md`, thirty-third round). Pieces longer than
/// [`NEXT_PIECE_MAX_BYTES`] are few lines apart per row, and calls larger than [`NEXT_CALL_MAX_BYTES`] evict what
/// they requested: neither requests.
pub(crate) fn next_rows(
    na: usize,
    a_dst: isize,
    nb: usize,
    esize: usize,
    on: Option<isize>,
    ctx: Ctx,
) -> Option<isize> {
    let piece = nb.saturating_mul(esize);
    // Rows nearer than this piece, the next one and a line apart are a band of lines the call writes already.
    let apart = a_dst.unsigned_abs() > piece.saturating_mul(2).saturating_add(64);
    let fits = apart && piece <= NEXT_PIECE_MAX_BYTES && na.saturating_mul(piece) <= NEXT_CALL_MAX_BYTES;
    on.filter(|_| ctx.simd == Simd::Avx2 && fits)
}

/// `dst[a * a_dst + b] = src[a * a_src + b * b_src]` (element indices a, b; strides in bytes) in cache-sized tiles;
/// with `on`, the step to the next call's piece of each destination row when the loop around the call continues
/// the rows (see [`next_rows`]).
///
/// The destination rows may interleave with another thread's rows (a padded or permuted output), so no slice may
/// span them: this stays a pointer loop.
///
/// # Safety
/// Every source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is valid; the sides do
/// not overlap; `|b_src| >= size_of T` (elements of a source row do not overlap).
#[allow(clippy::too_many_arguments)] // the two dimensions' counts and strides
pub(crate) unsafe fn transpose<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_src: isize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    ctx: Ctx,
    on: Option<isize>,
) {
    let e = T::SIZE as isize;
    let next = next_rows(na, a_dst, nb, T::SIZE, on, ctx);
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && a_src == e && x86::deinterleave_fits(na, b_src, T::SIZE) {
        // SAFETY: AVX2 detected; same ranges (the source is pixels of `b_src` bytes whose first `na` elements are
        // read, what the deinterleave assumes); the bytes between source elements lie inside the source range's
        // allocation (execute_raw's contract), and the values the SIMD loads read there are discarded, as the
        // gather's are.
        unsafe { x86::deinterleave::<T>(src, dst, na, a_dst, nb, b_src, ctx.nt) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.vbmi && x86::planes64_fits(na, a_src, nb, b_src, T::SIZE) {
        // A few planes out of short pixels (any channel spacing, either order): the 64-byte permutes, where the
        // tiles below spend a tile's shuffles on `na` of its rows, and the gather tiles read every pixel once per
        // plane.
        // SAFETY: AVX-512 VBMI detected (`ctx.vbmi`); same ranges; the bytes between source elements lie inside the
        // source range's allocation (execute_raw's contract), and the values the loads read there are discarded.
        unsafe { x86::planes64(src, dst, na, a_src, a_dst, nb, b_src, T::SIZE, ctx.nt) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.vbmi
        && !(a_dst == (nb * T::SIZE) as isize && x86::interleave_first(nb, T::SIZE, ctx.nt))
        && x86::pixels64_pays(a_src, nb, T::SIZE)
        && x86::pixels64_fits(na, a_src, a_dst, nb, T::SIZE)
    {
        // A few planes into pixels (the mirror of the above), but for the dense pixels the interleave kernels take.
        // SAFETY: AVX-512 VBMI detected (`ctx.vbmi`); same ranges; the bytes between source elements lie inside the
        // source range's allocation (execute_raw's contract), and the values the loads read there are discarded.
        unsafe { x86::pixels64(src, dst, na, a_src, a_dst, nb, b_src, T::SIZE) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && a_src.abs() == e && (a_src > 0 || na > 1) {
        // Each pixel's `na` elements contiguous. Read backwards (a flipped channel order), the same transpose is
        // walked from the last `a`, whose source elements are then ascending and whose destination rows step back by
        // `a_dst` (the gather tiles it took before read one element per source line per row).
        let (last, ad) = if a_src < 0 { ((na - 1) as isize, -a_dst) } else { (0, a_dst) };
        // SAFETY (both calls): AVX2 detected; element a' of the call from element (last, 0) with rows `ad` apart is
        // element a of the caller's ranges (a' = a forwards, na - 1 - a backwards), so it covers exactly the same
        // source and destination elements, each pixel's na elements ascending from its pointer.
        let (s, d) = (src.wrapping_offset(last * a_src), dst.wrapping_offset(last * a_dst));
        if x86::transpose_tiles_fit(na, nb, ad, T::SIZE) {
            // SAFETY: as above (a_src is one element, what the SIMD transpose assumes).
            unsafe { x86::transpose_avx2::<T>(s, d, na, ad, nb, b_src, ctx.nt, next) };
            return;
        }
        if x86::transpose_partner_fits(na, nb, ad, b_src, T::SIZE) {
            // Fewer rows than a tile: the table's partner tiles, pixel by pixel.
            // SAFETY: as above; the bytes between source elements lie inside the source range's allocation
            // (execute_raw's contract).
            unsafe { x86::transpose_partner::<T>(s, d, na, ad, nb, b_src, e, x86::Level::of(ctx.nt)) };
            return;
        }
        if x86::transpose_short_fits(na, nb, b_src, T::SIZE) {
            // Fewer rows than a tile otherwise: a tile of pixels loaded whole, the first `na` rows of its transpose
            // stored.
            // SAFETY: as above; the bytes between source elements lie inside the source range's allocation
            // (execute_raw's contract).
            unsafe { x86::transpose_short::<T>(s, d, na, ad, nb, b_src, x86::Level::of(ctx.nt)) };
            return;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2
        && a_src < -e
        && x86::transpose_partner_spaced_fits(na, nb, -a_src, -a_dst, b_src, T::SIZE)
    {
        // Rows of every second to fourth element read backwards (every third u16 of 169, reversed: sweep1_052 of
        // `--sweep 200 --seed 1`): the same transpose walked from the last `a`, whose rows then read forwards and
        // whose destination rows step back, through the partner tiles below; the gather tiles it took read one
        // element per source line per row.
        // SAFETY: AVX2 detected; element a' of the call from element na - 1 with strides -a_src, -a_dst is element
        // na - 1 - a' of the caller's ranges, so it covers exactly the same source and destination elements; the
        // bytes between source elements lie inside the source range's allocation (execute_raw's contract).
        unsafe {
            let last = (na - 1) as isize;
            let (s, d) = (src.wrapping_offset(last * a_src), dst.wrapping_offset(last * a_dst));
            x86::transpose_partner::<T>(s, d, na, -a_dst, nb, b_src, -a_src, x86::Level::of(ctx.nt))
        };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && x86::transpose_partner_spaced_fits(na, nb, a_src, a_dst, b_src, T::SIZE) {
        // Rows of every second to fourth element: the partner tiles gather a tile of rows per pixel with byte
        // shuffles, where the gather tiles read each row's elements one gather at a time. They request each row's
        // next line within the call (`dst_ahead`), not the next call's piece (`next`, the gather tiles' request).
        // SAFETY: AVX2 detected; same ranges (row a of pixel b at a * a_src + b * b_src); the bytes between source
        // elements lie inside the source range's allocation (execute_raw's contract).
        unsafe { x86::transpose_partner::<T>(src, dst, na, a_dst, nb, b_src, a_src, x86::Level::of(ctx.nt)) };
        return;
    }
    if a_src != e || ctx.simd != Simd::None {
        // SAFETY: the caller's contract.
        unsafe { gather_tiles::<T>(src, dst, na, a_src, a_dst, nb, b_src, ctx, next) };
        return;
    }
    const TILE: usize = 16;
    for a0 in (0..na).step_by(TILE) {
        for b0 in (0..nb).step_by(TILE) {
            for a in a0..(a0 + TILE).min(na) {
                for b in b0..(b0 + TILE).min(nb) {
                    let (a, b) = (a as isize, b as isize);
                    // SAFETY: (a, b) is inside the caller's ranges (a < na, b < nb).
                    unsafe {
                        dst.offset(a * a_dst + b * e)
                            .cast::<T>()
                            .write_unaligned(src.offset(a * a_src + b * b_src).cast::<T>().read_unaligned())
                    };
                }
            }
        }
    }
}

/// The gather tiles: blocks of [`gather_block`] elements of `b`; in each block, one gather (the gather kernel,
/// SIMD at small strides) per destination row `a`. Streaming stores are the gather kernel's: it streams only the
/// whole lines inside its piece, so pieces that share a line never mix streaming and ordinary stores on it. With
/// `next` ([`next_rows`]) and the rows in one block, each row requests its next piece before its gather.
///
/// # Safety
/// As for [`transpose`].
#[allow(clippy::too_many_arguments)] // the two dimensions' counts and strides
unsafe fn gather_tiles<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_src: isize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    ctx: Ctx,
    next: Option<isize>,
) {
    let e = T::SIZE;
    let block = gather_block(b_src, e);
    let next = next.filter(|_| nb <= block);
    // The requests are x86 only (`next_rows` gives none elsewhere).
    #[cfg(not(target_arch = "x86_64"))]
    let _ = next;
    // Source rows a line or more apart are a stream each, and the hardware prefetcher tracks only so many (Intel's
    // L2 streamer 32): beyond that, each row's next line is requested a line's worth of `a` ahead (see
    // [`gather_requesting`]).
    // (The planner's partners read 1-63 bytes apart; the bounds keep any other caller's numbers from dividing by 0.)
    let per_line = (64 / a_src.unsigned_abs().max(1)).max(1);
    let ahead = ctx.simd == Simd::Avx2 && b_src.unsigned_abs() > 64 && block.min(nb) > PREFETCH_STREAMS;
    let mut b0 = 0;
    while b0 < nb {
        let len = block.min(nb - b0);
        for a in 0..na as isize {
            // SAFETY: elements (a, b0 .. b0 + len) of the caller's ranges: `len` source elements `b_src` apart from
            // element (a, b0), `len` contiguous destination elements from element (a, b0); |b_src| >= e (the
            // requests of `gather_requesting` are hints).
            unsafe {
                let s = src.offset(a * a_src + b0 as isize * b_src);
                let d = dst.offset(a * a_dst + (b0 * e) as isize);
                #[cfg(target_arch = "x86_64")]
                if let Some(step) = next {
                    x86::prefetch_bytes_for_write(d.wrapping_offset(step), len * e);
                }
                ctx.bounds.debug_check_walks([(len, b_src), (1, 0)], e, s, [(len, e as isize), (1, 0)], e, d);
                match ahead && (a as usize).is_multiple_of(per_line) {
                    true => gather_requesting::<T>(s, d, len, b_src, per_line as isize * a_src, ctx.nt),
                    false => gather::<T>(s, d, len, b_src, ctx),
                }
            };
        }
        b0 += len;
    }
}

/// The scalar gather (`dst[i] = src[i * stride]`, `stride` beyond a line: the gather tiles' rows) requesting, with
/// each element, the line `at` bytes from it: the line the tiles read a line's worth of `a` later. Row gathers of
/// 2-byte elements three apart, 1142 bytes between rows, bottom-up (sweep1_052 of `--sweep 200 --seed 1`) waited
/// on a miss per row at each new line. Requested in one burst before the gather (up to 256 rows), the requests held
/// the line fill buffers the gather's own loads needed; one per element, they run beside them (ten-element-apart
/// f16 rows 104 KB apart, 116 of them, sweep1_037, in 0.62 of the time; nine such cases 0.89; six alternating
/// rounds, `docs/PERFORMANCE.md`, eighteenth round). A hint: it never faults, and past the last `a` it names lines
/// that are not read.
///
/// # Safety
/// As for the gather: the `n` source elements and `n` contiguous destination elements are valid; no overlap;
/// `|stride| >= size_of T`.
#[inline]
unsafe fn gather_requesting<T: Elem>(src: *const u8, dst: *mut u8, n: usize, stride: isize, at: isize, nt: bool) {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = nt;
    for i in 0..n {
        let p = src.wrapping_offset(i as isize * stride);
        #[cfg(target_arch = "x86_64")]
        x86::prefetch_line(p.wrapping_offset(at), x86::Level::of(nt));
        // SAFETY: element i of the caller's ranges: the source element at `i * stride` bytes and destination
        // element i of the n contiguous ones; the sides do not overlap.
        unsafe { dst.add(i * T::SIZE).cast::<T>().write_unaligned(p.cast::<T>().read_unaligned()) };
    }
    let _ = at;
}

/// The most source rows of a block the gather tiles leave to the hardware prefetcher. Fourteen rows read
/// backwards (sweep1_093) ran 0.47 -> 0.34 of the roofline with the requests, 256 rows 0.18 -> 0.35 (sweep1_052).
const PREFETCH_STREAMS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::footprint::Bounds;

    /// A call's context on `simd` with ordinary stores, its bounds the two buffers.
    fn ctx(esize: usize, simd: Simd, src: &[u8], dst: &[u8]) -> Ctx {
        let range = |b: &[u8]| (b.as_ptr() as usize, b.as_ptr() as usize + b.len());
        let bounds = Bounds { src: range(src), dst: range(dst) };
        Ctx { esize, simd, vbmi: false, nt: false, bounds, next: None }
    }

    #[test]
    fn the_next_piece_is_requested_when_the_loop_continues_rows_more_than_two_pieces_apart() {
        let c = ctx(2, Simd::Avx2, &[], &[]);
        // 117 rows of 40 f16 131040 bytes apart, continued by the loop around the call (sweep4_030's call).
        assert_eq!(next_rows(117, 131_040, 40, 2, Some(80), c), Some(80));
        assert_eq!(next_rows(28, -23_936, 64, 2, Some(128), c), Some(128));
        // Not continued, or on the portable kernels.
        assert_eq!(next_rows(117, 131_040, 40, 2, None, c), None);
        assert_eq!(next_rows(117, 131_040, 40, 2, Some(80), Ctx { simd: Simd::None, ..c }), None);
        // u64 rows 80 bytes apart written 40 bytes at a time (sweep2_038): the next pieces lie in the call's lines.
        assert_eq!(next_rows(816, 80, 5, 8, Some(40), c), None);
        assert_eq!(next_rows(816, 145, 5, 8, Some(40), c), Some(40));
        // Pieces longer than a KiB (sweep3_188), calls of more than 512 KiB (sweep4_036 untiled).
        assert_eq!(next_rows(475, 39_872, 623, 4, Some(2492), c), None);
        assert_eq!(next_rows(256, 1 << 20, 256, 4, Some(1024), c), Some(1024));
        assert_eq!(next_rows(20_951, 800, 25, 8, Some(200), c), None);
    }

    /// `steps` calls, each continuing every destination row by its piece as the loop around them does, with the
    /// next pieces requested, on every path of the transpose that requests them (the gather tiles, the chunked
    /// tiles, rows walked backwards, and the strips outside Miri): every element where the definition puts it and
    /// the padding of each row untouched.
    #[test]
    fn transposes_continued_by_their_loop_land_where_they_belong() {
        fn check<T: Elem>(na: usize, a_back: bool, a_src_elems: usize, nb: usize, simd: Simd) {
            let e = T::SIZE;
            let steps = 3;
            let piece = nb * e;
            let a_dst = steps * piece + 72; // more than two pieces and a line apart: the requests are made
            let a_src = (a_src_elems * e) as isize;
            let b_src = na as isize * a_src + 8; // pixels with a gap
            let s_step = nb as isize * b_src + 24; // the loop's source step does not continue the pixels
            let src: Vec<u8> = (0..(steps as isize * s_step) as usize).map(|i| (i * 7 + i / 253) as u8).collect();
            let mut dst = vec![0xEEu8; na * a_dst];
            let c = ctx(e, simd, &src, &dst);
            let on = Some(piece as isize);
            assert_eq!(next_rows(na, a_dst as isize, nb, e, on, c).is_some(), simd == Simd::Avx2);
            // Row a of the call starts at source byte a * a_src, or from the last row backwards.
            let (s0, d0, sa, da) = match a_back {
                false => (0, 0, a_src, a_dst as isize),
                true => ((na - 1) as isize * a_src, ((na - 1) * a_dst) as isize, -a_src, -(a_dst as isize)),
            };
            for j in 0..steps as isize {
                // SAFETY: call j's source element (a, b) at s0 + a sa + b b_src + j s_step lies inside `src` (the
                // last at (na - 1) a_src + (nb - 1) b_src + (steps - 1) s_step + e); its destination element at
                // d0 + a da + (j nb + b) e inside row a of `dst`; |b_src| >= e; no overlap.
                unsafe {
                    let (s, d) =
                        (src.as_ptr().offset(s0 + j * s_step), dst.as_mut_ptr().offset(d0 + j * piece as isize));
                    transpose::<T>(s, d, na, sa, da, nb, b_src, c, on)
                };
            }
            for a in 0..na {
                for j in 0..steps {
                    for b in 0..nb {
                        let at = a * a_src as usize + b * b_src as usize + j * s_step as usize;
                        let to = a * a_dst + (j * nb + b) * e;
                        assert_eq!(dst[to..to + e], src[at..at + e], "{e}-byte element ({a}, {j}, {b}), {simd:?}");
                    }
                }
                let pad = &dst[a * a_dst + steps * piece..(a + 1) * a_dst];
                assert!(pad.iter().all(|&x| x == 0xEE), "padding of row {a}");
            }
        }
        let simds: &[Simd] = match crate::kernels::dispatch::detect(true) {
            Simd::Avx2 => &[Simd::Avx2, Simd::None],
            Simd::None => &[Simd::None],
        };
        for &simd in simds {
            check::<u16>(9, false, 2, 10, simd); // every other element: the gather tiles
            check::<u16>(20, true, 3, 10, simd); // every third element backwards: the spaced partner tiles
            check::<u32>(8, true, 4, 9, simd); // every fourth u32 backwards
            check::<u32>(20, false, 1, 12, simd); // the chunked tiles
            check::<u32>(20, true, 1, 12, simd); // rows walked backwards
            check::<u64>(6, false, 1, 5, simd);
            if !cfg!(miri) {
                check::<u8>(1030, false, 1, 20, simd); // source rows of a KiB: the strips
            }
        }
    }
}
