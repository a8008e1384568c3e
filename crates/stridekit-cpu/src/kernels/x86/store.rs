//! Store primitives of the AVX2 kernels: streaming (non-temporal) stores, which need an aligned destination,
//! the head that brings a destination to that alignment, and the fence that orders them.

use std::arch::x86_64::*;

/// Orders earlier non-temporal stores before later stores.
#[cfg(not(miri))]
pub(crate) fn sfence() {
    // SAFETY: SSE (and so `sfence`) is part of the x86_64 baseline.
    unsafe { _mm_sfence() };
}

/// A 32-byte streaming store. Under Miri, which cannot run the instruction (stdarch implements it with inline
/// assembly), an ordinary unaligned store with the same effect on memory.
///
/// # Safety
/// AVX2 is available; 32 bytes writable at `dst`, which is 32-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn stream32(dst: *mut u8, v: __m256i) {
    debug_assert!((dst as usize).is_multiple_of(32));
    #[cfg(not(miri))]
    // SAFETY: the caller's contract (aligned, writable).
    unsafe {
        _mm256_stream_si256(dst.cast(), v)
    };
    #[cfg(miri)]
    // SAFETY: the caller's contract (writable).
    unsafe {
        _mm256_storeu_si256(dst.cast(), v)
    };
}

/// Bytes to write with scalar code before `dst` is 32-byte aligned, at most `len`.
pub(crate) fn head_to_align(dst: *const u8, len: usize) -> usize {
    ((32 - (dst as usize & 31)) & 31).min(len)
}

/// How the 32-byte vector blocks of a kernel's region (from a 32-byte aligned `base`) are stored when streaming:
/// blocks `first..end` fill whole 64-byte lines, two blocks a line, and stream; the block before `first` and the one
/// from `end` on share their line with bytes outside the region (a scalar head or tail, or the neighbouring row's
/// call) and take ordinary stores. A line written partly with streaming and partly with ordinary stores costs about
/// 20x a whole streamed line on the development machine: its write-combining buffer is flushed partially and the
/// line is read for ownership again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WholeLines {
    pub first: usize,
    pub end: usize,
}

impl WholeLines {
    /// The split of `blocks` blocks from `base` (32-byte aligned).
    pub(crate) fn of(base: *const u8, blocks: usize) -> WholeLines {
        let first = usize::from(!(base as usize).is_multiple_of(64)).min(blocks);
        WholeLines { first, end: first + (blocks - first) / 2 * 2 }
    }
}

/// Stores the vector blocks `0..blocks` of the region at `base`, block `b` being `block(b)` (32 bytes at
/// `base + 32 b`): the whole lines of [`WholeLines`] streamed two blocks an iteration when `nt`, every other block
/// with ordinary unaligned stores. Blocks are produced and stored in rising order, or falling when `down` (the
/// reversed kernels, so that their sources are read at rising addresses). Without `nt`, a region of at least
/// [`WRITE_AHEAD_MIN_BLOCKS`] requests its lines [`WRITE_AHEAD_BYTES`] ahead of its stores. The decision is taken
/// once per region, not per store: a check per store cost the reverse kernel about a tenth of its speed (0.87-0.89
/// of a copy against 1.0 for the same loop without the check).
///
/// # Safety
/// AVX2 is available; `32 blocks` bytes writable at `base`, which is 32-byte aligned when `nt`; `block` is safe to
/// call with every `b < blocks`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn store_blocks(
    base: *mut u8,
    blocks: usize,
    nt: bool,
    down: bool,
    mut block: impl FnMut(usize) -> __m256i,
) {
    let lines = if nt { WholeLines::of(base, blocks) } else { WholeLines { first: blocks, end: blocks } };
    let ordinary = |b: usize, v: __m256i| {
        // SAFETY: block b < blocks is the 32 bytes at base + 32 b, inside the caller's region.
        unsafe { _mm256_storeu_si256(base.add(32 * b).cast(), v) }
    };
    let line = |b: usize, lo: __m256i, hi: __m256i| {
        // SAFETY: blocks b and b + 1 (first <= b < end, b - first even) are the whole 64-byte line at base + 32 b,
        // inside the caller's region and 64-byte aligned (WholeLines), so 32-byte aligned for both stores.
        unsafe {
            stream32(base.add(32 * b), lo);
            stream32(base.add(32 * b + 32), hi);
        }
    };
    if !nt && blocks >= WRITE_AHEAD_MIN_BLOCKS {
        let ahead = if down { -(WRITE_AHEAD_BYTES as isize) } else { WRITE_AHEAD_BYTES as isize };
        let request = |b: usize| {
            // A hint: it never faults (and past the region it names bytes that are never written).
            if b.is_multiple_of(2) {
                super::prefetch::prefetch_line_for_write(base.wrapping_add(32 * b).wrapping_offset(ahead));
            }
        };
        if down {
            for b in (0..blocks).rev() {
                request(b);
                ordinary(b, block(b));
            }
        } else {
            for b in 0..blocks {
                request(b);
                ordinary(b, block(b));
            }
        }
        return;
    }
    if down {
        for b in (lines.end..blocks).rev() {
            ordinary(b, block(b));
        }
        for b in (lines.first..lines.end).rev().step_by(2) {
            let hi = block(b);
            line(b - 1, block(b - 1), hi);
        }
        for b in (0..lines.first).rev() {
            ordinary(b, block(b));
        }
    } else {
        for b in 0..lines.first {
            ordinary(b, block(b));
        }
        for b in (lines.first..lines.end).step_by(2) {
            let lo = block(b);
            line(b, lo, block(b + 1));
        }
        for b in lines.end..blocks {
            ordinary(b, block(b));
        }
    }
}

