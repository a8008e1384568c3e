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

/// `dst[a * a_dst + b] = src[a * a_src + b * b_src]` (element indices a, b; strides in bytes) in cache-sized tiles.
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
) {
    let e = T::SIZE as isize;
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
            unsafe { x86::transpose_avx2::<T>(s, d, na, ad, nb, b_src, ctx.nt) };
            return;
        }
        if x86::transpose_partner_fits(na, nb, ad, b_src, T::SIZE) {
            // Fewer rows than a tile: the table's partner tiles, pixel by pixel.
            // SAFETY: as above; the bytes between source elements lie inside the source range's allocation
            // (execute_raw's contract).
            unsafe { x86::transpose_partner::<T>(s, d, na, ad, nb, b_src) };
            return;
        }
        if x86::transpose_short_fits(na, nb, b_src, T::SIZE) {
            // Fewer rows than a tile otherwise: a tile of pixels loaded whole, the first `na` rows of its transpose
            // stored.
            // SAFETY: as above; the bytes between source elements lie inside the source range's allocation
            // (execute_raw's contract).
            unsafe { x86::transpose_short::<T>(s, d, na, ad, nb, b_src) };
            return;
        }
    }
    if a_src != e || ctx.simd != Simd::None {
        // SAFETY: the caller's contract.
        unsafe { gather_tiles::<T>(src, dst, na, a_src, a_dst, nb, b_src, ctx) };
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
/// whole lines inside its piece, so pieces that share a line never mix streaming and ordinary stores on it.
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
) {
    let e = T::SIZE;
    let block = gather_block(b_src, e);
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
                ctx.bounds.debug_check_walks([(len, b_src), (1, 0)], e, s, [(len, e as isize), (1, 0)], e, d);
                match ahead && (a as usize).is_multiple_of(per_line) {
                    true => gather_requesting::<T>(s, d, len, b_src, per_line as isize * a_src),
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
unsafe fn gather_requesting<T: Elem>(src: *const u8, dst: *mut u8, n: usize, stride: isize, at: isize) {
    for i in 0..n {
        let p = src.wrapping_offset(i as isize * stride);
        #[cfg(target_arch = "x86_64")]
        x86::prefetch_line(p.wrapping_offset(at));
        // SAFETY: element i of the caller's ranges: the source element at `i * stride` bytes and destination
        // element i of the n contiguous ones; the sides do not overlap.
        unsafe { dst.add(i * T::SIZE).cast::<T>().write_unaligned(p.cast::<T>().read_unaligned()) };
    }
    let _ = at;
}

/// The most source rows of a block the gather tiles leave to the hardware prefetcher. Fourteen rows read
/// backwards (sweep1_093) ran 0.47 -> 0.34 of the roofline with the requests, 256 rows 0.18 -> 0.35 (sweep1_052).
const PREFETCH_STREAMS: usize = 32;
