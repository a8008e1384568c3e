//! The fill: one source element repeated over a contiguous destination (a broadcast innermost dimension).

use crate::kernels::footprint::{Footprint, HERE};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};

/// One call reads one element and writes `n` forwards.
pub(crate) fn footprint(n: usize, esize: usize) -> Footprint {
    Footprint { src: [HERE, HERE], dst: [(n, esize as isize), HERE] }
}

/// `dst[i] = src[0]` for `i in 0..n`.
///
/// # Safety
/// One element readable at `src`, `n` elements writable at `dst`, not overlapping.
pub(crate) unsafe fn fill<T: Elem>(src: *const u8, dst: *mut u8, n: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::fill_avx2::<T>(src, dst, n, ctx.nt) };
        return;
    }
    let _ = (ctx, Simd::None);
    // SAFETY: the footprint: one element at `src`, n elements at `dst`; no overlap.
    let (src, dst) =
        unsafe { (std::slice::from_raw_parts(src, T::SIZE), std::slice::from_raw_parts_mut(dst, n * T::SIZE)) };
    for d in dst.chunks_exact_mut(T::SIZE) {
        d.copy_from_slice(src);
    }
}

/// The shortest block [`fill_adjacent`] takes: a 32-byte chunk of the output then holds at most two calls' elements.
pub(crate) const ADJACENT_BLOCK_MIN: usize = 32;

/// The longest block of a fill loop that [`adjacent_loop`] takes whole.
///
/// Measured on an Intel Xeon (2 vCPUs, model 207, 2 MiB of L2 per core; `docs/PERFORMANCE.md`, fifty-third round), the
/// time ratios whole loop / call by call, per-case processes, alternating rounds, over the fill loops of `stridekit
/// bench --sweep 200 --sweep-max-bytes 64M` seeds 1-20 with adjacent blocks. With a test for a call boundary in every
/// 32 bytes (the first form of `x86::fill_adjacent_avx2`), blocks of 9-300 bytes 0.40-0.80 and 400-500 bytes
/// 0.79-0.87, but from about 700 bytes the calls won (92 u64 1.23, 1024-byte blocks 1.65), requests for writing 1 KiB
/// ahead or not (1.61 over 0.5-4 KiB). With the lines that lie inside one call stored without the test: the 26
/// loops of blocks up to 512 bytes 0.88 of the first form's time, those of 0.5-2 KiB about 0.83 of the calls'
/// (0.58-1.17), those of 2-4 KiB 1.0-1.26 (a call of 2 KiB or more requests its lines ahead of its stores,
/// `x86::store`).
pub(crate) const ADJACENT_LOOP_MAX_BYTES: usize = 2048;

/// Whether a loop of `steps` fills of `n` elements of `esize` bytes whose calls step `d` destination bytes runs
/// whole ([`fill_adjacent`]) when the stage does not take it (ordinary stores, or fewer calls than the stage's
/// least): the blocks adjacent and rising (`d` is one block), at most [`ADJACENT_LOOP_MAX_BYTES`], two calls or
/// more. Call by call, each fill of a few lines paid the loop's step, its requests and its own head and tail.
pub(crate) fn adjacent_loop(n: usize, esize: usize, steps: usize, d: isize) -> bool {
    let block = n.saturating_mul(esize);
    steps > 1 && block <= ADJACENT_LOOP_MAX_BYTES && usize::try_from(d).is_ok_and(|d| d == block)
}

/// The calls of a fill loop whose blocks are adjacent, not through the L1 stage: `steps` calls, call `i` writing `n`
/// copies of the element at `src + i * s` to `dst + i * n * T::SIZE`, each destination line assembled in registers
/// and stored whole, streamed when `ctx.nt` (`x86::fill_adjacent_avx2`). Returns whether it ran: with AVX2, blocks
/// of at least [`ADJACENT_BLOCK_MIN`] bytes and a destination at an element boundary (a host byte slice may start
/// anywhere, D10); the caller stages the calls, or makes them one by one, otherwise.
///
/// # Safety
/// The `steps` source elements are readable; the `steps * n * T::SIZE` bytes from `dst` are writable, inside the
/// checked output range, and overlap none of them.
pub(crate) unsafe fn fill_adjacent<T: Elem>(
    src: *const u8,
    s: isize,
    steps: usize,
    n: usize,
    dst: *mut u8,
    ctx: Ctx,
) -> bool {
    // The registers repeat the element from their first byte on: the destination must start on an element.
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2
        && (dst as usize).is_multiple_of(T::SIZE)
        && n * T::SIZE >= ADJACENT_BLOCK_MIN
        && steps > 0
    {
        // SAFETY: AVX2 detected; the caller's ranges; the block is long enough and the destination on an element.
        unsafe { x86::fill_adjacent_avx2::<T>(src, s, steps, n, dst, ctx.nt) };
        return true;
    }
    let _ = (src, s, steps, n, dst, ctx);
    false
}