/// The fewest vector blocks (2 KiB) of a region that [`store_blocks`] stores with requests ahead under ordinary
/// stores ([`WRITE_AHEAD_BYTES`]).
const WRITE_AHEAD_MIN_BLOCKS: usize = 64;

/// How far ahead of its ordinary stores [`store_blocks`] requests the lines it will write, with write intent. On
/// the Xeon of the thirty-second round (`docs/PERFORMANCE.md`) a store that missed waited for its line to be read
/// for ownership, even in a stream of stores the hardware prefetcher follows: fills of 0.3-5 MB that do not
/// stream ran in 0.5-0.85 of the time with these requests (2.4 MB of bytes 0.50-0.73, 4 MB of u32 0.58-0.74;
/// the 36 fills, reverses and gathers of seeds 1-4 that do not stream, two sets of four alternating rounds, 0.91
/// and 0.84).
const WRITE_AHEAD_BYTES: usize = 1024;

/// Stores 32 bytes, streaming when `nt` (then `dst` must be 32-byte aligned).
///
/// # Safety
/// AVX2 is available; 32 bytes writable at `dst`; aligned to 32 when `nt`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn store(dst: *mut u8, v: __m256i, nt: bool) {
    // SAFETY: the caller's contract.
    unsafe { if nt { stream32(dst, v) } else { _mm256_storeu_si256(dst.cast(), v) } }
}

/// A 16-byte streaming store (under Miri an ordinary store, as for [`stream32`]).
///
/// # Safety
/// 16 bytes writable at `dst`, which is 16-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn stream16(dst: *mut u8, v: __m128i) {
    debug_assert!((dst as usize).is_multiple_of(16));
    #[cfg(not(miri))]
    // SAFETY: the caller's contract (aligned, writable).
    unsafe {
        _mm_stream_si128(dst.cast(), v)
    };
    #[cfg(miri)]
    // SAFETY: the caller's contract (writable).
    unsafe {
        _mm_storeu_si128(dst.cast(), v)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under ordinary stores, a region long enough for the requests ahead: every block stored once, where it
    /// belongs, in rising order (falling when `down`), and nothing outside the region written.
    #[test]
    fn ordinary_stores_with_requests_ahead_write_each_block_in_order() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let blocks = WRITE_AHEAD_MIN_BLOCKS + 3;
        for down in [false, true] {
            let mut out = vec![0xEEu8; 32 * blocks + 64];
            let mut order = Vec::new();
            // SAFETY: AVX2 detected; 32 * blocks bytes of `out` from byte 32 (ordinary stores: no alignment needed).
            unsafe {
                store_blocks(out.as_mut_ptr().add(32), blocks, false, down, |b| {
                    order.push(b);
                    _mm256_set1_epi8(b as i8)
                })
            };
            let expected: Vec<usize> = if down { (0..blocks).rev().collect() } else { (0..blocks).collect() };
            assert_eq!(order, expected, "down {down}");
            for b in 0..blocks {
                assert!(out[32 + 32 * b..64 + 32 * b].iter().all(|&x| x == b as u8), "down {down}, block {b}");
            }
            assert!(out[..32].iter().chain(&out[32 + 32 * blocks..]).all(|&x| x == 0xEE), "down {down}");
        }
    }

    #[test]
    fn whole_lines_are_the_blocks_whose_line_the_region_covers() {
        for offset in [0usize, 32] {
            for blocks in 0..6 {
                let base = (4096 + offset) as *const u8;
                let lines = WholeLines::of(base, blocks);
                for b in 0..blocks {
                    let at = 4096 + offset + 32 * b;
                    let line = at & !63;
                    let whole = line >= 4096 + offset && line + 64 <= 4096 + offset + 32 * blocks;
                    assert_eq!(
                        whole,
                        (lines.first..lines.end).contains(&b),
                        "offset {offset}, {blocks} blocks, block {b}"
                    );
                }
                assert_eq!((lines.end - lines.first) % 2, 0);
            }
        }
    }
}
